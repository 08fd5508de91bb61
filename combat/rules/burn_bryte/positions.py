"""Burn Bryte positions and ranges: squares on a grid, how far apart two combatants are, and whether a move or an
attack's reach is within what the rules allow.

Rules notes (../shared/rules/burn-bryte.md):
  "Free movement once per turn: up to speed (default 5 squares); extra movement needs a skill roll. If the first move
  itself needs a roll (stealth, jumping a pit), it is a skill action and the free move is lost."
  "Mental/Social attacks reach 5 squares, Physical ones adjacent (thrown Ranged 5 squares) — GM adjudicates."
  Phase 3: "Every enemy still above 0 Health Levels moves (it may split movement before and after its action, total
  at most its speed) ... A declared attack does nothing if ... its target is out of range (GM confirms)."
  "Burst N: every creature within N squares of a point."

A square is a column letter and a row number ("C5"); a combatant the GM has not placed has column 0 and is never
range-checked, so fights (and stored logs) without positions play as they always did. A square may hold one
creature above 0 Health Levels: a move or a placement onto one is refused (a creature at 0 does not block).
"""

from __future__ import annotations

from dataclasses import replace

from combat.rules.burn_bryte.commands import FreeMove, MoveEnemy, Place, SkillRoll
from combat.rules.burn_bryte.events import Moved, Placed
from combat.rules.burn_bryte.state import Declaration, Fighter, State
from combat.rules.burn_bryte.stats import SKILL_CATEGORIES
from combat.rules.core import Event, Sight
from combat.rules.core import require as _require

COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_ROW = 99
REACH = {"Mental": 5, "Social": 5}  # the notes' reach in squares by skill category; Physical: adjacent (1)
RANGED_REACH = 5  # "thrown Ranged 5 squares"


def _plural(n: int) -> str:
    return "s" if n != 1 else ""


# --- squares and distances ------------------------------------------------------------------------------------


def square_name(col: int, row: int) -> str:
    """ "C5" for column 3, row 5; "" for a combatant not on the grid."""
    return f"{COLUMNS[col - 1]}{row}" if 1 <= col <= len(COLUMNS) and row >= 1 else ""


def parse_square(text: str) -> tuple[int, int]:
    """(column, row) of a square typed as a column letter and a row number ("c5", "C 5"); RuleError otherwise."""
    raw = "".join(text.split()).upper()
    bad = f"Name a square as a column letter A–Z and a row number 1–{MAX_ROW}, e.g. C5."
    _require(len(raw) >= 2 and raw[0] in COLUMNS and raw[1:].isdigit(), bad)
    row = int(raw[1:])
    _require(1 <= row <= MAX_ROW, bad)
    return COLUMNS.index(raw[0]) + 1, row


def placed(f: Fighter) -> bool:
    return f.col > 0


def distance(state: State, a: Fighter, b: Fighter) -> int | None:
    """Squares between two combatants, by the GM's grid setting; None when either is not on the grid."""
    if not (placed(a) and placed(b)):
        return None
    return squares_between(state, (a.col, a.row), (b.col, b.row))


def squares_between(state: State, a: tuple[int, int], b: tuple[int, int]) -> int:
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    if state.settings.get("grid_distance", "chebyshev") == "manhattan":
        return dx + dy
    return max(dx, dy)  # Chebyshev: a diagonal step counts 1


def occupant(state: State, col: int, row: int, mover: str) -> Fighter | None:
    """Another creature above 0 Health Levels on that square, if any."""
    return next(
        (f for f in state.fighters if f.id != mover and not f.down and (f.col, f.row) == (col, row)),
        None,
    )


def within(state: State, point: tuple[int, int], n: int) -> tuple[str, ...]:
    """Ids of every creature above 0 Health Levels within `n` squares of the square `point` (a Burst's area)."""
    if not point[0]:
        return ()
    return tuple(
        f.id for f in state.fighters if not f.down and placed(f) and squares_between(state, point, (f.col, f.row)) <= n
    )


# --- reach ----------------------------------------------------------------------------------------------------


