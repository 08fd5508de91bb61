"""Each combat model at the live table: one `Table` subclass per model (see `base.py`), one module per model here
(`burn_bryte.py` …), named by the rules registry's `CombatModel.table`.

`get(key)` is the one way to reach a model's table: it loads the class the registry names (Django's
`import_string`, as for a setting's dotted path) and keeps one instance per registered model.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from combat.rules import registry
from combat.tables.base import Table, fighters_from, namer

__all__ = ["Table", "fighters_from", "get", "namer"]

_loaded: dict[str, Table] = {}


def get(key: str) -> Table:
    """The table of the model registered under `key`; KeyError (with a sentence) for a key not registered."""
    model = registry.get(key)
    table = _loaded.get(key)
    if table is None or table.model is not model:  # first use, or the key was registered anew
        cls = import_string(model.table)
        if not (isinstance(cls, type) and issubclass(cls, Table)):
            raise ImproperlyConfigured(f"{model.table} (the table of {model.name}) is not a Table subclass.")
        table = _loaded[key] = cls(model)
    return table
