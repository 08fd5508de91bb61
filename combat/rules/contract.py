"""The contract of a combat model's rules: what the rest of Fray reads of an engine package, written as types.

A model's rules are one package under `combat/rules/` whose top level provides every member of `Engine`. The
registry (`combat.rules.registry`) holds each package as its model's engine, and mypy checks each against this
protocol there; `tests/combat/test_model_contract.py` checks the same of every registered model at run time, with
its commands, events and templates. The Django side of a model is its `Table` (`combat/tables/base.py`).

`GameState` and `Combatant` are what Fray reads of any model's state without knowing the model: the log groups
entries by `round` and `phase`, the review by `turn`; the services check a player's right to act through
`fighter(id).owner`; the broadcast finds each player's controls through `pcs()`; `Sight` hides the enemies no PC
is aware of through each combatant's `side` (and `aware_of`, for models that track it). Everything else in a
state is the model's own, read only by its rules and its table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from combat.rules.core import Command, Event, EventCodec, Setting
from combat.rules.dice import Dice


class Combatant(Protocol):
    """One combatant of a state: `side` is "pc" for a player character; `owner` the user id of its player."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def side(self) -> str: ...

    @property
    def owner(self) -> int | None: ...


class GameState(Protocol):
    """What Fray reads of any model's state (a frozen dataclass that round-trips through JSON)."""

    @property
    def fighters(self) -> Sequence[Combatant]: ...

    @property
    def round(self) -> int: ...

    @property
    def phase(self) -> int: ...

    @property
    def turn(self) -> object: ...  # whose turn or which turn, in the model's own terms

    def fighter(self, fighter_id: str) -> Combatant:
        """The combatant with this id; a RuleError sentence when there is none."""
        ...

    def pcs(self) -> Sequence[Combatant]: ...


class Engine(Protocol):
    """A combat model's rules, as the package's top-level names (read-only: the package is never changed).

    - `KEY`: the model's key in the registry (also its table's template folder).
    - `State`: the state's class; `from_json(State, data)` rebuilds a stored snapshot.
    - `COMMANDS`: every command class (each with a unique `name`, a `label` and `who` may issue it).
    - `EVENTS`: every event class (each with a unique `kind`): with `evolve`, the stored schema.
    - `CODEC`: `EventCodec(EVENTS, COMMANDS)`: events to and from the log's JSON, commands from a form or frame.
    - `SETTINGS`: the encounter's settings the GM chooses in the builder.
    """

    @property
    def KEY(self) -> str: ...

    @property
    def State(self) -> type[GameState]: ...

    @property
    def COMMANDS(self) -> Sequence[type[Command]]: ...

    @property
    def EVENTS(self) -> Sequence[type[Event]]: ...

    @property
    def CODEC(self) -> EventCodec: ...

    @property
    def SETTINGS(self) -> Sequence[Setting]: ...

    @property
    def initial_state(self) -> Callable[..., GameState]:
        """The state an encounter starts from. Its parameters are the model's own (Burn Bryte's ship Livability,
        SW5e's ships): only the model's table calls it."""
        ...

    def decide(self, state: Any, command: Command, dice: Dice) -> list[Event]:
        """The events `command` leads to; a RuleError sentence when the rules refuse it. Never changes `state`."""
        ...

    def evolve(self, state: Any, event: Event) -> Any:
        """The state after `event`: pure, no dice, no clock."""
        ...

    def describe(self, state: Any, event: Event, gm: bool = True) -> str | None:
        """The log's sentence for `event` against the state it is applied to, for the GM or for players (None:
        players see no entry)."""
        ...

    def fighter_from_sheet(
        self, key: str, name: str, side: str, owner: int | None, stats: dict[str, Any], aware_of: tuple[str, ...]
    ) -> Combatant:
        """A combatant built from a character sheet; `aware_of`: the other side's combatants it can see."""
        ...

    def write_back(self, state: Any) -> Mapping[str, Mapping[str, Any]]:
        """What persists when the encounter ends, per combatant key (the default table merges it into each
        character's stats)."""
        ...

    def outcome(self, state: Any) -> str:
        """How the fight stands in a word or two ("Victory", "Defeat"), or ""."""
        ...


# Who may issue a command (`Command.who`), as combat.services checks it: the GM alone, or the player of the
# command's `actor` (and the GM).
WHO = ("gm", "owner")