def reach(f: Fighter, skill: str) -> int:
    """How far an attack with `skill` reaches: the sheet weapon's range for a Physical attack when it says one,
    else the notes' default (Mental and Social 5 squares, Ranged 5, other Physical adjacent)."""
    if skill in SKILL_CATEGORIES["Physical"]:
        if f.weapon.range:
            return f.weapon.range
        return RANGED_REACH if skill == "Ranged" else 1
    for category, squares in REACH.items():
        if skill in SKILL_CATEGORIES[category]:
            return squares
    return 1


def enemy_reach(f: Fighter) -> int:
    """A declared enemy action's reach: the weapon's range, else Ranged (5) unless its Melee die is the bigger."""
    if f.weapon.range:
        return f.weapon.range
    return reach(f, "Melee" if f.skills.get("Melee", 4) > f.skills.get("Ranged", 4) else "Ranged")


def attack_out_of_range(state: State, attacker: Fighter, target: Fighter, skill: str) -> int:
    """A PC's attack checked against its reach (setting `range_check`): refused with a sentence naming the
    distance; with "warn" the distance comes back (kept on the roll and in the log); 0 when in reach, unchecked or
    without positions."""
    check = state.settings.get("range_check", "refuse")
    away = distance(state, attacker, target)
    if check == "off" or away is None or away <= reach(attacker, skill):
        return 0
    squares = reach(attacker, skill)
    _require(
        check != "refuse",
        f"{target.name} is {away} square{_plural(away)} away: {attacker.name}'s {skill} attack reaches "
        f"{'adjacent squares' if squares == 1 else f'{squares} squares'}.",
    )
    return away


def burst_point(state: State, pc: Fighter, c: SkillRoll) -> tuple[tuple[int, int], int]:
    """A Burst aimed at a square: (the square, the distance when beyond reach and the GM only warns, else 0).
    Checked like an attack when the PC stands on the grid."""
    _require(c.intent == "attack" and pc.weapon.burst > 0, "Only a Burst attack aims at a square.")
    point = parse_square(c.at)
    check = state.settings.get("range_check", "refuse")
    away = squares_between(state, (pc.col, pc.row), point) if placed(pc) else 0
    squares = reach(pc, c.skill)
    if check == "off" or away <= squares:
        return point, 0
    _require(
        check != "refuse",
        f"{square_name(*point)} is {away} square{_plural(away)} away: {pc.name}'s {c.skill} attack reaches "
        f"{'adjacent squares' if squares == 1 else f'{squares} squares'}.",
    )
    return point, away


def declared_out_of_range(state: State, d: Declaration) -> int:
    """The distance when a declared action's target is out of the enemy's reach (the GM confirms), else 0."""
    enemy, target = state.fighter(d.enemy), state.fighter(d.target)
    away = distance(state, enemy, target)
    if away is None or away <= enemy_reach(enemy):
        return 0
    return away


# --- moves: the PC's (free or rolled), an enemy's in Phase 3, and the GM's placing -----------------------------


def extra_squares(state: State, f: Fighter) -> int:
    """Squares a successful move roll adds (setting `extra_move`): the PC's speed again, or half of it."""
    if state.settings.get("extra_move", "speed") == "half":
        return (f.speed + 1) // 2
    return f.speed


def move_allowance(state: State, f: Fighter) -> int:
    """Squares the acting PC may still move: the free move's speed while unused, else what rolls granted."""
    return f.speed if not state.free_move_used else state.moves_left


def _destination(state: State, mover: Fighter, to: str, gm: bool = True) -> tuple[int, int]:
    """The square named by `to`, refused when another creature stands there (named as the player may know it)."""
    col, row = parse_square(to)
    other = occupant(state, col, row, mover.id)
    who = Sight(state.fighters, gm).name(other.id) if other else ""
    _require(other is None, f"{square_name(col, row)} is taken by {who}.")
    return col, row


