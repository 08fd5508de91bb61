"""The SW5e package's dispatch tables: every command has a decider, every event an evolve and a describe handler,
and a missing one is a loud bug rather than a quiet refusal or a vague log entry."""

from dataclasses import dataclass
from typing import ClassVar

import pytest

from combat.rules import registry, sw5e
from combat.rules.core import Command, Event, RuleError
from combat.rules.dice import ScriptedDice
from combat.rules.sw5e.decide import DECIDERS
from combat.rules.sw5e.describe import DESCRIBERS
from combat.rules.sw5e.evolve import EVOLVERS


@dataclass(frozen=True)
class Stray(Event):
    kind: ClassVar[str] = "stray"


@dataclass(frozen=True)
class Foreign(Command):
    name: ClassVar[str] = "foreign"


def a_state() -> sw5e.State:
    hawk = {"id": "hawk", "name": "Ebon Hawk", "crew": {"kira": "pilot"}}
    kira = sw5e.fighter_from_sheet("kira", "Kira", "pc", 1, {})
    return sw5e.initial_state([hawk], (kira,), None)


def test_every_command_has_a_decider_and_every_event_an_evolve_and_a_describe_handler():
    assert set(DECIDERS) == set(sw5e.COMMANDS)
    assert set(EVOLVERS) == set(sw5e.EVENTS)
    assert set(DESCRIBERS) == set(sw5e.EVENTS)


def test_an_event_without_handlers_fails_loudly_naming_it():
    with pytest.raises(TypeError, match="evolve has no handler for Stray events"):
        sw5e.evolve(a_state(), Stray())
    with pytest.raises(TypeError, match="describe has no handler for Stray events"):
        sw5e.describe(a_state(), Stray(), gm=True)


def test_a_command_of_the_model_without_a_decider_fails_loudly(monkeypatch):
    monkeypatch.delitem(DECIDERS, sw5e.AssignCrew)
    with pytest.raises(TypeError, match="decide has no handler for AssignCrew commands"):
        sw5e.decide(a_state(), sw5e.AssignCrew(fighter="kira", ship=""), ScriptedDice([]))


def test_a_command_of_another_model_is_refused_with_a_sentence():
    with pytest.raises(RuleError, match="not an action in SW5e starship combat"):
        sw5e.decide(a_state(), Foreign(), ScriptedDice([]))


def test_the_package_is_the_models_engine_and_offers_every_name_it_lists():
    assert registry.get("sw5e").engine is sw5e
    missing = [name for name in sw5e.__all__ if not hasattr(sw5e, name)]
    assert not missing
    assert callable(sw5e.decide) and callable(sw5e.evolve) and callable(sw5e.describe)
