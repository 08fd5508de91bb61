"""`decide(state, command, dice) -> events`: a HERO System command checked against the rules.

The GM's commands that run the turn live here: the next segment (Recovery actions land, the post-segment-12
recovery, segments with nobody to act skipped, the new segment's DEX order), DEX ties, SPD changes and the GM's
tools. What a character does with a phase is in decide_phase.py. After every command the engine spends on its
own the phases the rules already decided (`_settle`): a phase lost to an abort, the phase a Stunned character
spends recovering, a knocked-out character's phase, the rest of a phase cut short by Stunned or knocked out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from combat.rules.core import Command, Event, Reveal, RuleError, decide_reveal
from combat.rules.core import require as _require
from combat.rules.dice import Dice
from combat.rules.free_roll import FreeRoll, decide_free_roll
from combat.rules.hero.commands import (
    COMMANDS,
    AdjustPools,
    ChangeSpd,
    NextSegment,
    OrderTies,
    SetNoRecovery,
    SetStunned,
)
from combat.rules.hero.decide_actions import DECIDERS as ACTION_DECIDERS
from combat.rules.hero.decide_phase import DECIDERS as PHASE_DECIDERS
from combat.rules.hero.decide_phase import waiting_for_offer
from combat.rules.hero.events import (
    Gain,
    Hesitated,
    NoRecoverySet,
    PhaseEnded,
    PhaseSpent,
    PoolsAdjusted,
    Recovered,
    RollOff,
    SegmentStarted,
    SpdChanged,
    StunnedSet,
    TiesOrdered,
)
from combat.rules.hero.evolve import evolve
from combat.rules.hero.interrupts import due_offer
from combat.rules.hero.state import (
    SPEED_CHART,
    Fighter,
    State,
    first_open_segment,
    name_of,
    next_phase_tick,
    schedule,
    tick,
    turn_and_segment,
)

KO_EVERY_PHASE = -10  # knocked out at 0 to -10 STUN: Recovery every phase and after segment 12
KO_POST_12 = -20  # -11 to -20: after segment 12 only
KO_ONCE_A_MINUTE = -30  # -21 to -30: once a minute (after segment 12 of turns 5, 10, 15...); below: GM's option
TURNS_PER_MINUTE = 5


def decide(state: State, command: Command, dice: Dice) -> list[Event]:
    if isinstance(command, FreeRoll):  # any time, in any phase; it changes nothing, so nothing follows
        return decide_free_roll(state, command, dice)
    handler = DECIDERS.get(type(command))
    if handler is None:
        if type(command) in COMMANDS:
            raise TypeError(f"The HERO System has no decider for the command {type(command).__name__}.")
        raise RuleError("That is not an action in the HERO System.")
    _require(
        state.started or isinstance(command, (NextSegment, Reveal)),
        "Combat has not begun: the GM starts it with segment 12 of turn 1.",
    )
    return _settle(state, handler(state, command, dice))


# --- what the rules do on their own ---------------------------------------------------------------------------


def _settle(state: State, events: list[Event]) -> list[Event]:
    """Add what the rules do on their own after `events`, until someone has a choice to make."""
    for event in events:
        state = evolve(state, event)
    out = list(events)
    while (automatic := _automatic(state) or due_offer(state, out)) is not None:
        state = evolve(state, automatic)
        out.append(automatic)
    return out


def _automatic(state: State) -> Event | None:
    if state.acting:
        f = state.fighter(state.acting)
        return PhaseEnded(fighter=f.id, reason=_cut_short(f)) if _cut_short(f) else None
    if not state.active:
        return None
    f = state.fighter(state.active)
    if f.forfeit:
        return PhaseSpent(fighter=f.id, segment=state.segment, how="aborted")
    if f.acted_at == state.now:  # hit (or awed) in the middle of the phase
        return PhaseEnded(fighter=f.id, reason=_cut_short(f)) if _cut_short(f) else None
    if f.knocked_out:
        stun = end = 0
        if f.stun >= KO_EVERY_PHASE and not f.no_recovery:
            stun, end = _recovery(f)
        return PhaseSpent(fighter=f.id, segment=state.segment, how="knocked out", stun=stun, end=end)
    if f.stunned:
        return PhaseSpent(fighter=f.id, segment=state.segment, how="stunned")
    if f.presence >= 3:
        return PhaseSpent(fighter=f.id, segment=state.segment, how="awed")
    if f.presence == 2 and state.halves == 0:
        return Hesitated(fighter=f.id)
    return None


def _cut_short(f: Fighter) -> str:
    """Why the phase a character is in the middle of ends on its own ("" when it does not)."""
    return "knocked out" if f.knocked_out else "stunned" if f.stunned else "awed" if f.presence >= 3 else ""


def _recovery(f: Fighter) -> tuple[int, int]:
    """REC to STUN and END, never above their maxima."""
    return max(0, min(f.rec, f.stun_max - f.stun)), max(0, min(f.rec, f.end_max - f.end))


# --- the turn ---------------------------------------------------------------------------------------------------


def _order(state: State, ids: list[str], dice: Dice) -> tuple[tuple[str, ...], tuple[RollOff, ...]]:
    """Highest DEX for initiative first; ties in the encounter's order (the GM reorders) or rolled off."""
    dex = {fid: state.fighter(fid).initiative_dex for fid in ids}
    faces: dict[str, tuple[int, ...]] = dict.fromkeys(ids, ())
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
    order = hesitations(state, tuple(sorted(ids, key=lambda fid: (-dex[fid], tuple(-x for x in faces[fid])))))
    return order, tuple(RollOff(fighter=fid, faces=faces[fid]) for fid in order if faces[fid])


