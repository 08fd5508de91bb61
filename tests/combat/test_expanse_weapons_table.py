"""The Expanse weapons in hand on the phone and the GM's screen (issue 19): what is in hand and stowed, one tap to
Ready a stowed weapon, a broken weapon the builder will not use, and the GM handing out a new one.

The fight is test_expanse_table's: Rosa (pistol) acts first, then Marcus, whose sheet names a pistol and a heavy
melee weapon (the pistol, first, is in hand), then Thug 1 (Defense 17) and Thug 2. Forms are submitted as they
stand through the act endpoint, as the phone would.
"""

from __future__ import annotations

import pytest

from tests.combat import test_expanse_table as fight
from tests.combat.helpers import state_of
from tests.combat.phone_forms import form_sending, form_with, forms, text
from tests.combat.test_expanse_table import begin, build, gm_html, go, key, me, notice, player_html, post

rosa, marcus, thug, enc = fight.rosa, fight.marcus, fight.thug, fight.enc

pytestmark = pytest.mark.django_db


def tap(client, enc, form):
    sends = {k: v for k, v in form.sends.items() if k != "csrfmiddlewaretoken"}
    return notice(post(client, enc, sends.pop("command"), key_=sends.pop("key"), **sends))


def marcus_turn(enc, gm, player, rosa, marcus, thug):
    begin(enc, gm, rosa, marcus, thug)
    assert go(enc, player, "end_turn", actor=key(rosa)).ok
    assert state_of(enc).turn == key(marcus)


def test_the_phone_shows_what_is_in_hand_and_readies_a_stowed_weapon_in_one_tap(
    client, enc, gm, player, other_player, rosa, marcus, thug
):
    """Seed 004, Ready: "You draw a weapon ... As part of this action, you can put away something already in
    hand." """
    marcus_turn(enc, gm, player, rosa, marcus, thug)
    html = me(enc, other_player)
    assert "In hand: Pistol. Stowed: Heavy melee weapon." in text(html)
    assert '<option value="heavy_melee" disabled>Heavy melee weapon: 3d6 + 3 (Ready first)</option>' in html
    assert form_with(html, "quick-attack").sends["weapon"] == "pistol"
    ready = form_sending(html, "ready")
    assert ready.buttons == ["Ready Heavy melee weapon"] and ready.sends["item"] == "heavy_melee"
    # Attacking with the stowed weapon anyway is refused with the sentence that says what to do.
    client.force_login(other_player)
    response = post(
        client, enc, "attack", actor=key(marcus), action="melee_attack", weapon="heavy_melee", target=key(thug, 1)
    )
    assert notice(response) == "Marcus has a pistol in hand: Ready the heavy melee weapon first (a minor action)."
    assert tap(client, enc, ready) == ""
    html = me(enc, other_player)
    assert "In hand: Heavy melee weapon. Stowed: Pistol." in text(html)
    assert "One minor action." not in text(html) and "A major or a minor action." in text(html)
    assert form_sending(html, "ready").buttons == ["Ready Pistol"]  # a second minor may take the major's place
    assert form_with(html, "quick-attack").sends["weapon"] == "heavy_melee"
    assert "Marcus readies heavy melee weapon, putting away pistol." in player_html(enc, player)  # everyone reads it


def test_a_broken_makeshift_weapon_is_shown_broken_until_the_gm_gives_a_new_one(
    client, enc, gm, player, other_player, rosa, marcus, thug
):
    """Seed 004, Fragile: "When an attack misses and the Drama Die is 3 or less, the object breaks and becomes
    useless as a weapon." """
    marcus_turn(enc, gm, player, rosa, marcus, thug)
    gm_page = gm_html(enc)
    give = next(f for f in forms(gm_page) if f.sends.get("command") == "give_weapon")
    assert give.options["weapon"][:2] == ["makeshift", "light_melee"] and "unarmed" not in give.options["weapon"]
    assert "Give a weapon to" not in me(enc, other_player) + player_html(enc, player)  # the GM's tool
    assert go(enc, gm, "give_weapon", target=key(marcus), weapon="makeshift").ok
    assert go(
        enc,
        other_player,
        "attack",
        dice=[1, 2, 3],
        actor=key(marcus),
        action="melee_attack",
        weapon="makeshift",
        target=key(thug, 1),
        fragile=True,
    ).ok
    html = me(enc, other_player)
    assert "Broken: Makeshift weapon." in text(html) and "In hand:" not in text(html)
    assert "the makeshift weapon breaks" in player_html(enc, player)
    assert go(enc, other_player, "end_turn", actor=key(marcus)).ok
    for _ in range(2):  # the Thugs, then Rosa in round 2
        assert go(enc, gm, "next_turn").ok
    assert go(enc, player, "end_turn", actor=key(rosa)).ok
    html = me(enc, other_player)
    assert '<option value="makeshift" disabled>Makeshift weapon: 3d6 + 3 (broken)</option>' in html
    assert "Ready Makeshift weapon" not in html
    client.force_login(gm)
    assert tap(client, enc, give) == ""  # the form as it stands: a makeshift weapon for the first combatant
    state = state_of(enc)
    first = state.fighters[0]
    assert "makeshift" in first.weapons or not first.weapons
    assert go(enc, gm, "give_weapon", target=key(marcus), weapon="makeshift").ok
    assert "Broken:" not in text(me(enc, other_player))
    assert "The GM gives Marcus a makeshift weapon (in hand)." in player_html(enc, player)


def test_a_stowed_start_is_the_gms_setting(campaign, gm, player, rosa, marcus, thug):
    encounter = build(campaign, gm, [rosa, marcus], thug, weapons_at_start="stowed")
    begin(encounter, gm, rosa, marcus, thug)
    html = me(encounter, player)
    assert form_with(html, "quick-attack").sends["weapon"] == "unarmed"
    assert form_sending(html, "ready").buttons == ["Ready Pistol"]
