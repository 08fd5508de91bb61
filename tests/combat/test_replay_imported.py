"""An imported fight, and a fight stored before checkpoints and stored words, replay as cheaply as a live one
(issue 20: "Rendering a moment ... stays fast: checkpoints, not a full replay"). An import writes what play
writes: each entry's words (against the state it was applied to in play) and a checkpoint every CHECKPOINT_EVERY
entries; migration 0014 gives them to the fights stored without them."""

import importlib
import io
import json

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat import exports, replay, store
from combat.models import Encounter, LogCheckpoint
from combat.rules import burn_bryte as bb
from combat.rules.core import active_events, from_json
from combat.rules.core import replay as replay_events
from tests.combat.test_checkpoints import play, start
from tests.combat.test_replay import rounds, step
from tests.conftest import examples

pytestmark = pytest.mark.django_db
fill = importlib.import_module("combat.migrations.0014_log_aids_for_older_fights").fill


def imported(encounter, campaign, gm) -> Encounter:
    out = io.StringIO()
    exports.write_json(encounter, True, out)
    return exports.import_encounter(campaign, gm, json.loads(out.getvalue()))


def words(encounter) -> list[tuple]:
    return list(encounter.events.order_by("seq").values_list("seq", "gm_text", "players_text", "wording"))


def check_checkpoints(encounter) -> None:
    """Every checkpoint is the state after the entries live at the end of the log up to it, one each
    CHECKPOINT_EVERY entries."""
    live = active_events(store.load_log(encounter))  # an entry undone later never happened, before it either
    initial = store.load_initial(encounter)
    kept = dict(encounter.checkpoints.values_list("seq", "state"))
    assert sorted(kept) == list(range(store.CHECKPOINT_EVERY, encounter.version + 1, store.CHECKPOINT_EVERY))
    for seq, state in kept.items():
        assert from_json(bb.State, state) == replay_events(bb.evolve, initial, [i for i in live if i.seq <= seq])


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.sampled_from(["hurt", "heal", "secret", "enemy", "undo", "undo"]), min_size=1, max_size=30))
def test_an_import_words_each_entry_as_play_did_and_keeps_checkpoints(campaign, gm, pc, npc, monkeypatch, ops):
    """Undone entries too (an undo of an undo's batch before it): each is worded against the state play had."""
    monkeypatch.setattr(store, "CHECKPOINT_EVERY", 3)
    live = start(campaign, gm, pc, npc)
    play(live, gm, pc, npc, ops)
    copy = imported(live, campaign, gm)
    assert words(copy) == words(live)
    assert copy.players_version == live.players_version
    check_checkpoints(copy)


def test_an_imported_fights_step_reads_the_same_few_queries_as_a_live_fights(campaign, gm, pc, npc, client):
    client.force_login(gm)
    live = start(campaign, gm, pc, npc)
    rounds(live, gm, pc, npc, 30)  # 360 entries: checkpoints at 100, 200 and 300
    copy = imported(live, campaign, gm)
    counts = []
    for encounter in (live, copy):
        with CaptureQueriesContext(connection) as queries:
            answer = step(client, encounter, encounter.version // 2)
        assert answer.status_code == 200 and "Round 15" in answer.content.decode()
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
    evolved, real = [], bb.evolve
    with pytest.MonkeyPatch.context() as patch:  # from the checkpoint at 300: never the whole log
        patch.setattr(bb, "evolve", lambda state, event: evolved.append(event) or real(state, event))
        replay.state_at(copy, 350)
    assert 0 < len(evolved) <= 50


def test_the_migration_gives_an_older_fight_its_words_and_checkpoints(campaign, gm, pc, npc):
    live = start(campaign, gm, pc, npc)
    play(live, gm, pc, npc, ["hurt", "secret", "heal", "undo", "enemy"] * 50)
    before = words(live)
    older = start(campaign, gm, pc, npc)  # as stored before 0006 and 0007: no words, no checkpoints
    play(older, gm, pc, npc, ["hurt", "heal"] * 60)
    older.events.update(gm_text=None, players_text=None, wording=None)
    older.checkpoints.all().delete()
    assert live.version > 120
    live.events.filter(seq__gt=120).update(gm_text=None, players_text=None, wording=None)  # worded in part
    LogCheckpoint.objects.filter(encounter=live).delete()
    fill(apps, None)
    assert words(live) == before
    assert all(wording is not None for *_, wording in words(older))
    for encounter in (live, older):
        check_checkpoints(encounter)
