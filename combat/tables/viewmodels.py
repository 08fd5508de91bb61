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
