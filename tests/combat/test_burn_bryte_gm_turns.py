"""Burn Bryte turn order on the GM's screen and the phones (issue 18): skip an absent player's PC before Phase 3,
a PC dropped to 0 mid-turn loses their controls, and the GM's screen rescues a failed roll from the party pool."""

import re

import pytest

from combat import fragments, services, store
from tests.combat.helpers import combatant_key as key
from tests.combat.helpers import state_of
from tests.combat.test_burn_bryte_phone import (  # noqa: F401 (fixtures)
    enc,
    furo,
    go,
    luwe,
    me,
    sniper,
    to_phase_2,
    waiting,
)

pytestmark = pytest.mark.django_db


def gm_page(enc) -> str:
    enc.refresh_from_db()
    return fragments.gm_html(enc, store.load_state(enc))


def form_data(page: str, command: str) -> dict[str, str]:
    """The hidden fields of the first form posting `command`, as the browser would send them."""
    form = re.search(rf'<form[^>]*>(?:(?!</form>).)*value="{command}"(?:(?!</form>).)*</form>', page, re.S).group(0)
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))
    return {k: v for k, v in fields.items() if k not in ("command", "key", "csrfmiddlewaretoken")}


def last_words(enc, n=1) -> list[str]:
    return [e.players_text for e in enc.events.order_by("-seq")[:n]]


def test_the_gm_skips_an_absent_players_pc_before_phase_three(enc, gm, player, luwe, furo, npc):
    """Seed: "...and so on until all the characters have taken a turn." Furo's player is away tonight."""
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    page = gm_page(enc)
    assert "Start Phase 3" not in page
    assert "PCs still to act: Luwe, Furo." in page and "Skip this round" in page
    result = services.submit(enc.pk, gm, "start_enemies", {}, "early", from_form=True)
    assert not result.ok and result.error.startswith("Every PC takes a turn before Phase 3: Luwe, Furo still")
    go(enc, player, "claim_turn", actor=key(luwe))
    assert "Skip this round" not in gm_page(enc)  # a started turn is finished first
    go(enc, player, "end_turn", actor=key(luwe))
    page = gm_page(enc)
    skip = re.search(r'<select id="gm-skip" name="pc">(.*?)</select>', page, re.S).group(1)
    assert re.findall(r'<option value="([^"]+)">([^<]+)</option>', skip) == [(key(furo), "Furo")]
    assert form_data(page, "skip_turn") == {}  # the PC comes from the select
    go(enc, gm, "skip_turn", pc=key(furo))
    assert last_words(enc) == ["The GM skips Furo's turn this round."]
    assert "Start Phase 3: enemies resolve" in gm_page(enc)
    go(enc, gm, "start_enemies")
    assert state_of(enc).phase == 3


def test_a_pc_dropped_to_zero_mid_turn_loses_their_controls(enc, gm, player, other_player, luwe, furo, npc):
    """Notes: "At 0 Health Levels a creature takes no actions." The GM's consequence drops Luwe on her turn."""
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(luwe))
    assert "End my turn" in me(enc, player)
    go(enc, gm, "adjust_health", target=key(luwe), change=-3)
    assert last_words(enc) == ["Luwe's turn ends: at 0 Health Levels they take no actions."]
    page = me(enc, player)
    assert "End my turn" not in page and 'value="skill_roll"' not in page and "Spend 1 Nova point" not in page
    assert waiting(page).startswith("Phase 2: the party picks who goes next — Luwe is at 0 Health Levels")
    go(enc, other_player, "claim_turn", actor=key(furo))
    assert state_of(enc).turn == key(furo)


def test_the_gms_screen_rescues_the_acting_pcs_failed_roll_from_the_party_pool(enc, gm, player, luwe, furo, npc):
    """Seed: "These Advantages are kept in a shared pool and can be used by any player during an encounter.\""""
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(luwe))
    go(enc, player, "skill_roll", faces=[1, 2], actor=key(luwe), skill="Perception", intent="advantage")
    go(enc, player, "skill_roll", faces=[4, 4, 1], actor=key(luwe), skill="Ranged", intent="other")
    page = gm_page(enc)
    assert page.count(">Reroll the 4</button>") == 2
    data = form_data(page, "spend_advantage")
    assert data == {"actor": key(luwe), "die": "0"}
    go(enc, gm, "spend_advantage", faces=[7], **data)
    state = state_of(enc)
    assert (state.advantages, state.pending_failure, state.turn) == (0, False, key(luwe))
    assert "Reroll the" not in gm_page(enc)


def test_no_extra_attack_is_offered_when_the_pcs_surprise_the_enemies(campaign, gm, luwe, furo, npc):
    """Notes: "PCs catch all enemies unaware → skip Phases 1 and 3 in round 1": no extra attack to buy."""
    surprise = {"surprise": "pcs"}
    encounter = services.create_encounter(
        campaign, gm, name="Jump", model="burn_bryte", pcs=[luwe, furo], enemies=[(npc, 1)], settings=surprise
    )
    encounter = services.start_encounter(encounter, gm)
    page = gm_page(encounter)
    assert "PCs still to act" in page and "Extra attacks can still be bought" not in page
    result = services.submit(
        encounter.pk, gm, "declare", {"enemy": key(npc, 1), "target": key(luwe), "extra": "on"}, "x", from_form=True
    )
    assert not result.ok and "round 1 has no Phase 3" in result.error
    assert state_of(encounter).collapse == 2


def test_a_phone_spends_party_advantages_on_an_ability_and_a_nova_ability_with_a_roll(
    enc, gm, player, other_player, luwe, furo, npc
):
    """Notes: "Some abilities cost Advantages"; seed: "Nova abilities that require a skill roll can only be used
    during the activating character's turn.\""""
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    assert "Spend party Advantages" not in me(enc, other_player)  # the pool is empty
    assert "It needs a skill roll" not in me(enc, player)  # Luwe's Nova form, not on her turn
    go(enc, player, "claim_turn", actor=key(luwe))
    go(enc, player, "skill_roll", faces=[1, 2], actor=key(luwe), skill="Perception", intent="advantage")
    assert "It needs a skill roll" in me(enc, player)
    go(enc, player, "spend_nova", actor=key(luwe), points="1", note="Star Lance", roll="on")
    assert last_words(enc) == ["Luwe spends 1 Nova point on an ability with a skill roll: Star Lance."]
    page = me(enc, other_player)  # Furo, out of turn, spends the party's Advantage
    assert "Spend party Advantages" in page
    data = form_data(page, "use_advantages")
    assert data == {"actor": key(furo), "points": "1"}
    go(enc, other_player, "use_advantages", note="Rally", **data)
    assert last_words(enc) == ["Furo spends 1 of the party's Advantages on an ability: Rally."]
    assert state_of(enc).advantages == 0
    assert "Spend party Advantages" not in me(enc, other_player)
    assert "Spend Advantages" not in gm_page(enc)
