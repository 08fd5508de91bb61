"""Logs as the database stores them, kept as fixtures: every log a model ever wrote must still replay.

A fixture is one fight played through a model's engine with scripted dice: the initial state, each event as the
log stores it (with its seq), the state after the last one and each entry's words for the GM and for players. `record`
writes one; `tests/combat/test_stored_logs.py` replays every fixture through today's engines.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from combat.rules import registry
from combat.rules.core import Event, Logged, active_events, to_json, wording

FIXTURES = Path(__file__).parent / "fixtures" / "logs"


def replay_with_words(engine: Any, initial: Any, log: Sequence[Logged]) -> tuple[Any, list[tuple[str, str]]]:
    """The state after the log's live entries, and every entry's (GM, players) words against the state it was
    applied to (undone entries are worded but change nothing)."""
    live = {item.seq for item in active_events(log)}
    state, words = initial, []
    for item in log:
        words.append(wording(engine.describe, state, item.event))
        if item.seq in live:
            state = engine.evolve(state, item.event)
    return state, words


def record(name: str, model: str, initial: Any, events: Sequence[Event]) -> Path:
    """Write fixture `<model>-<name>.json` from a fight's initial state and its events in log order (Undone
    markers included)."""
    engine = registry.get(model).engine
    log = [Logged(seq=i, event=e) for i, e in enumerate(events, start=1)]
    final, words = replay_with_words(engine, initial, log)
    data = {
        "model": model,
        "initial": to_json(initial),
        "events": [{"seq": item.seq, "payload": engine.CODEC.event_to_json(item.event)} for item in log],
        "final": to_json(final),
        "words": [list(pair) for pair in words],
    }
    path = FIXTURES / f"{model}-{name}.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def fixtures() -> Iterator[Path]:
    return iter(sorted(FIXTURES.glob("*.json")))


def as_stored(state_type, replayed: dict, stored: dict, setting_defaults: dict | None = None) -> dict:
    """The replayed state without the fields added to the state after the log was stored, provided each still
    holds its default there: a later field may not change what an old log replays to. Dataclasses inside the state
    (a combatant, a roll) are read the same way, and so are settings added since (`setting_defaults`)."""
    defaults = {
        f.name: to_json(f.default if f.default is not dataclasses.MISSING else f.default_factory())
        for f in dataclasses.fields(state_type)
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
    }
    hints = typing.get_type_hints(state_type)
    out = {}
    for k, v in replayed.items():
        if k not in stored and k in defaults and v == defaults[k]:
            continue
        out[k] = _nested(hints.get(k), v, stored[k]) if k in stored else v
    if setting_defaults and isinstance(out.get("settings"), dict) and isinstance(stored.get("settings"), dict):
        kept, added = stored["settings"], setting_defaults
        out["settings"] = {k: v for k, v in out["settings"].items() if k in kept or k not in added or v != added[k]}
    return out


def _nested(tp: Any, replayed: Any, stored: Any) -> Any:
    """`as_stored` for a field holding a dataclass, or a tuple of them (or one or None)."""
    inner = [a for a in typing.get_args(tp) if a is not type(None) and a is not Ellipsis] or [tp]
    kind = inner[0]
    if not dataclasses.is_dataclass(kind) or not isinstance(kind, type):
        return replayed
    if isinstance(replayed, dict) and isinstance(stored, dict):
        return as_stored(kind, replayed, stored)
    if isinstance(replayed, list) and isinstance(stored, list) and len(replayed) == len(stored):
        return [as_stored(kind, r, s) if isinstance(r, dict) else r for r, s in zip(replayed, stored, strict=True)]
    return replayed
