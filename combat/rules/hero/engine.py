"""HERO System combat on the speed chart: 12-segment turns, phases by SPD, DEX order, abort and hold.

The turn: combat opens in segment 12 of turn 1; the GM's `next_segment` ends a segment (Recovery actions
land, and after segment 12 everyone gets the post-segment-12 recovery) and starts the next segment in which
someone has a phase, naming the ones skipped. Inside a segment the characters with a phase act in DEX order
(the sheet's "DEX for initiative"); `order` holds that order and `cursor` the phase now open. The engine
spends on its own the phases the rules already decided: a phase lost to an abort, the phase a Stunned
character spends recovering, a knocked-out character's phase. A released held action interrupts: its
holder (`acting`) has the floor until that action ends, then the phase in order carries on.

What players read (describe with gm=False): a PC's exact STUN, BODY and END; for an enemy only what the table
sees — the attack roll, hit or miss, Stunned, knocked out, woken — never its STUN, BODY, END, REC or SPD, nor
the number an attack needed (it would give away OCV and DCV). An enemy no PC is aware of is left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import ClassVar

from combat.rules.core import require as _require
from combat.rules.core import Command, Event, EventCodec, RuleError, Setting, clean_settings, seen_by_party
from combat.rules.dice import Dice
from combat.rules.hero.stats import STATS

KEY = "hero"

# Segments in which a character of each SPD has a phase (HERO 6e speed chart).
SPEED_CHART: dict[int, tuple[int, ...]] = {
    1: (7,),
    2: (6, 12),
    3: (4, 8, 12),
    4: (3, 6, 9, 12),
    5: (3, 5, 8, 10, 12),
    6: (2, 4, 6, 8, 10, 12),
    7: (2, 4, 6, 7, 9, 11, 12),
    8: (2, 3, 5, 6, 8, 9, 11, 12),
    9: (2, 3, 4, 6, 7, 8, 10, 11, 12),
    10: (2, 3, 4, 5, 6, 8, 9, 10, 11, 12),
    11: tuple(range(2, 13)),
    12: tuple(range(1, 13)),
}

ACTION_KINDS = ("full", "half", "zero", "none")
ACTION_LABELS = {"full": "a full phase action", "half": "a half phase action", "zero": "a zero phase action",
                 "none": "an action that takes no time", "recovery": "a Recovery"}
DEFENSIVE = {"dodge": "Dodge", "block": "Block", "dive": "Dive for Cover", "defence": "activate a defence",
             "other": "an action the GM allows"}
HOLD_UNTIL = ("", "dex", "segment", "trigger")
KO_EVERY_PHASE = -10  # knocked out at 0 to -10 STUN: Recovery every phase and after segment 12
KO_POST_12 = -20  # -11 to -20: after segment 12 only
KO_ONCE_A_MINUTE = -30  # -21 to -30: once a minute (after segment 12 of turns 5, 10, 15...); below: GM's option
TURNS_PER_MINUTE = 5

SETTINGS = (
    Setting("dex_ties", "Characters tied on DEX", "gm",
            choices=(("gm", "The GM orders them"), ("roll", "They roll off with a d6 each segment"))),
    Setting("spd1_opening", "SPD 1 characters act in the opening segment 12", True),
    Setting("spd_change", "A SPD change mid-turn", "lockout",
            choices=(("lockout", "Next phase is the later of the old and new SPD's next phases"),
                     ("next_turn", "Takes effect at the start of the next turn"))),
    Setting("str_end", "END for STR", 10, choices=((10, "1 END per 10 STR"), (5, "1 END per 5 STR"))),
    Setting("hold_collision", "A held action colliding with another action", "gm",
            choices=(("gm", "The GM decides who goes first"), ("roll", "Both roll DEX; the larger margin goes first"))),
    Setting("entered_dice", "Players may enter the faces of physical dice", False,
            help="An attack's 3d6 and its damage dice may be typed in; the log marks them as physical dice."),
)


def tick(turn: int, segment: int) -> int:
    """A segment's place in the whole fight: turn 1 segment 12 is 12, turn 2 segment 1 is 13."""
    return (turn - 1) * 12 + segment


def turn_and_segment(at: int) -> tuple[int, int]:
    return (at - 1) // 12 + 1, (at - 1) % 12 + 1


def schedule(spd: int, turn: int, lock: int = 0, spd1_opening: bool = True) -> tuple[int, ...]:
    """The segments of `turn` in which a character of this SPD has a phase.

    Turn 1 is only its segment 12. `lock` is the tick of the phase a SPD change locked in: when it falls in
    this turn, the phases are that one and the new SPD's phases after it."""
    if turn == 1:
        return (12,) if spd >= 2 or spd1_opening else ()
    segments = SPEED_CHART[spd]
    if lock and tick(turn, 1) <= lock <= tick(turn, 12):
        first = turn_and_segment(lock)[1]
        return (first,) + tuple(s for s in segments if s > first)
    return segments


def body_of(face: int) -> int:
    """BODY counted on one die of normal damage: 1 is 0, 2–5 are 1, 6 is 2."""
    return 0 if face == 1 else 2 if face == 6 else 1


