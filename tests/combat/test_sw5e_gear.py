"""SW5e gear with scripted dice: armour (AC, damage reduction), weapon fire rolling attack and damage, power dice
added to a hit, and hull and shield points worked out from size, tier and modifiers.

Facts from ../shared/rules/sw5e-starships.md ("Ship statistics"); the seed is ../shared/seeds/001_a9fbea53989230b2.txt.
"""

import pytest

from combat.rules import sw5e as sw
from combat.rules.core import RuleError
from combat.rules.sw5e import gear
from tests.combat.test_sw5e_rules import begin, sentences

ARMED = {"weapons": ["laser cannons (+5 2d6+2)", "ion cannon"], "power": {"central": 2}}
ARMOURED = {"ac": 14, "armour": "reinforced"}


def dex_fires(settings=None, hawk_over=None, frigate_over=None):
    """The Hawk's turn, power stored, Dex (gunner) taking his turn."""
    t = begin(settings, {**ARMED, **(hawk_over or {})}, {**ARMOURED, **(frigate_over or {})})
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.SetCrewOrder(actor="kira", order="dex kira mira"))
    t.do(sw.StartCrewTurn(actor="dex"))
    return t


def fire(**over):
    return sw.TakeAction(actor="dex", action="fire", weapon="laser cannons", target="frigate", **over)


def test_armour_sets_ac_and_damage_reduction():
    """Notes: "Armour: AC 10 + Dex mod; deflection caps Dex at +2 with damage reduction 3; reinforced caps Dex at
    +0 with reduction 6 (reduction only on attack-roll hits, minimum 1 damage)"."""
    assert gear.armour_class("none", 4) == 14
    assert gear.armour_class("deflection", 4) == 12 and gear.damage_reduction("deflection") == 3
    assert gear.armour_class("reinforced", 4) == 10 and gear.damage_reduction("reinforced") == 6
    assert gear.armour_class("deflection", -1) == 9
    assert gear.reduced(9, 6) == 3 and gear.reduced(4, 6) == 1


def test_hull_and_shield_points_from_size_tier_and_modifiers():
    """Notes: "Hull points: first hull die at max + Con mod, the rest rolled or averaged + Con mod. Shield points
    likewise with shield dice and Str mod, then × the shield type's capacity multiplier"."""
    # Medium tier 1: 6 d8 hull dice; 8+1 then 5 × (5+1).
    assert gear.hull_points("medium", 1, 1) == 39
    assert gear.shield_points("medium", 1, 0, "directional") == 33
    assert gear.shield_points("medium", 1, 0, "fortress") == 49  # × 3/2
    assert gear.shield_points("medium", 1, 0, "quick_charge") == 22  # × 2/3
    # Huge tier 2: 9 + 2×2 = 13 d12 dice.
    assert gear.hull_points("huge", 2, 4) == 16 + 12 * 11
    assert gear.hull_points("tiny", 0, -4) == 1  # at least 1 a die


def test_weapon_entries_carry_attack_bonus_and_damage():
    assert gear.parse_weapon("laser cannons (+5 2d6+2)") == ("laser cannons", gear.WeaponStats(5, 2, 6, 2))
    assert gear.parse_weapon("ion cannon ( -1 1d10 )") == ("ion cannon", gear.WeaponStats(-1, 1, 10, 0))
    assert gear.parse_weapon("laser cannon 2") == ("laser cannon 2", None)
    assert gear.weapon_error("turbolaser (2d10)").startswith('Write "turbolaser"')
    with pytest.raises(RuleError, match="stats as"):
        sw.initial_state([{"id": "x", "weapons": ["turbolaser (big)"]}], (), {})


