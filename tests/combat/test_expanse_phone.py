"""The Expanse on a player's phone when it is their turn and when it is not (issue 16): a one-tap attack with the
readied weapon at the default target, then "End my turn"; allies, the taken out and the unseen are never that
target; no attack on a creature without one to aim at; off turn, a line saying who acts and who comes before me.

The fight is test_expanse_table's: Rosa (pistol, +5) acts first, then Marcus, Thug 1 and Thug 2. Each test
renders the player's own section (fragments.me_html) and submits its forms as they stand through the act
endpoint, as the phone would.
"""

from __future__ import annotations

import re

import pytest

from campaigns.models import Character
from combat import services
from tests.combat import test_expanse_table as fight
from tests.combat.helpers import state_of
from tests.combat.phone_forms import buttons, form_sending, form_with, text
from tests.combat.test_expanse_table import begin, go, key, me, notice, post, sheet

# The fight's fixtures (pytest finds them as names of this module).
rosa, marcus, thug, enc = fight.rosa, fight.marcus, fight.thug, fight.enc

pytestmark = pytest.mark.django_db


def tap(client, enc, form):
    """Submit a phone's form exactly as rendered: the refusal it comes back with ("" when it was taken)."""
    sends = {k: v for k, v in form.sends.items() if k != "csrfmiddlewaretoken"}
    return notice(post(client, enc, sends.pop("command"), key_=sends.pop("key"), **sends))


def spotter_fight(campaign, gm, rosa, marcus, thug):
    """An unseen Spotter ahead of one Thug in the list of enemies: Rosa first, Marcus, the Spotter, the Thug."""
    spotter = Character.objects.create(
        campaign=campaign,
        name="SECRET Spotter",
        kind="npc",
        system="expanse",
        stats=sheet(accuracy=4, defense=14, weapons="Rifle"),
    )
    encounter = services.create_encounter(
        campaign,
        gm,
        name="Dock",
        model="expanse",
        pcs=[rosa, marcus],
        enemies=[(spotter, 1), (thug, 1)],
        hidden={spotter.pk},
    )
    services.start_encounter(encounter, gm)
    spotter_key = f"npc{spotter.pk}-1"
    state = state_of(encounter)
    assert state.fighters[0].id == spotter_key  # first of the enemies: a careless default would pick it
    faces = {key(rosa): (6, 6, 5), key(marcus): (4, 4, 3), spotter_key: (2, 2, 3), key(thug, 1): (1, 1, 2)}
    assert go(encounter, gm, "roll_initiative", dice=[d for f in state.fighters for d in faces[f.id]]).ok
    assert go(encounter, gm, "next_turn").ok
    return encounter, spotter_key


def test_her_turn_is_one_tap_to_attack_the_first_enemy_with_her_pistol_and_one_to_end_it(
    client, enc, gm, player, rosa, marcus, thug
):
    begin(enc, gm, rosa, marcus, thug)
    html = me(enc, player)
    quick = form_with(html, "quick-attack")
    assert quick.buttons == ["Attack Thug 1: Pistol, 3d6 + 5"]
    assert {k: quick.sends[k] for k in ("command", "actor", "action", "weapon", "target", "distance")} == {
        "command": "attack",
        "actor": key(rosa),
        "action": "ranged_attack",
        "weapon": "pistol",
        "target": key(thug, 1),
        "distance": "0",
    }
    # Her controls come first: the attack and the end of her turn before the builder and her other actions.
    assert buttons(html)[:2] == ["Attack Thug 1: Pistol, 3d6 + 5", "End my turn"]
    assert re.search(r"<details class=\"attack-more\" [^>]*data-keep-open>", html)  # the builder, folded away

    client.force_login(player)
    assert tap(client, enc, quick) == ""
    test = state_of(enc).tests[-1]
    assert (test.fighter, test.target, test.weapon, test.action) == (key(rosa), key(thug, 1), "pistol", "ranged_attack")
    assert tap(client, enc, form_sending(me(enc, player), "end_turn")) == ""
    assert state_of(enc).turn == key(marcus)


def test_an_ally_or_a_taken_out_enemy_is_never_the_default_target(client, enc, gm, player, rosa, marcus, thug):
    begin(enc, gm, rosa, marcus, thug)
    assert go(enc, gm, "set_condition", target=key(thug, 1), condition="Taken out").ok
    html = me(enc, player)
    assert form_with(html, "quick-attack").sends["target"] == key(thug, 2)
    builder = form_with(html, "attack-builder")
    assert builder.sends["target"] == key(thug, 2)
    assert builder.options["target"] == [key(thug, 2)]  # not Marcus, nor the Thug who is out
    assert "Attack Thug 2: Pistol" in buttons(html)[0]


def test_an_unseen_enemy_is_never_a_target_nor_named(client, campaign, gm, player, other_player, rosa, marcus, thug):
    encounter, spotter_key = spotter_fight(campaign, gm, rosa, marcus, thug)
    html = me(encounter, player)
    assert form_with(html, "quick-attack").sends["target"] == key(thug, 1)
    assert form_with(html, "attack-builder").options["target"] == [key(thug, 1)]
    assert "Spotter" not in html and spotter_key not in html
    # Marcus waits for Rosa; the Spotter between them and the Thug is neither counted nor named.
    assert "Rosa is taking their turn; you are next." in text(me(encounter, other_player))


