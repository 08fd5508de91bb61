"""SW5e starships on a crew member's phone when it is their turn and when it is not (issue 16): one tap fires
the first weapon not yet fired at an enemy ship still active, then "End my turn"; an allied or disabled ship is
never that target; no Fire without an enemy ship to aim at; off turn, a line saying whose turn it is and what
this crew member waits for, and what they may do meanwhile.

The ships are test_sw5e_table's: the party's Lantern (Tess at the helm, Oru the gunner; laser cannons, ion
cannon) against the NPC Red Talon. Each test renders the player's own section and submits its forms as they
stand through the act endpoint, as the phone would.
"""

from __future__ import annotations

import pytest

from combat import fragments
from ships.models import Ship
from tests.combat import test_sw5e_table as fight
from tests.combat.helpers import state_of
from tests.combat.phone_forms import buttons, form_sending, form_with, text
from tests.combat.test_sw5e_table import build, key, notice, ok, post, sid

pytestmark = pytest.mark.django_db

# The fight's fixtures (pytest finds them as names of this module).
tess, oru, vrask, lantern, talon, enc = fight.tess, fight.oru, fight.vrask, fight.lantern, fight.talon, fight.enc


def me(enc, user) -> str:
    enc.refresh_from_db()
    return fragments.me_html(enc, state_of(enc), user.pk)


def tap(client, enc, form):
    """Submit a phone's form exactly as rendered: the refusal it comes back with ("" when it was taken)."""
    sends = {k: v for k, v in form.sends.items() if k != "csrfmiddlewaretoken"}
    return notice(post(client, enc, sends.pop("command"), **sends))


def lantern_first(enc, gm, player, other_player, tess, oru, *npc_ships):
    """Initiative: Tess 13, Oru 16, so the Lantern at 13; each NPC ship (or crewless one) lower. Combat starts
    with the Lantern's turn, whose power die Tess stores where the phone suggests."""
    ok(enc, player, "roll_initiative", dice=[10], actor=key(tess))
    ok(enc, other_player, "roll_initiative", dice=[15], actor=key(oru))
    for n, ship in enumerate(npc_ships):
        ok(enc, gm, "set_ship_initiative", ship=sid(ship), value=5 - n)
    ok(enc, gm, "start_combat")
    assert state_of(enc).ship_turn == sid(fight_ship(enc, "Lantern"))
    ok(enc, player, "distribute_power", actor=key(tess), central=1)


def fight_ship(enc, name):
    return Ship.objects.get(campaign=enc.campaign, name=name)


def test_the_gunners_turn_is_one_tap_to_fire_at_the_enemy_and_one_to_end_it(
    client, enc, gm, player, other_player, tess, oru, talon
):
    lantern_first(enc, gm, player, other_player, tess, oru, talon)
    client.force_login(other_player)
    assert tap(client, enc, form_sending(me(enc, other_player), "start_crew_turn")) == ""  # "Take my turn"
    html = me(enc, other_player)
    quick = form_with(html, "quick-fire")
    assert quick.buttons == ["Fire the laser cannons at Red Talon"]
    assert {k: quick.sends[k] for k in ("command", "actor", "action", "slot", "weapon", "target")} == {
        "command": "take_action",
        "actor": key(oru),
        "action": "fire",
        "slot": "action",
        "weapon": "laser cannons",
        "target": sid(talon),
    }
    # His controls come first: the shot and the end of his turn, before the full action form.
    assert buttons(html)[:3] == ["Fire the laser cannons at Red Talon", "End my turn", "Act"]
    form = form_with(html, "action-form")
    assert (form.sends["action"], form.sends["weapon"]) == ("fire", "laser cannons")  # a gunner fires

    assert tap(client, enc, quick) == ""
    assert "fire:laser cannons" in state_of(enc).ship(sid(fight_ship(enc, "Lantern"))).actions
    assert tap(client, enc, form_sending(me(enc, other_player), "end_crew_turn")) == ""
    state = state_of(enc)
    assert state.fighter(key(oru)).took_turn and not state.acting

    # Tess next: the laser cannons have fired, so her one tap fires the ion cannon.
    client.force_login(player)
    assert tap(client, enc, form_sending(me(enc, player), "start_crew_turn")) == ""
    assert form_with(me(enc, player), "quick-fire").buttons == ["Fire the ion cannon at Red Talon"]