def decide_move(state: State, pc: Fighter, c: FreeMove) -> list[Event]:
    """A PC's move to a square: the free move up to speed, or squares a successful move roll granted."""
    _require(placed(pc), f"{pc.name} is not on the grid yet: the GM places them first.")
    col, row = _destination(state, pc, c.to, gm=False)  # a player's refusal never names an unseen enemy
    squares = squares_between(state, (pc.col, pc.row), (col, row))
    _require(squares >= 1, f"{pc.name} is already on {square_name(col, row)}.")
    rolled = state.free_move_used
    if rolled:
        _require(
            state.moves_left >= 1,
            f"{pc.name} has already used the free move this turn; roll a skill to move again.",
        )
        _require(
            squares <= state.moves_left,
            f"{square_name(col, row)} is {squares} square{_plural(squares)} away; the move roll left {pc.name} "
            f"{state.moves_left} square{_plural(state.moves_left)}.",
        )
    else:
        _require(
            squares <= pc.speed,
            f"{square_name(col, row)} is {squares} square{_plural(squares)} away; {pc.name}'s free move reaches "
            f"{pc.speed} (roll a skill to move further).",
        )
    return [Moved(fighter=pc.id, squares=squares, col=col, row=row, rolled=rolled)]


def decide_move_enemy(state: State, c: MoveEnemy) -> list[Event]:
    enemy = state.fighter(c.enemy)
    _require(enemy.side == "enemy", "Move an enemy; the GM places PCs with Place.")
    _require(state.phase == 3, "Enemies move in Phase 3 (the GM places anyone at any time).")
    _require(not enemy.down, f"{enemy.name} is at 0 Health Levels and does not move.")
    _require(placed(enemy), f"{enemy.name} is not on the grid yet: place it first.")
    col, row = _destination(state, enemy, c.to)
    squares = squares_between(state, (enemy.col, enemy.row), (col, row))
    _require(squares >= 1, f"{enemy.name} is already on {square_name(col, row)}.")
    left = enemy.speed - enemy.moved
    _require(
        squares <= left,
        f"{square_name(col, row)} is {squares} square{_plural(squares)} away; {enemy.name} has {left} of its speed "
        f"{enemy.speed} left this round.",
    )
    return [Moved(fighter=enemy.id, squares=squares, col=col, row=row)]


def decide_place(state: State, c: Place) -> list[Event]:
    f = state.fighter(c.fighter)
    if not c.to.strip():
        _require(placed(f), f"{f.name} is not on the grid.")
        return [Placed(fighter=f.id)]
    col, row = _destination(state, f, c.to)
    _require((f.col, f.row) != (col, row), f"{f.name} is already on {square_name(col, row)}.")
    return [Placed(fighter=f.id, col=col, row=row)]


def evolve_moved(state: State, event: Moved) -> State:
    """A move: the square (when the log names one); a PC's free move or rolled squares used; an enemy's speed."""
    f = state.fighter(event.fighter)
    if event.col:
        f = replace(f, col=event.col, row=event.row)
    if f.side == "enemy":
        return _put(state, replace(f, moved=f.moved + event.squares))
    state = _put(state, f)
    if event.rolled:
        return replace(state, moves_left=max(0, state.moves_left - event.squares))
    return replace(state, free_move_used=True)


def evolve_placed(state: State, event: Placed) -> State:
    return _put(state, replace(state.fighter(event.fighter), col=event.col, row=event.row))


def _put(state: State, fighter: Fighter) -> State:
    return replace(state, fighters=tuple(fighter if f.id == fighter.id else f for f in state.fighters))


# --- the log's words ------------------------------------------------------------------------------------------


def describe_moved(state: State, event: Moved, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    name, n = sight.name(event.fighter), event.squares
    if not event.col:
        return f"{name} moves {n} square{_plural(n)} (free move)."
    how = ""
    if sight.side(event.fighter) == "pc":
        how = " (rolled movement)" if event.rolled else " (free move)"
    return f"{name} moves {n} square{_plural(n)} to {square_name(event.col, event.row)}{how}."


def describe_placed(state: State, event: Placed, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    name = sight.name(event.fighter)
    if not event.col:
        return f"The GM takes {name} off the grid."
    return f"The GM places {name} on {square_name(event.col, event.row)}."
