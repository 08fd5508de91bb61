"""Issue 20's stories and highlights for The Expanse: the hand-worked fight of tests/combat/test_expanse_table.py
(Rosa's pistol hits Thug 1 for 7 past Toughness; Marcus misses; Thug 1 hits Rosa for 9, which she pays in Fortune)."""

import pytest

from combat import review, stories
from tests.combat.test_expanse_table import enc, fought, key, marcus, rosa, thug  # noqa: F401

pytestmark = pytest.mark.django_db


def _build(encounter, gm):
    return stories.build(encounter, review.build(encounter, is_gm=gm))


def test_an_expanse_story_counts_turns_hits_misses_and_stunt_points(fought, rosa, marcus, thug):  # noqa: F811
    """Issue 20: "Per character: turns taken, rolls and successes, hits and misses, damage dealt and taken, ...
    pools spent and gained (... stunt points ...)"."""
    cards = {c.summary.key: c for c in _build(fought, True).cards}
    r, m, t = cards[key(rosa)], cards[key(marcus)], cards[key(thug, 1)]
    assert (r.turns, r.hits, r.misses, r.summary.damage_dealt, r.summary.damage_taken) == (1, 1, 0, 7, 9)
    assert (m.turns, m.hits, m.misses) == (1, 0, 1)
    assert (t.turns, t.hits, t.misses) == (1, 1, 0)
    assert r.summary.figures == {"sp_earned": 4, "sp_spent": 3}
    assert len(r.turn_seconds) == len(m.turn_seconds) == 1


def test_expanse_highlights(fought, rosa):  # noqa: F811
    """Issue 20: "the biggest hit, the closest call (lowest health survived) ... the turn that swung the fight";
    an Expanse combatant's health is Fortune."""
    for gm in (True, False):  # every figure of this fight is public
        s = _build(fought, gm)
        h = {x.title: x.text for x in s.highlights}
        assert h["The biggest hit"] == "Thug 1 hit Rosa for 9 damage past Toughness."
        assert h["The closest call"] == "Rosa came down to 9 Fortune and was still standing at the end."  # 18 - 9
        assert h["The turn that swung the fight"] == (
            "Round 1, Thug 1's turn: the player characters lost 9 damage past Toughness in all."
        )


def test_expanse_luck_against_the_exact_odds_of_each_test(fought):  # noqa: F811
    """Issue 20: "the luckiest and unluckiest rolls against their odds", worked out from 3d6's 216 ways. Rosa: 3d6 +
    5 against Thug 1's Defense 17 needs 12 or more (81 ways, 37.5%; her 14 hit). Marcus: + 2 against 17 needs 15 or
    more (20 ways, 9%; his 8 missed). Thug 1: + 2 against Rosa's Defense 16 (Duck and Weave) needs 14 or more
    (35 ways, 16%; his 15 hit)."""
    s = _build(fought, True)
    h = {x.title: x.text for x in s.highlights}
    assert h["The luckiest roll"] == "Thug 1 succeeded against a 16% chance."
    assert h["The unluckiest roll"] == "Marcus failed with a 9% chance of success."
    chances = [r.chance for step in review.build(fought, is_gm=True).steps for r in step.facts.rolls if r.counted]
    assert chances == [81 / 216, 20 / 216, 35 / 216]
    assert s.no_luck == ""


def test_a_player_knows_the_odds_only_against_a_defense_they_may_see(fought):  # noqa: F811
    """A thug's Defense is the GM's to know (the log does not tell it to players), so the odds of the PCs' attacks on
    the thugs stay with the GM; Thug 1's attack on Rosa was against her Defense, which the party knows."""
    s = _build(fought, False)
    h = {x.title: x.text for x in s.highlights}
    assert h["The luckiest roll"] == "Thug 1 succeeded against a 16% chance."
    assert "The unluckiest roll" not in h  # Marcus's miss had odds the party does not know
    chances = [r.chance for step in review.build(fought, is_gm=False).steps for r in step.facts.rolls if r.counted]
    assert chances == [None, None, 35 / 216]


def test_an_expanse_story_counts_the_conditions_suffered(fought, rosa, thug):  # noqa: F811
    """Issue 20: "conditions suffered": Thug 1 took Injured, then Wounded, to answer Rosa's 7 damage; players see
    a thug's conditions on the table too."""
    for gm in (True, False):
        cards = {c.summary.key: c for c in _build(fought, gm).cards}
        assert cards[key(thug, 1)].conditions == {"Injured": 1, "Wounded": 1}
        assert cards[key(rosa)].conditions_text == "none"