def hesitations(state: State, order: tuple[str, ...]) -> tuple[str, ...]:
    """One impressed by a Presence attack hesitates: the attacker, acting in the same segment, goes first
    (GM setting `presence_effects`)."""
    moved = list(order)
    for fid in order:
        attacker = state.fighter(fid).hesitant
        if attacker in moved and moved.index(attacker) > moved.index(fid):
            moved.remove(fid)
            moved.insert(moved.index(attacker) + 1, fid)
    return tuple(moved)


def _post_12(state: State) -> Recovered:
    gains, left_out = [], []
    for f in state.fighters:
        eligible = not f.no_recovery and (
            f.stun >= KO_POST_12 or (f.stun >= KO_ONCE_A_MINUTE and state.turn % TURNS_PER_MINUTE == 0)
        )
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
    _require(not state.acting, f"{name_of(state, state.acting)} is still acting on a held action.")
    waiting_for_offer(state)
    _require(
        not state.active,
        f"{name_of(state, state.active)} still has a phase in this segment: act, hold or end it first.",
    )
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
        phases = {
            f.id: (f.phases if turn == state.turn else schedule(f.spd, turn, f.lock, spd1)) for f in scratch.fighters
        }
        ids = [f.id for f in scratch.fighters if segment in phases[f.id]]
        held_to_here = any(f.held and f.held.at == tick(turn, segment) for f in scratch.fighters)
        if ids or held_to_here:
            break
        skipped.append(segment)
    order, rolloff = _order(scratch, ids, dice)
    lost = tuple(f.id for f in scratch.fighters if f.held and segment in phases[f.id])
    events.append(
        SegmentStarted(
            turn=turn, segment=segment, order=order, skipped=tuple(skipped), rolloff=rolloff, lost_holds=lost
        )
    )
    return events


