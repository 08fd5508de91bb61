"""Typed view models: what a template may show one audience.

Each model's table builds its views from frozen dataclasses. A fact only the GM may know lives in a field made
with `gm_only(...)`, and only on the GM's view types: a player's view is built from types that have no such
field, so it cannot carry one by accident. `gm_only_paths` finds any GM-only field reachable in a view; the
tests walk every model's players' and private views with it and expect nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

GM_ONLY = "gm_only"


def gm_only(default: Any = None, **kwargs: Any) -> Any:
    """A dataclass field for a fact only the GM may know (an enemy's exact health, an unseen combatant, a note)."""
    if "default_factory" not in kwargs:
        kwargs["default"] = default
    return dataclasses.field(metadata={GM_ONLY: True}, **kwargs)


@dataclasses.dataclass(frozen=True)
class LogEntry:
    """One line of the log as a viewer reads it. `gm_only`: the entry is the GM's alone (only a GM's log has such
    entries; it marks them)."""

    seq: int
    text: str
    undone: bool = False
    gm_only: bool = False


@dataclasses.dataclass(frozen=True)
class Shared:
    """What every audience's table carries besides the model's own part."""

    encounter: Any
    gm: bool
    ended: bool
    version: int  # the audience's own: players' counts only the entries they may read
    form_key: str  # starts every action form's idempotency key; random per render, so no one can guess it
    log: tuple[LogEntry, ...] = ()
    replay: bool = False  # a moment of the log replayed on the review page (combat.replay): no controls


@dataclasses.dataclass(frozen=True)
class GmShared(Shared):
    campaign_notes: str = gm_only("")
    npc_notes: tuple[tuple[str, str], ...] = gm_only(())


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrivateView:
    """Base of a model's one-player view: `your_turn` and `you_may_act` drive the banner and the vibration."""

    your_turn: bool = False
    you_may_act: bool = False


def context(*views: Any) -> dict[str, Any]:
    """The template context of typed views: each one's fields by name (a dict, as some tables still return, as it
    is). Nested view models stay objects; templates read their attributes."""
    out: dict[str, Any] = {}
    for view in views:
        if dataclasses.is_dataclass(view) and not isinstance(view, type):
            out.update((f.name, getattr(view, f.name)) for f in dataclasses.fields(view))
        else:
            out.update(view)
    return out


def gm_only_paths(view: Any, path: str = "view") -> Iterator[str]:
    """The path of every GM-only field in `view`, walking dataclasses, lists, tuples and dicts."""
    if dataclasses.is_dataclass(view) and not isinstance(view, type):
        for f in dataclasses.fields(view):
            here = f"{path}.{f.name}"
            if f.metadata.get(GM_ONLY):
                yield here
            yield from gm_only_paths(getattr(view, f.name), here)
    elif isinstance(view, (list, tuple)):
        for i, item in enumerate(view):
            yield from gm_only_paths(item, f"{path}[{i}]")
    elif isinstance(view, dict):
        for key, item in view.items():
            yield from gm_only_paths(item, f"{path}[{key!r}]")
