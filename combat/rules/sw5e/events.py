"""What happened in an SW5e starship encounter, as the log stores it.

This is the STORED SCHEMA: every saved log replays through these classes and `evolve`. Never rename an event's
`kind` or a field, never change what a field means; a new field needs a default that reads old logs as they were.
Every die rolled is kept in its event, so replay never rolls again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from combat.rules.core import Event
from combat.rules.free_roll import DiceRolled


@dataclass(frozen=True)
class CrewAssigned(Event):
    kind: ClassVar[str] = "crew_assigned"
    fighter: str = ""
    ship: str = ""
    station: str = ""


@dataclass(frozen=True)
class SurpriseSet(Event):
    kind: ClassVar[str] = "surprise_set"
    target: str = ""
    surprised: bool = True


@dataclass(frozen=True)
class StealthRolled(Event):
    """A Dexterity (Stealth) check of a crew member whose ship hides (WorkOutSurprise); SurpriseSet follows."""

    kind: ClassVar[str] = "stealth_rolled"
    fighter: str = ""
    face: int = 0
    modifier: int = 0

    @property
    def total(self) -> int:
        return self.face + self.modifier


@dataclass(frozen=True)
class InitiativeRolled(Event):
    kind: ClassVar[str] = "initiative_rolled"
    fighter: str = ""
    face: int = 0
    modifier: int = 0
    entered: bool = False

    @property
    def total(self) -> int:
        return self.face + self.modifier


@dataclass(frozen=True)
class ShipInitiativeSet(Event):
    kind: ClassVar[str] = "ship_initiative_set"
    ship: str = ""
    value: int = 0
    face: int = 0  # 0 when the GM entered the value
    modifier: int = 0


@dataclass(frozen=True)
class TiesOrdered(Event):
    kind: ClassVar[str] = "ties_ordered"
    order: tuple[str, ...] = ()


@dataclass(frozen=True)
class CombatStarted(Event):
    kind: ClassVar[str] = "combat_started"
    order: tuple[str, ...] = ()
    initiative: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class RoundStarted(Event):
    kind: ClassVar[str] = "round_started"
    round: int = 1


@dataclass(frozen=True)
class ShipTurnStarted(Event):
    kind: ClassVar[str] = "ship_turn_started"
    ship: str = ""
    reactor: str = ""
    faces: tuple[int, ...] = ()
    produced: int = 0


@dataclass(frozen=True)
class ShipTurnSkipped(Event):
    kind: ClassVar[str] = "ship_turn_skipped"
    ship: str = ""
    reason: str = ""  # "disabled" or "surprised"


@dataclass(frozen=True)
class PowerDistributed(Event):
    kind: ClassVar[str] = "power_distributed"
    ship: str = ""
    by: str = ""
    produced: int = 0
    assigned: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ShieldsRegenerated(Event):
    kind: ClassVar[str] = "shields_regenerated"
    ship: str = ""
    by: str = ""
    points: int = 0  # the die's maximum × the regeneration multiplier (capped at capacity when applied)


@dataclass(frozen=True)
class CrewOrderSet(Event):
    kind: ClassVar[str] = "crew_order_set"
    ship: str = ""
    by: str = ""
    order: tuple[str, ...] = ()
    final: bool = False


@dataclass(frozen=True)
class CrewTurnStarted(Event):
    kind: ClassVar[str] = "crew_turn_started"
    fighter: str = ""
    ship: str = ""
    surprised: bool = False


@dataclass(frozen=True)
class CrewTurnEnded(Event):
    kind: ClassVar[str] = "crew_turn_ended"
    fighter: str = ""
    skipped: bool = False


@dataclass(frozen=True)
class ActionTaken(Event):
    kind: ClassVar[str] = "action_taken"
    fighter: str = ""
    ship: str = ""
    action: str = ""  # a menu key or "custom:<name>"
    label: str = ""
    slot: str = "action"
    weapon: str = ""
    target: str = ""
    helm: bool = False
    boost_dc: int = 0  # the DC increase of a further boost this ship turn
    note: str = ""


@dataclass(frozen=True)
class HullPatched(Event):
    kind: ClassVar[str] = "hull_patched"
    fighter: str = ""
    ship: str = ""
    sides: int = 0
    face: int = 0
    bonus: int = 0

    @property
    def points(self) -> int:
        return max(0, self.face + self.bonus)


@dataclass(frozen=True)
class ShieldDieRolled(Event):
    """The Regenerate Shields action: one shield die spent and rolled, its face plus `bonus` (the ship's Strength
    modifier, 0 in logs stored before it counted) restored as shield points."""

    kind: ClassVar[str] = "shield_die_rolled"
    fighter: str = ""
    ship: str = ""
    sides: int = 0
    face: int = 0
    bonus: int = 0

    @property
    def points(self) -> int:
        return max(0, self.face + self.bonus)


@dataclass(frozen=True)
class WeaponFired(Event):
    """A weapon with stats fired at a ship: the attack roll against its AC and, on a hit, the damage dealt."""

    kind: ClassVar[str] = "weapon_fired"
    fighter: str = ""
    ship: str = ""
    target: str = ""
    weapon: str = ""
    face: int = 0  # the d20
    other: int = 0  # the higher d20 a roll with disadvantage (system damage) threw away; 0 without disadvantage
    attack: int = 0  # the weapon's attack bonus
    ac: int = 10  # the target's AC
    hit: bool = False
    critical: bool = False
    sides: int = 0  # damage die
    faces: tuple[int, ...] = ()  # damage dice (none on a miss)
    bonus: int = 0  # the weapon's damage bonus
    power: int = 0  # power dice added to the damage
    reduction: int = 0  # the target's armour
    amount: int = 0  # damage dealt: max(1, dice + bonus + power - reduction) on a hit, 0 on a miss


@dataclass(frozen=True)
class PowerSpent(Event):
    kind: ClassVar[str] = "power_spent"
    fighter: str = ""
    ship: str = ""
    system: str = ""
    store: str = ""
    sides: int = 0  # 1: a flat 1 per die (tier 0)
    faces: tuple[int, ...] = ()
    note: str = ""
    # Shield points the dice restored (setting "shield_power"); 0 in logs stored before they did (issue 18).
    shield_points: int = 0


@dataclass(frozen=True)
class ShipDamaged(Event):
    kind: ClassVar[str] = "ship_damaged"
    ship: str = ""
    amount: int = 0
    note: str = ""
    by: str = ""  # the ship or crew member that dealt it ("" when the GM did not say)


@dataclass(frozen=True)
class ShipAdjusted(Event):
    kind: ClassVar[str] = "ship_adjusted"
    ship: str = ""
    what: str = ""
    value: int = 0


@dataclass(frozen=True)
class ActionAllowed(Event):
    kind: ClassVar[str] = "action_allowed"
    key: str = ""
    label: str = ""
    helm: bool = False
    repeat: bool = False


@dataclass(frozen=True)
class ShipTurnEnded(Event):
    kind: ClassVar[str] = "ship_turn_ended"
    ship: str = ""


# --- at 0 hull points (disabled.py) ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SystemDamaged(Event):
    """Levels of system damage: 1 when damage drops a ship to 0 hull points and it is disabled; 1 (2 from a
    critical hit) for damage taken at 0 hull points, which also count as failed destruction saves."""

    kind: ClassVar[str] = "system_damaged"
    ship: str = ""
    levels: int = 1
    failures: int = 0
    cause: str = ""  # "zero" (dropped to 0 hull), "damage" or "critical" (taken at 0 hull)
    stable: bool = False  # "zero" only: disabled and stable, the attackers' choice (setting `disable_at_zero`)


@dataclass(frozen=True)
class DestructionSaveRolled(Event):
    """A disabled ship's destruction save at the start of its turn: d20, 10 or higher succeeds; a 1 counts as two
    failures, a 20 restores 1 hull point."""

    kind: ClassVar[str] = "destruction_save_rolled"
    ship: str = ""
    face: int = 0
    other: int = 0  # the higher d20 a save with disadvantage (system damage level 3) threw away; 0 without


@dataclass(frozen=True)
class StabiliseAttempted(Event):
    """A crew member's action: an Intelligence (Mechanic's Kit) check against DC 10 to stabilise a disabled ship."""

    kind: ClassVar[str] = "stabilise_attempted"
    fighter: str = ""
    ship: str = ""
    face: int = 0
    modifier: int = 0

    @property
    def total(self) -> int:
        return self.face + self.modifier


@dataclass(frozen=True)
class ShipRecovered(Event):
    """Hull restored above 0: the ship is no longer disabled and its destruction saves are cleared."""

    kind: ClassVar[str] = "ship_recovered"
    ship: str = ""


@dataclass(frozen=True)
class ShipExploded(Event):
    """An NPC ship reduced to 0 hull points explodes at once (the `npc_at_zero` setting)."""

    kind: ClassVar[str] = "ship_exploded"
    ship: str = ""


@dataclass(frozen=True)
class UsedSaveRolled(Event):
    """A crew member aboard a used ship (system damage level 5) rolled a 1 on an attack roll or ability check: the
    ship's destruction save, a plain d20; below 10 it suffers a level of system damage."""

    kind: ClassVar[str] = "used_save_rolled"
    fighter: str = ""
    ship: str = ""
    face: int = 0


EVENTS = (
    CrewAssigned,
    SurpriseSet,
    InitiativeRolled,
    ShipInitiativeSet,
    TiesOrdered,
    CombatStarted,
    RoundStarted,
    ShipTurnStarted,
    ShipTurnSkipped,
    PowerDistributed,
    ShieldsRegenerated,
    CrewOrderSet,
    CrewTurnStarted,
    CrewTurnEnded,
    ActionTaken,
    HullPatched,
    PowerSpent,
    ShipDamaged,
    ShieldDieRolled,
    StealthRolled,
    ShipAdjusted,
    ActionAllowed,
    ShipTurnEnded,
    WeaponFired,
    SystemDamaged,
    DestructionSaveRolled,
    StabiliseAttempted,
    ShipRecovered,
    ShipExploded,
    UsedSaveRolled,
    DiceRolled,
)
