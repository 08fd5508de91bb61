"""Helpers for the typed-view tests: every state a stored log passes through, and the GM-only fields a view type
could ever carry (walking its type hints, so a type that merely happens to hold no GM-only value still fails)."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Iterator
from typing import Any

from combat.rules import registry
from combat.rules.core import Logged, active_events, from_json
from combat.tables.viewmodels import GM_ONLY
from tests.combat.stored_logs import FIXTURES


def stored_states(model: str) -> Iterator[tuple[str, Any]]:
    """(fixture-and-seq, state) for the initial state of each stored log of `model` and the state after each of
    its live entries: set-ups, turns, hidden rolls, unseen enemies, undone entries, as players really met them."""
    for path in sorted(FIXTURES.glob(f"{model}-*.json")):
        data = json.loads(path.read_text())
        engine = registry.get(model).engine
        state = from_json(engine.State, data["initial"])
        yield f"{path.stem}@0", state
        log = [Logged(seq=e["seq"], event=engine.CODEC.event_from_json(e["payload"])) for e in data["events"]]
        live = {item.seq for item in active_events(log)}
        for item in log:
            if item.seq in live:
                state = engine.evolve(state, item.event)
                yield f"{path.stem}@{item.seq}", state


def final_state(fixture: str) -> Any:
    """The state after the whole stored log `fixture` (e.g. "sw5e-hidden-enemy")."""
    data = json.loads((FIXTURES / f"{fixture}.json").read_text())
    return from_json(registry.get(data["model"]).engine.State, data["final"])


def gm_only_fields(cls: type, path: str = "") -> list[str]:
    """Every field marked gm_only reachable from dataclass type `cls` through the types its fields are declared
    with (tuples, unions, nested dataclasses)."""
    out: list[str] = []
    seen: set[type] = set()

    def walk(hint: Any, where: str) -> None:
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            if hint in seen:
                return
            seen.add(hint)
            hints = typing.get_type_hints(hint)
            for f in dataclasses.fields(hint):
                if f.metadata.get(GM_ONLY):
                    out.append(f"{where}{hint.__name__}.{f.name}")
                walk(hints[f.name], f"{where}{hint.__name__}.{f.name} > ")
        elif isinstance(hint, (types.UnionType, types.GenericAlias)) or typing.get_origin(hint) is not None:
            for arg in typing.get_args(hint):
                walk(arg, where)

    walk(cls, path)
    return out
