"""The combat models Fray knows, by key. Each later gains its engine; the stat schema is shared with forms."""

from __future__ import annotations

from dataclasses import dataclass

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


MODELS: dict[str, CombatModel] = {
    m.key: m
    for m in (
        CombatModel("burn_bryte", "Burn Bryte", "Three-phase rounds, push-your-luck skill rolls.",
                    burn_bryte_stats.STATS, burn_bryte_stats.SUMMARY),
        CombatModel("sw5e", "SW5e starships", "Ship turns, power dice, crew stations.",
                    sw5e_stats.STATS, sw5e_stats.SUMMARY),
        CombatModel("hero", "HERO System", "The speed chart: 12 segments, phases in DEX order.",
                    hero_stats.STATS, hero_stats.SUMMARY),
        CombatModel("expanse", "The Expanse (AGE)", "Initiative with the Drama Die, major and minor actions, stunts.",
                    expanse_stats.STATS, expanse_stats.SUMMARY),
    )
}

CHOICES = tuple((m.key, m.name) for m in MODELS.values())


def get(key: str) -> CombatModel:
    try:
        return MODELS[key]
    except KeyError:
        raise KeyError(f"Unknown combat model {key!r}.") from None
