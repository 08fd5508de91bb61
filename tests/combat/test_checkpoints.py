"""The live table's log: stored words, and log checkpoints for a log without them.

Every entry is worded as it is written; the live table reads those words. A log without them (written before
entries were worded, or imported) is worded by replaying it, and then a render replays only the log's tail,
from a checkpoint, worded exactly as a replay of the whole log. services writes a LogCheckpoint each time the
log passes a multiple of CHECKPOINT_EVERY entries; an undo that reaches back to a checkpoint deletes it. Here
CHECKPOINT_EVERY is small, so short logs cross many of them."""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat import fragments, selectors, services, store
from combat.models import LogCheckpoint
from combat.rules import burn_bryte as bb
from combat.rules.core import active_events, replay, to_json
from combat.rules.dice import ScriptedDice
from tests.combat.helpers import unword, without_form_keys
from tests.conftest import examples

pytestmark = pytest.mark.django_db

OPS = st.lists(st.sampled_from(["hurt", "heal", "secret", "undo", "undo"]), min_size=1, max_size=40)
KEYS = itertools.count()


def play(encounter, gm, pc, npc, ops):
    for n, op in enumerate(ops):
        name, data = {
            "hurt": ("adjust_health", {"target": f"pc{pc.pk}", "change": -1}),
            "heal": ("adjust_health", {"target": f"pc{pc.pk}", "change": 1}),
            "secret": ("spend_collapse", {"enemy": f"npc{npc.pk}-1", "note": f"SECRET {n}"}),  # GM-only (2 at most)
            "enemy": ("adjust_health", {"target": f"npc{npc.pk}-1", "change": -1 if n % 2 else 1}),
            "undo": ("undo", {}),
        }[op]
        services.submit(encounter.pk, gm, name, data, f"k{next(KEYS)}", dice=ScriptedDice(()))  # refusals too
    encounter.refresh_from_db()


def start(campaign, gm, pc, npc):
    return services.start_encounter(
        services.create_encounter(campaign, gm, name="Long fight", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm
    )


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS, limit=st.integers(1, 6))
def test_the_tail_from_a_checkpoint_is_worded_as_the_whole_log(campaign, gm, pc, npc, monkeypatch, ops, limit):
    monkeypatch.setattr(store, "CHECKPOINT_EVERY", 3)
    encounter = start(campaign, gm, pc, npc)
    play(encounter, gm, pc, npc, ops)
    live = active_events(store.load_log(encounter))  # as the log stands now, undos and all
    for seq, state in encounter.checkpoints.values_list("seq", "state"):  # each: the live entries up to it
        upto = [item for item in live if item.seq <= seq]
        assert state == to_json(replay(bb.evolve, store.load_initial(encounter), upto))
    tail_start, tail = store.load_log_tail(encounter, keep=2 * limit)
    for gm_view in (True, False):
        whole = selectors.log_view(encounter, gm_view, limit=limit, log=store.load_log(encounter))
        assert selectors.log_view(encounter, gm_view, limit=limit, log=tail, start=tail_start) == whole


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ops=st.lists(st.sampled_from(["hurt", "heal", "secret", "enemy", "undo"]), min_size=1, max_size=30),
    limit=st.integers(1, 8),
)
def test_the_stored_words_are_the_words_a_replay_of_the_log_gives(campaign, gm, pc, npc, monkeypatch, ops, limit):
    """Each viewer's newest entries read the same from the words stored as they were written as from a replay of
    the whole log: the same entries, the same sentences, the same undone marks. (An entry an undo took back
    keeps the words it was written with; a replay words it against the state now before it, which a later undo
    of an earlier action may have changed: only live entries and markers are compared word for word.)"""
    worded = bb.describe
    monkeypatch.setattr(
        bb,
        "describe",
        lambda state, event, gm=True: (  # enemies' health: the GM's alone
            None
            if not gm and event.kind == "health_adjusted" and event.target.startswith("npc")
            else worded(state, event, gm)
        ),
    )
    encounter = start(campaign, gm, pc, npc)
    play(encounter, gm, pc, npc, ops)
    for gm_view in (True, False):
        stored = selectors.log_view(encounter, gm_view, limit=limit)
        replayed = selectors.log_view(encounter, gm_view, limit=limit, log=store.load_log(encounter))
        assert [(e.seq, e.undone, e.gm_only) for e in stored] == [(e.seq, e.undone, e.gm_only) for e in replayed]
        assert [e.text for e in stored if not e.undone] == [e.text for e in replayed if not e.undone]
        if not gm_view:
            assert not any("SECRET" in e.text for e in stored)


