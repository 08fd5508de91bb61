"""Stats the seeds derive from the sheet (combat.rules.stats `derive`), and the GM's override, in the fight.

HERO: initiative DEX is DEX unless the GM raises it. The Expanse: Toughness is Constitution (never below 0),
Defense is 10 + Dexterity, lowered by armour's Dexterity penalty.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules import expanse as ex
from combat.rules import hero as h
from combat.rules import registry
from combat.rules.core import RuleError
from combat.rules.expanse.stats import ARMOUR
from combat.rules.stats import OVERRIDES
from tests.combat.test_expanse_rules import begun, encounter, last_test, luwe, pistol
from tests.combat.test_hero_rules import started
from tests.conftest import examples

EXPANSE = registry.get("expanse").stats
HERO = registry.get("hero").stats


def boss_from(**sheet):
    """The Expanse's Boss built from a character sheet, as an encounter builds it."""
    return ex.fighter_from_sheet("boss", "Boss", "enemy", None, sheet, ("luwe",))


def hero_from(key, name, side="pc", **sheet):
    foes = ("ogre",) if side == "pc" else ("kara",)
    return h.fighter_from_sheet(key, name, side, 1 if side == "pc" else None, sheet, foes)


# --- The Expanse: Toughness -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "constitution,toughness,note",
    [(3, 3, "= Constitution 3"), (0, 0, "= Constitution 0"), (-1, 0, "= Constitution -1, but never below 0")],
)
def test_toughness_is_constitution_and_never_negative(constitution, toughness, note):
    """Seed: "Toughness is equal to your Constitution Score (minimum 0, cannot be negative)"."""
    assert boss_from(constitution=constitution).toughness == toughness
    [shown] = [d for d in EXPANSE.derived({"constitution": constitution}) if d.key == "toughness"]
    assert (shown.value, shown.note, shown.overridden) == (toughness, note, False)


@pytest.mark.parametrize("constitution,soak", [(3, 3), (-2, 0)])
def test_a_sheet_s_constitution_soaks_the_damage_in_the_fight(constitution, soak):
    """Seed: "1. Subtract the target's Toughness (including armour)"; Toughness is the Constitution Score."""
    t = begun(("luwe", "boss"), encounter(luwe(), boss_from(constitution=constitution, dexterity=0)))
    t.do(pistol(), faces=[2, 3, 4, 6, 6])  # Accuracy +5 + 9 = 14 hits Defense 10; 2d6 + Perception 2 = 14 damage
    assert t.state.hits[0].after_toughness == 14 - soak


# --- The Expanse: Defense -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dexterity,armour,defense",
    [(3, "none", 13), (3, "padding", 13), (3, "light", 12), (3, "medium", 11), (3, "heavy", 10), (3, "power", 13)]
    + [(-5, "heavy", 2), (12, "none", 22), (0, "none", 10)],
)
def test_defense_is_ten_plus_dexterity_lowered_by_armour(dexterity, armour, defense):
    """Notes: "Defense = 10 + Dexterity"; seed: armour "decreases your Dexterity and Speed" (its Armour Penalty)."""
    f = boss_from(dexterity=dexterity, armour=armour)
    assert f.defense == defense
    [shown] = [d for d in EXPANSE.derived({"dexterity": dexterity, "armour": armour}) if d.key == "defense"]
    penalty = -ARMOUR[armour][2]
    expected = f"Defense {defense} = 10 + Dexterity {dexterity}"
    assert shown.sentence == expected + (f" − {penalty} ({ARMOUR[armour][0]})" if penalty else "")


@pytest.mark.parametrize("faces,hits", [((1, 2, 4), True), ((1, 2, 3), False)])
def test_the_fight_attacks_the_derived_defense(faces, hits):
    """Seed: "If your result is equal to or greater than the target's defense, you hit." Dexterity 3 in light
    armour: Defense 12, so Luwe's +5 hits on 7 and misses on 6 (a hand-typed sheet used to fight at 11)."""
    t = begun(("luwe", "boss"), encounter(luwe(), boss_from(dexterity=3, armour="light")))
    t.do(pistol(), faces=list(faces) + ([1, 1] if hits else []))
    assert last_test(t).success is hits


@pytest.mark.parametrize("penalty_on,defense", [(True, 11), (False, 13)])
def test_the_fight_s_defense_follows_the_armour_penalty_setting(penalty_on, defense):
    """Seed: armour "decreases your Dexterity and Speed"; the GM's `armour_penalty` setting, off when "your sheets
    already include it", leaves the penalty out of Dexterity tests and Speed, and so out of Defense too:
    Dexterity 3 in medium armour (-2) fights at Defense 11 with the setting on and 13 with it off."""
    state = encounter(luwe(), boss_from(dexterity=3, armour="medium", speed=11), armour_penalty=penalty_on)
    boss = state.fighter("boss")
    assert ex.defense(state, boss) == defense
    assert ex.speed(state, boss) == (9 if penalty_on else 11)
    assert ex.ability(state, boss, "Dexterity") == (1 if penalty_on else 3)
    t = begun(("luwe", "boss"), state)
    t.do(pistol(), faces=[2, 2, 3] + ([1, 1] if penalty_on else []))  # 7 + 5 = 12: hits 11, misses 13
    assert last_test(t).success is penalty_on


