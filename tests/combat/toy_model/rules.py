"""The toy model's rules: a plain "highest initiative first" tracker, pure Python like every engine.

The GM rolls initiative for everyone (a die the GM chooses, plus each sheet's modifier; the highest goes first, ties
in the order the combatants were added), then turns pass down the order round after round; the GM adjusts health.
The acting character's player may pass the turn on. A player reads an enemy's health only as "down" or not.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from combat.rules.core import Command, Event, EventCodec, RuleError, Setting, Sight, clean_settings, require
from combat.rules.dice import Dice
from combat.rules.stats import Stat, StatSchema

KEY = "toy"

SETTINGS = (Setting("die", "Initiative die", 20, choices=((20, "d20"), (10, "d10"))),)

STATS = StatSchema(
    "toy",
    (
        Stat("initiative_mod", "Initiative modifier", default=0, min=-5, max=10),
        Stat("health", "Health", default=10, min=0, max=99),
        Stat("health_max", "Maximum health", default=10, min=1, max=99),
    ),
    capped=(("health", "health_max"),),
)
SUMMARY = ("health", "initiative_mod")


# --- state ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fighter:
    id: str
    name: str
    side: str  # "pc" or "enemy"
    owner: int | None = None
    initiative_mod: int = 0
    health: int = 10
    health_max: int = 10
    initiative: int | None = None
    aware_of: tuple[str, ...] = ()

    @property
    def down(self) -> bool:
        return self.health <= 0


@dataclass(frozen=True)
class State:
    fighters: tuple[Fighter, ...] = ()
    round: int = 0  # 0 until initiative is rolled
    order: tuple[str, ...] = ()  # highest initiative first
    turn: str = ""
    settings: dict[str, str | int | bool] = field(default_factory=dict)

    @property
    def phase(self) -> int:
        """The turn's place in the order (1 for the first), 0 before initiative: the log groups entries by it."""
        return self.order.index(self.turn) + 1 if self.turn in self.order else 0

    def fighter(self, fighter_id: str) -> Fighter:
        for f in self.fighters:
            if f.id == fighter_id:
                return f
        raise RuleError("That combatant is not in this encounter.")

    def pcs(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side == "pc")

    def enemies(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side != "pc")


# --- commands -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RollInitiative(Command):
    name: ClassVar[str] = "roll_initiative"
    label: ClassVar[str] = "Roll initiative"


@dataclass(frozen=True)
class NextTurn(Command):
    name: ClassVar[str] = "next_turn"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "End the turn"
    actor: str = ""  # the combatant whose turn ends ("" for the GM, whoever is acting)


@dataclass(frozen=True)
class AdjustHealth(Command):
    name: ClassVar[str] = "adjust_health"
    label: ClassVar[str] = "Adjust health"
    target: str = ""
    change: int = 0


COMMANDS = (RollInitiative, NextTurn, AdjustHealth)


# --- events -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InitiativeRolled(Event):
    kind: ClassVar[str] = "initiative_rolled"
    sides: int = 20
    faces: tuple[int, ...] = ()  # one a combatant, in the state's order of fighters


@dataclass(frozen=True)
class TurnPassed(Event):
    kind: ClassVar[str] = "turn_passed"
    to: str = ""
    round: int = 1


@dataclass(frozen=True)
class HealthAdjusted(Event):
    kind: ClassVar[str] = "health_adjusted"
    target: str = ""
    health: int = 0


EVENTS = (InitiativeRolled, TurnPassed, HealthAdjusted)
CODEC = EventCodec(EVENTS, COMMANDS)


# --- decide ---------------------------------------------------------------------------------------------------


def decide(state: State, command: Command, dice: Dice) -> list[Event]:
    if isinstance(command, RollInitiative):
        require(not state.order, "Initiative has been rolled already.")
        sides = int(state.settings.get("die", 20))
        return [InitiativeRolled(sides=sides, faces=dice.roll(len(state.fighters), sides))]
    if isinstance(command, NextTurn):
        require(bool(state.order), "Roll initiative first.")
        require(command.actor in ("", state.turn), "It is not your turn.")
        at = state.order.index(state.turn) + 1
        wraps = at == len(state.order)
        return [TurnPassed(to=state.order[0 if wraps else at], round=state.round + wraps)]
    if isinstance(command, AdjustHealth):
        target = state.fighter(command.target)
        return [HealthAdjusted(target=target.id, health=max(0, min(target.health_max, target.health + command.change)))]
    raise RuleError("That is not an action this combat model knows.")


# --- evolve -------------------------------------------------------------------------------------------------


def _put(state: State, fighter: Fighter) -> State:
    return replace(state, fighters=tuple(fighter if f.id == fighter.id else f for f in state.fighters))


def evolve(state: State, event: Event) -> State:
    if isinstance(event, InitiativeRolled):
        rolled = tuple(
            replace(f, initiative=face + f.initiative_mod) for f, face in zip(state.fighters, event.faces, strict=True)
        )
        order = tuple(f.id for f in sorted(rolled, key=lambda f: -(f.initiative or 0)))  # sorted() keeps ties
        return replace(state, fighters=rolled, order=order, round=1, turn=order[0])
    if isinstance(event, TurnPassed):
        return replace(state, turn=event.to, round=event.round)
    if isinstance(event, HealthAdjusted):
        return _put(state, replace(state.fighter(event.target), health=event.health))
    raise TypeError(f"no evolve for the event {type(event).__name__}")


def describe(state: State, event: Event, gm: bool = True) -> str | None:
    """The log's sentence; players never read an enemy's health, only whether it is down."""
    sight = Sight(state.fighters, gm)
    if isinstance(event, InitiativeRolled):
        return f"Initiative rolled on a d{event.sides}."
    if isinstance(event, TurnPassed):
        return f"{sight.name(event.to)}'s turn (round {event.round})."
    if isinstance(event, HealthAdjusted):
        if sight.secret(event.target):
            return f"{sight.name(event.target)} is down." if event.health <= 0 else None
        return f"{sight.name(event.target)} is at {event.health} health."
    raise TypeError(f"no describe for the event {type(event).__name__}")


# --- setup --------------------------------------------------------------------------------------------------


def initial_state(fighters: tuple[Fighter, ...], settings: dict[str, Any] | None) -> State:
    if not any(f.side == "pc" for f in fighters):
        raise RuleError("An encounter needs at least one player character.")
    return State(fighters=fighters, settings=clean_settings(SETTINGS, settings))


def fighter_from_sheet(
    key: str, name: str, side: str, owner: int | None, stats: dict[str, Any], aware_of: tuple[str, ...]
) -> Fighter:
    return Fighter(
        id=key,
        name=name,
        side=side,
        owner=owner,
        initiative_mod=int(stats.get("initiative_mod", 0)),
        health=int(stats.get("health", 10)),
        health_max=int(stats.get("health_max", 10)),
        aware_of=tuple(aware_of),
    )


def write_back(state: State) -> dict[str, dict[str, Any]]:
    """Health goes back to each PC's sheet; initiative ends with the fight."""
    return {f.id: {"health": f.health} for f in state.pcs()}


def outcome(state: State) -> str:
    if state.enemies() and all(f.down for f in state.enemies()):
        return "Victory"
    if state.pcs() and all(f.down for f in state.pcs()):
        return "Defeat"
    return ""
