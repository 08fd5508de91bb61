"""The state of a HERO System fight: the speed chart, each character's phases and pools, and the segment now open.

The turn: combat opens in segment 12 of turn 1; after that a turn is segments 1–12 and a character has a phase in
the segments the speed chart gives their SPD. `tick` numbers segments across the whole fight. Inside a segment the
characters with a phase act in DEX order (`order`); `cursor` is the phase now open. A released held action
interrupts: its holder (`acting`) has the floor until that action ends, then the phase in order carries on.
The small sums the rules make (BODY on a die, END for an action, the roll an attack needs) live here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from combat.rules.core import RuleError

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


def tick(turn: int, segment: int) -> int:
    """A segment's place in the whole fight: turn 1 segment 12 is 12, turn 2 segment 1 is 13."""
    return (turn - 1) * 12 + segment


def turn_and_segment(at: int) -> tuple[int, int]:
    return (at - 1) // 12 + 1, (at - 1) % 12 + 1


def phase_at(at: int) -> str:
    """A tick in words: "segment 3 of turn 2"."""
    turn, segment = turn_and_segment(at)
    return f"segment {segment} of turn {turn}"


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


def to_hit(attacker: Fighter, target: Fighter, ocv_mod: int = 0, dcv_mod: int = 0) -> int:
    """The most an attack roll may be to hit: 11 + OCV − DCV (a Stunned target's DCV is halved)."""
    return 11 + attacker.ocv + ocv_mod - max(0, target.current_dcv + dcv_mod)


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
    on: str = ""  # a trigger the engine watches: "acts", "attacks" or "moves" (of `whom`); "" the GM judges
    whom: str = ""
    offered: int = 0  # tick of the last time the engine offered the holder the interrupt


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
    run: int = 12  # RUN in metres per phase (6e's default 12 m)
    pre: int = 10
    ego: int = 10
    presence: int = 0  # a Presence attack's effect until the next phase: 2 very impressed, 3 awed, 4 cowed
    hesitant: str = ""  # impressed or very impressed by this attacker: they act first in this one's next phase

    @property
    def knocked_out(self) -> bool:
        return self.stun <= 0

    @property
    def out(self) -> bool:
        return self.knocked_out or self.body <= 0

    @property
    def current_dcv(self) -> int:
        """Stunned or awed halve DCV (a half rounds for the character); cowed is 0 DCV."""
        if self.presence >= 4:
            return 0
        return (self.dcv + 1) // 2 if self.stunned or self.presence == 3 else self.dcv

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
    ties_set: tuple[str, ...] = ()  # characters whose DEX tie the GM ordered in this segment
    offers: tuple[str, ...] = ()  # holders whose moment has come: the phase in order waits for them
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
        """Characters still to act this segment who share a DEX, for the GM to order: a group the GM already
        ordered in this segment is not asked about again."""
        waiting = self.order[self.cursor :]
        groups: dict[int, list[str]] = {}
        for fid in waiting:
            groups.setdefault(self.fighter(fid).initiative_dex, []).append(fid)
        return tuple(tuple(g) for g in groups.values() if len(g) > 1 and not set(g) <= set(self.ties_set))


def name_of(state: State, fighter_id: str) -> str:
    """The combatant's name for a refusal, "someone" for an id the encounter does not have. (What the log may
    name for each viewer is `combat.rules.core.Sight`'s to say.)"""
    try:
        return state.fighter(fighter_id).name
    except RuleError:
        return "someone"


# --- when a character acts next -----------------------------------------------------------------------------


def first_open_segment(state: State, f: Fighter) -> int:
    """The first segment of this turn that could still hold the character's next phase: this one while their
    phase in it is still to come (or open and untouched), else the next."""
    waiting = f.id in state.order[state.cursor :] and not (state.active == f.id and f.acted_at == state.now)
    return state.segment if waiting else state.segment + 1


def next_phase_tick(state: State, f: Fighter, first: int | None = None) -> int:
    """Tick of the character's next phase from segment `first` of this turn on (by default the first open one)."""
    first = first_open_segment(state, f) if first is None else first
    later = [s for s in f.phases if s >= first]
    if later:
        return tick(state.turn, later[0])
    spd1 = bool(state.settings.get("spd1_opening", True))
    return tick(state.turn + 1, schedule(f.spd, state.turn + 1, f.lock, spd1)[0])


def next_phase_at(state: State, fighter_id: str) -> int:
    """Tick of the character's next phase still to come (this segment's when it is still waiting)."""
    return next_phase_tick(state, state.fighter(fighter_id))


def hold_segments(state: State, fighter_id: str) -> tuple[int, ...]:
    """The segments a character holding the open phase may hold to: every one before their next phase."""
    f = state.fighter(fighter_id)
    until = next_phase_tick(state, f, state.segment + 1)
    return tuple(turn_and_segment(at)[1] for at in range(state.now + 1, until))
