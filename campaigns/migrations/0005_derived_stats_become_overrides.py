"""Stats the seeds derive are no longer typed: HERO's initiative DEX (from DEX), The Expanse's Defense (10 +
Dexterity, less armour's penalty) and Toughness (Constitution, never below 0).

A stored value that nobody chose (the old stock default, or what the formula gives) is dropped, so the sheet works
it out from now on; any other value was typed on purpose and becomes the GM's override, so fights keep using it.
The formulas are copied here, not imported, so this migration keeps its meaning when the rules change.
"""

from django.db import migrations

ARMOUR_PENALTY = {"light": -1, "medium": -2, "heavy": -3}


def _whole(value):
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _derived(system, stats):
    """{stat key: (the value the new formula gives, the values that were not a choice)}."""

    def number(key, default):
        value = _whole(stats.get(key))
        return default if value is None else value

    if system == "hero":
        dex = number("dex", 10)
        return {"initiative_dex": (dex, {10, dex})}
    dex, con = number("dexterity", 1), number("constitution", 1)
    defense = 10 + dex + ARMOUR_PENALTY.get(stats.get("armour"), 0)
    return {"defense": (defense, {11, 10 + dex, defense}), "toughness": (max(0, con), {1, max(0, con)})}


def typed_to_overrides(apps, schema_editor):
    Character = apps.get_model("campaigns", "Character")
    for character in Character.objects.filter(system__in=("hero", "expanse")).iterator():
        stats = dict(character.stats or {})
        overrides = dict(stats.get("overrides") or {})
        changed = False
        for key, (_, not_chosen) in _derived(character.system, stats).items():
            if key not in stats:
                continue
            value = _whole(stats.pop(key))
            changed = True
            if value is not None and value not in not_chosen:
                overrides.setdefault(key, value)
        if changed:
            stats.pop("overrides", None)
            if overrides:
                stats["overrides"] = overrides
            Character.objects.filter(pk=character.pk).update(stats=stats)


def overrides_to_typed(apps, schema_editor):
    Character = apps.get_model("campaigns", "Character")
    for character in Character.objects.filter(system__in=("hero", "expanse")).iterator():
        stats = dict(character.stats or {})
        overrides = stats.pop("overrides", None) or {}
        for key, (value, _) in _derived(character.system, stats).items():
            stats[key] = overrides.get(key, value)
        Character.objects.filter(pk=character.pk).update(stats=stats)


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0004_combat_model_without_choices"),
    ]

    operations = [migrations.RunPython(typed_to_overrides, overrides_to_typed)]
