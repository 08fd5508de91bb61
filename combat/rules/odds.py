"""The exact chance of success of the checks the engines roll, for the review's luckiest and unluckiest rolls.

Each is worked out from the dice's distribution (every way the dice can fall, counted), with the rules as the
engines apply them: SW5e's d20 + bonus against AC or DC (a natural 1 misses and a natural 20 hits when the GM's
`critical` setting says so; disadvantage keeps the lower of two d20s), HERO's 3d6 roll-under (a 3 always hits, an
18 always misses), and The Expanse's 3d6 + modifier against a target number or Defense. Burn Bryte's own chance
(no doubles) is `combat.rules.burn_bryte.state.chance_of_success`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache


@cache
def ways(count: int, sides: int) -> tuple[int, ...]:
    """ways[t]: in how many of the sides**count ways `count` dice of `sides` sides can fall they total t."""
    table = [1]
    for _ in range(count):
        step = [0] * (len(table) + sides)
        for total, n in enumerate(table):
            if n:
                for face in range(1, sides + 1):
                    step[total + face] += n
        table = step
    return tuple(table)


def _share(count: int, sides: int, keep: Callable[[int], bool]) -> float:
    """The chance that the total of `count` dice of `sides` sides is one `keep` accepts."""
    table = ways(count, sides)
    return float(Fraction(sum(n for total, n in enumerate(table) if keep(total)), sides**count))


def at_least(count: int, sides: int, target: int) -> float:
    """The chance that `count`d`sides` totals `target` or more."""
    return _share(count, sides, lambda total: total >= target)


def at_most(count: int, sides: int, target: int) -> float:
    """The chance that `count`d`sides` totals `target` or less."""
    return _share(count, sides, lambda total: total <= target)


def d20(succeeds: Callable[[int], bool], disadvantage: bool = False) -> float:
    """The chance that the d20 that counts shows a face `succeeds` accepts; with disadvantage it is the lower of two
    (it shows f in 2·(20 − f) + 1 of the 400 ways two d20s fall)."""
    if disadvantage:
        return float(Fraction(sum(2 * (20 - f) + 1 for f in range(1, 21) if succeeds(f)), 400))
    return float(Fraction(sum(1 for f in range(1, 21) if succeeds(f)), 20))


def sw5e_attack(attack: int, ac: int, natural: bool, disadvantage: bool = False) -> float:
    """SW5e's attack roll: d20 + `attack` hits when it reaches `ac`; with `natural` (the GM's critical rule) a 20
    always hits and a 1 always misses."""

    def hits(face: int) -> bool:
        if natural and face in (1, 20):
            return face == 20
        return face + attack >= ac

    return d20(hits, disadvantage)


def sw5e_check(modifier: int, dc: int, disadvantage: bool = False) -> float:
    """A d20 + `modifier` check or save that succeeds at `dc` or more (a destruction save: modifier 0, DC 10)."""
    return d20(lambda face: face + modifier >= dc, disadvantage)


def hero_attack(needed: int) -> float:
    """HERO's attack roll: 3d6 of `needed` or less hits (11 + OCV − DCV); a 3 always hits and an 18 always misses."""
    return _share(3, 6, lambda total: total == 3 or (total != 18 and total <= needed))


def expanse_test(modifier: int, tn: int) -> float:
    """An AGE test: 3d6 + `modifier` reaching `tn` (a target number or Defense) succeeds."""
    return at_least(3, 6, tn - modifier)