def test_a_defense_the_gm_set_is_used_as_it_is_whatever_the_armour_penalty_setting():
    """The GM's override is the number the fight uses: the setting gives back only what the sheet took off."""
    f = boss_from(dexterity=3, armour="medium", **{OVERRIDES: {"defense": 15}})
    assert f.defense_armour == 0
    assert ex.defense(encounter(luwe(), f, armour_penalty=False), f) == 15


# --- the GM's override ----------------------------------------------------------------------------------------------


def test_the_gm_s_override_is_shown_as_such_and_used_by_the_fight():
    """The fight uses the override if set, else the derived value; the sheet says which."""
    sheet = {"dexterity": 3, "constitution": 2, OVERRIDES: {"defense": 15}}
    defense, toughness = EXPANSE.derived(sheet)
    assert defense.sentence == "Defense 15 — set by the GM; derived would be 13"
    assert toughness.sentence == "Toughness 2 = Constitution 2"
    f = boss_from(**sheet)
    assert (f.defense, f.toughness) == (15, 2)
    t = begun(("luwe", "boss"), encounter(luwe(), f))
    t.do(pistol(), faces=[1, 3, 5])  # 9 + 5 = 14: would hit Defense 13, misses the GM's 15
    assert last_test(t).success is False


def test_a_stored_typed_value_is_not_an_override():
    """Only `overrides` count: a value under the stat's own key (an old stock default) is worked out again."""
    assert boss_from(dexterity=3, defense=11, toughness=1, constitution=4).defense == 13
    assert boss_from(dexterity=3, defense=11, toughness=1, constitution=4).toughness == 4


def test_an_override_outside_the_stat_s_limits_is_refused_with_a_sentence():
    assert EXPANSE.clean_overrides({"defense": "41"}) == ({}, {"defense": "Defense cannot be above 40."})
    assert EXPANSE.clean_overrides({"toughness": "lots"}) == ({}, {"toughness": "Toughness must be a whole number."})
    assert EXPANSE.clean_overrides({"defense": " ", "dexterity": 5}) == ({}, {})  # empty: derived; typed: ignored


# --- HERO: initiative DEX -------------------------------------------------------------------------------------------


def test_a_dex_23_hero_acts_before_a_dex_11_ogre_and_holds_below_23():
    """Seed: "If two or more characters act on the same phase, the one with the highest DEX acts first"; a held
    action waits "until a lower DEX". A sheet with DEX 23 and no initiative DEX used to act at DEX 10."""
    t = started(hero_from("kara", "Kara", spd=3, dex=23), hero_from("ogre", "Ogre", "enemy", spd=2, dex=11))
    assert t.state.order == ("kara", "ogre") and t.state.active == "kara"
    assert t.state.fighter("kara").initiative_dex == 23
    with pytest.raises(RuleError, match="lower than Kara's 23"):
        t.do(h.Hold(actor="kara", until="dex", dex=23))
    held, offered = t.do(h.Hold(actor="kara", until="dex", dex=22))
    assert held.held.dex == 22
    assert offered.kind == "hold_offered"  # nobody acts between DEX 23 and 22: DEX 22 comes round at once


def test_the_gm_raises_initiative_dex_above_dex():
    """Lightning Reflexes-style bonuses "raise DEX for ordering only" (notes): the GM's override."""
    kara = hero_from("kara", "Kara", spd=3, dex=23, **{OVERRIDES: {"initiative_dex": 30}})
    t = started(kara, hero_from("ogre", "Ogre", "enemy", spd=2, dex=28))
    assert t.state.order == ("kara", "ogre")
    assert (kara.dex, kara.initiative_dex) == (23, 30)
    [shown] = HERO.derived({"dex": 23, OVERRIDES: {"initiative_dex": 30}})
    assert shown.sentence == "DEX for initiative 30 — set by the GM; derived would be 23"
    assert HERO.derived({"dex": 23})[0].sentence == "DEX for initiative 23 = DEX 23"


# --- the mechanism's invariant --------------------------------------------------------------------------------------


def _sheets(schema):
    typed = {s.key: st.integers(s.min, s.max) for s in schema.typed if s.kind == "int" and s.min is not None}
    choices = {s.key: st.sampled_from([v for v, _ in s.choices]) for s in schema.typed if s.choices}
    overrides = st.dictionaries(
        st.sampled_from([s.key for s in schema.stats if s.derive]),
        st.integers(0, 20),  # within every derived stat's limits
    )
    return st.tuples(st.fixed_dictionaries({**typed, **choices}), overrides)


SHEETS = st.sampled_from(["hero", "expanse"]).flatmap(
    lambda key: st.tuples(st.just(key), _sheets(registry.get(key).stats))
)


@given(SHEETS)
@settings(max_examples=examples(200), deadline=None)
def test_the_fight_reads_the_override_if_set_else_a_derived_value_the_gm_could_also_type(case):
    """For every sheet: resolve() gives each derived stat its override or its derivation, the derivation lies within
    the stat's own limits (so the GM's box accepts it), and resolving twice changes nothing."""
    key, (typed, overrides) = case
    schema = registry.get(key).stats
    sheet = {**typed, OVERRIDES: overrides}
    resolved = schema.resolve(sheet)
    for item in schema.derived(sheet):
        stat = schema.get(item.key)
        assert resolved[item.key] == overrides.get(item.key, item.derived.value)
        assert item.overridden is (item.key in overrides)
        assert stat.min <= item.derived.value <= stat.max
        assert schema.clean_overrides({item.key: str(item.derived.value)}) == ({item.key: item.derived.value}, {})
    assert schema.resolve(resolved) == resolved
