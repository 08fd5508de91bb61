"""The Expanse package dispatches by class: every command has a decider, every event an evolve and a describe
handler, and a missing one fails loudly instead of being skipped (a skipped evolve would corrupt replays)."""

from dataclasses import dataclass
from typing import ClassVar

import pytest

from combat.rules import expanse as ex
from combat.rules import registry
from combat.rules.core import Command, Event, RuleError
from combat.rules.dice import ScriptedDice
from combat.rules.expanse.decide import DECIDERS
from combat.rules.expanse.describe import DESCRIBERS
from combat.rules.expanse.evolve import EVOLVERS
from tests.combat.test_expanse_rules import begun, encounter


def test_every_command_has_a_decider_and_every_event_an_evolve_and_a_describe_handler():
    assert [c for c in ex.COMMANDS if c not in DECIDERS] == []
    assert [e for e in ex.EVENTS if e not in EVOLVERS] == []
    assert [e for e in ex.EVENTS if e not in DESCRIBERS] == []
    # ... and the tables hold nothing else
    assert set(DECIDERS) == set(ex.COMMANDS) and set(EVOLVERS) == set(ex.EVENTS) == set(DESCRIBERS)


@dataclass(frozen=True)
class Teleported(Event):
    kind: ClassVar[str] = "teleported"


def test_an_event_without_a_handler_fails_loudly_and_names_itself():
    state = encounter()
    with pytest.raises(TypeError, match="no evolve handler for Teleported"):
        ex.evolve(state, Teleported())
    with pytest.raises(TypeError, match="no describer for Teleported"):
        ex.describe(state, Teleported())


@dataclass(frozen=True)
class Teleport(Command):
    name: ClassVar[str] = "teleport"


def test_a_command_of_another_model_is_refused_with_a_sentence_and_a_missing_decider_fails_loudly(monkeypatch):
    t = begun()
    with pytest.raises(RuleError, match="That is not an action in The Expanse"):
        ex.decide(t.state, Teleport(), ScriptedDice([]))
    monkeypatch.delitem(DECIDERS, ex.Aim)
    with pytest.raises(TypeError, match="no decider for Aim"):
        ex.decide(t.state, ex.Aim(actor="luwe"), ScriptedDice([]))


def test_the_package_is_the_models_engine():
    model = registry.get("expanse")
    assert model.engine is ex and model.settings is ex.SETTINGS and ex.KEY == "expanse"
    for name in (
        "State",
        "COMMANDS",
        "EVENTS",
        "CODEC",
        "initial_state",
        "decide",
        "evolve",
        "describe",
        "fighter_from_sheet",
        "write_back",
        "outcome",
    ):
        assert hasattr(ex, name), name
