"""The Expanse (AGE) checks every decider shares: who may act now and in which slot, dice typed in or rolled,
the targets a command names. Each check passes quietly or refuses with a RuleError sentence for the player.
"""

from __future__ import annotations

from combat.rules.core import Event, RuleError, require
from combat.rules.dice import Dice
from combat.rules.expanse import rulebook as book
from combat.rules.expanse.evolve import evolve
from combat.rules.expanse.state import CANNOT_ACT, Fighter, FreeAttack, State


def found[V](value: V | None, sentence: str) -> V:
    """`value`, or a refusal with `sentence` when there is none."""
    if value is None:
        raise RuleError(sentence)
    return value


def note(text: str, limit: int = 200) -> str:
    """Free text from a form on one line, cut to `limit` characters."""
    return " ".join(str(text).split())[:limit]


def test_faces(state: State, entered: tuple[int, ...], dice: Dice) -> tuple[tuple[int, ...], bool]:
    """The three dice of a test: typed in from physical dice (when the GM allows it) or rolled by the server."""
    if not entered:
        return dice.roll(3, 6), False
    require(bool(state.settings.get("entered_dice")), "The GM has the server roll the dice in this encounter.")
    require(len(entered) == 3, "Enter the three dice of the test, the Drama Die last.")
    require(all(1 <= face <= 6 for face in entered), "Each die of a test shows a face from 1 to 6.")
    return tuple(entered), True


def check_damage_entry(state: State, entered: tuple[int, ...], count: int, sides: int) -> None:
    """Typed-in damage dice are checked before anything is rolled, hit or miss."""
    if not entered:
        return
    require(bool(state.settings.get("entered_dice")), "The GM has the server roll the dice in this encounter.")
    require(
        len(entered) == count,
        f"The damage is {count}d{sides}: enter {count} {'die' if count == 1 else 'dice'} or none.",
    )
    require(all(1 <= face <= sides for face in entered), f"Each damage die shows a face from 1 to {sides}.")


def damage_roll(entered: tuple[int, ...], count: int, sides: int, dice: Dice) -> tuple[tuple[int, ...], bool]:
    """The damage dice (typed in, or rolled now) and whether they were typed in."""
    return (tuple(entered), True) if entered else (dice.roll(count, sides), False)


def simulate(state: State, events: list[Event]) -> State:
    """The state after `events`, to check what follows from them before they are stored."""
    for event in events:
        state = evolve(state, event)
    return state


def acting(state: State, fighter_id: str) -> Fighter:
    f = state.fighter(fighter_id)
    require(not f.out, f"{f.name} is out of the encounter.")
    require(f.can_act, f"{f.name} cannot act while {', '.join(c for c in f.conditions if c in CANNOT_ACT).lower()}.")
    return f


def action_slot(state: State, f: Fighter, action: str) -> str:
    """How `f` may take `action` now ("turn" or "prepared"), or a RuleError sentence saying why not."""
    label = book.MAJOR_ACTIONS.get(action) or book.MINOR_ACTIONS.get(action, action)
    if state.interrupt == f.id:
        prepared = book.MAJOR_ACTIONS.get(f.prepared, f.prepared)
        require(action == f.prepared, f"{f.name} prepared {prepared}, so that is the action to take now.")
        return "prepared"
    require(state.begun, "Combat has not begun: roll initiative, then begin the first turn.")
    require(state.turn == f.id, f"It is not {f.name}'s turn.")
    if state.interrupt:
        require(False, f"{state.fighter(state.interrupt).name} is interrupting with a prepared action; wait for it.")
    require(len(state.turn_actions) < 2, f"{f.name} has already taken two actions this turn.")
    if action in book.MAJOR_ACTIONS:
        require(
            state.majors_taken == 0,
            f"{f.name} has already taken a major action this turn, so {label} cannot follow; only a minor can.",
        )
    return "turn"


def free_attack(state: State, f: Fighter, target: str) -> FreeAttack:
    granted = [a for a in state.free_attacks if a.fighter == f.id]
    require(bool(granted), f"{f.name} has no extra attack from a stunt.")
    fitting = [a for a in granted if not a.target or a.target == target]
    if not fitting:
        raise RuleError(f"{f.name}'s extra attack must go against {state.fighter(granted[0].target).name}.")
    return fitting[0]


def chosen_focuses(requested: str, defaults: tuple[str, ...]) -> tuple[str, ...]:
    requested = " ".join(requested.split())
    return (requested,) if requested else defaults


def sees(f: Fighter, other: Fighter) -> bool:
    """Whether `f` can see `other`: a PC sees its own side and the enemies it is aware of; NPCs see everyone."""
    return f.side != "pc" or other.side == "pc" or other.id in f.aware_of


def parse_targets(state: State, text: str, thrower: Fighter | None = None) -> tuple[str, ...]:
    """Combatant keys from "a, b; c". With a `thrower`, each must be in its sight (refused without a name)."""
    ids = tuple(dict.fromkeys(x.strip() for x in text.replace(";", ",").split(",") if x.strip()))
    for fid in ids:
        if thrower is not None and not sees(thrower, state.fighter(fid)):
            raise RuleError(f"{thrower.name} cannot see one of those targets.")
        require(not state.fighter(fid).out, f"{state.fighter(fid).name} is already out of the encounter.")
    return ids