@pytest.mark.parametrize("gone", ["unseen", "taken out"])
def test_with_no_enemy_to_aim_at_no_attack_on_a_creature_is_offered(
    client, campaign, gm, player, rosa, marcus, thug, gone
):
    if gone == "unseen":
        encounter = services.start_encounter(
            services.create_encounter(
                campaign, gm, name="Dock", model="expanse", pcs=[rosa, marcus], enemies=[(thug, 1)], hidden={thug.pk}
            ),
            gm,
        )
    else:
        encounter = services.start_encounter(
            services.create_encounter(
                campaign, gm, name="Dock", model="expanse", pcs=[rosa, marcus], enemies=[(thug, 1)]
            ),
            gm,
        )
        assert go(encounter, gm, "set_condition", target=key(thug, 1), condition="Taken out").ok
    state = state_of(encounter)
    faces = {key(rosa): (6, 6, 5), key(marcus): (4, 4, 3), key(thug, 1): (1, 1, 2)}
    assert go(encounter, gm, "roll_initiative", dice=[d for f in state.fighters for d in faces[f.id]]).ok
    assert go(encounter, gm, "next_turn").ok
    html = me(encounter, player)
    assert form_with(html, "quick-attack") is None
    builder = form_with(html, "attack-builder")
    assert "target" not in builder.options and builder.options["object_size"][0] != ""  # objects only
    assert "No enemy in sight to attack: only an object." in text(html)
    assert buttons(html)[0] == "End my turn"


def test_the_readied_weapon_is_the_default_and_sets_the_attack(
    client, enc, gm, player, other_player, rosa, marcus, thug
):
    begin(enc, gm, rosa, marcus, thug)
    client.force_login(player)
    assert tap(client, enc, form_sending(me(enc, player), "end_turn")) == ""  # Marcus's turn
    client.force_login(other_player)
    assert notice(post(client, enc, "ready", actor=key(marcus), item="heavy_melee")) == ""
    html = me(enc, other_player)
    quick = form_with(html, "quick-attack")
    assert (quick.sends["action"], quick.sends["weapon"]) == ("melee_attack", "heavy_melee")
    assert quick.buttons[0].startswith("Attack Thug 1: Heavy melee weapon, 3d6 +")
    builder = form_with(html, "attack-builder")
    assert (builder.sends["action"], builder.sends["weapon"]) == ("melee_attack", "heavy_melee")
    assert tap(client, enc, quick) == ""
    assert state_of(enc).tests[-1].weapon == "heavy_melee"


def test_a_jammed_readied_gun_is_not_the_default(client, enc, gm, player, other_player, rosa, marcus, thug):
    begin(enc, gm, rosa, marcus, thug)
    client.force_login(player)
    assert tap(client, enc, form_sending(me(enc, player), "end_turn")) == ""  # Marcus's turn, pistol in hand
    # A miss with Drama Die 6 jams his pistol.
    assert go(
        enc,
        other_player,
        "attack",
        dice=[1, 1, 6],
        actor=key(marcus),
        action="ranged_attack",
        weapon="pistol",
        target=key(thug, 1),
    ).ok
    assert "pistol" in state_of(enc).fighter(key(marcus)).jammed
    assert go(enc, other_player, "end_turn", actor=key(marcus)).ok
    for _ in range(2):  # Thug 2, then Rosa in round 2
        assert go(enc, gm, "next_turn").ok
    assert go(enc, player, "end_turn", actor=key(rosa)).ok
    assert state_of(enc).turn == key(marcus)
    html = me(enc, other_player)
    # His jammed pistol is in hand and his heavy weapon stowed: bare hands, or one tap to ready the heavy weapon.
    assert form_with(html, "quick-attack").sends["weapon"] == "unarmed"
    assert form_with(html, "attack-builder").sends["weapon"] == "unarmed"
    client.force_login(other_player)
    assert tap(client, enc, form_sending(html, "ready")) == ""
    html = me(enc, other_player)
    assert form_with(html, "quick-attack").sends["weapon"] == "heavy_melee"
    assert form_with(html, "attack-builder").sends["weapon"] == "heavy_melee"


def test_off_turn_a_line_says_who_acts_and_what_i_wait_for(client, enc, gm, player, other_player, rosa, marcus, thug):
    assert "Before the fight: the GM rolls initiative for everyone." in text(me(enc, player))
    begin(enc, gm, rosa, marcus, thug)
    marcus_html = me(enc, other_player)
    assert "Rosa is taking their turn; you are next." in text(marcus_html)
    assert form_with(marcus_html, "quick-attack") is None and "End my turn" not in buttons(marcus_html)
    assert "Rosa is taking their turn" not in text(me(enc, player))  # her own turn: no waiting line
    # Rosa prepares a ranged attack, which ends her turn: she may interrupt later (the GM calls it by default).
    assert go(enc, player, "prepare", actor=key(rosa), action="ranged_attack").ok
    assert state_of(enc).turn == key(marcus)
    rosa_html = text(me(enc, player))
    assert "Marcus is taking their turn; then Thug 1, Thug 2, then you." in rosa_html
    assert "Out of turn you may ask the GM to interrupt with your prepared Ranged Attack." in rosa_html
    # A Thug's hit waits on Rosa: absorbing it is hers to do out of turn.
    assert go(enc, other_player, "end_turn", actor=key(marcus)).ok
    assert go(
        enc,
        gm,
        "attack",
        dice=[6, 6, 5, 6, 6],
        actor=key(thug, 1),
        action="ranged_attack",
        weapon="pistol",
        target=key(rosa),
    ).ok
    rosa_html = text(me(enc, player))
    assert "Thug 1 is taking their turn; then Thug 2, then you." in rosa_html
    assert "Out of turn you may absorb the damage below or ask the GM to interrupt" in rosa_html
