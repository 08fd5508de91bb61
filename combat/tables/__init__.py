"""The Django side of each combat model: how its encounters are built and started, what each viewer sees of
the table, and what persists when it ends.

One module per model, named by the model's key (`combat/tables/burn_bryte.py` …), next to its templates in
`templates/combat/<key>/fragments.html` (partials `table`, `gm` and `me`). A model is playable when the rules
core has its engine and this package has its table. A table module provides:

- `build_form(form)` / `clean_form(form, cleaned) -> dict`: optional extra builder fields; the dict returned is
  stored as `Encounter.setup` and read back by `initial_state`.
- `initial_state(engine, encounter, combatants) -> State`: the state the log replays from.
- `public_view(encounter, state, gm) -> dict`: the table for the GM (gm=True) or for every player.
- `private_view(encounter, state, user_id) -> dict`: one player's own sheet and controls.
- `write_back(encounter, state) -> None` (optional): what persists when the encounter ends; without it the
  engine's `write_back` (per combatant key) is merged into each character's stats.
- `PERSISTS`: one sentence for the GM's end page on what goes back to the campaign and what ends with the fight.
- `review` (optional): the model's after-action facts module (see `combat.review`).

The generic parts every view needs (encounter, gm, ended, version, log) are added by `combat.selectors`.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType

from combat.rules import registry
from combat.rules.core import Sight


@functools.cache
def get(key: str) -> ModuleType | None:
    """The table module of a model, or None when that model has none yet."""
    if key not in registry.MODELS:
        return None
    name = f"{__name__}.{key}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise


def playable(key: str) -> bool:
    return key in registry.MODELS and registry.get(key).playable and get(key) is not None


def template(key: str) -> str:
    return f"combat/{key}/fragments.html"


def fighters_from(engine, combatants) -> tuple:
    """Each combatant built from its character sheet by the engine, aware of the other side's combatants that are
    not hidden (the builder's "unseen at the start")."""
    fighters = []
    for c in combatants:
        others = [o for o in combatants if o.side != c.side and not o.hidden]
        stats = c.character.full_stats() if c.character else {}
        fighters.append(engine.fighter_from_sheet(c.key, c.name, c.side, c.owner_id, stats,
                                                  tuple(o.key for o in others)))
    return tuple(fighters)


def namer(state, gm: bool):
    """fighter id -> the name this viewer may read: an enemy the party is not aware of is "someone unseen" to
    players."""
    return Sight(state.fighters, gm).name
