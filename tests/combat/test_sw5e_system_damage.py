"""SW5e system damage levels applied by the server (issue 18), with scripted dice: level 4's halved hull and shield
maxima and shield regeneration, and the GM's "disable instead of destroy" choice.

Passages quoted as "SotG" are facts of the public SW5e "Starships of the Galaxy" text (appendix A, System Damage;
chapter 9, Disabling a Ship), in our words; the rules notes (../shared/rules/sw5e-starships.md) say only "At 0 hull
points: destroyed if the remaining damage ≥ max hull, else disabled with system damage and destruction saves"."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules import sw5e as sw
from combat.rules.core import RuleError, replay
from combat.rules.sw5e import disabled, review
from combat.rules.sw5e.state import hull_max, regeneration, shields_max
from tests.combat.test_sw5e_disabled import hawk_down, words
from tests.combat.test_sw5e_rules import SeededDice, begin
from tests.conftest import examples


def sw_begin_hawk(settings=None):
    return begin(settings, hawk_over={"hull": 10, "shields": 0})


def level_four(settings=None):
    """The Hawk (hull 30, shields 20, a d8 shield die) at 0 hull points, then three hits of 1 damage there: system
    damage level 4, still disabled (only level 6 destroys it here). The Hawk's turn waits at its start."""
    t = hawk_down({"destroyed_by": "level_six", **(settings or {})})
    for _ in range(3):
        t.do(sw.Damage(ship="hawk", amount=1))
    hawk = t.state.ship("hawk")
    assert (hawk.status, hawk.system_damage, t.state.stage) == ("disabled", 4, "start")
    return t


def test_at_level_4_the_gm_can_restore_the_hull_only_to_half_its_stored_maximum():
    """SotG system damage level 4: "Hit point maximum, shield point maximum, and shield regeneration rate halved"
    (setting system_damage_maxima, default applied). The stored maxima stay as they were."""
    t = level_four()
    t.refused(sw.AdjustShip(ship="hawk", what="hull", value=16), "Hull points of Ebon Hawk must be from 0 to 15.")
    t.refused(sw.AdjustShip(ship="hawk", what="shields", value=11), "from 0 to 10")
    t.do(sw.AdjustShip(ship="hawk", what="hull", value=15))
    hawk = t.state.ship("hawk")
    assert (hawk.status, hawk.hull, hawk.hull_max, hawk.shields_max) == ("active", 15, 30, 20)
    assert (hull_max(t.state, hawk), shields_max(t.state, hawk)) == (15, 10)


def test_at_level_4_shield_regeneration_restores_half_and_stops_at_the_halved_maximum():
    """SotG level 4 halves the "shield regeneration rate": a d8 directional shield die restores 4, not 8."""
    t = level_four()
    t.do(sw.AdjustShip(ship="hawk", what="hull", value=15))
    t.do(sw.AdjustShip(ship="hawk", what="shields", value=5))
    [regen] = t.do(sw.RegenerateShields(actor="kira"))
    assert regen.points == 4 and t.state.ship("hawk").shields == 9
    assert words(t)[0] == (
        "Kira spends one of Ebon Hawk's shield dice (d8, Directional) to restore 4 shield points (shields 9/10)."
    )


def test_at_level_4_the_start_of_turn_regeneration_is_refused_when_the_halved_shields_are_full():
    t = level_four()
    t.do(sw.AdjustShip(ship="hawk", what="hull", value=15))
    t.do(sw.AdjustShip(ship="hawk", what="shields", value=10))
    t.refused(sw.RegenerateShields(actor="kira"), "Ebon Hawk's shields are already full.")


def test_at_level_4_patch_mends_the_hull_only_up_to_half_its_maximum():
    """SotG level 4: the hull point maximum is halved, so a spent hull die (d8 + Con 1) stops at 15 of 30."""
    t = level_four()
    t.do(sw.AdjustShip(ship="hawk", what="hull", value=12))
    t.do(sw.StartCrewTurn(actor="mira"))
    t.do(sw.TakeAction(actor="mira", action="patch"), faces=[6])
    assert t.state.ship("hawk").hull == 15
    assert words(t)[-1].endswith("(hull 15/15).")
    t.do(sw.EndCrewTurn(actor="mira"))
    t.do(sw.StartCrewTurn(actor="dex"))
    t.refused(sw.TakeAction(actor="dex", action="patch"), "Ebon Hawk's hull is already at full strength.", faces=[3])


def test_with_level_4_only_shown_the_stored_maxima_still_count():
    t = level_four({"system_damage_maxima": "shown"})
    t.do(sw.AdjustShip(ship="hawk", what="hull", value=30))
    hawk = t.state.ship("hawk")
    assert (hull_max(t.state, hawk), shields_max(t.state, hawk), regeneration(t.state, hawk)) == (30, 20, 8)


