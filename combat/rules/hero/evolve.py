"""`evolve(state, event) -> state`: one HERO System event applied, with no dice and no clock.

Part of the stored schema with events.py: every saved log replays through these functions, so a change here
changes what old fights replay to. One function per event class, found through `EVOLVERS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from combat.rules.core import Event, Revealed, evolve_revealed
from combat.rules.free_roll import DiceRolled, evolve_dice_rolled
from combat.rules.hero.events import (
    Aborted,
    Acted,
    Attacked,
    Gain,
    HeldAction,
    Hesitated,
    HoldContested,
    HoldKept,
    HoldOffered,
    Moved,
    NoRecoverySet,
    PhaseEnded,
    PhaseSpent,
    PoolsAdjusted,
    PresenceAttacked,
    Recovered,
    Released,
    SegmentStarted,
    SpdChanged,
    StunnedSet,
    TiesOrdered,
)
from combat.rules.hero.state import Fighter, Held, Mark, State, schedule, turn_and_segment


def evolve(state: State, event: Event) -> State:
    handler = EVOLVERS.get(type(event))
    if handler is None:
        raise TypeError(f"The HERO System has no evolve for the event {type(event).__name__}.")
    state = handler(state, event)
    if state.offers:  # an offer ends with the held action (acted on, aborted, lost, knocked out...)
        state = replace(state, offers=tuple(fid for fid in state.offers if state.fighter(fid).held))
    return state


# --- small steps every event takes ---------------------------------------------------------------------------


def _put(state: State, fighter: Fighter) -> State:
    return replace(state, fighters=tuple(fighter if f.id == fighter.id else f for f in state.fighters))


def _held(f: Fighter) -> Held:
    """The character's held action; the log only speaks of one when there is one."""
    if f.held is None:
        raise ValueError(f"{f.name} holds no action.")
    return f.held


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


# --- one function per event ----------------------------------------------------------------------------------


def _segment_started(state: State, event: SegmentStarted) -> State:
    fighters = state.fighters
    if event.turn != state.turn:
        spd1 = bool(state.settings.get("spd1_opening", True))
        fighters = tuple(replace(f, phases=schedule(f.spd, event.turn, f.lock, spd1), marks=()) for f in fighters)
    state = replace(
        state,
        fighters=fighters,
        turn=event.turn,
        segment=event.segment,
        started=True,
        order=event.order,
        cursor=0,
        halves=0,
        acting="",
        acting_halves=0,
        acting_since=0,
        recovering=(),
        skipped=event.skipped,
        ties_set=(),
    )
    # Whoever hesitated has their next phase now (decide._order put the attacker first): the hesitation is used up.
    state = replace(
        state, fighters=tuple(replace(f, hesitant="") if f.hesitant and f.id in event.order else f for f in fighters)
    )
    for fid in event.lost_holds:
        f = state.fighter(fid)
        state = _put(state, replace(_marked(state, f, _held(f).since, "lost"), held=None))
    return state


def _recovered(state: State, event: Recovered) -> State:
    return _gain(state, event.gains)


def _ties_ordered(state: State, event: TiesOrdered) -> State:
    ties_set = state.ties_set + tuple(fid for fid in event.moved if fid not in state.ties_set)
    return replace(state, order=event.order, ties_set=ties_set)


def _phase_spent(state: State, event: PhaseSpent) -> State:
    f = state.fighter(event.fighter)
    f = replace(f, stun=f.stun + event.stun, end=f.end + event.end)
    if event.how == "aborted":
        f = replace(f, forfeit=False)
    elif event.how == "stunned":
        f = replace(f, stunned=False)
    elif event.how == "awed":
        f = replace(f, presence=0)
    return _end_active(_put(state, f), event.how)


def _acted(state: State, event: Acted) -> State:
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


def _attacked(state: State, event: Attacked) -> State:
    f = state.fighter(event.fighter)
    state = _put(state, replace(f, end=f.end - event.end, acted_at=state.now))
    if event.hit:
        target = state.fighter(event.target)
        state = _hurt(state, replace(target, stunned=target.stunned or event.stunned), event.stun, event.body)
    return _end_floor(state, f.id)


def _phase_ended(state: State, event: PhaseEnded) -> State:
    if event.reason == "awed":  # awed in the middle of the phase: its rest is the phase lost
        state = _put(state, replace(state.fighter(event.fighter), presence=0))
    return _end_floor(state, event.fighter)


def _held_action(state: State, event: HeldAction) -> State:
    state = _put(state, replace(state.fighter(event.fighter), held=event.held))
    return _end_active(state, "held")


def _released(state: State, event: Released) -> State:
    """Acting on a held action is this segment's action."""
    f = state.fighter(event.fighter)
    held = _held(f)
    state = _put(state, replace(f, held=None, acted_at=state.now))
    return replace(state, acting=f.id, acting_halves=1 if held.half else 0, acting_since=held.since)


