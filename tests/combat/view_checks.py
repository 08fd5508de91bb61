"""What the per-model view tests share: the GM-only fields a view type could ever carry, and every state of a
model's stored fights (tests/combat/fixtures/logs) to build views from."""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Iterator
from typing import Any

from combat.rules import registry
from combat.rules.core import Logged, active_events, from_json
from combat.tables.viewmodels import GM_ONLY
from tests.combat.stored_logs import fixtures


def gm_only_fields(cls: type, path: str = "") -> list[str]:
    """Every field marked gm_only in dataclass type `cls` or in a dataclass its fields' type hints name (inside
    tuples, unions and the like): what any view of this type might carry, whatever its values."""
    found: list[str] = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        here = f"{path or cls.__name__}.{f.name}"
        if f.metadata.get(GM_ONLY):
            found.append(here)
        for inner in _dataclass_types(hints[f.name]):
            found += gm_only_fields(inner, here)
    return found


def _dataclass_types(hint: Any) -> Iterator[type]:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        yield hint
    for arg in typing.get_args(hint):
        yield from _dataclass_types(arg)


def stored_states(model: str) -> list[tuple[str, Any]]:
    """(fight-step, state) for the initial state of each of the model's stored fights and after each live entry."""
    engine = registry.get(model).engine
    out = []
    for path in fixtures():
        data = json.loads(path.read_text())
        if data["model"] != model:
            continue
        state = from_json(engine.State, data["initial"])
        log = [Logged(seq=e["seq"], event=engine.CODEC.event_from_json(e["payload"])) for e in data["events"]]
        out.append((f"{path.stem}-0", state))
        for item in active_events(log):
            state = engine.evolve(state, item.event)
            out.append((f"{path.stem}-{item.seq}", state))
    return out
