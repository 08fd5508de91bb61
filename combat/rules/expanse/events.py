"""The Expanse (AGE) events: what happened, as the log stores it. This file and evolve.py are the stored schema.

Every saved log replays through these classes, so an event's `kind` and its fields are never renamed or
removed; a new field needs a default that means what older logs meant. Every die rolled is kept in its event
(`InitRoll`, `TestRecord`, `Opposed`, `BreatherRoll`), so replay never rolls again. `audience = "gm"` keeps an
entry from players altogether.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from combat.rules.core import Event, Revealed
from combat.rules.expanse.rulebook import Stunt
from combat.rules.expanse.state import TestRecord
from combat.rules.expanse.weapons import WeaponGiven
from combat.rules.free_roll import DiceRolled


@dataclass(frozen=True)
class InitRoll:
    fighter: str
    faces: tuple[int, ...]
    bonus: int
    focus: bool = False

    @property
    def total(self) -> int:
        return sum(self.faces) + self.bonus


@dataclass(frozen=True)
class InitiativeRolled(Event):
    kind: ClassVar[str] = "initiative_rolled"
    rolls: tuple[InitRoll, ...] = ()


@dataclass(frozen=True)
class TieBroken(Event):
    kind: ClassVar[str] = "tie_broken"
    first: str = ""
    second: str = ""


@dataclass(frozen=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    fighter: str = ""
    round: int = 1


@dataclass(frozen=True)
class TurnEnded(Event):
    kind: ClassVar[str] = "turn_ended"
    fighter: str = ""
    auto: bool = False
    sp_lost: int = 0


@dataclass(frozen=True)
class Tested(Event):
    """An attack, a grenade throw or an ability test, with its dice and (on a hit) its damage dice."""

    kind: ClassVar[str] = "tested"
    test: TestRecord | None = None
    slot: str = "turn"  # "turn", "prepared", "free" (a stunt's extra attack) or "none" (a free test)
    metres: int = 0  # Charge: metres moved first


@dataclass(frozen=True)
class Blasted(Event):
    kind: ClassVar[str] = "blasted"
    thrower: str = ""
    targets: tuple[str, ...] = ()
    faces: tuple[int, ...] = ()
    direction: str = ""


@dataclass(frozen=True)
class BlastWidened(Event):
    """The GM added combatants within 5 m of a grenade that went off; they take its damage (`faces`, the blast's
    3d6, rolled now if nobody was caught before)."""

    kind: ClassVar[str] = "blast_widened"
    thrower: str = ""
    test: int = 0
    targets: tuple[str, ...] = ()
    faces: tuple[int, ...] = ()


@dataclass(frozen=True)
class DieChanged(Event):
    kind: ClassVar[str] = "die_changed"
    fighter: str = ""
    test: int = 0
    die: int = 0
    face: int = 0
    cost: int = 0
    damage_faces: tuple[int, ...] = ()
    scatter: int = 0


@dataclass(frozen=True)
class Defended(Event):
    kind: ClassVar[str] = "defended"
    fighter: str = ""
    slot: str = "turn"


@dataclass(frozen=True)
class Ran(Event):
    kind: ClassVar[str] = "ran"
    fighter: str = ""
    metres: int = 0
    cover: int = 0
    slot: str = "turn"


@dataclass(frozen=True)
class Moved(Event):
    kind: ClassVar[str] = "moved"
    fighter: str = ""
    metres: int = 0
    stand_up: bool = False
    drop_prone: bool = False
    vehicle: bool = False
    cover: int = 0


@dataclass(frozen=True)
class Activated(Event):
    kind: ClassVar[str] = "activated"
    fighter: str = ""
    what: str = ""


@dataclass(frozen=True)
class Aimed(Event):
    kind: ClassVar[str] = "aimed"
    fighter: str = ""


@dataclass(frozen=True)
class GuardedUp(Event):
    kind: ClassVar[str] = "guarded_up"
    fighter: str = ""
    bonus: int = 1


@dataclass(frozen=True)
class Prepared(Event):
    kind: ClassVar[str] = "prepared"
    fighter: str = ""
    action: str = ""


@dataclass(frozen=True)
class Pressed(Event):
    kind: ClassVar[str] = "pressed"
    fighter: str = ""
    target: str = ""


@dataclass(frozen=True)
class Readied(Event):
    kind: ClassVar[str] = "readied"
    fighter: str = ""
    item: str = ""
    stow: str = ""


@dataclass(frozen=True)
class StoodFirm(Event):
    kind: ClassVar[str] = "stood_firm"
    fighter: str = ""
    ability: str = ""


@dataclass(frozen=True)
class JamCleared(Event):
    kind: ClassVar[str] = "jam_cleared"
    fighter: str = ""
    weapon: str = ""


@dataclass(frozen=True)
class Interrupted(Event):
    kind: ClassVar[str] = "interrupted"
    fighter: str = ""
    by: str = "gm"


@dataclass(frozen=True)
class Pursued(Event):
    kind: ClassVar[str] = "pursued"
    fighter: str = ""
    target: str = ""
    metres: int = 0


@dataclass(frozen=True)
class Opposed:
    """Stand Firm: the stunt's Strength (Might) against the defender's chosen ability."""

    attacker_faces: tuple[int, ...]
    attacker_bonus: int
    defender_faces: tuple[int, ...]
    defender_bonus: int
    defender_ability: str

    @property
    def held(self) -> bool:
        """The defender wins ties on the total, then on the Drama Die; a full tie leaves them standing."""
        a = (sum(self.attacker_faces) + self.attacker_bonus, self.attacker_faces[2])
        d = (sum(self.defender_faces) + self.defender_bonus, self.defender_faces[2])
        return d >= a


@dataclass(frozen=True)
class StuntSpent(Event):
    kind: ClassVar[str] = "stunt_spent"
    fighter: str = ""
    stunt: str = ""  # key
    points: int = 0
    target: str = ""
    ally: str = ""
    moves: str = ""
    hit: int = 0
    note: str = ""
    opposed: Opposed | None = None


@dataclass(frozen=True)
class GuardTransferred(Event):
    kind: ClassVar[str] = "guard_transferred"
    guardian: str = ""
    ally: str = ""
    hit: int = 0
    points: int = 0


@dataclass(frozen=True)
class FortuneSpent(Event):
    kind: ClassVar[str] = "fortune_spent"
    fighter: str = ""
    hit: int = 0
    points: int = 0


@dataclass(frozen=True)
class ConditionTaken(Event):
    kind: ClassVar[str] = "condition_taken"
    fighter: str = ""
    hit: int = 0
    condition: str = ""
    roll: int = 0


@dataclass(frozen=True)
class TakenOut(Event):
    kind: ClassVar[str] = "taken_out"
    fighter: str = ""
    hit: int = 0
    condition: str = ""  # a further condition (a stunning weapon knocks unconscious)


@dataclass(frozen=True)
class RollOverAsked(Event):
    kind: ClassVar[str] = "roll_over_asked"
    fighter: str = ""
    condition: str = ""


@dataclass(frozen=True)
class RolledOver(Event):
    kind: ClassVar[str] = "rolled_over"
    fighter: str = ""
    condition: str = ""
    approved: bool = True


@dataclass(frozen=True)
class StuntAdded(Event):
    kind: ClassVar[str] = "stunt_added"
    stunt: Stunt | None = None


@dataclass(frozen=True)
class ConditionSet(Event):
    kind: ClassVar[str] = "condition_set"
    target: str = ""
    condition: str = ""
    on: bool = True


@dataclass(frozen=True)
class FortuneAdjusted(Event):
    kind: ClassVar[str] = "fortune_adjusted"
    target: str = ""
    change: int = 0


@dataclass(frozen=True)
class CoverSet(Event):
    kind: ClassVar[str] = "cover_set"
    target: str = ""
    rating: int = 0


@dataclass(frozen=True)
class ChurnJammed(Event):
    kind: ClassVar[str] = "churn_jammed"
    fighter: str = ""
    weapon: str = ""
    cost: int = 0


@dataclass(frozen=True)
class ChurnAdjusted(Event):
    kind: ClassVar[str] = "churn_adjusted"
    audience: ClassVar[str] = "gm"
    change: int = 0
    reason: str = ""


@dataclass(frozen=True)
class ChurnReached(Event):
    kind: ClassVar[str] = "churn_reached"
    audience: ClassVar[str] = "gm"
    level: int = 10
    reset: bool = False
    roll: int = 0  # the 1d6 on the Churn Over table (0: not rolled; logs before it had no table)
    severity: str = ""  # "minor", "major" or "epic": the effect now due ("": logs before the effects were applied)


@dataclass(frozen=True)
class ChurnApplied(Event):
    """The GM applied a Churn effect that was due: a combatant's next test fails, loses Fortune (a FortuneAdjusted
    follows) or takes a condition (a ConditionSet follows), or the GM narrates it."""

    kind: ClassVar[str] = "churn_applied"
    audience: ClassVar[str] = "gm"
    severity: str = "minor"
    effect: str = "narrate"  # "fail", "fortune", "condition" or "narrate"
    target: str = ""
    note: str = ""
    points: int = 0  # "fortune": how much was lost
    condition: str = ""  # "condition": which


@dataclass(frozen=True)
class BreatherRoll:
    fighter: str
    face: int
    gain: int  # Fortune actually regained (capped at the maximum)


@dataclass(frozen=True)
class BreathersTaken(Event):
    kind: ClassVar[str] = "breathers_taken"
    rolls: tuple[BreatherRoll, ...] = ()


EVENTS = (
    InitiativeRolled,
    TieBroken,
    TurnStarted,
    TurnEnded,
    Tested,
    Blasted,
    BlastWidened,
    DieChanged,
    Defended,
    Ran,
    Moved,
    Activated,
    Aimed,
    GuardedUp,
    Prepared,
    Pressed,
    Readied,
    StoodFirm,
    JamCleared,
    Interrupted,
    Pursued,
    StuntSpent,
    GuardTransferred,
    FortuneSpent,
    ConditionTaken,
    TakenOut,
    RollOverAsked,
    RolledOver,
    StuntAdded,
    ConditionSet,
    FortuneAdjusted,
    CoverSet,
    ChurnJammed,
    ChurnAdjusted,
    ChurnReached,
    ChurnApplied,
    BreathersTaken,
    Revealed,
    DiceRolled,
    WeaponGiven,
)
