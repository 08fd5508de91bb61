"""One render of the live table replays the log once, however many audiences it words the log for."""

import pytest

from combat import fragments, services, store
from combat.rules import burn_bryte as bb
from combat.rules.core import WORDING, active_events
from combat.rules.dice import ScriptedDice
from tests.combat.helpers import unword, without_form_keys

pytestmark = pytest.mark.django_db


def test_a_render_reads_the_stored_words_and_an_unworded_log_is_replayed_once_for_every_audience(
    campaign, gm, pc, other_pc, npc, monkeypatch
):
    encounter = services.start_encounter(
        services.create_encounter(
            campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc, other_pc], enemies=[(npc, 2)]
        ),
        gm,
    )
    steps = [
        ("declare", {"enemy": f"npc{npc.pk}-1", "target": f"pc{pc.pk}", "text": "claw"}),
        ("adjust_health", {"target": f"pc{pc.pk}", "change": -1}),
        ("undo", {}),
        ("spend_collapse", {"enemy": f"npc{npc.pk}-2", "note": "SECRET-GM-ONLY"}),
        ("adjust_health", {"target": f"pc{other_pc.pk}", "change": -1}),
    ]
    for n, (name, data) in enumerate(steps):
        assert services.submit(encounter.pk, gm, name, data, f"k{n}", dice=ScriptedDice(())).ok, name
    encounter.refresh_from_db()
    state = store.load_state(encounter)
    alone = fragments.Renderer(encounter, state).for_gm(), fragments.Renderer(encounter, state).for_players()

    replayed = []
    evolve = bb.evolve
    monkeypatch.setattr(bb, "evolve", lambda s, event: replayed.append(event) or evolve(s, event))
    render = fragments.Renderer(encounter, state)
    together = render.for_gm(), render.for_players()
    # the same fragments as each audience rendered on its own
    assert [without_form_keys(h) for h in together] == [without_form_keys(h) for h in alone]
    assert "(undone)" in together[1] and "SECRET-GM-ONLY" in together[0] and "SECRET-GM-ONLY" not in together[1]
    assert replayed == []  # the words stored with each entry are read, nothing is replayed

    unword(encounter)  # as a log written before entries were worded
    render = fragments.Renderer(encounter, state)
    assert [without_form_keys(h) for h in (render.for_gm(), render.for_players())] == [
        without_form_keys(h) for h in together
    ]
    assert len(replayed) == len(active_events(store.load_log(encounter)))  # once, not once per audience


def test_words_stored_under_an_older_wording_are_not_shown(campaign, gm, pc, npc):
    """A sentence changed in a later release (say one that told players too much) is worded anew, not read."""
    encounter = services.start_encounter(
        services.create_encounter(campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm
    )
    for n, change in enumerate((-1, -1, 1)):
        assert services.submit(
            encounter.pk,
            gm,
            "adjust_health",
            {"target": f"pc{pc.pk}", "change": change},
            f"k{n}",
            dice=ScriptedDice(()),
        ).ok
    encounter.refresh_from_db()
    state = store.load_state(encounter)
    fresh = fragments.Renderer(encounter, state).for_players()
    encounter.events.update(players_text="Nivick has 3 Health left (GM-ONLY)", wording=WORDING - 1)
    assert fragments.Renderer(encounter, state).for_players() == fresh
    assert "GM-ONLY" not in fresh


def test_the_phone_shows_each_skills_exact_chance_before_rolling(campaign, gm, player, pc, npc):
    """Luwe's skills are d4s: 2d4 succeed 4·3/16 = 75%, 3d4 4·3·2/64 ≈ 38%, 4d4 24/256 ≈ 9%."""
    encounter = services.start_encounter(
        services.create_encounter(campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm
    )
    me = f"pc{pc.pk}"

    def act(user, name, faces=(), **data):
        act.n = getattr(act, "n", 0) + 1
        result = services.submit(encounter.pk, user, name, data, f"c{act.n}", dice=ScriptedDice(faces))
        assert result.ok, result.error

    def phone():
        encounter.refresh_from_db()
        return fragments.me_html(encounter, store.load_state(encounter), player.pk)

    act(gm, "declare", enemy=f"npc{npc.pk}-1", target=me, text="claw")
    act(gm, "start_players")
    act(player, "claim_turn", actor=me)
    assert "2d4 · <strong>75%</strong>" in phone()
    act(player, "skill_roll", faces=[1, 2], actor=me, skill="Athletics")
    assert "3d4 · <strong>38%</strong>" in phone() and "2d4 · <strong>75%</strong>" not in phone()
    act(player, "skill_roll", faces=[1, 2, 3], actor=me, skill="Stealth")
    assert "4d4 · <strong>9%</strong>" in phone()
