"""SW5e gear at the table (issue 18): weapons with stats fire from a phone with power dice added, rolling against the
target's AC through its armour; ships' AC and maximum hull and shield points worked out on the ship form, with
typed values kept as the GM's override. Facts from ../shared/rules/sw5e-starships.md ("Ship statistics").
"""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from combat import fragments
from ships.models import Ship
from tests.combat import test_sw5e_table as fight
from tests.combat.helpers import state_of
from tests.combat.phone_forms import form_with
from tests.combat.test_sw5e_phone import lantern_first
from tests.combat.test_sw5e_table import build, gm_html, key, ok, player_html, sid
from tests.ships.test_ships import ship_data, visible_text

pytestmark = pytest.mark.django_db

tess, oru, vrask, lantern, talon = fight.tess, fight.oru, fight.vrask, fight.lantern, fight.talon


@pytest.fixture
def armed(client, gm, campaign, tess, oru, lantern, talon):
    """The Lantern's laser cannons carry stats; the Red Talon wears deflection armour with Dex +4: AC 12, −3."""
    Ship.objects.filter(pk=lantern.pk).update(weapons="laser cannons (+5 2d6+2), ion cannon")
    Ship.objects.filter(pk=talon.pk).update(armour="deflection", dex_mod=4)
    client.force_login(gm)
    encounter = build(client, campaign, [tess, oru], {lantern: "ready", talon: "ready"})
    client.logout()
    return encounter


def test_a_gunner_fires_from_the_phone_with_power_dice_and_the_hit_lands_through_armour(
    armed, gm, player, other_player, tess, oru, talon
):
    """Notes: "Armour: AC 10 + Dex mod; deflection caps Dex at +2 with damage reduction 3 ... (reduction only on
    attack-roll hits, minimum 1 damage)"; "Shields absorb damage first"; "Central dice fuel anything"."""
    enc = armed
    lantern_first(enc, gm, player, other_player, tess, oru, talon)
    ok(enc, other_player, "start_crew_turn", actor=key(oru))
    enc.refresh_from_db()
    form = form_with(fragments.me_html(enc, state_of(enc), other_player.pk), "action-form")
    assert form.sends["power"] == "0"  # the phone offers power dice for the shot, none by default
    shields = state_of(enc).ship(sid(talon)).shields
    # d20 9 + 5 = 14 hits AC 12; a central power die (d4) shows 3; damage 4 + 2 + 2 + 3 − 3 = 8.
    ok(
        enc,
        other_player,
        "take_action",
        dice=[9, 3, 4, 2],
        actor=key(oru),
        action="fire",
        weapon="laser cannons",
        target=sid(talon),
        power=1,
    )
    assert state_of(enc).ship(sid(talon)).shields == shields - 8
    page = html.unescape(player_html(enc, player))
    shot = "Oru's laser cannons hits Red Talon (d20 shows 9 + 5 = 14): 8 damage (2d6 show 4, 2; + 2; + 3 from power"
    assert shot in page
    assert "against AC 12" not in page  # an NPC ship's AC and armour stay with the GM
    gm_page = html.unescape(gm_html(enc))
    assert "against AC 12" in gm_page and "− 3 for armour" in gm_page
    assert "AC 12 (armour: damage −3, at least 1)" in gm_page


def test_the_ship_form_works_out_hull_and_shields_and_keeps_typed_values_as_the_gms_override(gm_client, campaign):
    """Notes: "Hull points: first hull die at max + Con mod, the rest rolled or averaged + Con mod. Shield points
    likewise with shield dice and Str mod, then × the shield type's capacity multiplier"."""
    create = reverse("ship_create", args=[campaign.pk])
    # Medium tier 1 (6 d8), Con +1, Str 0, fortress shields: hull 9 + 5 × 6 = 39, shields (8 + 5 × 5) × 3/2 = 49.
    data = ship_data(name="Derived", points_from_size="on", con_mod=1, str_mod=0, dex_mod=3, armour="deflection")
    assert gm_client.post(create, data).status_code == 302
    ship = Ship.objects.get(name="Derived")
    assert (ship.hull, ship.hull_max, ship.shields, ship.shields_max) == (39, 39, 49, 49)
    assert (ship.armour_class, ship.damage_reduction) == (12, 3)
    page = visible_text(gm_client.get(ship.get_absolute_url()))
    assert "45 / 45" not in page and "39 / 39 (maximum derived from size, tier and Con)" in page
    assert "12 (derived: 10 + Dex 3 with size, Deflection" in page

    data = ship_data(name="Typed", con_mod=1, ac_override=15)  # hull 30 / 40 typed by hand
    assert gm_client.post(create, data).status_code == 302
    ship = Ship.objects.get(name="Typed")
    assert (ship.hull, ship.hull_max) == (30, 40)
    page = visible_text(gm_client.get(ship.get_absolute_url()))
    assert "30 / 40 (maximum: GM override; size, tier and Con give 39)" in page
    assert "AC 15 (GM override; armour and Dex give 10)" in page


def test_weapon_stats_that_do_not_read_are_refused_next_to_the_field(gm_client, campaign):
    response = gm_client.post(reverse("ship_create", args=[campaign.pk]), ship_data(weapons="turbolaser (2d10)"))
    assert response.status_code == 400
    assert 'Write "turbolaser"\'s stats as (attack damage), e.g. (+5 2d6+2).' in visible_text(response)