def end_cost(active_points: int, strength: int = 0, str_per_end: int = 10) -> int:
    """1 END per 10 Active Points (minimum 1) plus 1 per 10 (or 5) STR used; halves round for the character."""
    def per(amount: int, step: int) -> int:
        return max(1, (amount + (step - 1) // 2) // step) if amount > 0 else 0
    return per(active_points, 10) + per(strength, str_per_end)


def attack_hits(total: int, needed: int) -> bool:
    """3d6 ≤ 11 + OCV − DCV hits; a 3 always hits and an 18 always misses."""
    return total == 3 or (total != 18 and total <= needed)


def dex_roll_target(dex: int) -> int:
    return 9 + (dex + 2) // 5


def to_hit(attacker: "Fighter", target: "Fighter", ocv_mod: int = 0, dcv_mod: int = 0) -> int:
    """The most an attack roll may be to hit: 11 + OCV − DCV (a Stunned target's DCV is halved)."""
    return 11 + attacker.ocv + ocv_mod - max(0, target.current_dcv + dcv_mod)


# --- State -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Mark:
    """What became of the phase in `segment` this turn: acted, passed, held, lost (a held action that
    expired), aborted, stunned (spent recovering), knocked out."""

    segment: int
    how: str


@dataclass(frozen=True)
class Held:
    since: int  # tick of the phase that was held
    until: str = ""  # "", "dex", "segment" or "trigger": what the holder said (the GM or holder releases it)
    dex: int = 0
    at: int = 0  # tick of the segment held to
    trigger: str = ""
    half: bool = False  # a half phase action was already taken: only a half phase is held


@dataclass(frozen=True)
class Fighter:
    id: str
    name: str
    side: str  # "pc" or "enemy"
    owner: int | None = None
    spd: int = 3
    dex: int = 10
    initiative_dex: int = 10
    con: int = 10
    rec: int = 4
    ocv: int = 3
    dcv: int = 3
    pd: int = 2
    ed: int = 2
    stun: int = 20
    stun_max: int = 20
    body: int = 10
    body_max: int = 10
    end: int = 20
    end_max: int = 20
    aware_of: tuple[str, ...] = ()
    phases: tuple[int, ...] = ()  # segments of this turn with a phase (the strip)
    marks: tuple[Mark, ...] = ()  # what became of this turn's phases so far
    lock: int = 0  # tick of the next phase a SPD change locked in
    held: Held | None = None
    stunned: bool = False
    forfeit: bool = False  # aborted: the next phase is already spent
    acted_at: int = 0  # tick of the last segment in which this character acted
    no_recovery: bool = False  # GM flag: no free recoveries (holding breath, deeply knocked out)

    @property
    def knocked_out(self) -> bool:
        return self.stun <= 0

    @property
    def out(self) -> bool:
        return self.knocked_out or self.body <= 0

    @property
    def current_dcv(self) -> int:
        """Stunned halves DCV (a half rounds for the character)."""
        return (self.dcv + 1) // 2 if self.stunned else self.dcv

    def mark(self, segment: int) -> str:
        return next((m.how for m in self.marks if m.segment == segment), "")


@dataclass(frozen=True)
class State:
    fighters: tuple[Fighter, ...] = ()
    turn: int = 1
    segment: int = 12
    started: bool = False
    order: tuple[str, ...] = ()  # who has a phase this segment, in acting order
    cursor: int = 0  # index in `order` of the phase now open (len(order): every phase of the segment is done)
    halves: int = 0  # half phase actions taken in the open phase
    acting: str = ""  # the holder acting on a released held action, ahead of the phase in order
    acting_halves: int = 0
    acting_since: int = 0  # tick of the phase that holder held
    recovering: tuple[str, ...] = ()  # took a Recovery this segment; it lands when the segment ends
    skipped: tuple[int, ...] = ()  # segments passed over with nobody to act just before this one
    settings: dict[str, str | int | bool] = field(default_factory=dict)

    @property
    def now(self) -> int:
        return tick(self.turn, self.segment)

    @property
    def round(self) -> int:
        """The log's grouping (exports, review): a HERO turn is the round, its segment the phase."""
        return self.turn

    @property
    def phase(self) -> int:
        return self.segment

    @property
    def floor_halves(self) -> int:
        """Half phase actions already taken by whoever has the floor."""
        return self.acting_halves if self.acting else self.halves

    @property
    def active(self) -> str:
        """The character whose phase in order is open ("" when the segment's phases are done)."""
        return self.order[self.cursor] if self.started and self.cursor < len(self.order) else ""

    @property
    def floor(self) -> str:
        """Who may take phase actions now: a released holder first, else the phase in order."""
        return self.acting or self.active

    def fighter(self, fighter_id: str) -> Fighter:
        for f in self.fighters:
            if f.id == fighter_id:
                return f
        raise RuleError("That combatant is not in this encounter.")

    def pcs(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side == "pc")

    def enemies(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side == "enemy")

    def strip(self, fighter_id: str) -> tuple[str, ...]:
        """Twelve columns for segments 1–12: "" (no phase), "phase" (to come) or what became of it."""
        f = self.fighter(fighter_id)
        return tuple(f.mark(s) or ("phase" if s in f.phases else "") for s in range(1, 13))

    def tied_groups(self) -> tuple[tuple[str, ...], ...]:
        """Characters still to act this segment who share a DEX (for the GM to order)."""
        waiting = self.order[self.cursor:]
        groups: dict[int, list[str]] = {}
        for fid in waiting:
            groups.setdefault(self.fighter(fid).initiative_dex, []).append(fid)
        return tuple(tuple(g) for g in groups.values() if len(g) > 1)


def _put(state: State, fighter: Fighter) -> State:
    return replace(state, fighters=tuple(fighter if f.id == fighter.id else f for f in state.fighters))


# --- Commands ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class NextSegment(Command):
    name: ClassVar[str] = "next_segment"
    label: ClassVar[str] = "Next segment"


@dataclass(frozen=True)
class OrderTies(Command):
    name: ClassVar[str] = "order_ties"
    label: ClassVar[str] = "Order characters tied on DEX"
    order: tuple[str, ...] = ()


@dataclass(frozen=True)
class Act(Command):
    """A full, half, zero phase action, or one that takes no time (the last at any time)."""

    name: ClassVar[str] = "act"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Act"
    actor: str = ""
    kind: str = "half"
    text: str = ""
    active_points: int = 0
    strength: int = 0


@dataclass(frozen=True)
class Attack(Command):
    name: ClassVar[str] = "attack"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Attack"
    actor: str = ""
    target: str = ""
    dice: int = 0  # d6 of normal damage
    defence: int = 0  # the target's PD or ED against this attack
    ocv_mod: int = 0
    dcv_mod: int = 0
    active_points: int = 0
    strength: int = 0
    text: str = ""
    against: str = ""  # "pd" or "ed": the target's sheet defence is added to `defence`
    entered: tuple[int, ...] = ()  # physical dice (when the GM allows them): the attack roll's three faces
    damage_entered: tuple[int, ...] = ()  # and the damage dice, used only if the attack hits


@dataclass(frozen=True)
class TakeRecovery(Command):
    name: ClassVar[str] = "take_recovery"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Take a Recovery"
    actor: str = ""


@dataclass(frozen=True)
class EndPhase(Command):
    name: ClassVar[str] = "end_phase"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "End my phase"
    actor: str = ""


@dataclass(frozen=True)
class Hold(Command):
    name: ClassVar[str] = "hold"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Hold my action"
    actor: str = ""
    until: str = ""  # "", "dex", "segment" or "trigger"
    dex: int = 0
    segment: int = 0
    trigger: str = ""


@dataclass(frozen=True)
class Release(Command):
    name: ClassVar[str] = "release"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Act on my held action"
    actor: str = ""


@dataclass(frozen=True)
class Abort(Command):
    name: ClassVar[str] = "abort"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Abort to a defence"
    actor: str = ""
    action: str = "dodge"  # dodge, block, dive, defence
    text: str = ""
    active_points: int = 0


@dataclass(frozen=True)
class AbortOther(Command):
    """An abort to something else the GM allows."""

    name: ClassVar[str] = "abort_other"
    label: ClassVar[str] = "Let a character abort to another action"
    actor: str = ""
    text: str = ""
    active_points: int = 0


@dataclass(frozen=True)
class ContestHold(Command):
    """Setting "roll": a held action and the open phase collide; both roll DEX."""

    name: ClassVar[str] = "contest_hold"
    label: ClassVar[str] = "Held action against the phase in order: DEX rolls"
    holder: str = ""


@dataclass(frozen=True)
class ChangeSpd(Command):
    name: ClassVar[str] = "change_spd"
    label: ClassVar[str] = "Change SPD"
    target: str = ""
    spd: int = 3


@dataclass(frozen=True)
class SetNoRecovery(Command):
    name: ClassVar[str] = "set_no_recovery"
    label: ClassVar[str] = "No free recoveries for a character"
    target: str = ""
    excluded: bool = True


@dataclass(frozen=True)
class AdjustPools(Command):
    name: ClassVar[str] = "adjust_pools"
    label: ClassVar[str] = "Adjust STUN, BODY or END"
    target: str = ""
    stun: int = 0
    body: int = 0
    end: int = 0


COMMANDS = (NextSegment, OrderTies, Act, Attack, TakeRecovery, EndPhase, Hold, Release, Abort, AbortOther,
            ContestHold, ChangeSpd, SetNoRecovery, AdjustPools)


# --- Events ------------------------------------------------------------------------------------------

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
    """A phase the rules already spent: "aborted", "stunned" (recovering from it) or "knocked out"."""

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
    reason: str = ""  # "" (ended by the character or the GM), "stunned" or "knocked out" mid-phase


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


EVENTS = (SegmentStarted, Recovered, TiesOrdered, PhaseSpent, Acted, Attacked, PhaseEnded, HeldAction, Released,
          Aborted, HoldContested, SpdChanged, NoRecoverySet, PoolsAdjusted)
CODEC = EventCodec(EVENTS, COMMANDS)


# --- Set-up --------------------------------------------------------------------------------------------

def initial_state(fighters: tuple[Fighter, ...], settings: dict | None) -> State:
    """Turn 1, segment 12, before the GM starts the opening segment (which may need a DEX roll-off)."""
    if not any(f.side == "pc" for f in fighters):
        raise RuleError("An encounter needs at least one player character.")
    clean = clean_settings(SETTINGS, settings)
    opening = tuple(replace(f, phases=schedule(f.spd, 1, 0, bool(clean["spd1_opening"]))) for f in fighters)
    return State(fighters=opening, settings=clean)


# --- decide --------------------------------------------------------------------------------------------



def _text(raw: str) -> str:
    return " ".join(raw.split())[:200]


def decide(state: State, command: Command, dice: Dice) -> list[Event]:
    handler = _DECIDERS.get(type(command))
    if handler is None:
        raise RuleError("That is not an action in the HERO System.")
    _require(state.started or isinstance(command, NextSegment),
             "Combat has not begun: the GM starts it with segment 12 of turn 1.")
    return _settle(state, handler(state, command, dice))


def _settle(state: State, events: list[Event]) -> list[Event]:
    """Add what the rules do on their own after `events`, until someone has a choice to make."""
    for event in events:
        state = evolve(state, event)
    out = list(events)
    while (event := _automatic(state)) is not None:
        state = evolve(state, event)
        out.append(event)
    return out


def _automatic(state: State) -> Event | None:
    if state.acting:
        f = state.fighter(state.acting)
        if f.knocked_out or f.stunned:
            return PhaseEnded(fighter=f.id, reason="knocked out" if f.knocked_out else "stunned")
        return None
    if not state.active:
        return None
    f = state.fighter(state.active)
    if f.forfeit:
        return PhaseSpent(fighter=f.id, segment=state.segment, how="aborted")
    if f.acted_at == state.now:  # hit in the middle of the phase
        if f.knocked_out or f.stunned:
            return PhaseEnded(fighter=f.id, reason="knocked out" if f.knocked_out else "stunned")
        return None
    if f.knocked_out:
        stun = end = 0
        if f.stun >= KO_EVERY_PHASE and not f.no_recovery:
            stun, end = _recovery(f)
        return PhaseSpent(fighter=f.id, segment=state.segment, how="knocked out", stun=stun, end=end)
    if f.stunned:
        return PhaseSpent(fighter=f.id, segment=state.segment, how="stunned")
    return None


def _recovery(f: Fighter) -> tuple[int, int]:
    """REC to STUN and END, never above their maxima."""
    return max(0, min(f.rec, f.stun_max - f.stun)), max(0, min(f.rec, f.end_max - f.end))


def _order(state: State, ids: list[str], dice: Dice) -> tuple[tuple[str, ...], tuple[RollOff, ...]]:
    """Highest DEX for initiative first; ties in the encounter's order (the GM reorders) or rolled off."""
    dex = {fid: state.fighter(fid).initiative_dex for fid in ids}
    faces: dict[str, tuple[int, ...]] = {fid: () for fid in ids}
    if state.settings.get("dex_ties") == "roll":
        by_dex: dict[int, list[str]] = {}
        for fid in ids:
            by_dex.setdefault(dex[fid], []).append(fid)
        pending = [g for g in by_dex.values() if len(g) > 1]
        while pending:
            group = pending.pop()
            rolled = dice.roll(len(group), 6)
            by_face: dict[int, list[str]] = {}
            for fid, face in zip(group, rolled, strict=True):
                faces[fid] += (face,)
                by_face.setdefault(face, []).append(fid)
            pending += [g for g in by_face.values() if len(g) > 1]
    order = tuple(sorted(ids, key=lambda fid: (-dex[fid], tuple(-x for x in faces[fid]))))
    return order, tuple(RollOff(fighter=fid, faces=faces[fid]) for fid in order if faces[fid])


def _post_12(state: State) -> Recovered:
    gains, left_out = [], []
    for f in state.fighters:
        eligible = not f.no_recovery and (
            f.stun >= KO_POST_12
            or (f.stun >= KO_ONCE_A_MINUTE and state.turn % TURNS_PER_MINUTE == 0))
        if not eligible:
            left_out.append(f.id)
            continue
        stun, end = _recovery(f)
        if stun or end:
            gains.append(Gain(fighter=f.id, stun=stun, end=end))
    return Recovered(reason="post12", turn=state.turn, gains=tuple(gains), left_out=tuple(left_out))


def _next_segment(state: State, c: NextSegment, dice: Dice) -> list[Event]:
    spd1 = bool(state.settings.get("spd1_opening", True))
    if not state.started:
        ids = [f.id for f in state.fighters if 12 in f.phases]
        order, rolloff = _order(state, ids, dice)
        return [SegmentStarted(turn=1, segment=12, order=order, rolloff=rolloff)]
    _require(not state.acting, f"{_name(state, state.acting)} is still acting on a held action.")
    _require(not state.active, f"{_name(state, state.active)} still has a phase in this segment: "
                               "act, hold or end it first.")
    events: list[Event] = []
    if state.recovering:
        gains = []
        for fid in state.recovering:
            stun, end = _recovery(state.fighter(fid))
            gains.append(Gain(fighter=fid, stun=stun, end=end))
        events.append(Recovered(reason="action", turn=state.turn, gains=tuple(gains)))
    scratch = state
    for event in events:
        scratch = evolve(scratch, event)
    turn, segment, skipped = state.turn, state.segment, []
    while True:  # ends within a turn: every SPD has a phase in every turn after the first
        if segment == 12:
            post = _post_12(scratch)
            events.append(post)
            scratch = evolve(scratch, post)
            turn, segment = turn + 1, 1
        else:
            segment += 1
        phases = {f.id: (f.phases if turn == state.turn else schedule(f.spd, turn, f.lock, spd1))
                  for f in scratch.fighters}
        ids = [f.id for f in scratch.fighters if segment in phases[f.id]]
        held_to_here = any(f.held and f.held.at == tick(turn, segment) for f in scratch.fighters)
        if ids or held_to_here:
            break
        skipped.append(segment)
    order, rolloff = _order(scratch, ids, dice)
    lost = tuple(f.id for f in scratch.fighters if f.held and segment in phases[f.id])
    events.append(SegmentStarted(turn=turn, segment=segment, order=order, skipped=tuple(skipped), rolloff=rolloff,
                                 lost_holds=lost))
    return events


def _order_ties(state: State, c: OrderTies, dice: Dice) -> list[Event]:
    _require(state.settings.get("dex_ties") != "roll", "DEX ties are rolled off in this encounter.")
    ids = tuple(c.order)
    _require(len(ids) >= 2 and len(set(ids)) == len(ids), "Name each tied character once, in the order they act.")
    fighters = [state.fighter(fid) for fid in ids]
    _require(all(fid in state.order for fid in ids), "Only characters with a phase in this segment are ordered.")
    _require(len({f.initiative_dex for f in fighters}) == 1,
             "Only characters tied on DEX can be reordered; the higher DEX acts first.")
    slots = sorted(state.order.index(fid) for fid in ids)
    for f in fighters:
        index = state.order.index(f.id)
        started = index < state.cursor or (index == state.cursor and f.acted_at == state.now)
        _require(not started, f"{f.name} has already taken the phase in this segment.")
    order = list(state.order)
    for slot, fid in zip(slots, ids, strict=True):
        order[slot] = fid
    return [TiesOrdered(order=tuple(order), moved=ids)]


def _on_floor(state: State, actor: str) -> Fighter:
    f = state.fighter(actor)
    _require(state.floor == f.id, f"It is not {f.name}'s phase.")
    return f


def _able(f: Fighter) -> None:
    _require(not f.knocked_out, f"{f.name} is knocked out.")
    _require(not f.stunned, f"{f.name} is Stunned and can take no actions.")


def _floor_halves(state: State, f: Fighter) -> int:
    return state.acting_halves if state.acting == f.id else state.halves


def _pay(state: State, f: Fighter, active_points: int, strength: int) -> int:
    _require(0 <= active_points <= 1000, "Active Points must be from 0 to 1000.")
    _require(0 <= strength <= 500, "STR used must be from 0 to 500.")
    cost = end_cost(active_points, strength, int(state.settings.get("str_end", 10)))
    _require(cost <= f.end, f"{f.name} has {f.end} END and this costs {cost}.")
    return cost


def _act(state: State, c: Act, dice: Dice) -> list[Event]:
    _require(c.kind in ACTION_KINDS, "Choose a full phase, half phase, zero phase or no-time action.")
    f = state.fighter(c.actor)
    _able(f)
    if c.kind != "none":
        _on_floor(state, c.actor)
    halves = _floor_halves(state, f)
    if c.kind == "full":
        _require(halves == 0, f"{f.name} has half a phase left: a half phase action or an attack.")
    cost = _pay(state, f, c.active_points, c.strength)
    ends = c.kind == "full" or (c.kind == "half" and halves + 1 >= 2)
    return [Acted(fighter=f.id, action=c.kind, text=_text(c.text), end=cost, ends_phase=ends)]


def _attack(state: State, c: Attack, dice: Dice) -> list[Event]:
    f = _on_floor(state, c.actor)
    _able(f)
    target = state.fighter(c.target)
    _require(target.id != f.id, "Choose someone else to attack.")
    _require(target.id in f.aware_of or target.side == f.side, f"{f.name} is not aware of {target.name}.")
    _require(0 <= c.dice <= 30, "Damage must be from 0 to 30 dice.")
    _require(0 <= c.defence <= 500, "Defence must be from 0 to 500.")
    _require(c.against in ("", "pd", "ed"), "Choose physical (PD) or energy (ED) defence, or none.")
    _require(-30 <= c.ocv_mod <= 30 and -30 <= c.dcv_mod <= 30, "OCV and DCV modifiers must be from -30 to 30.")
    cost = _pay(state, f, c.active_points, c.strength)
    needed = to_hit(f, target, c.ocv_mod, c.dcv_mod)
    defence = c.defence + (getattr(target, c.against) if c.against else 0)
    if c.entered or c.damage_entered:
        _require(bool(state.settings.get("entered_dice")), "The GM has the server roll the dice in this encounter.")
    if c.entered:
        _require(len(c.entered) == 3, "Enter the three dice of the attack roll.")
        _require(all(1 <= face <= 6 for face in c.entered), "Each die of the attack roll shows a face from 1 to 6.")
    if c.damage_entered:
        _require(len(c.damage_entered) == c.dice,
                 f"The damage is {c.dice}d6: enter {c.dice} {'die' if c.dice == 1 else 'dice'} or none.")
        _require(all(1 <= face <= 6 for face in c.damage_entered), "Each damage die shows a face from 1 to 6.")
    roll = tuple(c.entered) or dice.roll(3, 6)
    hit = attack_hits(sum(roll), needed)
    damage = (tuple(c.damage_entered) or dice.roll(c.dice, 6)) if hit else ()
    stun = max(0, sum(damage) - defence)
    body = max(0, sum(body_of(face) for face in damage) - defence)
    left = target.stun - stun
    knocked_out = left <= 0 < target.stun
    stunned = stun > target.con and left > 0
    return [Attacked(fighter=f.id, target=target.id, roll=roll, needed=needed, hit=hit, damage=damage,
                     defence=defence if hit else 0, stun=stun, body=body, stunned=stunned,
                     knocked_out=knocked_out, end=cost, text=_text(c.text), entered=bool(c.entered),
                     damage_entered=hit and bool(c.damage_entered) and c.dice > 0)]


def _take_recovery(state: State, c: TakeRecovery, dice: Dice) -> list[Event]:
    f = _on_floor(state, c.actor)
    _able(f)
    _require(_floor_halves(state, f) == 0, f"A Recovery takes a full phase and {f.name} has only half a phase left.")
    _require(not f.no_recovery, f"The GM has ruled that {f.name} cannot recover now.")
    return [Acted(fighter=f.id, action="recovery", ends_phase=True)]


def _end_phase(state: State, c: EndPhase, dice: Dice) -> list[Event]:
    f = _on_floor(state, c.actor)
    return [PhaseEnded(fighter=f.id)]


def _first_open(state: State, f: Fighter) -> int:
    """The first segment of this turn that could still hold the character's next phase: this one while their
    phase in it is still to come (or open and untouched), else the next."""
    waiting = f.id in state.order[state.cursor:] and not (state.active == f.id and f.acted_at == state.now)
    return state.segment if waiting else state.segment + 1


def _next_phase(state: State, f: Fighter, first: int | None = None) -> int:
    """Tick of the character's next phase from segment `first` of this turn on."""
    first = _first_open(state, f) if first is None else first
    later = [s for s in f.phases if s >= first]
    if later:
        return tick(state.turn, later[0])
    spd1 = bool(state.settings.get("spd1_opening", True))
    return tick(state.turn + 1, schedule(f.spd, state.turn + 1, f.lock, spd1)[0])


def phase_at(at: int) -> str:
    """A tick in words: "segment 3 of turn 2"."""
    turn, segment = turn_and_segment(at)
    return f"segment {segment} of turn {turn}"


def _hold(state: State, c: Hold, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _require(state.active == f.id and not state.acting, f"{f.name} can hold only the phase now open.")
    _able(f)
    _require(c.until in HOLD_UNTIL, "Hold until a lower DEX, a later segment or a trigger.")
    held = Held(since=state.now, until=c.until, half=state.halves == 1)
    if c.until == "dex":
        _require(0 <= c.dex < f.initiative_dex, f"Hold to a DEX lower than {f.name}'s {f.initiative_dex}.")
        held = replace(held, dex=c.dex)
    elif c.until == "segment":
        _require(1 <= c.segment <= 12, "Choose a segment from 1 to 12.")
        at = tick(state.turn if c.segment > state.segment else state.turn + 1, c.segment)
        nxt = _next_phase(state, f, state.segment + 1)
        _require(at < nxt, f"A held action is lost when {f.name}'s next phase begins ({phase_at(nxt)}).")
        held = replace(held, at=at)
    elif c.until == "trigger":
        trigger = _text(c.trigger)
        _require(bool(trigger), "Say what the held action waits for.")
        held = replace(held, trigger=trigger)
    return [HeldAction(fighter=f.id, held=held)]


def _can_release(state: State, f: Fighter) -> None:
    _require(f.held is not None, f"{f.name} is not holding an action.")
    _require(not state.acting, f"{_name(state, state.acting)} is acting on a held action; wait until they finish.")


def _release(state: State, c: Release, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _can_release(state, f)
    return [Released(fighter=f.id)]


def _abort_checks(state: State, f: Fighter) -> None:
    _require(not f.knocked_out, f"{f.name} is knocked out.")
    _require(not f.stunned, f"{f.name} is Stunned and cannot abort.")
    _require(f.acted_at != state.now, f"{f.name} has already acted in this segment.")
    _require(state.floor != f.id, f"It is {f.name}'s phase: act instead of aborting.")
    _require(f.held is not None or not f.forfeit, f"{f.name} has already aborted: the next phase is spent.")


def abort_refusal(state: State, fighter_id: str) -> str:
    """Why this character cannot abort now ("" when they can): what a phone shows beside its Abort buttons."""
    if not state.started:
        return "Combat has not begun."
    try:
        _abort_checks(state, state.fighter(fighter_id))
    except RuleError as exc:
        return str(exc)
    return ""


def hold_segments(state: State, fighter_id: str) -> tuple[int, ...]:
    """The segments a character holding the open phase may hold to: every one before their next phase."""
    f = state.fighter(fighter_id)
    until = _next_phase(state, f, state.segment + 1)
    return tuple(turn_and_segment(at)[1] for at in range(state.now + 1, until))


def next_phase_at(state: State, fighter_id: str) -> int:
    """Tick of the character's next phase still to come (this segment's when it is still waiting)."""
    return _next_phase(state, state.fighter(fighter_id))


def _aborted(state: State, f: Fighter, action: str, text: str, active_points: int) -> list[Event]:
    _abort_checks(state, f)
    cost = _pay(state, f, active_points, 0)
    spent_held = f.held is not None
    return [Aborted(fighter=f.id, action=action, text=_text(text), end=cost, spent_held=spent_held,
                    loses=0 if spent_held else _next_phase(state, f))]


def _abort(state: State, c: Abort, dice: Dice) -> list[Event]:
    _require(c.action in DEFENSIVE and c.action != "other",
             "Abort to Dodge, Block, Dive for Cover or activating a defence; the GM allows anything else.")
    return _aborted(state, state.fighter(c.actor), c.action, c.text, c.active_points)


def _abort_other(state: State, c: AbortOther, dice: Dice) -> list[Event]:
    _require(bool(_text(c.text)), "Say what the character aborts to.")
    return _aborted(state, state.fighter(c.actor), "other", c.text, c.active_points)


def _contest_hold(state: State, c: ContestHold, dice: Dice) -> list[Event]:
    _require(state.settings.get("hold_collision") == "roll",
             "The GM decides who goes first in this encounter: release the held action to let it go first.")
    holder = state.fighter(c.holder)
    _can_release(state, holder)
    _require(bool(state.active), "No phase is open for the held action to collide with.")
    other = state.fighter(state.active)
    holder_roll, other_roll = dice.roll(3, 6), dice.roll(3, 6)
    holder_target, other_target = dex_roll_target(holder.dex), dex_roll_target(other.dex)
    mine, theirs = holder_target - sum(holder_roll), other_target - sum(other_roll)
    winner = ""
    if (mine, holder.dex) != (theirs, other.dex):
        winner = holder.id if (mine, holder.dex) > (theirs, other.dex) else other.id
    events: list[Event] = [HoldContested(holder=holder.id, other=other.id, holder_roll=holder_roll,
                                         other_roll=other_roll, holder_target=holder_target,
                                         other_target=other_target, winner=winner)]
    if winner == holder.id:
        events.append(Released(fighter=holder.id))
    return events


def _change_spd(state: State, c: ChangeSpd, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(1 <= c.spd <= 12, "SPD must be from 1 to 12.")
    _require(c.spd != f.spd, f"{f.name} already has SPD {f.spd}.")
    if state.settings.get("spd_change") == "next_turn":
        return [SpdChanged(fighter=f.id, old=f.spd, new=c.spd, phases=f.phases)]
    first = _first_open(state, f)
    old_next = _next_phase(state, f, first)
    this_turn = schedule(c.spd, state.turn, 0, bool(state.settings.get("spd1_opening", True)))
    later = [s for s in this_turn if s >= first]
    new_next = tick(state.turn, later[0]) if later else tick(state.turn + 1, SPEED_CHART[c.spd][0])
    locked = max(old_next, new_next)
    phases = tuple(s for s in f.phases if s < first)
    lock_turn, lock_segment = turn_and_segment(locked)
    if lock_turn == state.turn:
        phases += (lock_segment,) + tuple(s for s in this_turn if s > lock_segment)
    return [SpdChanged(fighter=f.id, old=f.spd, new=c.spd, next_phase=locked, phases=phases)]


def _set_no_recovery(state: State, c: SetNoRecovery, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(f.no_recovery != c.excluded, f"{f.name} is already {'left out of' if c.excluded else 'getting'} "
                                           "free recoveries.")
    return [NoRecoverySet(fighter=f.id, excluded=c.excluded)]


def _adjust_pools(state: State, c: AdjustPools, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(all(-500 <= n <= 500 for n in (c.stun, c.body, c.end)), "Change each by at most 500.")
    stun = min(f.stun_max, f.stun + c.stun) - f.stun if c.stun > 0 else c.stun
    body = min(f.body_max, f.body + c.body) - f.body if c.body > 0 else c.body
    end = min(f.end_max, f.end + c.end) - f.end if c.end > 0 else max(c.end, -f.end)  # END stops at 0
    _require(any((stun, body, end)), f"That changes nothing for {f.name}.")
    return [PoolsAdjusted(fighter=f.id, stun=stun, body=body, end=end)]


_DECIDERS = {
    NextSegment: _next_segment, OrderTies: _order_ties, Act: _act, Attack: _attack, TakeRecovery: _take_recovery,
    EndPhase: _end_phase, Hold: _hold, Release: _release, Abort: _abort, AbortOther: _abort_other,
    ContestHold: _contest_hold, ChangeSpd: _change_spd, SetNoRecovery: _set_no_recovery,
    AdjustPools: _adjust_pools,
}


# --- evolve -------------------------------------------------------------------------------------------

def _marked(state: State, f: Fighter, at: int, how: str) -> Fighter:
    turn, segment = turn_and_segment(at)
    if turn != state.turn:
        return f
    marks = tuple(m for m in f.marks if m.segment != segment) + (Mark(segment=segment, how=how),)
    return replace(f, marks=tuple(sorted(marks, key=lambda m: m.segment)))


def _end_active(state: State, how: str = "") -> State:
    f = state.fighter(state.active)
    how = how or ("acted" if f.acted_at == state.now else "passed")
    state = _put(state, _marked(state, f, state.now, how))
    return replace(state, cursor=state.cursor + 1, halves=0)


def _end_acting(state: State) -> State:
    f = state.fighter(state.acting)
    state = _put(state, _marked(state, f, state.acting_since, "acted"))
    return replace(state, acting="", acting_halves=0, acting_since=0)


def _end_floor(state: State, fighter_id: str) -> State:
    return _end_acting(state) if state.acting == fighter_id else _end_active(state)


def _count_half(state: State, fighter_id: str) -> State:
    if state.acting == fighter_id:
        return replace(state, acting_halves=state.acting_halves + 1)
    return replace(state, halves=state.halves + 1)


def _hurt(state: State, f: Fighter, stun: int, body: int) -> State:
    """STUN and BODY lost (negative numbers heal); knocked out or Stunned lose a held action."""
    f = replace(f, stun=f.stun - stun, body=f.body - body)
    if f.knocked_out:
        f = replace(f, stunned=False)
    if f.knocked_out or f.stunned:
        f = replace(f, held=None)
    state = _put(state, f)
    if stun > 0 or body > 0:  # damage voids a Recovery taken earlier in the segment
        state = replace(state, recovering=tuple(fid for fid in state.recovering if fid != f.id))
    return state


def _gain(state: State, gains: Iterable[Gain]) -> State:
    for g in gains:
        f = state.fighter(g.fighter)
        state = _put(state, replace(f, stun=f.stun + g.stun, end=f.end + g.end))
    return state


def evolve(state: State, event: Event) -> State:
    if isinstance(event, SegmentStarted):
        fighters = state.fighters
        if event.turn != state.turn:
            spd1 = bool(state.settings.get("spd1_opening", True))
            fighters = tuple(replace(f, phases=schedule(f.spd, event.turn, f.lock, spd1), marks=())
                             for f in fighters)
        state = replace(state, fighters=fighters, turn=event.turn, segment=event.segment, started=True,
                        order=event.order, cursor=0, halves=0, acting="", acting_halves=0, acting_since=0,
                        recovering=(), skipped=event.skipped)
        for fid in event.lost_holds:
            f = state.fighter(fid)
            state = _put(state, replace(_marked(state, f, f.held.since, "lost"), held=None))
        return state
    if isinstance(event, Recovered):
        return _gain(state, event.gains)
    if isinstance(event, TiesOrdered):
        return replace(state, order=event.order)
    if isinstance(event, PhaseSpent):
        f = state.fighter(event.fighter)
        f = replace(f, stun=f.stun + event.stun, end=f.end + event.end)
        if event.how == "aborted":
            f = replace(f, forfeit=False)
        elif event.how == "stunned":
            f = replace(f, stunned=False)
        return _end_active(_put(state, f), event.how)
    if isinstance(event, Acted):
        f = state.fighter(event.fighter)
        f = replace(f, end=f.end - event.end)
        if event.action == "none":
            return _put(state, f)
        state = _put(state, replace(f, acted_at=state.now))
        if event.action == "recovery":
            state = replace(state, recovering=state.recovering + (f.id,))
        if event.ends_phase:
            return _end_floor(state, f.id)
        return _count_half(state, f.id) if event.action == "half" else state
    if isinstance(event, Attacked):
        f = state.fighter(event.fighter)
        state = _put(state, replace(f, end=f.end - event.end, acted_at=state.now))
        if event.hit:
            target = state.fighter(event.target)
            state = _hurt(state, replace(target, stunned=target.stunned or event.stunned), event.stun, event.body)
        return _end_floor(state, f.id)
    if isinstance(event, PhaseEnded):
        return _end_floor(state, event.fighter)
    if isinstance(event, HeldAction):
        state = _put(state, replace(state.fighter(event.fighter), held=event.held))
        return _end_active(state, "held")
    if isinstance(event, Released):  # acting on a held action is this segment's action
        f = state.fighter(event.fighter)
        state = _put(state, replace(f, held=None, acted_at=state.now))
        return replace(state, acting=f.id, acting_halves=1 if f.held.half else 0, acting_since=f.held.since)
    if isinstance(event, Aborted):
        f = state.fighter(event.fighter)
        f = replace(f, end=f.end - event.end, acted_at=state.now)
        if event.spent_held:
            f = replace(_marked(state, f, f.held.since, "aborted"), held=None)
        else:
            f = replace(f, forfeit=True)
        return _put(state, f)
    if isinstance(event, HoldContested):
        return state
    if isinstance(event, SpdChanged):
        f = state.fighter(event.fighter)
        state = _put(state, replace(f, spd=event.new, phases=event.phases, lock=event.next_phase))
        if state.segment not in event.phases and f.id in state.order[state.cursor:]:
            # a phase still to come in this segment (or open and untouched) is locked out
            rest = tuple(fid for fid in state.order[state.cursor:] if fid != f.id)
            halves = 0 if state.active == f.id else state.halves
            state = replace(state, order=state.order[:state.cursor] + rest, halves=halves)
        return state
    if isinstance(event, NoRecoverySet):
        return _put(state, replace(state.fighter(event.fighter), no_recovery=event.excluded))
    if isinstance(event, PoolsAdjusted):
        f = state.fighter(event.fighter)
        return _hurt(state, replace(f, end=f.end + event.end), -event.stun, -event.body)
    raise TypeError(f"unknown event {event!r}")


# --- the log in sentences ------------------------------------------------------------------------------

def _name(state: State, fighter_id: str) -> str:
    try:
        return state.fighter(fighter_id).name
    except RuleError:
        return "someone"


def _listing(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _in_order(names: list[str]) -> str:
    return ", then ".join(names)


def _regains(stun: int, end: int) -> str:
    return " and ".join(f"{n} {label}" for n, label in ((stun, "STUN"), (end, "END")) if n) or "nothing"


def segment_ranges(segments: tuple[int, ...]) -> str:
    """Segments as runs for a sentence: (1, 2, 4) is "1–2 and 4"."""
    runs: list[list[int]] = []
    for s in segments:
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    return _listing([f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs])


class Sight:
    """What one viewer may know of each combatant: the GM everything; players a PC's numbers, of an enemy only
    what the table sees, and nothing of an enemy no PC is aware of. The log (`describe`) and the review share it."""

    def __init__(self, state: State, gm: bool):
        self.state, self.gm = state, gm
        self.seen = seen_by_party(state.fighters)

    def side(self, fid: str) -> str:
        try:
            return self.state.fighter(fid).side
        except RuleError:
            return ""

    def unseen(self, fid: str) -> bool:
        return not self.gm and self.side(fid) == "enemy" and fid not in self.seen

    def secret(self, fid: str) -> bool:
        """Numbers about this character stay with the GM."""
        return not self.gm and self.side(fid) != "pc"


def describe(state: State, event: Event, gm: bool = True) -> str | None:
    """One plain sentence for the log, read against the state the event was applied to.

    Players (gm=False) read a PC's exact STUN, BODY and END; of an enemy only what the table sees (hit or miss,
    the attack roll, Stunned, knocked out, woken), never its STUN, BODY, END, REC or SPD, nor the number an
    attack needed. Whatever concerns an enemy no PC is aware of is left out (None), or told as "someone unseen".
    """
    sight = Sight(state, gm)
    unseen, secret = sight.unseen, sight.secret

    def who(fid: str) -> str:
        return "Someone unseen" if unseen(fid) else _name(state, fid)

    def cost(fid: str, end: int) -> str:
        return f" ({end} END)" if end and not secret(fid) else ""

    if isinstance(event, SegmentStarted):
        names = [_name(state, fid) for fid in event.order if not unseen(fid)]
        acting = f": {names[0]} acts" if len(names) == 1 else f": {_in_order(names)}, in DEX order" if names else ""
        where = f"Turn {event.turn}, segment {event.segment}"
        if not state.started:
            where = "Combat begins in segment 12 of turn 1"
        extra = []
        if event.skipped:
            extra.append(f"segment{'s' if len(event.skipped) > 1 else ''} {segment_ranges(event.skipped)} skipped "
                         "with nobody to act")
        rolled = [f"{_name(state, r.fighter)} {'/'.join(map(str, r.faces))}" for r in event.rolloff
                  if not unseen(r.fighter)]
        if rolled:
            extra.append(f"DEX ties rolled off ({', '.join(rolled)})")
        lost = [_name(state, fid) for fid in event.lost_holds if not unseen(fid)]
        if lost:
            extra.append(f"held action{'s' if len(lost) > 1 else ''} lost: {_listing(lost)}")
        return f"{where}{acting}" + (f"; {'; '.join(extra)}" if extra else "") + "."
    if isinstance(event, Recovered):
        parts = []
        for g in event.gains:
            if unseen(g.fighter):
                continue
            if secret(g.fighter):
                parts.append(f"{_name(state, g.fighter)} recovers")
            else:
                parts.append(f"{_name(state, g.fighter)} regains {_regains(g.stun, g.end)}")
        if event.reason == "action":
            return (f"{'; '.join(parts)} from a Recovery." if parts
                    else "A Recovery taken this segment brings nothing back.")
        left = [_name(state, fid) for fid in event.left_out if not unseen(fid)]
        tail = f"; no free recovery for {_listing(left)}" if left else ""
        body = "; ".join(parts) if parts else "nobody needs it"
        return f"After segment 12 of turn {event.turn}, everyone recovers: {body}{tail}."
    if isinstance(event, TiesOrdered):
        names = [_name(state, fid) for fid in event.order if fid in event.moved and not unseen(fid)]
        return f"The GM orders the characters tied on DEX: {_in_order(names)}."
    if isinstance(event, PhaseSpent):
        if unseen(event.fighter):
            return None
        name = _name(state, event.fighter)
        if event.how == "aborted":
            return f"{name}'s phase in segment {event.segment} was already spent on an abort."
        if event.how == "stunned":
            return f"{name} spends the phase in segment {event.segment} recovering from being Stunned."
        if event.stun or event.end:
            f = state.fighter(event.fighter)
            woke = f.stun + event.stun > 0
            wake = " and wakes up" if woke else ""
            if secret(event.fighter):
                return f"{name}, knocked out, recovers in the phase{wake}."
            return (f"{name}, knocked out, recovers {_regains(event.stun, event.end)} in the phase "
                    f"(STUN {f.stun + event.stun}){wake}.")
        return f"{name} is knocked out through the phase in segment {event.segment}."
    if isinstance(event, Acted):
        if unseen(event.fighter):
            return None
        name = _name(state, event.fighter)
        what = f": {event.text}" if event.text else ""
        if event.action == "recovery":
            return f"{name} takes a Recovery (a full phase; it lands at the end of the segment)."
        ends = "; the phase ends" if event.ends_phase else ""
        if event.action == "half" and not event.ends_phase:
            ends = "; half a phase is left"
        return f"{name} takes {ACTION_LABELS[event.action]}{what}{cost(event.fighter, event.end)}{ends}."
    if isinstance(event, Attacked):
        if unseen(event.fighter) and unseen(event.target):
            return None
        attacker, target = who(event.fighter), who(event.target)
        what = f" with {event.text}" if event.text and not unseen(event.fighter) else ""  # the GM's words
        needed = f" (needed {event.needed} or less)" if gm else ""
        physical = " (physical dice)" if event.entered else ""
        lead = (f"{attacker} attacks {target}{what}{cost(event.fighter, event.end)}: {event.total} on 3d6{physical}"
                f"{needed}")
        if not event.hit:
            return f"{lead}, a miss."
        parts = [f"{lead}, a hit"]
        if event.damage and not secret(event.target):
            rolled = " (physical dice)" if event.damage_entered else ""
            parts.append(f"{len(event.damage)}d6{rolled} roll {event.stun_rolled} STUN and {event.body_rolled} BODY, and "
                         f"after {event.defence} defence {target} takes {event.stun} STUN and {event.body} BODY")
        if event.stunned:
            parts.append(f"{target} is Stunned")
        if event.knocked_out:
            parts.append(f"{target} is knocked out")
        return "; ".join(parts) + "."
    if isinstance(event, PhaseEnded):
        if unseen(event.fighter):
            return None
        name = _name(state, event.fighter)
        if event.reason:
            return f"{name}'s phase ends: {name} is {'Stunned' if event.reason == 'stunned' else event.reason}."
        f = state.fighter(event.fighter)
        if f.acted_at == state.now:
            return f"{name} ends the phase."
        return f"{name} lets the {'held action' if state.acting == f.id else 'phase'} go by."
    if isinstance(event, HeldAction):
        if unseen(event.fighter):
            return None
        held = event.held
        until = {"dex": f" until DEX {held.dex}", "segment": f" until segment {turn_and_segment(held.at)[1]}",
                 "trigger": f" until {held.trigger}", "": ""}[held.until]
        half = " (half a phase)" if held.half else ""
        return f"{_name(state, event.fighter)} holds the action{half}{until}."
    if isinstance(event, Released):
        if unseen(event.fighter):
            return None
        return f"{_name(state, event.fighter)} acts on the held action."
    if isinstance(event, Aborted):
        if unseen(event.fighter):
            return None
        name = _name(state, event.fighter)
        to = DEFENSIVE.get(event.action, event.action)
        what = f" ({event.text})" if event.text else ""
        paid = "using the held action" if event.spent_held else \
            f"giving up the next phase ({phase_at(event.loses)})"
        return f"{name} aborts to {to}{what}{cost(event.fighter, event.end)}, {paid}."
    if isinstance(event, HoldContested):
        holder, other = who(event.holder), who(event.other)

        def roll(fid: str, faces: tuple[int, ...], target: int) -> str:
            return f"{sum(faces)}" + (f" against {target}" if not secret(fid) else "")

        rolls = (f"{roll(event.holder, event.holder_roll, event.holder_target)} and "
                 f"{roll(event.other, event.other_roll, event.other_target)}")
        lead = f"{holder}'s held action meets {other}'s phase: DEX rolls {rolls}"
        if not event.winner:
            return f"{lead}; a tie, so the GM decides."
        return f"{lead}; {who(event.winner)} goes first."
    if isinstance(event, SpdChanged):
        if unseen(event.fighter):
            return None
        change = "changes" if secret(event.fighter) else f"changes from {event.old} to {event.new}"
        when = (f"; the next phase is in {phase_at(event.next_phase)}" if event.next_phase
                else ", taking effect next turn")
        return f"{_name(state, event.fighter)}'s SPD {change}{when}."
    if isinstance(event, NoRecoverySet):
        if unseen(event.fighter):
            return None
        name = _name(state, event.fighter)
        return f"{name} gets no free recoveries (GM)." if event.excluded else f"{name} gets free recoveries again."
    if isinstance(event, PoolsAdjusted):
        if unseen(event.fighter):
            return None
        name = _name(state, event.fighter)
        if secret(event.fighter):
            return f"The GM adjusts {name}'s STUN, BODY or END."
        changes = [f"{label} {n:+d}" for label, n in (("STUN", event.stun), ("BODY", event.body), ("END", event.end))
                   if n]
        return f"The GM adjusts {name}: {', '.join(changes)}."
    return event.kind


# --- between the campaign and the encounter --------------------------------------------------------------

_SHEET = ("spd", "dex", "initiative_dex", "con", "rec", "ocv", "dcv", "pd", "ed", "stun", "stun_max", "body", "body_max",
          "end", "end_max")
WRITTEN_BACK = ("stun", "body", "end")


def fighter_from_sheet(key: str, name: str, side: str, owner: int | None, stats: dict,
                       aware_of: tuple[str, ...]) -> Fighter:
    """A combatant built from a HERO character sheet (see hero.stats); current values never start above maxima."""
    defaults = STATS.defaults()
    try:
        values = {k: int(stats.get(k, defaults[k])) for k in _SHEET}
    except (TypeError, ValueError):
        raise RuleError(f"{name}'s sheet has a characteristic that is not a whole number.") from None
    if not 1 <= values["spd"] <= 12:
        raise RuleError(f"{name}'s SPD must be from 1 to 12.")
    for current, maximum in STATS.capped:
        values[current] = min(values[current], values[maximum])
    return Fighter(id=key, name=name, side=side, owner=owner, aware_of=tuple(aware_of), **values)


def write_back(state: State) -> dict[str, dict]:
    """What persists on each PC's sheet: STUN, BODY and END (kept within the sheet's limits).

    Enemies share NPC sheets, so nothing is written back for them."""
    out = {}
    for f in state.pcs():
        out[f.id] = {key: max(STATS.get(key).min, getattr(f, key)) for key in WRITTEN_BACK}
    return out


def outcome(state: State) -> str:
    """"Victory" when every enemy is knocked out or at 0 BODY or less, "Defeat" when every PC is; otherwise ""."""
    if state.enemies() and all(f.out for f in state.enemies()):
        return "Victory"
    if state.pcs() and all(f.out for f in state.pcs()):
        return "Defeat"
    return ""
