"""Encounter services: the only writers. Idempotency, permissions, undo, end-of-encounter write-back, queries."""

import logging

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from combat import fragments, services, store
from combat.models import Encounter, EncounterEvent
from combat.rules import burn_bryte as bb
from combat.rules.core import from_json, replay
from combat.rules.dice import ScriptedDice

pytestmark = pytest.mark.django_db


def make_encounter(campaign, gm, pcs, npc, quantity=2, **settings):
    encounter = services.create_encounter(
        campaign, gm, name="Ambush", model="burn_bryte", pcs=pcs, enemies=[(npc, quantity)], settings=settings
    )
    return services.start_encounter(encounter, gm)


@pytest.fixture
def enc(campaign, gm, pc, other_pc, npc):
    pc.stats = {**pc.full_stats(), "skill_melee": 8, "health": 3, "nova_points": 1}
    pc.save()
    npc.stats = {**npc.full_stats(), "health": 1, "health_max": 1}
    npc.save()
    return make_encounter(campaign, gm, [pc, other_pc], npc)


def go(enc, user, name, key=None, dice=(), **data):
    go.n = getattr(go, "n", 0) + 1
    return services.submit(enc.pk, user, name, data, key or f"k{go.n}", dice=ScriptedDice(dice))


def to_phase_two(enc, gm, pc, npc):
    for n in (1, 2):
        assert go(enc, gm, "declare", enemy=f"npc{npc.pk}-{n}", target=f"pc{pc.pk}", text="claw").ok
    assert go(enc, gm, "start_players").ok


def state_of(enc):
    enc.refresh_from_db()
    return store.load_state(enc)


def test_builder_numbers_enemies_and_links_pcs(enc, pc, other_pc, npc, player):
    names = list(enc.combatants.values_list("name", "side", "key"))
    assert ("Nivick 1", "enemy", f"npc{npc.pk}-1") in names and ("Nivick 2", "enemy", f"npc{npc.pk}-2") in names
    state = store.load_state(enc)
    luwe = state.fighter(f"pc{pc.pk}")
    assert luwe.owner == player.pk and luwe.skills["Melee"] == 8 and luwe.nova_points == 1
    assert state.collapse == 2 and state.advantages == 0 and (state.round, state.phase) == (1, 1)


def test_same_key_twice_makes_one_event(enc, gm, pc, npc):
    first = go(enc, gm, "declare", key="tap", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}")
    second = go(enc, gm, "declare", key="tap", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}")
    assert first.ok and second.ok and second.duplicate and second.seqs == first.seqs
    assert EncounterEvent.objects.filter(encounter=enc).count() == 1


def test_a_clash_that_is_not_the_key_is_an_error_not_a_done_action(enc, gm, pc, npc, monkeypatch):
    """Only a race on the sender's own key is answered "done": any other clash while writing stores nothing and is
    raised (a server error the phone can retry), never reported as taken."""
    from django.db import IntegrityError

    def clash(*args, **kwargs):
        raise IntegrityError("one_event_per_seq")

    monkeypatch.setattr(services, "_append", clash)
    with pytest.raises(IntegrityError):
        go(enc, gm, "declare", key="tap", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}")
    assert not EncounterEvent.objects.filter(encounter=enc).exists()


def test_a_refusal_is_a_sentence_and_changes_nothing(enc, gm, pc, npc):
    result = go(enc, gm, "claim_turn", actor=f"pc{pc.pk}")
    assert not result.ok and result.error == "Player characters take their turns in Phase 2."
    enc.refresh_from_db()
    assert enc.version == 0 and not enc.events.exists()


def test_players_act_only_for_their_own_characters(enc, gm, player, other_player, pc, npc):
    to_phase_two(enc, gm, pc, npc)
    refused = go(enc, other_player, "claim_turn", actor=f"pc{pc.pk}")
    assert not refused.ok and refused.error == "You can act only for your own character."
    assert not go(enc, player, "start_enemies").ok
    assert go(enc, player, "declare", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}").error == "Only the GM can do that."
    assert go(enc, player, "undo").error == "Only the GM can undo."
    assert go(enc, player, "claim_turn", actor=f"pc{pc.pk}").ok
    assert state_of(enc).turn == f"pc{pc.pk}"