def test_below_level_4_nothing_is_halved():
    """SotG: a ship suffers the effect of its current level "as well as all lower levels", and only those."""
    t = hawk_down({"destroyed_by": "level_six"})
    for _ in range(2):
        t.do(sw.Damage(ship="hawk", amount=1))
    hawk = t.state.ship("hawk")
    assert hawk.system_damage == 3 and (hull_max(t.state, hawk), regeneration(t.state, hawk)) == (30, 8)
    assert disabled.effects(4)[-1] == "hull and shield maxima and shield regeneration halved"


def test_at_level_4_damage_left_over_of_half_the_stored_maximum_destroys_the_ship():
    """SotG: at 0 hull points, "If the damage equals or exceeds its hull point maximum, it is instantly
    destroyed": at level 4 that maximum is 15."""
    t = level_four()
    t.do(sw.Damage(ship="hawk", amount=15))
    assert t.state.ship("hawk").status == "destroyed"


# --- disable instead of destroy (setting disable_at_zero) -------------------------------------------------------------


def test_under_the_disable_setting_massive_damage_leaves_the_ship_disabled_and_stable():
    """SotG, Disabling a Ship: "the attacker can disable the ship, rendering it disabled and stable"."""
    t = sw_begin_hawk({"disable_at_zero": "disable"})
    damaged, hurt = t.do(sw.Damage(ship="hawk", amount=40))  # 30 left over: the Hawk's maximum
    hawk = t.state.ship("hawk")
    assert (hawk.status, hawk.stable, hawk.system_damage) == ("disabled", True, 1)
    assert hurt == sw.SystemDamaged(ship="hawk", levels=1, cause="zero", stable=True)
    assert words(t)[1] == (
        "Ebon Hawk is disabled at 0 hull points: system damage level 1 (disadvantage on ability checks), disabled "
        "rather than destroyed: it is stable."
    )


def test_under_the_disable_setting_an_npc_ship_is_disabled_even_when_npc_ships_explode():
    t = sw_begin_hawk({"disable_at_zero": "disable", "npc_at_zero": "destroyed"})
    events = t.do(sw.Damage(ship="frigate", amount=23 + 47))
    assert not any(isinstance(e, sw.ShipExploded) for e in events)
    frigate = t.state.ship("frigate")
    assert (frigate.status, frigate.stable) == ("disabled", True)


def test_by_default_the_same_massive_damage_destroys_the_ship():
    """Notes: "destroyed if the remaining damage ≥ max hull"."""
    t = sw_begin_hawk()
    t.do(sw.Damage(ship="hawk", amount=40))
    assert t.state.ship("hawk").status == "destroyed"


def test_an_old_system_damaged_event_without_stable_reads_as_not_stable():
    """Stored logs still replay: the new field has a default."""
    event = sw.CODEC.event_from_json({"kind": "system_damaged", "data": {"ship": "hawk", "levels": 1, "cause": "zero"}})
    assert event == sw.SystemDamaged(ship="hawk", levels=1, cause="zero", stable=False)


# --- level 5: a used ship ---------------------------------------------------------------------------------------------

LASER = "laser cannons (+5 2d6+2)"


def kira_fires(settings=None, faces=(), **hawk):
    """The Hawk (from its record: `hawk`) stores its power; Kira fires its laser cannons at the frigate."""
    t = begin(settings, hawk_over={"weapons": [LASER], **hawk})
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="kira"))
    events = t.do(sw.TakeAction(actor="kira", action="fire", weapon="laser cannons", target="frigate"), faces=faces)
    return t, events


def test_a_crew_member_who_rolls_a_1_aboard_a_used_ship_makes_its_destruction_save():
    """SotG, Used: "When a deployed crew member on a used starship rolls a 1 on an ability check, attack roll, or
    saving throw, they must make a destruction saving throw. If the roll is 10 or higher, they succeed. On a
    failure, the ship suffers 1 level of system damage." (setting system_damage_rolls, default applied)"""
    t, events = kira_fires(faces=[1, 7], used=True)
    assert events[-1] == sw.UsedSaveRolled(fighter="kira", ship="hawk", face=7)
    assert t.state.ship("hawk").system_damage == 1 and t.state.ship("hawk").active
    assert words(t)[-1] == (
        "Kira rolled a 1 aboard Ebon Hawk, a used ship: its destruction save shows 7, a failure: system damage "
        "level 1 (disadvantage on ability checks)."
    )
    assert review.facts(t.state, events[-1]).rolls[0].faces == (7,)


