"""A fight played through a model's engine with scripted dice, keeping its log as the service would.

The stored-log recorders (`record_<model>_logs.py`) use it to write fixtures: `do` runs one command through
`decide` and `evolve`, `undo` appends an `Undone` marker for the last batch and replays the log, and `events`
is the log in order, markers included, ready for `stored_logs.record`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from combat.rules.core import ATTACK_REVEALS, Command, Event, Logged, Undone, replay
from combat.rules.dice import ScriptedDice

# Settings added after the fixtures were recorded: an encounter without the key keeps the rules of then.
LATER_SETTINGS = (
    ATTACK_REVEALS.key,  # whether attacking reveals an unseen combatant (then: no reveal)
    "nova_at_zero",  # Burn Bryte: a PC at 0 Health Levels spends Nova points (then: never)
    "nova_at_cap",  # Burn Bryte: full Nova boxes at the cap (then: cleared, the point lost)
)


def as_recorded(state: Any) -> Any:
    """`state` with the settings the fixtures were recorded under (none of LATER_SETTINGS)."""
    settings = {k: v for k, v in state.settings.items() if k not in LATER_SETTINGS}
    return replace(state, settings=settings)


class Fight:
    def __init__(self, engine: Any, initial: Any) -> None:
        self.engine = engine
        initial = as_recorded(initial)
        self.initial = initial
        self.state = initial
        self.log: list[Logged] = []
        self.batches: list[tuple[int, ...]] = []

    def do(self, command: Command, faces: Sequence[int] = ()) -> list[Event]:
        """Play `command` with exactly these die faces (every one must be used)."""
        dice = ScriptedDice(faces)
        events = self.engine.decide(self.state, command, dice)
        assert dice.left == 0, f"{command!r} left {dice.left} scripted dice unused"
        seqs = []
        for event in events:
            self.log.append(Logged(seq=len(self.log) + 1, event=event))
            seqs.append(len(self.log))
            self.state = self.engine.evolve(self.state, event)
        self.batches.append(tuple(seqs))
        return events

    def as_decided_then(self, event: Event) -> None:
        """Log an event the rules of the recording decided and today's rules refuse (say why where it is used)."""
        self.log.append(Logged(seq=len(self.log) + 1, event=event))
        self.batches.append((len(self.log),))
        self.state = self.engine.evolve(self.state, event)

    def undo(self) -> None:
        """The GM takes back the last batch: an Undone marker, and the state replayed without it."""
        seqs = self.batches.pop()
        self.log.append(Logged(seq=len(self.log) + 1, event=Undone(seqs=seqs)))
        self.state = replay(self.engine.evolve, self.initial, self.log)

    @property
    def events(self) -> list[Event]:
        return [item.event for item in self.log]

    def kinds(self) -> set[str]:
        return {event.kind for event in self.events}
