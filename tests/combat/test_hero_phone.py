"""A HERO player's own section on the phone: in their phase a one-tap attack on the likeliest target (never an ally,
an enemy that is out or one the party has not seen), which ends the phase; off-phase, a line saying who has the
floor, when their next phase comes, and what they may do meanwhile (abort, a held action)."""

import re

import pytest

from campaigns.models import Character, Membership
from combat import fragments, services, store
from combat.rules.dice import ScriptedDice
from tests.combat import test_hero_table as hero_table
from tests.combat.helpers import combatant_key as key
from tests.combat.helpers import state_of
from tests.combat.test_hero_table import assert_no_gm_fact, begin, build, me, ok, sheet, text_of

pytestmark = pytest.mark.django_db
kestrel, bulwark, agent = hero_table.kestrel, hero_table.bulwark, hero_table.agent  # the HERO table's fixtures


@pytest.fixture
def enc(campaign, gm, kestrel, bulwark, agent):
    """Segment 12 of turn 1 runs Kestrel (DEX 23), Agent 1 and Agent 2 (DEX 15) and Bulwark (DEX 14)."""
    return build(campaign, gm, [kestrel, bulwark], agent)


def quick_attacks(page: str) -> list[tuple[str, str]]:
    """The one-tap attack buttons in order: ("primary" for the default or "", whom)."""
    block = page.split('class="quick-attack"')[1].split("</div>")[0] if 'class="quick-attack"' in page else ""
    return [
        ("primary" if cls else "", name)
        for cls, name in re.findall(r'<button type="submit"( class="primary")?>Attack ([^<]+)</button>', block)
    ]


def waiting(page: str) -> str:
    found = re.search(r'<p class="waiting card">(.*?)</p>', page, re.S)
    return text_of(found.group(1)) if found else ""


def test_my_phase_offers_a_one_tap_attack_on_the_first_enemy_standing_and_it_ends_the_phase(
    enc, gm, player, kestrel, bulwark, agent
):
    begin(enc, gm)
    page = me(enc, player)
    assert quick_attacks(page) == [("primary", "Agent 1"), ("", "Agent 2")]  # never Bulwark, Kestrel's ally
    assert "One tap attacks with 4d6 against PD, and ends the phase." in page
    assert f'<option value="{key(agent, 1)}" selected>Agent 1: hits on 11 + OCV 8 − their DCV or less' in page
    assert_no_gm_fact(page, enc)

    # The tap: 3d6 of 3 always hits, 4d6 of 1s against PD 5 does nothing; the phase is over.
    form = re.search(r"<form[^>]*>(?:(?!</form>).)*>Attack Agent 1</button>", page, re.S).group(0)
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))
    command, form_key = fields.pop("command"), fields.pop("key")
    result = services.submit(
        enc.pk, player, command, fields, form_key, from_form=True, dice=ScriptedDice([1, 1, 1, 1, 1, 1, 1])
    )
    assert result.ok, result.error
    state = state_of(enc)
    assert state.floor == key(agent, 1) and state.fighter(key(kestrel)).mark(12) == "acted"


def test_an_enemy_that_is_out_is_no_target_and_without_one_no_attack_is_offered(enc, gm, player, agent):
    begin(enc, gm)
    ok(enc, gm, "adjust_pools", target=key(agent, 1), stun=-100)
    assert quick_attacks(me(enc, player)) == [("primary", "Agent 2")]
    ok(enc, gm, "adjust_pools", target=key(agent, 2), body=-100)
    page = me(enc, player)
    assert quick_attacks(page) == [] and "attack-builder" not in page and "Roll the attack" not in page
    assert "End my phase" in page


def test_an_enemy_the_party_has_not_seen_is_never_offered(campaign, gm, player, kestrel, bulwark, agent):
    lurker = Character.objects.create(
        campaign=campaign,
        name="Lurker",
        kind="npc",
        system="hero",
        is_template=True,
        quantity=1,
        stats=sheet(spd=2, dex=30, initiative_dex=30),
    )
    enc = build(campaign, gm, [kestrel, bulwark], agent, quantity=1, hidden={lurker.pk}, extra=[(lurker, 1)])
    begin(enc, gm)
    assert state_of(enc).floor == key(lurker, 1)  # DEX 30: the unseen Lurker acts first
    assert waiting(me(enc, player)).startswith("Turn 1, segment 12: someone unseen’s phase")
    ok(enc, gm, "end_phase", actor=key(lurker, 1))
    page = me(enc, player)
    assert quick_attacks(page) == [("primary", "Agent")]
    assert "Lurker" not in page


def test_off_phase_a_line_says_who_has_the_floor_my_next_phase_and_that_i_may_abort(
    enc, gm, player, other_player, kestrel, bulwark, agent
):
    assert waiting(me(enc, other_player)) == (
        "Before combat: the GM opens combat in segment 12 of turn 1, and everyone acts first."
    )
    begin(enc, gm)
    assert waiting(me(enc, other_player)) == (
        "Turn 1, segment 12: Kestrel’s phase — your next phase: segment 12 of turn 1. Out of your phase you may "
        "abort to a defence (Dodge, Block…) or take actions that take no time."
    )
    assert waiting(me(enc, player)) == ""  # Kestrel's player has the phase's controls instead
    ok(enc, player, "end_phase", actor=key(kestrel))
    assert waiting(me(enc, player)).startswith(
        "Turn 1, segment 12: Agent 1’s phase — your next phase: segment 3 of turn 2."
    )
    ok(enc, gm, "end_phase", actor=key(agent, 1))
    ok(enc, gm, "end_phase", actor=key(agent, 2))
    ok(enc, other_player, "end_phase", actor=key(bulwark))
    assert waiting(me(enc, player)).startswith(
        "Turn 1, segment 12: every phase is done — the GM moves to the next segment"
    )


def test_a_held_action_is_what_i_may_do_off_phase(enc, gm, player, kestrel):
    begin(enc, gm)
    ok(enc, player, "hold", actor=key(kestrel), until="")
    line = waiting(me(enc, player))
    assert line.startswith("Turn 1, segment 12: Agent 1’s phase")
    assert "Out of your phase you may act on your held action" in line


def test_a_phone_reads_its_own_controls_before_the_table(enc, gm, player, campaign):
    enc.refresh_from_db()
    page = fragments.for_viewer(enc, store.load_state(enc), Membership.objects.get(campaign=campaign, user=player))
    assert page.index(f'id="enc-{enc.pk}-me"') < page.index(f'id="enc-{enc.pk}-table"')
