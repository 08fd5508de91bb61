"""The review's replay (issue 20): "step event by event, or jump round by round, and see the table as it was at
that moment ... Each moment has its own URL (`?at=<seq>`). A player sees the player's table of that moment; the GM
sees the GM's." and "Rendering a moment ... stays fast: checkpoints, not a full replay"."""

import itertools
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat import replay, services, store
from combat.rules import burn_bryte as bb
from combat.rules.core import active_events
from combat.rules.core import replay as replay_events
from combat.rules.dice import ScriptedDice
from tests.combat.test_checkpoints import play, start
from tests.combat.test_review import fought  # noqa: F401  (fixture)
from tests.conftest import examples

pytestmark = pytest.mark.django_db
KEYS = itertools.count()


def url(encounter, at=None):
    path = reverse("encounter_log", args=[encounter.campaign_id, encounter.pk])
    return path if at is None else f"{path}?at={at}"


def step(client, encounter, at):
    """A tap on a replay step: htmx asks for the replay section alone."""
    return client.get(url(encounter, at), headers={"HX-Request": "true", "HX-Target": "section#replay"})


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.sampled_from(["hurt", "heal", "secret", "enemy", "undo"]), min_size=1, max_size=30))
def test_the_state_of_every_moment_is_the_log_replayed_to_it(campaign, gm, pc, npc, monkeypatch, ops):
    """From the newest checkpoint, exactly what a replay of the whole log up to that entry gives (undone entries
    never happened); checkpoints come every 3 events here, so the logs cross many."""
    monkeypatch.setattr(store, "CHECKPOINT_EVERY", 3)
    encounter = start(campaign, gm, pc, npc)
    play(encounter, gm, pc, npc, ops)
    live = active_events(store.load_log(encounter))
    initial = store.load_initial(encounter)
    for moment in replay.moments(encounter, show_all=True)[0]:
        upto = [item for item in live if item.seq <= moment.seq]
        assert replay.state_at(encounter, moment.seq) == replay_events(bb.evolve, initial, upto)


def test_a_moment_replays_at_most_a_checkpoints_worth_of_events(campaign, gm, pc, npc, monkeypatch):
    """Checkpoints, not a full replay: moment 250 of a 300-event log evolves from the checkpoint at 200."""
    encounter = start(campaign, gm, pc, npc)
    play(encounter, gm, pc, npc, ["hurt", "heal"] * 150)
    assert encounter.version == 300 and encounter.checkpoints.count() == 3
    evolved = []
    real = bb.evolve
    monkeypatch.setattr(bb, "evolve", lambda state, event: evolved.append(event) or real(state, event))
    replay.state_at(encounter, 250)
    assert len(evolved) == 50


def test_stepping_shows_the_table_of_each_moment_and_its_log_line(fought, client, gm, pc, npc):
    client.force_login(gm)
    page = client.get(url(fought, 5)).content.decode()
    assert 'id="replay"' in page and "entry 5 of" in page
    moment = page[page.index('id="replay"') : page.index("</section>", page.index('class="replay-table"'))]
    assert "Luwe" in moment and "Round 1" in moment
    # The log line that made it so is the moment's, and it heads the table's log.
    assert "<strong>Luwe rolls Knowledge" in moment
    # The GM's table has no controls: a replay changes nothing.
    assert "<form" not in moment[moment.index('class="replay-table"') :] and "hx-swap-oob" not in moment
    # One step on: the htmx answer is the replay section alone.
    answer = step(client, fought, 6).content.decode()
    assert answer.lstrip().startswith('<section id="replay"') and "entry 6 of" in answer and "Timeline" not in answer
    assert "Luwe rolls Melee" in answer


def test_round_jumps_land_on_the_first_entry_of_a_round(fought):
    moments = replay.moments(fought, show_all=True)[0]
    starts = {}  # round -> number of its first moment, from a replay of the whole log
    for m in moments:
        starts.setdefault(replay.state_at(fought, m.seq).round, m.number)
    assert set(starts) == {1, 2}
    middle = replay.build(fought, True, str(starts[1] + 2))
    assert (middle.round, middle.round_back, middle.round_on) == (1, starts[1], starts[2])
    second = replay.build(fought, True, str(starts[2]))
    assert (second.round, second.round_back, second.round_on) == (2, starts[1], None)  # at its start: back a round
    assert second.round_title == "Round 2"


