"""What happened in a HERO System fight: one frozen dataclass per event, as the log stores it.

This is the stored schema: every saved log replays through these classes and `evolve`. Never rename an event's
`kind` or a field, never change what a field means; add a field only with a default that reads old logs right.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from combat.rules.core import Event, EventCodec, Revealed
from combat.rules.free_roll import DiceRolled
from combat.rules.hero.commands import COMMANDS
from combat.rules.hero.state import Held, body_of


@dataclass(frozen=True)
class RollOff:
    fighter: str
    faces: tuple[int, ...]  # one d6 per round of the roll-off, rerolled while tied


@dataclass(frozen=True)
class Gain:
    fighter: str
    stun: int
    end: int


@dataclass(frozen=True)
class SegmentStarted(Event):
    kind: ClassVar[str] = "segment_started"
    turn: int = 1
    segment: int = 12
    order: tuple[str, ...] = ()
    skipped: tuple[int, ...] = ()  # segments passed over with nobody to act, in the order they came
    rolloff: tuple[RollOff, ...] = ()
    lost_holds: tuple[str, ...] = ()  # held actions lost because their holder's next phase begins now


@dataclass(frozen=True)
class Recovered(Event):
    """Recoveries: "action" (Recovery actions at the end of the segment) or "post12" (everyone after segment 12)."""

    kind: ClassVar[str] = "recovered"
    reason: str = "post12"
    turn: int = 1
    gains: tuple[Gain, ...] = ()
    left_out: tuple[str, ...] = ()  # GM's flag, or knocked out too deeply


@dataclass(frozen=True)
class TiesOrdered(Event):
    kind: ClassVar[str] = "ties_ordered"
    order: tuple[str, ...] = ()
    moved: tuple[str, ...] = ()


@dataclass(frozen=True)
class PhaseSpent(Event):
    """A phase the rules already spent: "aborted", "stunned" (recovering from it), "knocked out" or "awed" (by a
    Presence attack: awed or cowed)."""

    kind: ClassVar[str] = "phase_spent"
    fighter: str = ""
    segment: int = 0
    how: str = ""
    stun: int = 0  # a knocked-out character's Recovery in the phase
    end: int = 0


@dataclass(frozen=True)
class Acted(Event):
    kind: ClassVar[str] = "acted"
    fighter: str = ""
    action: str = "half"  # full, half, zero, none, recovery
    text: str = ""
    end: int = 0
    ends_phase: bool = False


@dataclass(frozen=True)
class Attacked(Event):
    kind: ClassVar[str] = "attacked"
    fighter: str = ""
    target: str = ""
    roll: tuple[int, ...] = ()
    needed: int = 11
    hit: bool = False
    damage: tuple[int, ...] = ()
    defence: int = 0
    stun: int = 0  # STUN taken after defences
    body: int = 0
    stunned: bool = False
    knocked_out: bool = False
    end: int = 0
    text: str = ""
    entered: bool = False  # the attack roll was typed in from physical dice
    damage_entered: bool = False

    @property
    def total(self) -> int:
        return sum(self.roll)

    @property
    def stun_rolled(self) -> int:
        return sum(self.damage)

    @property
    def body_rolled(self) -> int:
        return sum(body_of(face) for face in self.damage)


@dataclass(frozen=True)
class PhaseEnded(Event):
    kind: ClassVar[str] = "phase_ended"
    fighter: str = ""
    reason: str = ""  # "" (ended by the character or the GM), "stunned", "knocked out" or "awed" mid-phase


@dataclass(frozen=True)
class HeldAction(Event):
    kind: ClassVar[str] = "held"
    fighter: str = ""
    held: Held | None = None


@dataclass(frozen=True)
class Released(Event):
    kind: ClassVar[str] = "released"
    fighter: str = ""


@dataclass(frozen=True)
class Aborted(Event):
    kind: ClassVar[str] = "aborted"
    fighter: str = ""
    action: str = "dodge"
    text: str = ""
    end: int = 0
    spent_held: bool = False
    loses: int = 0  # tick of the phase it costs (0 when a held action paid for it)


@dataclass(frozen=True)
class HoldContested(Event):
    kind: ClassVar[str] = "hold_contested"
    holder: str = ""
    other: str = ""
    holder_roll: tuple[int, ...] = ()
    other_roll: tuple[int, ...] = ()
    holder_target: int = 0
    other_target: int = 0
    winner: str = ""  # "" when the margins and DEX tie: the GM decides


@dataclass(frozen=True)
class SpdChanged(Event):
    kind: ClassVar[str] = "spd_changed"
    fighter: str = ""
    old: int = 0
    new: int = 0
    next_phase: int = 0  # tick of the locked-in next phase (0: the change waits for the next turn)
    phases: tuple[int, ...] = ()  # this turn's phases afterwards


@dataclass(frozen=True)
class NoRecoverySet(Event):
    kind: ClassVar[str] = "no_recovery_set"
    fighter: str = ""
    excluded: bool = True


@dataclass(frozen=True)
class PoolsAdjusted(Event):
    kind: ClassVar[str] = "pools_adjusted"
    fighter: str = ""
    stun: int = 0
    body: int = 0
    end: int = 0


@dataclass(frozen=True)
class StunnedSet(Event):
    """The GM set (or cleared) Stunned. Added after the first logs were stored: older logs simply lack it."""

    kind: ClassVar[str] = "stunned_set"
    fighter: str = ""
    stunned: bool = True


@dataclass(frozen=True)
class HoldOffered(Event):
    """A held action's moment came (its DEX, its segment, or the trigger it named): the holder may act now, and
    the phase in order waits for them."""

    kind: ClassVar[str] = "hold_offered"
    fighter: str = ""
    why: str = ""  # "dex", "segment", "acts", "attacks" or "moves"


@dataclass(frozen=True)
class HoldKept(Event):
    kind: ClassVar[str] = "hold_kept"
    fighter: str = ""


@dataclass(frozen=True)
class Moved(Event):
    kind: ClassVar[str] = "moved"
    fighter: str = ""
    metres: int = 0
    run: int = 12  # the RUN it was measured against
    full: bool = False  # more than half the RUN: a full phase action
    ends_phase: bool = False
    text: str = ""


@dataclass(frozen=True)
class PresenceAttacked(Event):
    kind: ClassVar[str] = "presence_attacked"
    fighter: str = ""
    target: str = ""
    roll: tuple[int, ...] = ()
    against: int = 10  # the target's PRE (or EGO) it is measured against
    level: int = 0  # 0 no effect, 1 impressed, 2 very impressed, 3 awed, 4 cowed
    text: str = ""

    @property
    def total(self) -> int:
        return sum(self.roll)


@dataclass(frozen=True)
class Hesitated(Event):
    """A very impressed character's phase opens: only a half phase action in it (the Presence attack's effect)."""

    kind: ClassVar[str] = "hesitated"
    fighter: str = ""


EVENTS = (
    SegmentStarted,
    Recovered,
    TiesOrdered,
    PhaseSpent,
    Acted,
    Attacked,
    PhaseEnded,
    HeldAction,
    Released,
    Aborted,
    HoldContested,
    SpdChanged,
    NoRecoverySet,
    PoolsAdjusted,
    StunnedSet,
    Revealed,
    DiceRolled,
    HoldOffered,
    HoldKept,
    Moved,
    PresenceAttacked,
    Hesitated,
)
CODEC = EventCodec(EVENTS, COMMANDS)
