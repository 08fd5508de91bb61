"""SW5e ship gear: armour (AC and damage reduction), weapon stats, and hull and shield points worked out from size,
tier and modifiers (../shared/rules/sw5e-starships.md, "Ship statistics"). Pure data and arithmetic."""

from __future__ import annotations

import re
from dataclasses import dataclass

from combat.rules.sw5e import ship as sw

# Armour: (highest Dex modifier counted in AC, or None for no cap; damage reduction on attack-roll hits)
ARMOUR = {
    "none": (None, 0),
    "deflection": (2, 3),
    "reinforced": (0, 6),
}
ARMOUR_CHOICES = (
    ("none", "None (AC 10 + Dex)"),
    ("deflection", "Deflection (Dex up to +2, damage reduction 3)"),
    ("reinforced", "Reinforced (Dex +0, damage reduction 6)"),
)


def armour_class(armour: str, dex_mod: int) -> int:
    """AC 10 + Dex modifier, capped by the armour."""
    cap, _ = ARMOUR[armour]
    return 10 + (dex_mod if cap is None else min(dex_mod, cap))


def damage_reduction(armour: str) -> int:
    return ARMOUR[armour][1]


def reduced(damage: int, reduction: int) -> int:
    """Damage of an attack-roll hit after armour: never below 1."""
    return max(1, damage - reduction)


# --- weapons ----------------------------------------------------------------------------------------------------------

# "laser cannons (+5 2d6+2)": a name, then in parentheses the attack bonus and the damage dice.
WEAPON = re.compile(
    r"^(?P<name>.*?)\s*\(\s*(?P<attack>[+-]\d{1,2})\s+(?P<count>\d{1,2})d(?P<sides>\d{1,3})"
    r"\s*(?P<bonus>[+-]\s*\d{1,3})?\s*\)$"
)


@dataclass(frozen=True)
class WeaponStats:
    attack: int  # added to the d20 attack roll
    count: int  # damage dice
    sides: int
    bonus: int = 0  # added to the damage

    @property
    def spec(self) -> str:
        bonus = f"{self.bonus:+d}" if self.bonus else ""
        return f"{self.attack:+d} {self.count}d{self.sides}{bonus}"


def parse_weapon(text: str) -> tuple[str, WeaponStats | None]:
    """(name, stats) of a weapon entry; stats are None when the entry is a bare name."""
    text = " ".join(text.split())
    match = WEAPON.match(text)
    if match is None:
        return text, None
    stats = WeaponStats(
        attack=int(match["attack"]),
        count=int(match["count"]),
        sides=int(match["sides"]),
        bonus=int((match["bonus"] or "0").replace(" ", "")),
    )
    return match["name"], stats


def weapon_stats(spec: str) -> WeaponStats | None:
    """Stats from their stored form ("+5 2d6+2"), or None."""
    return parse_weapon(f"w ({spec})")[1] if spec else None


def weapon_error(text: str) -> str:
    """A sentence when an entry looks like it carries stats but they do not read, else ""."""
    name, stats = parse_weapon(text)
    if stats is None and "(" in text:
        return f'Write "{name.split("(")[0].strip()}"\'s stats as (attack damage), e.g. (+5 2d6+2).'
    if stats is not None and (stats.count < 1 or stats.sides < 2 or not name):
        return f"{name or 'A weapon'} needs a name and at least one die of 2 or more sides."
    return ""


# --- hull and shield points from size, tier and modifiers -------------------------------------------------------------


def _points(die: int, dice: int, mod: int) -> int:
    """First die at its maximum, the rest averaged (half the die + 1), each plus the modifier; at least 1 a die."""
    first = max(1, die + mod)
    return first + (dice - 1) * max(1, die // 2 + 1 + mod)


def hull_points(size: str, tier: int, con_mod: int) -> int:
    return _points(sw.hull_die(size), sw.hull_dice_total(size, tier), con_mod)


def shield_points(size: str, tier: int, str_mod: int, shield_type: str) -> int:
    """Shield dice like hull dice with the Strength modifier, times the shield type's capacity multiplier."""
    capacity, _ = sw.SHIELD_TYPES[shield_type]
    return int(_points(sw.hull_die(size), sw.hull_dice_total(size, tier), str_mod) * capacity)
