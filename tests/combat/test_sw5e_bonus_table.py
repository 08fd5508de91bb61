"""Issue 18 at the SW5e table: a feature's own bonus action offered on the phone and the GM's screen, and the
Regenerate Shields action adding the ship's Strength modifier from the ship's page.

Seed: ../shared/seeds/001_a9fbea53989230b2.txt; notes: ../shared/rules/sw5e-starships.md."""

from __future__ import annotations

import pytest

from campaigns.models import Character
from ships.models import CrewAssignment, Ship
from tests.combat.helpers import state_of
from tests.combat.test_sw5e_table import (  # noqa: F401 (fixtures)
    enc,
    gm_html,
    go,
    key,
    ok,
    oru,
    player_html,
    sheet,
    talon,
    to_combat,
    to_lantern_turn,
    vrask,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def tess(campaign, player):
    """Tess's feature grants Second Wind as a bonus action: not an action on the menu."""
    return Character.objects.create(
        campaign=campaign,
        name="Tess",
        owner=player,
        system="sw5e",
        stats=sheet(initiative_mod=3, station="pilot", bonus_action=True, bonus_action_for="Second Wind"),
    )


@pytest.fixture
def lantern(campaign, tess, oru):
    """The party's Medium ship (d8 shield dice), with Strength +2."""
    ship = Ship.objects.create(
        campaign=campaign,
        name="Lantern",
        size="medium",
        tier=1,
        hull=40,
        hull_max=45,
        shields=10,
        shields_max=30,
        hull_dice=6,
        shield_dice=6,
        coupling="hub_and_spoke",
        power_central=1,
        weapons="laser cannons, ion cannon",
        con_mod=1,
        str_mod=2,
    )
    CrewAssignment.objects.create(ship=ship, character=tess, station="pilot")
    CrewAssignment.objects.create(ship=ship, character=oru, station="gunner")
    return ship


def last_entry(enc, gm: bool) -> str:
    """The log's newest entry as the GM or the players read it (worded when it was written)."""
    row = enc.events.order_by("-seq").first()
    return (row.gm_text if gm else row.players_text) or ""


def test_the_phone_offers_the_feature_s_own_bonus_action_in_one_tap(
    client, enc, gm, player, other_player, tess, oru, vrask, talon
):
    """Seed: "You can only take a bonus action if some feature gives you one, and you can only take one bonus
    action on each of your turns"; the feature says what it is."""
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    to_lantern_turn(enc, gm, vrask, talon)
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, player, "start_crew_turn", actor=key(tess))
    html = player_html(enc, player)
    assert "Bonus action (Second Wind): ready" in html
    assert '<input type="hidden" name="action" value="Second Wind"><input type="hidden" name="slot" value="bonus">' in (
        html
    )
    assert "Second Wind (bonus action)</button>" in html
    assert '<option value="bonus">' not in html  # the main form is for the action and the reaction
    assert "Second Wind (bonus action)</button>" in gm_html(enc)  # the GM's panel for whoever is acting
    result = go(enc, player, "take_action", actor=key(tess), action="evade", slot="bonus")
    assert result.error == "Tess's bonus action is for Second Wind only."
    ok(enc, player, "take_action", actor=key(tess), action="Second Wind", slot="bonus")
    assert last_entry(enc, gm=False) == "Tess takes Second Wind as a bonus action."
    html = player_html(enc, player)
    assert "Bonus action (Second Wind): used" in html and "(bonus action)</button>" not in html
    assert "Taken aboard this round: Second Wind." in html


def test_the_regenerate_shields_action_adds_the_ship_s_strength_modifier_from_its_page(
    client, enc, gm, player, other_player, tess, oru, vrask, talon
):
    """Notes: shield points come "with shield dice and Str mod"; the Lantern's page says Strength +2."""
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    to_lantern_turn(enc, gm, vrask, talon)
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, player, "start_crew_turn", actor=key(tess))
    for html in (player_html(enc, player), gm_html(enc)):  # what a spent die rolls, beside the dice left
        assert "<dt>Hull dice (d8 + 1)</dt>" in html and "<dt>Shield dice (d8 + 2)</dt>" in html
    ok(enc, player, "take_action", dice=[5], actor=key(tess), action="regenerate_shields")
    lantern_now = next(s for s in state_of(enc).ships if s.name == "Lantern")
    assert (lantern_now.shields, lantern_now.shield_dice) == (17, 5)
    assert last_entry(enc, gm=False) == (
        "Tess spends a shield die: d8 shows 5 + 2, restoring 7 shield points (shields 17/30)."
    )
