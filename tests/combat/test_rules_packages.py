"""A model split into a package dispatches through tables: every command class has a decider, every event class
an evolve and a describe, and a class without one fails loudly, naming it, instead of being skipped."""

import importlib
from dataclasses import dataclass
from typing import ClassVar

import pytest

from combat.rules import registry
from combat.rules.core import Command, Event, RuleError
from combat.rules.dice import ScriptedDice

PACKAGES = ["hero", "burn_bryte"]


def tables(key):
    """The model's dispatch tables: (deciders, evolvers, describers)."""
    return (
        importlib.import_module(f"combat.rules.{key}.decide").DECIDERS,
        importlib.import_module(f"combat.rules.{key}.evolve").EVOLVERS,
        importlib.import_module(f"combat.rules.{key}.describe").DESCRIBERS,
    )


@dataclass(frozen=True)
class Mystery(Event):
    kind: ClassVar[str] = "mystery"


@dataclass(frozen=True)
class Conjure(Command):
    name: ClassVar[str] = "conjure"


@pytest.mark.parametrize("key", PACKAGES)
def test_every_command_has_a_decider_and_every_event_an_evolve_and_a_describe(key):
    engine = registry.get(key).engine
    deciders, evolvers, describers = tables(key)
    assert set(deciders) == set(engine.COMMANDS)
    assert set(evolvers) == set(engine.EVENTS)
    assert set(describers) == set(engine.EVENTS)


@pytest.mark.parametrize("key", PACKAGES)
def test_a_missing_handler_fails_loudly_and_names_the_class(key, monkeypatch):
    engine = registry.get(key).engine
    deciders = tables(key)[0]
    state = engine.State()
    with pytest.raises(TypeError, match="no evolve for the event Mystery"):
        engine.evolve(state, Mystery())
    with pytest.raises(TypeError, match="no describe for the event Mystery"):
        engine.describe(state, Mystery(), gm=True)
    command = engine.COMMANDS[0]
    monkeypatch.delitem(deciders, command)
    with pytest.raises(TypeError, match=f"no decider for the command {command.__name__}"):
        engine.decide(state, command(), ScriptedDice([]))
    with pytest.raises(RuleError, match="That is not an action"):  # another model's command is the sender's error
        engine.decide(state, Conjure(), ScriptedDice([]))