def test_the_gm_may_act_for_anyone(enc, gm, pc, npc):
    to_phase_two(enc, gm, pc, npc)
    assert go(enc, gm, "claim_turn", actor=f"pc{pc.pk}").ok


def test_non_members_cannot_act(enc, outsider, pc):
    result = go(enc, outsider, "claim_turn", actor=f"pc{pc.pk}")
    assert not result.ok and result.error == "No such encounter."


@pytest.mark.parametrize(
    "name,data,sentence",
    [
        ("fly", {}, "That is not an action this combat model knows."),
        ("skill_roll", {"actor": 3}, "Roll a skill arrived with missing or wrong values."),
        ("declare", {"enemy": "nobody", "target": "nobody"}, "That combatant is not in this encounter."),
    ],
)
def test_junk_commands_get_sentences(enc, gm, name, data, sentence):
    result = services.submit(enc.pk, gm, name, data, "junk")
    assert not result.ok and result.error == sentence
    assert not enc.events.exists()


def test_missing_key_is_refused(enc, gm):
    assert services.submit(enc.pk, gm, "start_players", {}, "").error.startswith("This action arrived without its key")


def test_form_values_are_coerced_or_refused(enc, gm, pc, npc):
    to_phase_two(enc, gm, pc, npc)
    go(enc, gm, "claim_turn", actor=f"pc{pc.pk}")
    bad = services.submit(enc.pk, gm, "free_move", {"actor": f"pc{pc.pk}", "squares": "lots"}, "m1", from_form=True)
    assert bad.error == "Squares must be a whole number."
    ok = services.submit(enc.pk, gm, "free_move", {"actor": f"pc{pc.pk}", "squares": "3"}, "m2", from_form=True)
    assert ok.ok


def test_snapshot_equals_replay_of_the_log(enc, gm, player, pc, npc):
    to_phase_two(enc, gm, pc, npc)
    go(enc, player, "claim_turn", actor=f"pc{pc.pk}")
    go(
        enc,
        player,
        "skill_roll",
        dice=[1, 2],
        actor=f"pc{pc.pk}",
        skill="Melee",
        intent="attack",
        target=f"npc{npc.pk}-1",
    )
    go(enc, player, "skill_roll", dice=[3, 3, 4], actor=f"pc{pc.pk}", skill="Melee", intent="other")
    go(enc, gm, "resolve_failure", choice="collapse")
    enc.refresh_from_db()
    replayed = replay(bb.evolve, store.load_initial(enc), store.load_log(enc))
    assert replayed == store.load_state(enc)
    assert replayed.collapse == 3 and replayed.fighter(f"npc{npc.pk}-1").health == 0


def test_undo_appends_and_restores(enc, gm, player, pc, npc):
    to_phase_two(enc, gm, pc, npc)
    go(enc, player, "claim_turn", actor=f"pc{pc.pk}")
    before = state_of(enc)
    rows_before = EncounterEvent.objects.filter(encounter=enc).count()
    go(
        enc,
        player,
        "skill_roll",
        dice=[1, 2],
        actor=f"pc{pc.pk}",
        skill="Melee",
        intent="attack",
        target=f"npc{npc.pk}-1",
    )
    assert state_of(enc).fighter(f"npc{npc.pk}-1").health == 0
    assert go(enc, gm, "undo").ok
    assert state_of(enc) == before
    rows = EncounterEvent.objects.filter(encounter=enc).order_by("seq")
    assert rows.count() == rows_before + 2  # the roll stays in the log, plus the Undone marker
    assert rows.last().kind == "undone"
    log = fragments.table_html(enc, state_of(enc), gm=True)
    assert "<s>Ballallanava rolls Melee" not in log  # (sanity: the PC is Luwe)
    assert "<s>Luwe rolls Melee" in log and "(undone)" in log


