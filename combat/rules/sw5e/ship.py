"""SW5e starship statistics: sizes, tiers, shields, reactors, power couplings. Pure data and arithmetic."""

from __future__ import annotations

from fractions import Fraction

SIZES = {
    # size: (hull and shield die, dice at tier 0, extra dice per tier)
    "tiny": (4, 1, 1),
    "small": (6, 3, 1),
    "medium": (8, 5, 1),
    "large": (10, 7, 1),
    "huge": (12, 9, 2),
    "gargantuan": (20, 11, 2),
}
SIZE_CHOICES = tuple((k, k.capitalize()) for k in SIZES)

# The rules notes' "Str/Dex/Con adj." by size, to the ability scores: the notes give Dexterity and Constitution
# numbers only (Strength is never adjusted). Every adjustment is even, so it moves the modifier by exactly half.
SIZE_ADJUSTMENTS = {
    "tiny": {"dex": 4, "con": -4},
    "small": {"dex": 2, "con": -2},
    "medium": {},
    "large": {"dex": -2, "con": 2},
    "huge": {"dex": -4, "con": 4},
    "gargantuan": {"dex": -6, "con": 6},
}
MOD_RANGE = (-10, 20)  # the modifiers a ship may have (the engine refuses others)

TIERS = range(6)

# Shield type: (capacity multiplier, regeneration multiplier)
SHIELD_TYPES = {
    "directional": (Fraction(1), Fraction(1)),
    "fortress": (Fraction(3, 2), Fraction(2, 3)),
    "quick_charge": (Fraction(2, 3), Fraction(3, 2)),
}
SHIELD_CHOICES = (("directional", "Directional"), ("fortress", "Fortress"), ("quick_charge", "Quick-charge"))

REACTOR_CHOICES = (("fuel_cell", "Fuel cell"), ("ionization", "Ionization"), ("power_core", "Power core"))

SYSTEMS = ("communications", "engines", "shields", "sensors", "weapons")
STORES = ("central",) + SYSTEMS

COUPLING_CHOICES = (("direct", "Direct"), ("distributed", "Distributed"), ("hub_and_spoke", "Hub-and-spoke"))
COUPLING_CAPACITY = {
    "direct": {"central": 4, **dict.fromkeys(SYSTEMS, 0)},
    "distributed": {"central": 0, **dict.fromkeys(SYSTEMS, 2)},
    "hub_and_spoke": {"central": 2, **dict.fromkeys(SYSTEMS, 1)},
}

POWER_DIE_BY_TIER = {0: 1, 1: 4, 2: 6, 3: 8, 4: 10, 5: 12}  # tier 0 spends a flat 1 (a "d1")


def hull_die(size: str) -> int:
    return SIZES[size][0]


def hull_dice_total(size: str, tier: int) -> int:
    _, base, per_tier = SIZES[size]
    return base + per_tier * tier


def power_die(tier: int) -> int:
    return POWER_DIE_BY_TIER[tier]


def power_die_label(tier: int) -> str:
    die = power_die(tier)
    return "1 (flat)" if die == 1 else f"d{die}"


def store_capacity(coupling: str, store: str) -> int:
    return COUPLING_CAPACITY[coupling][store]


def coupling_total(coupling: str) -> int:
    return sum(COUPLING_CAPACITY[coupling].values())


def stored_dice_errors(coupling: str, stored: dict[str, int]) -> dict[str, str]:
    """A sentence for each store holding more power dice than the coupling allows."""
    errors = {}
    for store in STORES:
        count = stored.get(store, 0)
        cap = store_capacity(coupling, store)
        if count > cap:
            label = "the central store" if store == "central" else f"the {store} store"
            errors[store] = f"{count} power dice do not fit in {label}: this coupling holds {cap} there."
    return errors


def shield_regeneration(shield_type: str, tier_die: int) -> int:
    """Shield points regained by spending one shield die: its maximum × the type's regeneration multiplier."""
    _, regen = SHIELD_TYPES[shield_type]
    return int(tier_die * regen)


def size_adjustment(size: str, ability: str) -> int:
    """What the size adds to the ability's modifier: half the notes' adjustment to the score (0 for Strength)."""
    return SIZE_ADJUSTMENTS.get(size, {}).get(ability, 0) // 2


def sized_modifier(size: str, ability: str, own: int) -> int:
    """The ship's modifier with its size's adjustment: `own` is the modifier before size (the GM's typed number)."""
    low, high = MOD_RANGE
    return max(low, min(high, own + size_adjustment(size, ability)))
