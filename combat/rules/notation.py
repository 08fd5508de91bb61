"""Dice notation for the table's free rolls: `3d6+2`, `2d10`, `2d6+1d4-1`, `d20`, `d%`.

A roll is one or more terms joined by `+` or `-`: `NdS` (N dice of S sides; `dS` is one die; `d%` is a d100) or
a whole number. Spaces and capitals do not matter. There are limits, so no one rolls 10,000d10000: at most
MAX_DICE dice in all, dice of 2 to MAX_SIDES sides, MAX_TERMS terms and numbers up to MAX_NUMBER. Every refusal
is one sentence (core.RuleError).

Burn Bryte's skill rolls (seed 000: "the k-th roll of a turn = k+1 dice", each of the skill's size) may also be
written `k+1` (or `k`, `k+2`, `k-1`): `skill_offset` reads it, and `skill_dice` turns it into plain dice once the
model has worked out k and the die size from the character (free_roll.decide_free_roll); the plain dice then keep
every limit above. The model's log sentence says whether they show doubles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from combat.rules.core import RuleError

MAX_DICE = 100
MAX_SIDES = 1000
MAX_TERMS = 10
MAX_NUMBER = 1000
MAX_LENGTH = 60

NOT_NOTATION = "That is not dice notation: write it like 2d6+1, 3d8 or d20."

_SKILL = re.compile(r"k(?:([+-])(\d{1,3}))?")
_TERM = re.compile(r"([+-]?)(\d*)(?:(d)(\d+|%))?")


@dataclass(frozen=True)
class Term:
    """`count` dice of `sides` sides (sides 0: a plain number, `count` of it), added (`sign` 1) or taken away (-1)."""

    sign: int
    count: int
    sides: int

    @property
    def text(self) -> str:
        body = f"{self.count}d{self.sides}" if self.sides else str(self.count)
        return ("-" if self.sign < 0 else "+") + body


def parse(notation: str) -> tuple[Term, ...]:
    """The terms of `notation`, or a RuleError sentence saying what is wrong with it."""
    text = "".join(str(notation).split()).lower()
    if not text:
        raise RuleError("Type the dice to roll, for example 2d6+1.")
    if len(text) > MAX_LENGTH:
        raise RuleError(f"That is too long to be a roll: at most {MAX_LENGTH} characters.")
    terms: list[Term] = []
    at = 0
    while at < len(text):
        match = _TERM.match(text, at)
        if match is None or match.end() == at or (at > 0 and not match.group(1)):
            raise RuleError(NOT_NOTATION)
        sign, number, die, sides = match.groups()
        if not die and not number:
            raise RuleError(NOT_NOTATION)
        terms.append(_term(-1 if sign == "-" else 1, number, die, sides))
        at = match.end()
    if len(terms) > MAX_TERMS:
        raise RuleError(f"A roll has at most {MAX_TERMS} parts.")
    if not any(t.sides for t in terms):
        raise RuleError("A roll needs at least one die, for example 1d20+3.")
    if sum(t.count for t in terms if t.sides) > MAX_DICE:
        raise RuleError(f"A roll has at most {MAX_DICE} dice.")
    return tuple(terms)


def _term(sign: int, number: str, die: str, sides: str) -> Term:
    if len(number) > 4 or int(number or 1) > MAX_NUMBER:
        raise RuleError(f"Numbers in a roll go up to {MAX_NUMBER}.")
    if not die:
        return Term(sign, int(number), 0)
    count = int(number) if number else 1
    if count < 1:
        raise RuleError("Roll at least one die of each kind.")
    if sign < 0:
        raise RuleError("Dice are added, not taken away: write 1d20-2, not 1d20-1d4.")
    size = 100 if sides == "%" else int(sides[:5])
    if not 2 <= size <= MAX_SIDES:
        raise RuleError(f"A die has 2 to {MAX_SIDES} sides.")
    return Term(sign, count, size)


def skill_offset(notation: str) -> int | None:
    """What `notation` adds to k when it is a skill roll's `k`, `k+1` or `k-1` (0, 1, -1); None when it is not one."""
    match = _SKILL.fullmatch("".join(str(notation).split()).lower())
    if match is None:
        return None
    sign, number = match.groups()
    return (-1 if sign == "-" else 1) * int(number or 0)


def skill_dice(offset: int, k: int, sides: int) -> str:
    """`k+offset` dice of `sides` sides, written plainly (`3d8`) for `parse`, which keeps the limits."""
    if k + offset < 1:
        raise RuleError("Roll at least one die of each kind.")
    return f"{k + offset}d{sides}"


def normal(terms: tuple[Term, ...]) -> str:
    """The terms written as a roll, the way the log says it: `2d6+1d4-1`."""
    return "".join(t.text for t in terms).removeprefix("+")


def bounds(terms: tuple[Term, ...]) -> tuple[int, int]:
    """The lowest and highest total the roll can come to."""
    low = sum(t.sign * t.count for t in terms)
    high = sum(t.sign * t.count * (t.sides or 1) for t in terms)
    return low, high


def split(terms: tuple[Term, ...], faces: tuple[int, ...]) -> list[tuple[int, ...]]:
    """`faces`, in the order rolled, cut into each dice term's own."""
    out, at = [], 0
    for term in terms:
        if term.sides:
            out.append(tuple(faces[at : at + term.count]))
            at += term.count
    return out


def total(terms: tuple[Term, ...], faces: tuple[int, ...]) -> int:
    dice = iter(split(terms, faces))
    return sum(t.sign * sum(next(dice)) if t.sides else t.sign * t.count for t in terms)
