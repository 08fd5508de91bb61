"""The combat models Fray knows, by key. Each later gains its engine; the stat schema is shared with forms."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType

from combat.rules import burn_bryte, expanse, hero, sw5e
from combat.rules.burn_bryte import stats as burn_bryte_stats
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
    engine: ModuleType | None = None  # settings, COMMANDS, CODEC, initial_state, decide, evolve, describe
    settings: tuple = field(default=())

    @property
    def playable(self) -> bool:
        return self.engine is not None

    def command_who(self) -> dict[str, str]:
        """Who may issue each command: "gm", or "owner" (the player of the command's actor, and GMs)."""
        return {c.name: c.who for c in self.engine.COMMANDS} if self.engine else {}

    @property
    def describe(self) -> Callable:
        return self.engine.describe


MODELS: dict[str, CombatModel] = {
    m.key: m
    for m in (
        CombatModel("burn_bryte", "Burn Bryte", "Three-phase rounds, push-your-luck skill rolls.",
                    burn_bryte_stats.STATS, burn_bryte_stats.SUMMARY, burn_bryte,
                    burn_bryte.SETTINGS),
        CombatModel("sw5e", "SW5e starships", "Ship turns, power dice, crew stations.",
                    sw5e_stats.STATS, sw5e_stats.SUMMARY, sw5e, sw5e.SETTINGS),
        CombatModel("hero", "HERO System", "The speed chart: 12 segments, phases in DEX order.",
                    hero_stats.STATS, hero_stats.SUMMARY, hero, hero.SETTINGS),
        CombatModel("expanse", "The Expanse (AGE)", "Initiative with the Drama Die, major and minor actions, stunts.",
                    expanse_stats.STATS, expanse_stats.SUMMARY, expanse, expanse.SETTINGS),
    )
}

CHOICES = tuple((m.key, m.name) for m in MODELS.values())


def get(key: str) -> CombatModel:
    try:
        return MODELS[key]
    except KeyError:
        raise KeyError(f"Unknown combat model {key!r}.") from None