def test_undo_with_nothing_to_undo(enc, gm):
    assert go(enc, gm, "undo").error == "There is nothing to undo."


def test_ending_writes_back_what_persists(enc, gm, player, pc, npc):
    to_phase_two(enc, gm, pc, npc)
    go(enc, player, "claim_turn", actor=f"pc{pc.pk}")
    go(enc, player, "skill_roll", dice=[1, 2], actor=f"pc{pc.pk}", skill="Melee", intent="advantage")
    go(enc, player, "end_turn", actor=f"pc{pc.pk}")
    go(enc, gm, "adjust_health", target=f"pc{pc.pk}", change=-3)  # down to 0: gains a minor condition
    assert state_of(enc).advantages == 1
    assert go(enc, gm, "end_encounter").ok
    pc.refresh_from_db()
    assert pc.stats["health"] == 0 and pc.stats["neg_minor"] == "?"
    assert pc.stats["nova_box_d8"] is True  # the Melee roll ticked the d8 box
    assert "advantages" not in pc.stats and "collapse" not in pc.stats
    enc.refresh_from_db()
    assert enc.status == Encounter.Status.ENDED
    assert go(enc, gm, "declare", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}").error == "This encounter has ended."


def test_ending_is_in_the_log_once_even_when_tapped_twice(enc, gm, player, pc, npc):
    go(enc, gm, "adjust_health", target=f"pc{pc.pk}", change=-1)
    first = go(enc, gm, "end_encounter", key="end-1")
    again = go(enc, gm, "end_encounter", key="end-1")
    assert first.ok and again.ok and again.duplicate and again.seqs == first.seqs
    enc.refresh_from_db()
    assert list(enc.events.values_list("kind", flat=True)) == ["health_adjusted", "encounter_ended"]
    assert enc.version == 2
    assert replay(bb.evolve, from_json(bb.State, enc.initial), store.load_log(enc)) == store.load_state(enc)
    for html in (fragments.for_gm(enc, store.load_state(enc)), fragments.for_players(enc, store.load_state(enc))):
        assert "The GM ended the encounter." in html


def test_ended_sheet_still_validates_in_the_character_form(enc, gm, pc, npc):
    go(enc, gm, "adjust_health", target=f"pc{pc.pk}", change=-3)
    go(enc, gm, "end_encounter")
    pc.refresh_from_db()
    pc.full_clean()


def test_queries_per_action_do_not_grow_with_combatants(
    campaign, gm, pc, other_pc, npc, django_capture_on_commit_callbacks
):
    def queries_for(quantity):
        enc = make_encounter(campaign, gm, [pc, other_pc], npc, quantity=quantity)
        go(enc, gm, "declare", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}")
        with CaptureQueriesContext(connection) as submit_q:
            with django_capture_on_commit_callbacks(execute=False):
                go(enc, gm, "declare", enemy=f"npc{npc.pk}-2", target=f"pc{pc.pk}")
        with CaptureQueriesContext(connection) as render_q:
            enc.refresh_from_db()
            state = store.load_state(enc)
            fragments.for_gm(enc, state)
            fragments.for_players(enc, state)
            fragments.me_html(enc, state, pc.owner_id)
        return len(submit_q), len(render_q)

    assert queries_for(2) == queries_for(40)


def test_broadcast_runs_after_commit_with_each_audience(
    enc, gm, pc, other_pc, npc, broadcasts, django_capture_on_commit_callbacks
):
    sent = broadcasts
    with django_capture_on_commit_callbacks(execute=True):
        go(enc, gm, "declare", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}", text="claw")
    # The players first (their phones wait on it), then the GMs; one message each.
    assert [g for g, _ in sent] == [f"enc-{enc.pk}-players", f"enc-{enc.pk}-gm"]
    players, gms = sent[0][1], sent[1][1]
    assert "claw" in players["html"] and "Collapse" not in players["html"] and "GM controls" not in players["html"]
    # Each PC owner's own controls, keyed by user id: Luwe's sheet for her player, Furo's for his.
    mine, theirs = str(pc.owner_id), str(other_pc.owner_id)
    assert sorted(players["own"]) == sorted([mine, theirs])
    assert "<h2>Luwe</h2>" in players["own"][mine] and "<h2>Luwe</h2>" not in players["own"][theirs]
    assert "<h2>Furo</h2>" in players["own"][theirs]
    assert not any("Collapse" in html for html in players["own"].values())
    assert "Collapse" in gms["html"] and gms["own"] == {}
    assert players["version"] == gms["version"] == 1