def test_a_successful_save_aboard_a_used_ship_changes_nothing():
    t, events = kira_fires(faces=[1, 10], used=True)
    assert isinstance(events[-1], sw.UsedSaveRolled) and t.state.ship("hawk").system_damage == 0
    assert words(t)[-1].endswith("its destruction save shows 10, a success.")


def test_at_level_5_a_failed_save_is_level_6_and_all_primary_systems_fail():
    """SotG level 6: "Ship suffers catastrophic power failure. All primary systems fail." Level 5 is used too."""
    t, events = kira_fires(faces=[5, 1, 3], system_damage=5)  # disadvantage from level 3: the 1 counts
    hawk = t.state.ship("hawk")
    assert (hawk.status, hawk.system_damage, hawk.hull) == ("destroyed", 6, 0)
    assert words(t)[-1].endswith("a failure: its primary systems fail and it is destroyed.")


def test_only_a_1_and_only_aboard_a_used_ship_calls_for_the_save():
    _, events = kira_fires(faces=[2], used=True)  # 2 + 5 misses the frigate's AC 10, and calls for no save
    assert not any(isinstance(e, sw.UsedSaveRolled) for e in events)
    _, events = kira_fires(faces=[1])
    assert not any(isinstance(e, sw.UsedSaveRolled) for e in events)
    _, events = kira_fires({"system_damage_rolls": "shown"}, faces=[1], used=True)
    assert not any(isinstance(e, sw.UsedSaveRolled) for e in events)


def test_a_1_on_the_stabilise_check_aboard_a_used_ship_calls_for_the_save_too():
    """SotG, Used: a 1 "on an ability check" (stabilising is an Intelligence (Mechanic's Kit) check)."""
    t = begin({"destroyed_by": "level_six"}, hawk_over={"hull": 10, "shields": 0, "used": True})
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.Damage(ship="hawk", amount=10))
    t.do(sw.StartCrewTurn(actor="kira"))
    attempt, save = t.do(sw.Stabilise(actor="kira", modifier=2), faces=[1, 4])
    assert isinstance(attempt, sw.StabiliseAttempted) and save == sw.UsedSaveRolled(fighter="kira", ship="hawk", face=4)
    assert t.state.ship("hawk").system_damage == 2


def test_a_ship_that_reached_level_5_goes_back_to_its_record_used():
    """SotG: all system damage effects end below level 1 "except for 'used'"."""
    t = begin({"system_damage_after": "cleared"}, hawk_over={"system_damage": 5, "hull": 10, "shields": 0})
    assert sw.write_back(t.state)["hawk"]["used"] == 1 and sw.write_back(t.state)["hawk"]["system_damage"] == 0
    assert sw.write_back(t.state)["frigate"]["used"] == 0


def test_a_ship_that_comes_in_at_level_4_fits_under_its_halved_maxima():
    t = begin(hawk_over={"system_damage": 4, "hull": 30, "shields": 16})
    hawk = t.state.ship("hawk")
    assert (hawk.hull, hawk.shields, hawk.hull_max, hawk.shields_max) == (15, 10, 30, 20)


def test_the_used_save_round_trips_through_json():
    event = sw.UsedSaveRolled(fighter="kira", ship="hawk", face=7)
    assert sw.CODEC.event_from_json(json.loads(json.dumps(sw.CODEC.event_to_json(event)))) == event


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 5), st.booleans(), st.integers(1, 30))
def test_shots_aboard_a_used_or_damaged_ship_replay_to_the_same_state(seed, level, used, hull):
    """Replay equals the state the commands built, whatever the dice, the level and the hull (1s included), and
    the hull and shields stay under the maxima the level leaves."""
    t = begin(hawk_over={"weapons": [LASER], "system_damage": level, "used": used, "hull": hull})
    t.run(sw.DistributePower(actor="kira"), SeededDice(seed))
    t.run(sw.Damage(ship="hawk", amount=hull % 7 * 5 + 1), SeededDice(seed))  # sometimes down to 0 hull points
    fire = sw.TakeAction(actor="kira", action="fire", weapon="laser cannons", target="frigate")
    for who in ("kira", "dex"):
        try:
            t.run(sw.StartCrewTurn(actor=who), SeededDice(seed))
            t.run(fire, SeededDice(seed + 1))
            t.run(sw.Stabilise(actor=who, modifier=1), SeededDice(seed + 2))
        except RuleError:
            pass
        assert replay(sw.evolve, t.initial, t.log) == t.state
        hawk = t.state.ship("hawk")
        assert hawk.hull <= hull_max(t.state, hawk) and hawk.shields <= shields_max(t.state, hawk)
