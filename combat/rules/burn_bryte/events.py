"""What happened in a Burn Bryte fight: one frozen dataclass per event, as the log stores it.

This is the stored schema: every saved log replays through these classes and `evolve`. Never rename an event's
`kind` or a field, never change what a field means; add a field only with a default that reads old logs right.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from combat.rules.burn_bryte.commands import COMMANDS
from combat.rules.burn_bryte.state import Roll
from combat.rules.core import Event, EventCodec, Revealed
from combat.rules.free_roll import DiceRolled


@dataclass(frozen=True)
class Declared(Event):
    kind: ClassVar[str] = "declared"
    id: int = 0
    enemy: str = ""
    target: str = ""
    text: str = ""
    extra: bool = False
    weapon: str = ""  # the enemy's weapon the declared action names ("" for none: 1 damage, no traits)


@dataclass(frozen=True)
class DeclarationChanged(Event):
    kind: ClassVar[str] = "declaration_changed"
    id: int = 0
    target: str = ""
    text: str = ""
    cost: int = 0


@dataclass(frozen=True)
class PhaseStarted(Event):
    kind: ClassVar[str] = "phase_started"
    round: int = 1
    phase: int = 1
    skipped: tuple[int, ...] = ()


@dataclass(frozen=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    fighter: str = ""
    picked_by: str = ""  # "", "gm" or the picking PC's id
    chain: bool = False


@dataclass(frozen=True)
class SkillRolled(Event):
    kind: ClassVar[str] = "skill_rolled"
    roll: Roll | None = None
    note: str = ""


@dataclass(frozen=True)
class AdvantageSpent(Event):
    kind: ClassVar[str] = "advantage_spent"
    fighter: str = ""
    die: int = 0
    face: int = 0
    entered: bool = False


@dataclass(frozen=True)
class Moved(Event):
    kind: ClassVar[str] = "moved"
    fighter: str = ""
    squares: int = 0
    col: int = 0  # the square moved to (positions.py); 0 in logs from before positions
    row: int = 0
    rolled: bool = False  # a PC's move used squares a move roll granted, not the free move


@dataclass(frozen=True)
class TurnEnded(Event):
    kind: ClassVar[str] = "turn_ended"
    fighter: str = ""
    failure: str = ""  # "", "collapse" or "consequence"
    note: str = ""
    down: bool = False  # the PC dropped to 0 Health Levels during the turn: it ends, they take no actions


@dataclass(frozen=True)
class TurnSkipped(Event):
    """The GM passed over a PC this round (their player is away): they count as having had their turn."""

    kind: ClassVar[str] = "turn_skipped"
    fighter: str = ""


@dataclass(frozen=True)
class Resolved(Event):
    kind: ClassVar[str] = "resolved"
    id: int = 0
    outcome: str = ""
    damage: int = 0
    targets: tuple[str, ...] = ()  # a Burst's area, as the GM named it; empty: the declared target alone
    drained: int = 0  # unblockable damage the enemy takes for its weapon's Draining
    out_of_range: int = 0  # squares to the target when beyond the enemy's reach (the GM confirmed); 0 otherwise


@dataclass(frozen=True)
class NovaSpent(Event):
    kind: ClassVar[str] = "nova_spent"
    fighter: str = ""
    points: int = 0
    note: str = ""
    roll: bool = False  # an ability that needs a skill roll, used on the owner's turn


@dataclass(frozen=True)
class AdvantagesUsed(Event):
    """Advantages from the party's pool spent on an ability that costs them."""

    kind: ClassVar[str] = "advantages_used"
    fighter: str = ""
    points: int = 0
    note: str = ""


@dataclass(frozen=True)
class CollapseSpent(Event):
    kind: ClassVar[str] = "collapse_spent"
    audience: ClassVar[str] = "gm"
    enemy: str = ""
    points: int = 0
    note: str = ""


@dataclass(frozen=True)
class HealthAdjusted(Event):
    kind: ClassVar[str] = "health_adjusted"
    target: str = ""
    change: int = 0


@dataclass(frozen=True)
class NovaAdjusted(Event):
    kind: ClassVar[str] = "nova_adjusted"
    target: str = ""
    change: int = 0


@dataclass(frozen=True)
class ConditionSet(Event):
    kind: ClassVar[str] = "condition_set"
    target: str = ""
    slot: str = ""
    value: str = ""


# --- gear: Burst areas and the ship (gear.py) --------------------------------------------------------------------


@dataclass(frozen=True)
class BurstPlaced(Event):
    """The GM placed a Burst attack that hit: `damage` to each of `targets` (shields absorb first)."""

    kind: ClassVar[str] = "burst_placed"
    fighter: str = ""
    targets: tuple[str, ...] = ()
    damage: int = 0


@dataclass(frozen=True)
class ShipDamaged(Event):
    kind: ClassVar[str] = "ship_damaged"
    change: int = 0


@dataclass(frozen=True)
class ShieldRecharged(Event):
    """The GM restored `points` of a combatant's personal shield (never past its maximum)."""

    kind: ClassVar[str] = "shield_recharged"
    target: str = ""
    points: int = 0


# --- positions: squares on a grid (positions.py) -----------------------------------------------------------------


@dataclass(frozen=True)
class Placed(Event):
    """The GM put a combatant on a square; column 0 takes it off the grid."""

    kind: ClassVar[str] = "placed"
    fighter: str = ""
    col: int = 0
    row: int = 0


EVENTS = (
    Declared,
    DeclarationChanged,
    PhaseStarted,
    TurnStarted,
    SkillRolled,
    AdvantageSpent,
    Moved,
    TurnEnded,
    TurnSkipped,
    Resolved,
    NovaSpent,
    AdvantagesUsed,
    CollapseSpent,
    HealthAdjusted,
    NovaAdjusted,
    ConditionSet,
    BurstPlaced,
    ShipDamaged,
    ShieldRecharged,
    Placed,
    Revealed,
    DiceRolled,
)
CODEC = EventCodec(EVENTS, COMMANDS)
