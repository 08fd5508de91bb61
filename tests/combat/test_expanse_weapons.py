"""The Expanse (AGE) weapons in hand (issue 19), with scripted dice: what each combatant holds, readies and breaks.

The fight is test_expanse_rules': Luwe's pistol attack is +5, the Boss has Defense 12. Here Luwe's sheet names a
pistol, a rifle and grenades; a makeshift fighter (Fighting 0) carries a bottle. Every test die is the third face
of a 3d6 roll, the Drama Die.
"""

import json

import pytest

from combat.rules import expanse as ex
from combat.rules.core import from_json, to_json
from combat.rules.expanse import weapons
from tests.combat.test_expanse_rules import begun, boss, fighter, furo, grunt, luwe, pistol


def fight(mode="in_hand", **kw):
    """Luwe (pistol, rifle, grenades), Furo (bare hands), the Boss and the Grunt, hands set by `mode`."""
    state = ex.initial_state(
        (luwe(weapons=("pistol", "rifle", "grenade"), **kw), furo(), boss(), grunt()), {"weapons_at_start": mode}
    )
    return begun(("luwe", "boss", "furo", "grunt"), state)


def brawler(mode="in_hand"):
    """Hero with a fragile bottle (a makeshift weapon, Fighting 0) against the Grunt (Defense 11)."""
    hero = fighter("hero", "Hero", "pc", 1, {"Strength": 2}, weapons=("makeshift",), aware_of=("grunt",))
    return begun(("hero", "grunt"), ex.initial_state((hero, grunt()), {"weapons_at_start": mode}))


def bottle(**kw):
    return ex.Attack(actor="hero", weapon="makeshift", target="grunt", fragile=True, **kw)


def next_round(t, fid):
    for _ in range(6):
        t.do(ex.EndTurn(actor=t.state.turn))
        if t.state.turn == fid:
            return
    raise AssertionError(f"never reached {fid}'s turn")


# --- fragile weapons break for good --------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["in_hand", "stowed", "free"])
def test_a_fragile_weapon_that_broke_cannot_attack_again_until_the_gm_gives_a_new_one(mode):
    """Seed 004, Makeshift Weapons: "Fragile - ... When an attack misses and the Drama Die is 3 or less, the object
    breaks and becomes useless as a weapon." """
    t = brawler(mode)
    if mode == "stowed":
        t.do(ex.Ready(actor="hero", item="makeshift"))
    [e] = t.do(bottle(), faces=[1, 2, 3])  # 6 against Defense 11, Drama Die 3: it breaks
    assert e.test.breaks and t.f("hero").broken == ("makeshift",) and t.f("hero").in_hand == ""
    next_round(t, "hero")
    t.refuse(bottle(), "Hero's makeshift weapon broke and is useless as a weapon until the GM gives a new one.")
    t.refuse(ex.Ready(actor="hero", item="makeshift"), "broke and is useless")
    [given] = t.do(ex.GiveWeapon(target="hero", weapon="makeshift"))
    assert (
        ex.describe(t.state, given)
        == ex.describe(t.state, given, gm=False)
        == ("The GM gives Hero a makeshift weapon (in hand).")
    )
    assert t.f("hero").broken == () and t.f("hero").in_hand == "makeshift"
    [e] = t.do(bottle(), faces=[6, 5, 4, 2])  # 17 hits
    assert e.test.success


def test_whatevers_handy_finds_another_makeshift_weapon_after_one_broke():
    """Seed 004: a broken object is "useless as a weapon"; Whatever's Handy arms you from your surroundings."""
    t = brawler()
    t.do(bottle(), faces=[1, 2, 3])
    next_round(t, "hero")
    t.do(ex.AbilityTest(actor="hero", ability="Strength", tn=5), faces=[4, 4, 2])  # doubles: 2 SP
    t.do(ex.SpendStunt(actor="hero", stunt="whatevers_handy"))
    assert t.f("hero").broken == () and t.f("hero").in_hand == "makeshift"


def test_fortune_turning_the_miss_into_a_hit_takes_the_break_back():
    """Seed 004: the object breaks only "when an attack misses and the Drama Die is 3 or less"."""
    t = brawler()
    t.do(bottle(), faces=[1, 2, 3])
    assert t.f("hero").broken == ("makeshift",)
    t.do(ex.ChangeDie(actor="hero", die=2, face=6), faces=[])  # Drama Die 6: 9, still a miss, but whole
    assert not t.state.tests[-1].breaks
    assert t.f("hero").broken == () and t.f("hero").in_hand == "makeshift"