def test_the_players_frames_leave_before_the_gms_table_is_rendered(
    enc, gm, pc, npc, broadcasts, monkeypatch, django_capture_on_commit_callbacks
):
    sent_when_gm_rendered = []
    for_gm = fragments.Renderer.for_gm

    def recording(self):
        sent_when_gm_rendered.append([group for group, _ in broadcasts])
        return for_gm(self)

    monkeypatch.setattr(fragments.Renderer, "for_gm", recording)
    with django_capture_on_commit_callbacks(execute=True):
        go(enc, gm, "declare", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}", text="claw")
    # The phones wait on no GM render: the players' message is sent before the GM's table is rendered.
    assert sent_when_gm_rendered[0] == [f"enc-{enc.pk}-players"]
    assert [group for group, _ in broadcasts] == [f"enc-{enc.pk}-players", f"enc-{enc.pk}-gm"]


def test_a_broken_gm_render_still_updates_the_players(
    enc, gm, pc, npc, broadcasts, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    def broken(self):
        raise RuntimeError("template blew up")

    monkeypatch.setattr(fragments.Renderer, "for_gm", broken)
    with caplog.at_level(logging.ERROR, logger="combat.broadcast"), django_capture_on_commit_callbacks(execute=True):
        result = go(enc, gm, "declare", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}", text="claw")
    assert result.ok
    assert [group for group, _ in broadcasts] == [f"enc-{enc.pk}-players"]
    assert "claw" in broadcasts[0][1]["html"]
    assert "could not render fragments" in caplog.text and "GM's table" in caplog.text


def test_a_dead_channel_layer_loses_nothing(enc, gm, pc, npc, monkeypatch, django_capture_on_commit_callbacks):
    class Down:
        async def group_send(self, group, message):
            raise ConnectionError("redis is down")

    monkeypatch.setattr("combat.broadcast.get_channel_layer", lambda: Down())
    with django_capture_on_commit_callbacks(execute=True):
        result = go(enc, gm, "declare", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}")
    assert result.ok
    enc.refresh_from_db()
    assert enc.version == 1 and enc.events.count() == 1


def test_enemy_health_follows_the_campaign_setting(enc, gm, pc, npc, campaign):
    npc.stats = {**npc.full_stats(), "health": 3, "health_max": 3}
    npc.save()
    enc = make_encounter(campaign, gm, [pc], npc, quantity=1)
    go(enc, gm, "adjust_health", target=f"npc{npc.pk}-1", change=-1)
    state = state_of(enc)
    for setting, shown, hidden in (
        ("exact", "2/3 HL", None),
        ("descriptor", "hurt", "2/3 HL"),
        ("none", None, "2/3 HL"),
    ):
        campaign.enemy_health_visibility = setting
        campaign.save()
        enc.refresh_from_db()
        html = fragments.for_players(enc, state)
        if shown:
            assert shown in html
        if hidden:
            assert hidden not in html


def test_queries_do_not_grow_with_the_log(enc, gm, pc, npc):
    def render_queries():
        enc.refresh_from_db()
        state = store.load_state(enc)
        with CaptureQueriesContext(connection) as q:
            fragments.Renderer(enc, state).for_gm()
            store.load_log(enc)
        return len(q)

    go(enc, gm, "declare", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}")
    few = render_queries()
    for n in range(30):
        go(enc, gm, "adjust_health", target=f"pc{pc.pk}", change=1 if n % 2 else -1)
    assert render_queries() == few