def _aborted(state: State, event: Aborted) -> State:
    f = state.fighter(event.fighter)
    f = replace(f, end=f.end - event.end, acted_at=state.now)
    if event.spent_held:
        f = replace(_marked(state, f, _held(f).since, "aborted"), held=None)
    else:
        f = replace(f, forfeit=True)
    return _put(state, f)


def _hold_contested(state: State, event: HoldContested) -> State:
    """A Released follows when the holder wins; when they lose, the phase in order goes first (an offer ends)."""
    return replace(state, offers=tuple(fid for fid in state.offers if fid != event.holder))


def _hold_offered(state: State, event: HoldOffered) -> State:
    f = state.fighter(event.fighter)
    state = _put(state, replace(f, held=replace(_held(f), offered=state.now)))
    return replace(state, offers=state.offers + (f.id,))


def _hold_kept(state: State, event: HoldKept) -> State:
    return replace(state, offers=tuple(fid for fid in state.offers if fid != event.fighter))


def _moved(state: State, event: Moved) -> State:
    """A move is a half or full phase action like any other."""
    action = "full" if event.full else "half"
    return _acted(state, Acted(fighter=event.fighter, action=action, ends_phase=event.ends_phase))


def _presence_attacked(state: State, event: PresenceAttacked) -> State:
    """Takes no time. With the GM's setting the effect lands: very impressed (2) and up until the next phase;
    awed (3) or cowed (4) lose a held action, as Stunned does."""
    if not state.settings.get("presence_effects", True) or event.level < 1:
        return state
    f = state.fighter(event.target)
    if event.level <= 2:  # impressed or very impressed: hesitates, so the attacker acts first in the next phase
        state = _put(state, replace(f, hesitant=event.fighter))
        state = _let_first(state, event.fighter, f.id)
        f = state.fighter(f.id)
    if event.level < 2:
        return state
    f = replace(f, presence=max(f.presence, event.level))
    return _put(state, replace(f, held=None) if f.presence >= 3 else f)


def _let_first(state: State, attacker: str, target: str) -> State:
    """The target's phase still to come in this segment, with the attacker's after it: the attacker goes first.
    The hesitation is then used up (a phase later in the turn is ordered by `decide._order` instead)."""
    rest = state.order[state.cursor :]
    if target not in rest or state.fighter(target).acted_at == state.now:
        return state
    if attacker in rest and rest.index(attacker) > rest.index(target) and state.active != target:
        moved = [fid for fid in rest if fid != target]
        moved.insert(moved.index(attacker) + 1, target)
        state = replace(state, order=state.order[: state.cursor] + tuple(moved))
    return _put(state, replace(state.fighter(target), hesitant=""))


def _hesitated(state: State, event: Hesitated) -> State:
    f = replace(state.fighter(event.fighter), presence=0)
    return replace(_put(state, f), halves=1)


def _spd_changed(state: State, event: SpdChanged) -> State:
    f = state.fighter(event.fighter)
    state = _put(state, replace(f, spd=event.new, phases=event.phases, lock=event.next_phase))
    if state.segment not in event.phases and f.id in state.order[state.cursor :]:
        # a phase still to come in this segment (or open and untouched) is locked out
        rest = tuple(fid for fid in state.order[state.cursor :] if fid != f.id)
        halves = 0 if state.active == f.id else state.halves
        state = replace(state, order=state.order[: state.cursor] + rest, halves=halves)
    return state


def _no_recovery_set(state: State, event: NoRecoverySet) -> State:
    return _put(state, replace(state.fighter(event.fighter), no_recovery=event.excluded))


def _pools_adjusted(state: State, event: PoolsAdjusted) -> State:
    f = state.fighter(event.fighter)
    return _hurt(state, replace(f, end=f.end + event.end), -event.stun, -event.body)


def _stunned_set(state: State, event: StunnedSet) -> State:
    """Stunned, as from damage, loses a held action; cleared, the character acts in their next phase."""
    f = replace(state.fighter(event.fighter), stunned=event.stunned)
    return _put(state, replace(f, held=None) if event.stunned else f)


EVOLVERS: dict[type[Event], Callable[[State, Any], State]] = {
    DiceRolled: evolve_dice_rolled,
    SegmentStarted: _segment_started,
    Recovered: _recovered,
    TiesOrdered: _ties_ordered,
    PhaseSpent: _phase_spent,
    Acted: _acted,
    Attacked: _attacked,
    PhaseEnded: _phase_ended,
    HeldAction: _held_action,
    Released: _released,
    Aborted: _aborted,
    HoldContested: _hold_contested,
    SpdChanged: _spd_changed,
    NoRecoverySet: _no_recovery_set,
    PoolsAdjusted: _pools_adjusted,
    StunnedSet: _stunned_set,
    Revealed: evolve_revealed,
    HoldOffered: _hold_offered,
    HoldKept: _hold_kept,
    Moved: _moved,
    PresenceAttacked: _presence_attacked,
    Hesitated: _hesitated,
}
