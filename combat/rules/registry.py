"""The combat models Fray knows, by key: one line each (see README.md in this folder for adding one).

Each names its rules package (the engine, checked against `contract.Engine`), its character sheet and the dotted
path of its table, the Django side (`combat/tables/`), which this pure core never imports: `combat.tables` loads
it by that path. Nothing else lists the models: forms offer, and services accept, what is registered here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from combat.rules import burn_bryte, expanse, hero, sw5e
from combat.rules.burn_bryte import stats as burn_bryte_stats
from combat.rules.contract import Engine
from combat.rules.core import Setting
from combat.rules.expanse import stats as expanse_stats
from combat.rules.hero import stats as hero_stats
from combat.rules.stats import StatSchema
from combat.rules.sw5e import stats as sw5e_stats


@dataclass(frozen=True)
class CombatModel:
    key: str
    name: str
    blurb: str
    stats: StatSchema
    summary: tuple[str, ...]
    engine: Engine
    table: str  # dotted path of its combat.tables.base.Table subclass

    @property
    def settings(self) -> Sequence[Setting]:
        return self.engine.SETTINGS

    def command_who(self) -> dict[str, str]:
        """Who may issue each command: "gm", or "owner" (the player of the command's actor, and GMs)."""
        return {c.name: c.who for c in self.engine.COMMANDS}


MODELS: dict[str, CombatModel] = {}


def register(model: CombatModel) -> CombatModel:
    """Add a model; a second model under a key already taken is a mistake, refused."""
    if MODELS.get(model.key, model) is not model:
        raise ValueError(f"A combat model {model.key!r} is already registered.")
    if model.engine.KEY != model.key:
        raise ValueError(f"The engine of {model.key!r} calls itself {model.engine.KEY!r}.")
    MODELS[model.key] = model
    return model


def unregister(key: str) -> None:
    MODELS.pop(key, None)


def get(key: str) -> CombatModel:
    try:
        return MODELS[key]
    except KeyError:
        raise KeyError(f"Unknown combat model {key!r}.") from None


def choices() -> list[tuple[str, str]]:
    """(key, name) of every model, for a form's choice field: read when the form is built, so a model registered
    later is offered too."""
    return [(m.key, m.name) for m in MODELS.values()]


# The models Fray plays: one line each.
BUILT_IN = (
    CombatModel(
        "burn_bryte",
        "Burn Bryte",
        "Three-phase rounds, push-your-luck skill rolls.",
        burn_bryte_stats.STATS,
        burn_bryte_stats.SUMMARY,
        burn_bryte,
        "combat.tables.burn_bryte.BurnBryteTable",
    ),
    CombatModel(
        "sw5e",
        "SW5e starships",
        "Ship turns, power dice, crew stations.",
        sw5e_stats.STATS,
        sw5e_stats.SUMMARY,
        sw5e,
        "combat.tables.sw5e.Sw5eTable",
    ),
    CombatModel(
        "hero",
        "HERO System",
        "The speed chart: 12 segments, phases in DEX order.",
        hero_stats.STATS,
        hero_stats.SUMMARY,
        hero,
        "combat.tables.hero.HeroTable",
    ),
    CombatModel(
        "expanse",
        "The Expanse (AGE)",
        "Initiative with the Drama Die, major and minor actions, stunts.",
        expanse_stats.STATS,
        expanse_stats.SUMMARY,
        expanse,
        "combat.tables.expanse.ExpanseTable",
    ),
)
for _model in BUILT_IN:
    register(_model)
