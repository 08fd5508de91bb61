"""The table's dice roller: one command and one event every model shares (like core.Reveal).

Anyone at the table rolls whatever dice they like, at any time, whoever's turn it is: a player in the name of a PC
they own, or in their own `player` name (a player with no PC in the fight; the server sets the name from the
account, never from the form), the GM as the GM (an empty `actor` and `player`). The roll changes nothing in the
fight; its faces are in the log.

Who reads it (`show`), as most virtual tabletops do it:
  "all"   everyone at the table;
  "gm"    the roller and the GM ("to the GM only"; the GM's own "gm" roll is the GM's secret roll);
  "self"  the roller alone: the GM's log says only that the player rolled for themself, not what they rolled.
Other players never read a "gm" or "self" roll: the event is the GM's audience, so it stays out of the players'
log, frames and exports; the roller reads their own on their phone (selectors.own_rolls).

A model registers it with: FreeRoll in COMMANDS, DiceRolled in EVENTS, `decide_free_roll` in its decide,
`evolve_dice_rolled` in its evolve (the state does not change) and `describe_dice_rolled` in its describe.

Burn Bryte's skill rolls (seed 000: "the k-th roll of a turn = k+1 dice") may be rolled as `k+1` (or `k`, `k+2`) for
one of the character's skills, without knowing the numbers: its decide passes `skill_dice`, which works out k and
the die size from the character, and the roll keeps the skill's name (`skill`) for the log.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from combat.rules import notation
from combat.rules.core import Command, Event, RuleError, Sight, require
from combat.rules.dice import Dice

SHOW = {"all": "Everyone", "gm": "Me and the GM", "self": "Only me"}
GM_SHOW = {"all": "Everyone", "gm": "Secret (GM only)"}


@dataclass(frozen=True)
class FreeRoll(Command):
    """Roll dice that the rules do not call for: `notation` like 2d6+1, read by `show` ("all", "gm", "self")."""

    name: ClassVar[str] = "roll"
    label: ClassVar[str] = "Roll dice"
    who: ClassVar[str] = "owner"
    actor: str = ""
    notation: str = ""
    show: str = "all"
    player: str = ""
    skill: str = ""  # Burn Bryte: the skill a `k+1` roll is for


@dataclass(frozen=True)
class DiceRolled(Event):
    """A free roll: `roller` the PC's id, or `player` the name of a player who rolled in their own name (both ""
    for the GM), `notation` as the log writes it, every die's face in the order rolled, the `total`, and who may
    read it (`show`)."""

    kind: ClassVar[str] = "dice_rolled"
    roller: str = ""
    notation: str = ""
    faces: tuple[int, ...] = ()
    total: int = 0
    show: str = "all"
    player: str = ""
    skill: str = ""  # the skill a `k+1` roll was for (Burn Bryte); "" for plain dice

    @property
    def audience(self) -> str:  # type: ignore[override]
        return "public" if self.show == "all" else "gm"


SkillDice = Callable[[Any, Any, str], tuple[int, int]]  # (state, PC, skill) -> (k, the skill's die size)
NOT_HERE = "Only Burn Bryte rolls k dice for a skill: here, write the dice, like 2d6+1."


def decide_free_roll(state: Any, command: FreeRoll, dice: Dice, skill_dice: SkillDice | None = None) -> list[Event]:
    """Any time, any phase. A player rolls in the name of their PC or in their own; the GM rolls as the GM.
    `skill_dice`: the model's k and die size of a PC's skill, for `k+1` rolls (Burn Bryte); None elsewhere."""
    roller = None
    if command.actor:
        roller = state.fighter(command.actor)
        require(roller.side == "pc", "Only a player character rolls in its own name; the GM rolls as the GM.")
    if command.actor or command.player:
        require(command.show in SHOW, "Choose who sees the roll: everyone, you and the GM, or only you.")
    else:
        require(command.show in GM_SHOW, "Choose who sees the GM's roll: everyone, or no one but the GM.")
    text, skill = command.notation, ""
    offset = notation.skill_offset(text)
    if offset is not None:
        if skill_dice is None:
            raise RuleError(NOT_HERE)
        if roller is None:
            raise RuleError("Roll k dice as your character: the dice come from their skill.")
        require(bool(command.skill), "Choose the skill to roll k dice for.")
        k, sides = skill_dice(state, roller, command.skill)
        text, skill = notation.skill_dice(offset, k, sides), command.skill
    terms = notation.parse(text)
    faces: tuple[int, ...] = ()
    for term in terms:
        if term.sides:
            faces += tuple(dice.roll(term.count, term.sides))
    return [
        DiceRolled(
            roller=command.actor,
            player="" if command.actor else command.player,
            notation=notation.normal(terms),
            faces=faces,
            total=notation.total(terms, faces),
            show=command.show,
            skill=skill,
        )
    ]


def evolve_dice_rolled(state: Any, event: DiceRolled) -> Any:
    """A free roll changes nothing in the fight."""
    return state


def result(event: DiceRolled, doubles: bool = False) -> str:
    """The roll and what came up: `2d6+1: 2d6 (3, 5) + 1 = 9`. `doubles`: say whether any dice term shows
    doubles (Burn Bryte's skill rolls fail on doubles)."""
    terms = notation.parse(event.notation)
    rolled = iter(notation.split(terms, event.faces))
    parts = []
    for term in terms:
        body = f"{term.count}d{term.sides} ({', '.join(map(str, next(rolled)))})" if term.sides else str(term.count)
        parts.append(("- " if term.sign < 0 else "+ ") + body)
    what = f"{event.skill} {event.notation}" if event.skill else event.notation
    text = f"{what}: {' '.join(parts).removeprefix('+ ')} = {event.total}"
    if doubles:
        cut = notation.split(terms, event.faces)
        twice = any(len(set(faces)) < len(faces) for faces in cut)
        text += " — doubles" if twice else (" — no doubles" if any(len(faces) > 1 for faces in cut) else "")
    return text


def roller_name(state: Any, event: DiceRolled) -> str:
    if event.roller:
        return Sight(state.fighters, gm=True).name(event.roller)
    return event.player or "The GM"


def describe_dice_rolled(state: Any, event: DiceRolled, gm: bool = True, doubles: bool = False) -> str | None:
    """The log's sentence. Players read only rolls for everyone; the GM reads every roll's result but a "self"
    roll's, which is its roller's alone."""
    name = roller_name(state, event)
    if event.show == "self":
        return f"{name} rolled dice for their own eyes only." if gm else None
    if event.show == "gm":
        if not gm:
            return None
        whose = "for the GM" if event.roller or event.player else "in secret"
        return f"{name} rolls {whose}: {result(event, doubles)}."
    return f"{name} rolls {result(event, doubles)}."


def own_sentence(event: DiceRolled, doubles: bool = False) -> str:
    """The roller's own line for a roll only they (and perhaps the GM) read."""
    whose = "for yourself" if event.show == "self" else "for you and the GM"
    return f"You rolled {whose}: {result(event, doubles)}."


@dataclass(frozen=True)
class FreeRollFact:
    """One dice term of a free roll in the review's facts (combat.review): its faces only. A free roll has no target,
    so it neither succeeds nor fails and has no odds (no luck against them); it is not counted as one of the rules'
    rolls (`counted`), only its faces are."""

    sides: int
    faces: tuple[int, ...]
    succeeded: bool | None = None
    doubles: bool = False
    entered: bool = False
    counted: bool = False
    complexity: int = 0
    chance: float | None = None


def review_facts(facts: Any, event: DiceRolled, dice: bool) -> Any:
    """A model's review facts of a free roll (`facts`, a dataclass with `actor` and `rolls`) made the roll's own:
    its roller is the actor (the character filter and stories find it) and, when the viewer may read what came up
    (`dice`), its dice are listed."""
    terms = [term for term in notation.parse(event.notation) if term.sides]
    cut = notation.split(tuple(terms), event.faces)
    rolls = tuple(FreeRollFact(term.sides, faces) for term, faces in zip(terms, cut, strict=True)) if dice else ()
    return replace(facts, actor=event.roller, action=False, rolls=rolls)


__all__ = [
    "DiceRolled",
    "FreeRoll",
    "FreeRollFact",
    "GM_SHOW",
    "SHOW",
    "decide_free_roll",
    "describe_dice_rolled",
    "evolve_dice_rolled",
    "own_sentence",
    "result",
    "review_facts",
]
