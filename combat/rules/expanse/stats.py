"""The Expanse (AGE) character stats."""

from collections.abc import Mapping
from typing import Any

from combat.rules.stats import CHOICE, INT, OVERRIDES, TAGS, Derivation, Stat, StatSchema, whole

ABILITIES = (
    "Accuracy",
    "Communication",
    "Constitution",
    "Dexterity",
    "Fighting",
    "Intelligence",
    "Perception",
    "Strength",
    "Willpower",
)

# Armour from the seed's table: (armour rating, penalty to Dexterity and Speed).
ARMOUR = {
    "none": ("No armour", 0, 0),
    "padding": ("Padding", 1, 0),
    "light": ("Light armour", 2, -1),
    "medium": ("Medium armour", 4, -2),
    "heavy": ("Heavy armour", 6, -3),
    "power": ("Power armour", 12, 0),
}

# The weapon types of the seed's damage and range tables (the engine's `rulebook.WEAPONS`, by label).
WEAPONS = (
    "Unarmed",
    "Makeshift weapon",
    "Light melee weapon",
    "Heavy melee weapon",
    "Pistol",
    "Rifle",
    "Bow",
    "Thrown weapon",
    "Grenade",
)

CONDITIONS = (
    "Injured",
    "Wounded",
    "Taken out",
    "Prone",
    "Fatigued",
    "Exhausted",
    "Helpless",
    "Unconscious",
    "Blinded",
    "Deafened",
    "Restrained",
    "Hindered",
    "Free-falling",
    "Dying",
)


def ability_key(ability: str) -> str:
    return ability.lower()


def armour_of(values: Mapping[str, Any]) -> tuple[str, int, int]:
    """(name, bonus, penalty) of the sheet's armour, from the seed's table."""
    return ARMOUR.get(str(values.get("armour")), ARMOUR["none"])


def in_fight(values: Mapping[str, Any]) -> dict[str, str]:
    """The seed: Toughness "is modified by your armour, which decreases your Dexterity and Speed". The sheet stores
    them without armour; these are the numbers the fight uses, for the sheet to show beside them. `values` is the
    resolved sheet (the GM's overrides in)."""
    name, bonus, penalty = armour_of(values)
    notes: dict[str, str] = {}
    if bonus:
        toughness = max(0, whole(values, "toughness", 1)) + bonus
        notes["toughness"] = f"{toughness} in a fight, with {name} +{bonus}"
    if penalty:
        after = f"after {name} − {-penalty}"
        notes["dexterity"] = f"{whole(values, 'dexterity', 1) + penalty} in Dexterity tests, {after}"
        notes["speed"] = f"{max(0, whole(values, 'speed', 11) + penalty)} in a fight, {after}"
    overrides = values.get(OVERRIDES)
    if penalty and not (isinstance(overrides, Mapping) and "defense" in overrides):
        notes["defense"] = (
            f"{whole(values, 'defense', 11) - penalty} in an encounter whose GM turned the armour penalty off "
            "(the sheet's Dexterity already includes it)"
        )
    return notes


def defense(values: Mapping[str, Any]) -> Derivation:
    """The notes: "Defense = 10 + Dexterity"; the seed's armour "decreases your Dexterity", so Defense with it."""
    dexterity = whole(values, "dexterity", 1)
    name, _, penalty = armour_of(values)
    formula = f"10 + Dexterity {dexterity}"
    if penalty:
        formula += f" − {-penalty} ({name})"
    return Derivation(10 + dexterity + penalty, formula)


def toughness(values: Mapping[str, Any]) -> Derivation:
    """The seed: "Toughness is equal to your Constitution Score (minimum 0, cannot be negative)"; armour's bonus
    is added in the fight."""
    constitution = whole(values, "constitution", 1)
    if constitution < 0:
        return Derivation(0, f"Constitution {constitution}, but never below 0")
    return Derivation(constitution, f"Constitution {constitution}")


STATS = StatSchema(
    model="expanse",
    stats=(
        *(Stat(ability_key(a), a, INT, default=1, min=-5, max=12, group="Abilities") for a in ABILITIES),
        Stat(
            "focuses",
            "Focuses",
            TAGS,
            default=(),
            group="Abilities",
            help='Comma-separated, e.g. "Dexterity (Initiative), Accuracy (Pistols)".',
        ),
        Stat(
            "defense",
            "Defense",
            INT,
            default=11,
            min=0,
            max=40,
            group="Combat",
            help="10 + Dexterity, less armour's Dexterity penalty.",
            derive=defense,
        ),
        Stat(
            "toughness",
            "Toughness",
            INT,
            default=1,
            min=0,
            max=20,
            group="Combat",
            help="Constitution, never below 0; armour adds its bonus in the fight.",
            derive=toughness,
        ),
        Stat(
            "armour",
            "Armour",
            CHOICE,
            default="none",
            choices=tuple((k, v[0]) for k, v in ARMOUR.items()),
            group="Combat",
        ),
        Stat("speed", "Speed (m)", INT, default=11, min=0, max=40, group="Combat"),
        Stat(
            "weapons",
            "Weapons",
            TAGS,
            default=(),
            group="Combat",
            allowed_tags=WEAPONS,
            help='What the attack builder offers, e.g. "Pistol, Light melee weapon"; empty offers every type.',
        ),
        Stat("fortune", "Fortune", INT, default=15, min=0, max=200, group="Fortune"),
        Stat("fortune_max", "Maximum Fortune", INT, default=15, min=0, max=200, group="Fortune"),
        Stat("level", "Level", INT, default=1, min=1, max=20, group="Fortune"),
        Stat("conditions", "Conditions", TAGS, default=(), group="Conditions", allowed_tags=CONDITIONS),
    ),
    capped=(("fortune", "fortune_max"),),
    fight=in_fight,
)

SUMMARY = ("defense", "toughness", "fortune", "level")