def _order_ties(state: State, c: OrderTies, dice: Dice) -> list[Event]:
    _require(state.settings.get("dex_ties") != "roll", "DEX ties are rolled off in this encounter.")
    ids = tuple(c.order)
    _require(len(ids) >= 2 and len(set(ids)) == len(ids), "Name each tied character once, in the order they act.")
    fighters = [state.fighter(fid) for fid in ids]
    _require(all(fid in state.order for fid in ids), "Only characters with a phase in this segment are ordered.")
    _require(
        len({f.initiative_dex for f in fighters}) == 1,
        "Only characters tied on DEX can be reordered; the higher DEX acts first.",
    )
    slots = sorted(state.order.index(fid) for fid in ids)
    for f in fighters:
        index = state.order.index(f.id)
        started = index < state.cursor or (index == state.cursor and f.acted_at == state.now)
        _require(not started, f"{f.name} has already taken the phase in this segment.")
    order = list(state.order)
    for slot, fid in zip(slots, ids, strict=True):
        order[slot] = fid
    if tuple(order) == state.order and set(ids) <= set(state.ties_set):
        return []  # the GM already set this very order (a second click): nothing to record
    return [TiesOrdered(order=tuple(order), moved=ids)]


def _change_spd(state: State, c: ChangeSpd, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(1 <= c.spd <= 12, "SPD must be from 1 to 12.")
    _require(c.spd != f.spd, f"{f.name} already has SPD {f.spd}.")
    if state.settings.get("spd_change") == "next_turn":
        return [SpdChanged(fighter=f.id, old=f.spd, new=c.spd, phases=f.phases)]
    first = first_open_segment(state, f)
    old_next = next_phase_tick(state, f, first)
    this_turn = schedule(c.spd, state.turn, 0, bool(state.settings.get("spd1_opening", True)))
    later = [s for s in this_turn if s >= first]
    new_next = tick(state.turn, later[0]) if later else tick(state.turn + 1, SPEED_CHART[c.spd][0])
    locked = max(old_next, new_next)
    phases = tuple(s for s in f.phases if s < first)
    lock_turn, lock_segment = turn_and_segment(locked)
    if lock_turn == state.turn:
        phases += (lock_segment,) + tuple(s for s in this_turn if s > lock_segment)
    return [SpdChanged(fighter=f.id, old=f.spd, new=c.spd, next_phase=locked, phases=phases)]


# --- the GM's tools ---------------------------------------------------------------------------------------------


def _set_no_recovery(state: State, c: SetNoRecovery, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(
        f.no_recovery != c.excluded,
        f"{f.name} is already {'left out of' if c.excluded else 'getting'} free recoveries.",
    )
    return [NoRecoverySet(fighter=f.id, excluded=c.excluded)]


def _adjust_pools(state: State, c: AdjustPools, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(all(-500 <= n <= 500 for n in (c.stun, c.body, c.end)), "Change each by at most 500.")
    stun = min(f.stun_max, f.stun + c.stun) - f.stun if c.stun > 0 else c.stun
    body = min(f.body_max, f.body + c.body) - f.body if c.body > 0 else c.body
    end = min(f.end_max, f.end + c.end) - f.end if c.end > 0 else max(c.end, -f.end)  # END stops at 0
    _require(any((stun, body, end)), f"That changes nothing for {f.name}.")
    return [PoolsAdjusted(fighter=f.id, stun=stun, body=body, end=end)]


def _set_stunned(state: State, c: SetStunned, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(f.stunned != c.stunned, f"{f.name} is {'already' if c.stunned else 'not'} Stunned.")
    _require(not (c.stunned and f.knocked_out), f"{f.name} is knocked out, which is more than Stunned.")
    return [StunnedSet(fighter=f.id, stunned=c.stunned)]


DECIDERS: dict[type[Command], Callable[[State, Any, Dice], list[Event]]] = {
    FreeRoll: decide_free_roll,  # decide() runs it first: in any phase, and nothing follows it
    NextSegment: _next_segment,
    OrderTies: _order_ties,
    ChangeSpd: _change_spd,
    SetNoRecovery: _set_no_recovery,
    AdjustPools: _adjust_pools,
    SetStunned: _set_stunned,
    Reveal: lambda state, c, dice: decide_reveal(state, c),
    **PHASE_DECIDERS,
    **ACTION_DECIDERS,
}