def test_a_moment_is_the_logs_seq_for_every_viewer_and_never_shows_a_player_a_gm_fact(fought, client, player, gm):
    """A link the GM shares opens the same moment for players: `?at=` is the event's seq for everyone. A player's
    steps go through the seqs they may read; a seq they may not read shows their latest moment before it, never
    the hidden entry, its log line or its table."""
    gm_moments = [m.seq for m in replay.moments(fought, show_all=True)[0]]
    mine = [m.seq for m in replay.moments(fought, show_all=False)[0]]
    assert [m.number for m in replay.moments(fought, show_all=False)[0]] == mine  # numbered by the log's seq
    hidden = sorted(set(gm_moments) - set(mine))
    assert hidden and set(mine) < set(gm_moments)  # the Collapse spending is the GM's alone
    client.force_login(player)
    for index, seq in enumerate(mine, 1):
        html = step(client, fought, seq).content.decode()
        assert "frenzy" not in html and "Collapse" not in html, seq
        assert f"entry {index} of {len(mine)}" in html
        if index < len(mine):  # "On" goes to the next seq the player may read, skipping the hidden ones
            assert f'?at={mine[index]}"' in html
    for seq in hidden:  # a seq shared by the GM: the player's moment before it, and the address bar says so
        answer = step(client, fought, seq)
        html, before = answer.content.decode(), max(s for s in mine if s < seq)
        assert f"entry {mine.index(before) + 1} of {len(mine)}" in html, seq
        assert answer["HX-Push-Url"] == url(fought, before)
        assert "Collapse" not in html and "frenzy" not in html
    # The same seq is the same moment for both: the GM's and the player's replays name the same log line.
    shared = mine[len(mine) // 2]
    player_line = re.search(r"<strong>(.*?)</strong>", step(client, fought, shared).content.decode()).group(1)
    client.force_login(gm)
    gm_html = step(client, fought, shared).content.decode()
    assert f"<strong>{player_line}</strong>" in gm_html
    assert "Collapse" in step(client, fought, hidden[0]).content.decode()


def test_the_slider_goes_through_a_players_own_entries_and_names_each_by_its_seq(fought, client, player):
    """The slider counts the viewer's entries (so a player's never stops on a seq hidden from them); the address
    bar then names the moment by its seq, as every link does."""
    mine = [m.seq for m in replay.moments(fought, show_all=False)[0]]
    client.force_login(player)
    for index, seq in enumerate(mine, 1):
        answer = client.get(url(fought) + f"?entry={index}", headers={"HX-Request": "true", "HX-Target": "replay"})
        html = answer.content.decode()
        assert f"entry {index} of {len(mine)}" in html and f'max="{len(mine)}" value="{index}"' in html
        assert answer["HX-Push-Url"] == url(fought, seq)
    assert f"entry {len(mine)} of" in step(client, fought, "").content.decode()
    sliding = client.get(url(fought) + "?entry=soon", headers={"HX-Request": "true", "HX-Target": "replay"})
    assert "That is not a moment of this log; here is its last one." in sliding.content.decode()


def test_a_moment_that_is_not_a_number_gets_a_sentence_and_the_last_moment(fought, client, player):
    client.force_login(player)
    html = step(client, fought, "soon").content.decode()
    assert "That is not a moment of this log; here is its last one." in html
    count = len(replay.moments(fought, show_all=False)[0])
    assert f"entry {count} of {count}" in html


def rounds(encounter, gm, pc, npc, count):
    """`count` Burn Bryte rounds: the PC is hurt and healed, the enemy declares and misses, the PC is skipped,
    and the round moves on."""
    luwe = f"pc{pc.pk}"
    for n in range(1, count + 1):
        for name, data in [
            *[("adjust_health", {"target": luwe, "change": -1}), ("adjust_health", {"target": luwe, "change": 1})] * 3,
            ("declare", {"enemy": f"npc{npc.pk}-1", "target": luwe, "text": "waits"}),
            ("start_players", {}),
            ("skip_turn", {"pc": luwe}),
            ("start_enemies", {}),
            ("resolve", {"declaration": n, "outcome": "missed"}),
            ("next_round", {}),
        ]:
            result = services.submit(encounter.pk, gm, name, data, f"r{next(KEYS)}", dice=ScriptedDice(()))
            assert result.ok, (name, result.error)
    encounter.refresh_from_db()


def test_a_step_reads_the_same_few_queries_however_long_the_log(campaign, gm, pc, npc, client):
    """A step reads the stored words, a checkpoint and the events of the rounds around it, never the whole log."""
    client.force_login(gm)
    counts = []
    for length in (30, 90):
        encounter = start(campaign, gm, pc, npc)
        rounds(encounter, gm, pc, npc, length)
        with CaptureQueriesContext(connection) as queries:
            answer = step(client, encounter, encounter.version // 2)
        assert answer.status_code == 200
        assert re.search(r'<a [^>]*>Round<span class="sr-only"> on</span>', answer.content.decode())  # a next round
        counts.append(len(queries))
    assert counts[0] == counts[1], counts


def test_an_outsider_gets_no_replay(fought, client, outsider):
    client.force_login(outsider)
    assert client.get(url(fought, 3)).status_code == 404
    assert step(client, fought, 3).status_code == 404