def test_a_long_log_is_read_in_its_words_and_without_them_replayed_from_its_newest_checkpoint(
    campaign, gm, pc, npc, monkeypatch
):
    encounter = start(campaign, gm, pc, npc)
    play(encounter, gm, pc, npc, ["hurt", "heal"] * 160)  # 320 entries
    assert list(encounter.checkpoints.values_list("seq", flat=True)) == [100, 200, 300]
    state = store.load_state(encounter)
    replayed = []
    evolve = bb.evolve
    monkeypatch.setattr(bb, "evolve", lambda s, event: replayed.append(event) or evolve(s, event))
    render = fragments.Renderer(encounter, state)
    html = [without_form_keys(h) for h in (render.for_gm(), render.for_players())]
    assert replayed == []  # the stored words: nothing replayed
    unword(encounter)
    render = fragments.Renderer(encounter, state)
    assert [without_form_keys(h) for h in (render.for_gm(), render.for_players())] == html
    assert len(replayed) == 320 - 200  # from the checkpoint after entry 200: the last 120 entries are worded
    LogCheckpoint.objects.filter(encounter=encounter).delete()
    replayed.clear()
    render = fragments.Renderer(encounter, state)
    # the same table as a replay of the whole log
    assert [without_form_keys(h) for h in (render.for_gm(), render.for_players())] == html
    assert len(replayed) == 320


def test_an_undo_reaching_back_past_a_checkpoint_deletes_it(campaign, gm, pc, npc):
    encounter = start(campaign, gm, pc, npc)
    play(encounter, gm, pc, npc, ["hurt", "heal"] * 50)  # entries 1..100: a checkpoint after the 100th
    assert list(encounter.checkpoints.values_list("seq", flat=True)) == [100]
    play(encounter, gm, pc, npc, ["undo"])  # undoes entry 100 itself
    assert not encounter.checkpoints.exists()
    assert store.load_log_tail(encounter, keep=0) == (None, store.load_log(encounter))


def test_a_viewer_who_sees_little_of_the_tail_gets_entries_from_before_it(campaign, gm, pc, npc, monkeypatch):
    """If players may read none of the tail after the checkpoint, their log still shows the newest entries they
    may read, from before the checkpoint."""
    worded = bb.describe
    monkeypatch.setattr(
        bb,
        "describe",
        lambda state, event, gm=True: (  # say enemies' health is the GM's alone
            None
            if not gm and event.kind == "health_adjusted" and event.target.startswith("npc")
            else worded(state, event, gm)
        ),
    )
    encounter = start(campaign, gm, pc, npc)
    play(encounter, gm, pc, npc, ["hurt", "heal"] * 20 + ["enemy"] * 240)
    stored = selectors.log_view(encounter, False)  # in the stored words: one query finds them
    assert len(stored) == selectors.LOG_LIMIT and all("Luwe" in e.text for e in stored)
    unword(encounter)
    start_state, tail = store.load_log_tail(encounter, keep=selectors.LOG_WINDOW)
    assert start_state is not None and {item.event.target[:3] for item in tail} == {"npc"}
    players = selectors.log_view(encounter, False, log=tail, start=start_state)
    assert len(players) == selectors.LOG_LIMIT and all("Luwe" in e.text for e in players)
    assert players == selectors.log_view(encounter, False) == stored