# --- an attack needs its weapon in hand ------------------------------------------------------------------------------


def test_everyone_starts_with_the_first_weapon_on_their_sheet_in_hand():
    t = fight()
    assert t.f("luwe").in_hand == "pistol" and weapons.stowed(t.f("luwe")) == ("rifle", "grenade")
    assert t.f("furo").in_hand == ""  # bare hands: his sheet names no weapon
    sheet = ex.fighter_from_sheet("k", "Kim", "pc", 1, {"weapons": ["Grenade", "Rifle"]}, ())
    assert ex.initial_state((sheet,), {}).fighters[0].in_hand == "rifle"  # a grenade is readied to be thrown


def test_an_attack_with_a_weapon_not_in_hand_is_refused_until_ready_draws_it():
    """Seed 004, Ready (a minor action): "You draw a weapon, pull out a device, or otherwise ready a stowed item.
    As part of this action, you can put away something already in hand." """
    t = fight()
    rifle = ex.Attack(actor="luwe", action="ranged_attack", weapon="rifle", target="boss", distance=10)
    t.refuse(rifle, r"^Luwe has a pistol in hand: Ready the rifle first \(a minor action\)\.$")
    [readied] = t.do(ex.Ready(actor="luwe", item="rifle"))
    assert ex.describe(t.state, readied) == "Luwe readies rifle, putting away pistol."
    assert t.f("luwe").in_hand == "rifle" and weapons.stowed(t.f("luwe")) == ("pistol", "grenade")
    assert t.state.turn_actions == ("ready",)  # the minor action
    [e] = t.do(rifle, faces=[3, 4, 5, 1, 2, 3])
    assert e.test.weapon == "rifle" and e.test.success
    next_round(t, "luwe")
    t.refuse(pistol(), "Luwe has a rifle in hand: Ready the pistol first")
    t.refuse(ex.Ready(actor="luwe", item="rifle"), "already has the rifle in hand")
    t.refuse(ex.Ready(actor="luwe", item="heavy_melee"), "Luwe carries no heavy melee weapon; the GM can give one.")
    t.refuse(ex.Ready(actor="luwe", item="pistol", stow="grenade"), "Luwe has no grenade in hand to put away.")


def test_bare_hands_need_nothing_in_hand_and_a_stowed_start_readies_first():
    t = fight("stowed")
    assert t.f("luwe").in_hand == "" and t.f("boss").in_hand == ""
    t.refuse(pistol(), r"^Luwe has nothing in hand: Ready the pistol first \(a minor action\)\.$")
    t.do(ex.Ready(actor="luwe", item="pistol"))
    t.do(pistol(), faces=[1, 1, 2])  # a minor, then the major
    assert t.state.turn_actions == ("ready", "ranged_attack")
    t.do(ex.EndTurn(actor="luwe"))
    t.do(ex.EndTurn(actor="boss"))
    [e] = t.do(ex.Attack(actor="furo", weapon="unarmed", target="boss"), faces=[1, 2, 3])
    assert e.test.weapon == "unarmed"


def test_ready_twice_and_an_attack_is_one_action_too_many():
    """Seed 004: "1 Major Action per turn. 1 Minor Action per turn. You may replace your Major Action with a Minor
    Action (2 total in turn)." """
    t = fight("stowed")
    t.do(ex.Ready(actor="luwe", item="rifle"))
    t.do(ex.Ready(actor="luwe", item="pistol"))
    assert t.state.turn == "boss"  # two minors end the turn
    assert ex.describe(t.initial, ex.Readied(fighter="luwe", item="pistol", stow="rifle")) == (
        "Luwe readies pistol, putting away rifle."
    )


def test_untracked_hands_let_any_carried_weapon_attack():
    t = fight("free")
    assert t.f("luwe").in_hand == ""
    t.do(ex.Attack(actor="luwe", action="ranged_attack", weapon="rifle", target="boss", distance=10), faces=[1, 1, 2])
    next_round(t, "luwe")
    t.do(pistol(), faces=[1, 1, 2])