def test_an_allied_or_disabled_ship_is_never_the_default_target(
    client, gm, campaign, player, other_player, tess, oru, vrask, lantern, talon
):
    # In the builder's order the Kestrel (an ally) and the Black Fang come before the Red Talon.
    kestrel = Ship.objects.create(
        campaign=campaign,
        name="Kestrel",
        size="small",
        tier=0,
        hull=20,
        hull_max=20,
        hull_dice=3,
        shield_dice=3,
        weapons="blaster",
    )
    fang = Ship.objects.create(
        campaign=campaign,
        name="Black Fang",
        side=Ship.Side.NPC,
        size="small",
        tier=0,
        hull=10,
        hull_max=20,
        shields=0,
        shields_max=0,
        hull_dice=3,
        shield_dice=3,
        weapons="blaster",
    )
    client.force_login(gm)
    enc = build(client, campaign, [tess, oru], {kestrel: "ready", lantern: "ready", fang: "ready", talon: "ready"})
    assert [s.name for s in state_of(enc).ships][:3] == ["Kestrel", "Lantern", "Black Fang"]
    ok(enc, gm, "set_ship_initiative", ship=sid(kestrel), value=6)
    lantern_first(enc, gm, player, other_player, tess, oru, fang, talon)
    ok(enc, other_player, "start_crew_turn", actor=key(oru))
    assert form_with(me(enc, other_player), "quick-fire").sends["target"] == sid(fang)  # the first enemy, active
    ok(enc, gm, "damage", ship=sid(fang), amount=10)  # hull 0: disabled, not destroyed
    assert state_of(enc).ship(sid(fang)).status == "disabled"
    html = me(enc, other_player)
    assert form_with(html, "quick-fire").sends["target"] == sid(talon)
    # Both can still be aimed at through the form: enemies first, the disabled one after, the ally last.
    assert form_with(html, "action-form").options["target"] == ["", sid(talon), sid(fang), sid(kestrel)]


@pytest.mark.parametrize("fate", ["disabled", "destroyed"])
def test_without_an_active_enemy_ship_there_is_no_one_tap_fire(
    client, enc, gm, player, other_player, tess, oru, talon, fate
):
    lantern_first(enc, gm, player, other_player, tess, oru, talon)
    # The Red Talon's 321 shields and 777 hull: exactly down to 0 hull, or past its 987 maximum as well.
    ok(enc, gm, "damage", ship=sid(talon), amount=321 + 777 + (987 if fate == "destroyed" else 0))
    assert state_of(enc).ship(sid(talon)).status == fate
    ok(enc, other_player, "start_crew_turn", actor=key(oru))
    html = me(enc, other_player)
    assert form_with(html, "quick-fire") is None
    actions = form_with(html, "action-form").options["action"]
    # A disabled ship may still be shot at by choice; with no enemy ship left, Fire is not on the menu at all.
    assert ("fire" in actions) == (fate == "disabled")
    assert buttons(html)[0] == "End my turn"


def test_off_turn_a_line_says_whose_turn_it_is_and_what_i_may_do_meanwhile(
    client, enc, gm, player, other_player, tess, oru, vrask, talon
):
    assert "Set-up: roll your initiative" in text(me(enc, player))
    fight.to_combat(enc, gm, player, other_player, tess, oru, talon)  # the Red Talon (43) acts first
    assert "Red Talon's ship turn. Lantern goes later this round." in text(me(enc, player))
    ok(enc, gm, "distribute_power", central=1)
    ok(enc, gm, "start_crew_turn", actor=key(vrask))
    assert "Red Talon's ship turn: Vrask is acting. Lantern goes later this round." in text(me(enc, player))
    ok(enc, gm, "end_crew_turn", actor=key(vrask))
    ok(enc, gm, "end_ship_turn")
    assert "Lantern's ship turn: the crew stores the reactor's power dice first." in text(me(enc, other_player))
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, player, "set_crew_order", actor=key(tess), order=f"{key(tess)},{key(oru)}")
    assert "The crew's order has Tess go next." in text(me(enc, other_player))
    assert "you may take your turn now" in text(me(enc, player))
    ok(enc, player, "start_crew_turn", actor=key(tess))
    oru_html = text(me(enc, other_player))
    assert "Tess is taking their turn; yours comes after." in oru_html
    assert "Out of turn you may react (your reaction is ready) or spend the ship's power dice." in oru_html
    assert "is taking their turn" not in text(me(enc, player))  # her own turn: no waiting line
    ok(enc, other_player, "take_action", actor=key(oru), action="interfere", slot="reaction")
    assert "Out of turn you may spend the ship's power dice." in text(me(enc, other_player))
    ok(enc, player, "end_crew_turn", actor=key(tess))
    assert "You have had your turn; waiting for Oru." in text(me(enc, player))


def test_aboard_an_npc_ship_the_waiting_line_keeps_its_power_to_the_gm(
    client, enc, gm, player, other_player, tess, oru, talon
):
    ok(enc, gm, "assign_crew", fighter=key(oru), ship=sid(talon), station="gunner")
    ok(enc, player, "roll_initiative", dice=[10], actor=key(tess))
    ok(enc, other_player, "roll_initiative", dice=[15], actor=key(oru))
    ok(enc, gm, "start_combat")  # the Red Talon (Oru, 16) first, its reactor's dice waiting for the GM
    assert state_of(enc).stage == "power"
    line = text(me(enc, other_player))
    assert "Red Talon's ship turn: the GM starts it." in line and "power" not in line