def test_fire_rolls_attack_against_ac_and_armour_reduces_the_damage():
    """Issue 18: weapon fire rolls attack and damage from the weapon's stats. Notes: "Armour ... reinforced ...
    reduction 6 (reduction only on attack-roll hits, minimum 1 damage)"; "Shields absorb damage first"."""
    t = dex_fires()
    shields = t.state.ship("frigate").shields
    *_, shot = t.do(fire(), faces=[9, 6, 5])  # 9 + 5 = 14 reaches AC 14; 6 + 5 + 2 = 13, − 6 = 7
    assert isinstance(shot, sw.WeaponFired) and shot.hit and shot.amount == 7
    assert t.state.ship("frigate").shields == shields - 7
    t.undo_last()
    *_, shot = t.do(fire(), faces=[8])  # 13 misses AC 14: no damage dice
    assert not shot.hit and shot.amount == 0 and t.state.ship("frigate").shields == shields
    t.undo_last()
    *_, shot = t.do(fire(), faces=[10, 1, 1])  # 1 + 1 + 2 = 4, − 6: still 1
    assert shot.amount == 1


def test_natural_20_doubles_the_damage_dice_and_natural_1_misses_unless_the_gm_says_otherwise():
    t = dex_fires(frigate_over={"ac": 30})
    *_, shot = t.do(fire(), faces=[20, 1, 2, 3, 4])
    assert shot.critical and shot.faces == (1, 2, 3, 4) and shot.amount == 6
    t.undo_last()
    t = dex_fires(frigate_over={"ac": 5})
    *_, shot = t.do(fire(), faces=[1])
    assert not shot.hit
    t = dex_fires({"critical": "none"}, frigate_over={"ac": 5})
    *_, shot = t.do(fire(), faces=[1, 3, 3])
    assert shot.hit and not shot.critical


def test_power_dice_add_to_a_hit_from_the_weapons_store_then_central():
    """Notes: "Central dice fuel anything; a system's dice fuel only that system's abilities. Spending a die is
    rolling it". Tier 1: d4 power dice."""
    t = dex_fires(hawk_over={"coupling": "hub_and_spoke", "power": {"weapons": 1, "central": 1}})
    events = t.do(fire(power=2), faces=[15, 3, 2, 6, 5])
    spent = [e for e in events if isinstance(e, sw.PowerSpent)]
    assert [(e.store, e.faces) for e in spent] == [("weapons", (3,)), ("central", (2,))]
    assert events[-1].power == 5 and events[-1].amount == 6 + 5 + 2 + 5 - 6
    # The fuel cell's die this turn went to the central store too: one is left.
    assert t.state.ship("hawk").stored("weapons") == 0 and t.state.ship("hawk").stored("central") == 1


def test_power_dice_stay_stored_on_a_miss_unless_declared_before_the_roll():
    t = dex_fires()
    t.do(fire(power=1), faces=[2])
    assert t.state.ship("hawk").stored("central") == 2  # full: the fuel cell's die was lost
    t = dex_fires({"fire_power": "declared"})
    events = t.do(fire(power=1), faces=[2, 4])
    assert events[-1].power == 0 and t.state.ship("hawk").stored("central") == 1


def test_power_dice_on_a_shot_are_refused_without_dice_stats_or_target():
    t = dex_fires()
    t.refused(fire(power=3), "has 2 power dice for weapons")
    t.refused(fire(power=-1), "from 0 to 20")
    t.refused(
        sw.TakeAction(actor="dex", action="fire", weapon="ion cannon", target="frigate", power=1), "weapon with stats"
    )
    t.refused(sw.TakeAction(actor="dex", action="fire", weapon="laser cannons", power=1), "at a target")


def test_fire_without_stats_or_target_records_the_attack_as_before():
    t = dex_fires()
    events = t.do(sw.TakeAction(actor="dex", action="fire", weapon="ion cannon", target="frigate"))
    assert [type(e) for e in events] == [sw.ActionTaken]


def test_the_log_shows_the_roll_and_keeps_an_npc_targets_ac_and_armour_from_players():
    t = dex_fires()
    t.do(fire(), faces=[9, 6, 5])
    gm, players = sentences(t, True)[-1], sentences(t, False)[-1]
    assert gm == (
        "Dex's laser cannons hits Imperial frigate (d20 shows 9 + 5 = 14 against AC 14): 7 damage "
        "(2d6 show 6, 5; + 2; − 6 for armour, at least 1): 7 to shields and 0 to hull."
    )
    assert players == "Dex's laser cannons hits Imperial frigate (d20 shows 9 + 5 = 14): 7 damage (2d6 show 6, 5; + 2)."
