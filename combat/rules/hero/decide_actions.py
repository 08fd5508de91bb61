"""Moving, Presence attacks and waiting on an offered held action.

Moving: the seed's "Full Phase Action ... Examples: Moving more than half your RUN" and "Half Phase Action ...
Examples: Moving half your run or less": the engine works out which from the metres moved against the character's
RUN (a sheet stat, 12 m by default as in HERO 6e), so a half move leaves the phase's attack and a full move ends it.

Presence attacks "can be done at any time, even on segments where you don't have an action" (the seed's actions that
take no time). The dice and the effect levels are not in the seed; they come from public HERO 6e material: 1d6 per
5 PRE, plus or minus dice for the circumstances, the total compared with the target's PRE (a GM setting: or EGO, or
the higher of the two), and each 10 points beyond it one level more (LEVELS).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from combat.rules.core import Command, Event, revealed_by_attack
from combat.rules.core import require as _require
from combat.rules.dice import Dice
from combat.rules.hero.commands import KeepHolding, Move, PresenceAttack
from combat.rules.hero.decide_phase import _able, _floor_halves, _on_floor, _text
from combat.rules.hero.events import HoldKept, Moved, PresenceAttacked
from combat.rules.hero.state import Fighter, State

# (points over the target's PRE, name, what it does): the HERO 6e Presence Attack table
LEVELS = (
    (0, "impressed", "hesitates, so the attacker acts first in the target's next phase"),
    (10, "very impressed", "hesitates as above and takes only a half phase action in the next phase"),
    (20, "awed", "does not act for one full phase and is at half DCV"),
    (30, "cowed", "may surrender, run away or faint, and is at 0 DCV"),
)
MOST_DICE = 40


def presence_dice(f: Fighter, dice_mod: int = 0) -> int:
    """1d6 per 5 PRE, with the circumstances' dice added or taken away."""
    return f.pre // 5 + dice_mod


def presence_against(state: State, target: Fighter) -> int:
    how = state.settings.get("presence_against", "pre")
    return target.ego if how == "ego" else max(target.pre, target.ego) if how == "higher" else target.pre


def presence_level(total: int, against: int) -> int:
    """0 no effect; 1–4 the row of LEVELS the total reaches (its PRE, +10, +20, +30)."""
    return sum(1 for over, _, _ in LEVELS if total >= against + over)


def _keep_holding(state: State, c: KeepHolding, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _require(f.id in state.offers, f"{f.name} has no held action waiting on an answer.")
    return [HoldKept(fighter=f.id)]


def _move(state: State, c: Move, dice: Dice) -> list[Event]:
    f = _on_floor(state, c.actor)
    _able(f)
    _require(f.run > 0, f"{f.name} has no RUN to move with.")
    _require(1 <= c.metres <= f.run, f"{f.name} runs 1 to {f.run} m in a phase.")
    halves = _floor_halves(state, f)
    full = c.metres * 2 > f.run
    _require(
        not (full and halves),
        f"{f.name} has half a phase left: a half move of at most {f.run // 2} m, or an attack.",
    )
    ends = full or halves + 1 >= 2
    return [Moved(fighter=f.id, metres=c.metres, run=f.run, full=full, ends_phase=ends, text=_text(c.text))]


def _presence_attack(state: State, c: PresenceAttack, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _able(f)
    target = state.fighter(c.target)
    _require(target.id != f.id, "Choose someone else to impress.")
    _require(target.id in f.aware_of or target.side == f.side, f"{f.name} is not aware of {target.name}.")
    _require(-10 <= c.dice_mod <= 10, "Add or take away at most 10 dice for the circumstances.")
    count = presence_dice(f, c.dice_mod)
    _require(1 <= count <= MOST_DICE, f"{f.name}'s Presence attack needs 1 to {MOST_DICE} dice (1d6 per 5 PRE).")
    roll = dice.roll(count, 6)
    against = presence_against(state, target)
    return [
        *revealed_by_attack(state, f.id),  # a Presence attack is an attack: it gives an unseen attacker away too
        PresenceAttacked(
            fighter=f.id,
            target=target.id,
            roll=roll,
            against=against,
            level=presence_level(sum(roll), against),
            text=_text(c.text),
        ),
    ]


DECIDERS: dict[type[Command], Callable[[State, Any, Dice], list[Event]]] = {
    KeepHolding: _keep_holding,
    Move: _move,
    PresenceAttack: _presence_attack,
}
