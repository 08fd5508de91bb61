"""The exact chances of the engines' checks (combat.rules.odds), behind the review's luckiest and unluckiest rolls
(issue 20): each against every way the dice can fall, counted by brute force here, and its invariants as
properties."""

from itertools import product

from hypothesis import given
from hypothesis import strategies as st

from combat.rules import odds
from combat.rules.hero.state import attack_hits
from combat.rules.sw5e.disabled import SAVE_DC

targets = st.integers(min_value=-30, max_value=40)
bonuses = st.integers(min_value=-10, max_value=20)


def _every(count: int, sides: int):
    return list(product(range(1, sides + 1), repeat=count))


def _d20_faces(disadvantage: bool):
    """Each way the d20s fall, as the face that counts (the lower of two with disadvantage)."""
    return [min(pair) for pair in _every(2, 20)] if disadvantage else list(range(1, 21))


@given(bonus=bonuses, ac=targets, natural=st.booleans(), disadvantage=st.booleans())
def test_a_sw5e_attack_is_the_share_of_d20_faces_that_hit_as_the_engine_rules(bonus, ac, natural, disadvantage):
    """The engine (sw5e/fire.py): a hit is a natural 20 (with the critical rule), else d20 + bonus >= AC unless a
    natural 1 (with the rule)."""
    faces = _d20_faces(disadvantage)
    hits = [f for f in faces if (natural and f == 20) or (not (natural and f == 1) and f + bonus >= ac)]
    assert odds.sw5e_attack(bonus, ac, natural, disadvantage) == len(hits) / len(faces)


@given(bonus=bonuses, ac=targets, natural=st.booleans(), disadvantage=st.booleans())
def test_a_sw5e_attack_is_a_chance_and_never_likelier_against_a_higher_ac(bonus, ac, natural, disadvantage):
    chance = odds.sw5e_attack(bonus, ac, natural, disadvantage)
    assert 0 <= chance <= 1
    assert odds.sw5e_attack(bonus, ac + 1, natural, disadvantage) <= chance
    assert odds.sw5e_attack(bonus, ac, natural, True) <= odds.sw5e_attack(bonus, ac, natural, False)


def test_sw5e_hand_worked_odds():
    """+5 against AC 12 hits on 7 to 20: 14 in 20. With the critical rule a +30 still misses on a 1 (19 in 20) and
    a −10 against AC 40 still hits on a 20 (1 in 20). A destruction save (10 or more) with disadvantage: the lower
    of two d20s is 10 or more in 11 × 11 of 400 ways."""
    assert odds.sw5e_attack(5, 12, natural=True) == 0.7
    assert odds.sw5e_attack(30, 12, natural=True) == 0.95 and odds.sw5e_attack(30, 12, natural=False) == 1
    assert odds.sw5e_attack(-10, 40, natural=True) == 0.05 and odds.sw5e_attack(-10, 40, natural=False) == 0
    assert odds.sw5e_check(0, SAVE_DC) == 0.55 and odds.sw5e_check(0, SAVE_DC, disadvantage=True) == 121 / 400


@given(modifier=bonuses, dc=targets, disadvantage=st.booleans())
def test_a_d20_check_is_monotone_in_its_dc(modifier, dc, disadvantage):
    chance = odds.sw5e_check(modifier, dc, disadvantage)
    assert 0 <= chance <= 1 and odds.sw5e_check(modifier, dc + 1, disadvantage) <= chance


@given(needed=targets)
def test_a_hero_attack_is_the_share_of_3d6_the_engine_counts_a_hit(needed):
    """Against the engine's own rule (hero/state.py attack_hits: 3 always hits, 18 always misses)."""
    rolls = _every(3, 6)
    assert odds.hero_attack(needed) == sum(attack_hits(sum(r), needed) for r in rolls) / len(rolls)


@given(needed=targets)
def test_a_hero_attack_is_a_chance_never_certain_and_likelier_the_more_it_may_be(needed):
    chance = odds.hero_attack(needed)
    assert 1 / 216 <= chance <= 215 / 216  # a 3 always hits, an 18 always misses
    assert odds.hero_attack(needed + 1) >= chance


def test_hero_hand_worked_odds():
    """11 or less on 3d6: 108 of 216 (a half); 14 or less: 196 of 216."""
    assert odds.hero_attack(10) == 0.5 and odds.hero_attack(14) == 196 / 216


@given(count=st.integers(min_value=1, max_value=4), sides=st.sampled_from([4, 6, 8]), target=targets)
def test_dice_totals_at_least_and_at_most_match_every_way_the_dice_fall(count, sides, target):
    rolls = _every(count, sides)
    assert odds.at_least(count, sides, target) == sum(sum(r) >= target for r in rolls) / len(rolls)
    assert odds.at_most(count, sides, target) == sum(sum(r) <= target for r in rolls) / len(rolls)


@given(modifier=bonuses, tn=targets)
def test_an_expanse_test_is_a_chance_and_never_likelier_against_a_higher_target(modifier, tn):
    chance = odds.expanse_test(modifier, tn)
    assert 0 <= chance <= 1
    assert odds.expanse_test(modifier, tn + 1) <= chance
    assert odds.expanse_test(modifier + 1, tn) >= chance
    assert chance == sum(sum(r) + modifier >= tn for r in _every(3, 6)) / 216


def test_expanse_hand_worked_odds():
    """3d6 + 5 against 17 needs 12 or more: 81 of 216; + 2 against 17 needs 15 or more: 20 of 216."""
    assert odds.expanse_test(5, 17) == 81 / 216 and odds.expanse_test(2, 17) == 20 / 216
    assert odds.expanse_test(0, 3) == 1 and odds.expanse_test(0, 19) == 0
