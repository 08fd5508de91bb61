"""The replay over every stored fight of every model (issue 20: "scrub a finished fight in each model and check
the table of a moment against the state replayed to that seq; a player ... never see[s] a GM-only fact in the
replay"). Each fixture in tests/combat/fixtures/logs becomes a finished encounter, words and all; every moment is
drawn for the GM and for players."""

import json

import pytest

from combat import replay
from combat.models import Encounter, EncounterEvent
from combat.rules import registry
from combat.rules.core import WORDING, Logged, active_events, from_json
from combat.rules.core import replay as replay_events
from tests.combat.stored_logs import fixtures

pytestmark = pytest.mark.django_db


def stored_fight(path, campaign, gm) -> Encounter:
    data = json.loads(path.read_text())
    engine = registry.get(data["model"]).engine
    encounter = Encounter.objects.create(
        campaign=campaign,
        name=path.stem,
        model=data["model"],
        status=Encounter.Status.ENDED,
        initial=data["initial"],
        state=data["final"],
        version=len(data["events"]),
        created_by=gm,
    )
    EncounterEvent.objects.bulk_create(
        EncounterEvent(
            encounter=encounter,
            seq=row["seq"],
            batch=row["seq"],
            kind=row["payload"]["kind"],
            payload=row["payload"],
            audience=engine.CODEC.event_from_json(row["payload"]).audience,
            idempotency_key=f"k{row['seq']}",
            gm_text=gm_text,
            players_text=players_text,
            wording=WORDING,
        )
        for row, (gm_text, players_text) in zip(data["events"], data["words"], strict=True)
    )
    return encounter


@pytest.mark.parametrize("path", list(fixtures()), ids=lambda p: p.stem)
def test_every_moment_of_a_stored_fight_is_the_log_replayed_to_it_and_keeps_gm_facts_from_players(path, campaign, gm):
    data = json.loads(path.read_text())
    engine = registry.get(data["model"]).engine
    encounter = stored_fight(path, campaign, gm)
    log = [Logged(seq=row["seq"], event=engine.CODEC.event_from_json(row["payload"])) for row in data["events"]]
    live = active_events(log)
    initial = from_json(engine.State, data["initial"])
    for moment in replay.moments(encounter, show_all=True)[0]:
        upto = [item for item in live if item.seq <= moment.seq]
        assert replay.state_at(encounter, moment.seq) == replay_events(engine.evolve, initial, upto), moment
        drawn = replay.build(encounter, True, str(moment.number))
        assert drawn.moment == moment and "<form" not in drawn.table
    # Players: their moments, every one drawn without a word the GM alone reads.
    secrets = {gm_text for gm_text, players_text in data["words"] if gm_text and not players_text}
    mine = replay.moments(encounter, show_all=False)[0]
    assert [m.number for m in mine] == [m.seq for m in mine]  # the same ?at= as the GM's
    readable = [m.seq for m in mine]
    for row in data["events"]:  # every seq, theirs or one the GM shared: theirs, or their moment before it
        drawn = replay.build(encounter, False, str(row["seq"]))
        if drawn is None or row["seq"] < readable[0]:
            continue
        assert drawn.moment.seq == max(s for s in readable if s <= row["seq"])
        html = str(drawn.table) + drawn.entry.text
        assert not [s for s in secrets if s in html], (row["seq"], [s for s in secrets if s in html])
