"""A stable SW5e ship left to itself between fights (Starships of the Galaxy, chapter 9, Stabilizing a Ship: "A
stable ship that isn't repaired regains 1 hit point after 1d4 hours"). The GM records that the time has passed on
the ship page; the server rolls the hours and the ship's record says when it was back."""

from __future__ import annotations

from combat.rules.core import RuleError
from combat.rules.dice import Dice
from ships.models import Ship

HOURS_DIE = 4


def can_recover(ship: Ship) -> bool:
    return ship.hull == 0 and ship.stable


def recover(ship: Ship, dice: Dice) -> int:
    """Rolls 1d4 hours and gives the stable ship its 1 hull point back: it is no longer disabled, and its
    destruction saves' tally is done with. Returns the hours. Refused with a sentence for a ship that is not stable
    at 0 hull points (nothing changes)."""
    if ship.hull != 0:
        raise RuleError(f"{ship.name} is not at 0 hull points.")
    if not ship.stable:
        raise RuleError(f"{ship.name} is not stable: it must be stabilised (or repaired) first.")
    hours = dice.roll(1, HOURS_DIE)[0]
    ship.hull, ship.stable, ship.saves_made, ship.saves_failed = 1, False, 0, 0
    ship.recovered_after = hours
    ship.save(update_fields=["hull", "stable", "saves_made", "saves_failed", "recovered_after"])
    return hours
