"""Burn Bryte gear in a fight: a weapon's damage and traits, personal shields, and the party's ship.

Rules notes (../shared/rules/burn-bryte.md): attacks deal 1 damage "unless a weapon or ability says more (Extra
Damage 2; Charge N: 2 if the roll used ≥ N dice; Draining: may deal 2 by taking 1 unblockable; Burst N: every
creature within N squares of a point, one roll)". "Shields (if any) absorb first." "At 0 MI Health Levels the ship
goes dark."
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Weapon:
    """The weapon on a character sheet; an empty name is an unarmed attack (1 damage, no traits)."""

    name: str = ""
    damage: int = 1  # Extra Damage 2 makes it 2
    charge: int = 0  # Charge N: 2 damage when the roll used at least N dice; 0 = no Charge
    draining: bool = False
    burst: int = 0  # Burst N: every creature within N squares of a point; 0 = one target
    range: int = 0  # squares a Physical attack with it reaches; 0 = the notes' default (positions.reach)

    def traits(self) -> str:
        """The weapon's traits in words, e.g. "Extra Damage 2, Charge 3"."""
        out = []
        if self.damage > 1:
            out.append(f"Extra Damage {self.damage}")
        if self.charge:
            out.append(f"Charge {self.charge}")
        if self.draining:
            out.append("Draining")
        if self.burst:
            out.append(f"Burst {self.burst}")
        if self.range:
            out.append(f"range {self.range}")
        return ", ".join(out)

    def label(self) -> str:
        traits = self.traits()
        return f"{self.name or 'unarmed'}{f' ({traits})' if traits else ''}"


def hit_damage(weapon: Weapon, dice: int, drain: bool) -> tuple[int, int]:
    """(damage to each target, unblockable damage the attacker takes) of a successful attack that rolled `dice`
    dice with `weapon`; `drain` is the player's choice to use Draining."""
    damage = max(1, weapon.damage)
    if weapon.charge and dice >= weapon.charge:
        damage = max(damage, 2)
    if drain and weapon.draining:
        return max(damage, 2), 1
    return damage, 0


def absorb(shield: int, damage: int) -> tuple[int, int]:
    """(shield left, damage that gets through): a personal shield takes damage before Health Levels do."""
    taken = min(max(0, shield), max(0, damage))
    return shield - taken, damage - taken


def enemy_hit_damage(weapon: Weapon, drain: bool) -> tuple[int, int]:
    """(damage to each target, unblockable damage the enemy takes) of an enemy's declared attack that hits in
    Phase 3. Enemies roll no dice, so Charge N ("2 damage when the wielder makes a skill roll to attack on their
    turn using at least N dice") never adds; Extra Damage and Draining work as for a PC."""
    return hit_damage(weapon, 0, drain)


def drain_cost(hit: bool, on_miss: bool) -> bool:
    """Whether a Draining attack the wielder chose to drain costs its 1 unblockable damage: on a hit always; on a
    miss only when the GM's setting `draining_on_miss` says so."""
    return hit or on_miss


def recharged(shield: int, shield_max: int, points: int) -> int:
    """Shield points a recharge restores: `points` (0 = to full), never past the shield's maximum."""
    room = max(0, shield_max - shield)
    return room if points <= 0 else min(room, points)