# --- grenades --------------------------------------------------------------------------------------------------------


def test_a_grenade_is_readied_thrown_once_and_readied_again():
    """Seed 004, Explosives: "Grenades are thrown weapons with a range of 10 + Strength metres. Use the Ready Action
    to have the grenade in your hand and then make a ranged attack action to throw it." ... "Grenades effect
    everyone within 5 metres." """
    t = fight()
    t.refuse(ex.ThrowGrenade(actor="luwe", targets="boss", distance=5), "needs a grenade in hand first")
    t.do(ex.Ready(actor="luwe", item="grenade"))
    assert t.f("luwe").in_hand == "grenade"
    t.refuse(pistol(), "Luwe has a grenade in hand: Ready the pistol first")
    t.refuse(ex.ThrowGrenade(actor="luwe", targets="boss", distance=12), "can throw a grenade 11 m")  # 10 + Str 1
    [e] = t.do(ex.ThrowGrenade(actor="luwe", targets="boss,grunt", distance=5), faces=[4, 5, 6, 1, 2, 3])
    assert e.test.tn == 11 and e.test.success and {h.target for h in t.state.hits} == {"boss", "grunt"}
    assert t.f("luwe").in_hand == ""  # thrown: gone from her hand
    next_round(t, "luwe")
    t.refuse(ex.ThrowGrenade(actor="luwe", targets="boss", distance=5), "needs a grenade in hand first")
    t.do(ex.Ready(actor="luwe", item="grenade"))  # she carries more
    assert t.f("luwe").in_hand == "grenade"
    state = ex.initial_state((luwe(weapons=("pistol",)), boss()), {})
    t = begun(("luwe", "boss"), state)
    t.refuse(ex.Ready(actor="luwe", item="grenade"), "Luwe carries no grenade; the GM can give one.")


# --- the GM hands out weapons; older fights keep the old rules -------------------------------------------------------


def test_the_gm_gives_a_weapon_stowed_or_in_hand():
    t = fight()
    t.refuse(ex.GiveWeapon(target="luwe", weapon="pistol"), "already has the pistol in hand")
    t.refuse(ex.GiveWeapon(target="luwe", weapon="rifle", stow=True), "already carries a rifle")
    t.refuse(ex.GiveWeapon(target="luwe", weapon="banana"), "Choose one of the weapon types.")
    [e] = t.do(ex.GiveWeapon(target="luwe", weapon="heavy_melee", stow=True))
    assert ex.describe(t.state, e) == "The GM gives Luwe a heavy melee weapon (stowed)."
    assert t.f("luwe").in_hand == "pistol" and "heavy_melee" in weapons.stowed(t.f("luwe"))
    t.do(ex.GiveWeapon(target="boss", weapon="light_melee"))
    assert t.f("boss").in_hand == "light_melee"
    assert ex.GiveWeapon.who == "gm"


def test_a_fight_begun_before_weapons_were_tracked_keeps_the_old_rules():
    """Stored logs replay unchanged: a state without the setting tracks neither hands nor breaks."""
    t = brawler()
    old = ex.initial_state(t.initial.fighters, {})
    settings = {k: v for k, v in old.settings.items() if k != weapons.KEY}
    t = begun(("hero", "grunt"), old.__class__(fighters=old.fighters, settings=settings, stunts=old.stunts))
    t.do(ex.Attack(actor="hero", weapon="makeshift", target="grunt", fragile=True), faces=[1, 2, 3])
    assert t.f("hero").broken == ()
    t.refuse(ex.GiveWeapon(target="hero", weapon="makeshift"), "began before weapons were tracked")


def test_weapons_round_trip_through_json():
    t = brawler()
    t.do(bottle(), faces=[1, 2, 3])
    t.do(ex.GiveWeapon(target="hero", weapon="pistol", stow=True))
    assert from_json(ex.State, json.loads(json.dumps(to_json(t.state)))) == t.state
    for item in t.log:
        assert ex.CODEC.event_from_json(json.loads(json.dumps(ex.CODEC.event_to_json(item.event)))) == item.event


def test_the_setting_is_the_gms():
    setting = next(s for s in ex.SETTINGS if s.key == weapons.KEY)
    assert setting.default == "in_hand" and [v for v, _ in setting.choices] == ["in_hand", "stowed", "free"]
