"""`describe(state, event, gm) -> sentence`: one plain sentence for the log, read against the state the event was
applied to. One function per event class, found through `DESCRIBERS`.

Players (gm=False) read a PC's exact STUN, BODY and END; of an enemy only what the table sees (hit or miss, the
attack roll, Stunned, knocked out, woken), never its STUN, BODY, END, REC or SPD, nor the number an attack needed
(it would give away OCV and DCV). What a viewer may know of whom is the core's `Sight`: whatever concerns an
enemy no PC is aware of is left out (None), or told as "Someone unseen".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from combat.rules.core import Event, Revealed, Sight, describe_revealed
from combat.rules.free_roll import DiceRolled, describe_dice_rolled
from combat.rules.hero.commands import DEFENSIVE
from combat.rules.hero.decide_actions import LEVELS as PRESENCE_LEVELS
from combat.rules.hero.events import (
    Aborted,
    Acted,
    Attacked,
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
from combat.rules.hero.interrupts import hold_words
from combat.rules.hero.state import State, phase_at, turn_and_segment

ACTION_LABELS = {
    "full": "a full phase action",
    "half": "a half phase action",
    "zero": "a zero phase action",
    "none": "an action that takes no time",
    "recovery": "a Recovery",
}
UNSEEN = "Someone unseen"  # an enemy no PC is aware of, at the start of a sentence


def describe(state: State, event: Event, gm: bool = True) -> str | None:
    handler = DESCRIBERS.get(type(event))
    if handler is None:
        raise TypeError(f"The HERO System has no describe for the event {type(event).__name__}.")
    return handler(state, event, Sight(state.fighters, gm))


# --- wording ---------------------------------------------------------------------------------------------------


def _listing(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _in_order(names: list[str]) -> str:
    return ", then ".join(names)


def _regains(stun: int, end: int) -> str:
    return " and ".join(f"{n} {label}" for n, label in ((stun, "STUN"), (end, "END")) if n) or "nothing"


def _cost(sight: Sight, fid: str, end: int) -> str:
    """The END an action cost, for whoever may read the character's numbers."""
    return f" ({end} END)" if end and not sight.secret(fid) else ""


def segment_ranges(segments: tuple[int, ...]) -> str:
    """Segments as runs for a sentence: (1, 2, 4) is "1–2 and 4"."""
    runs: list[list[int]] = []
    for s in segments:
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    return _listing([f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs])


# --- the turn ----------------------------------------------------------------------------------------------------


def _segment_started(state: State, event: SegmentStarted, sight: Sight) -> str:
    names = [sight.name(fid) for fid in event.order if not sight.unseen(fid)]
    acting = f": {names[0]} acts" if len(names) == 1 else f": {_in_order(names)}, in DEX order" if names else ""
    where = f"Turn {event.turn}, segment {event.segment}"
    if not state.started:
        where = "Combat begins in segment 12 of turn 1"
    extra = []
    if event.skipped:
        extra.append(
            f"segment{'s' if len(event.skipped) > 1 else ''} {segment_ranges(event.skipped)} skipped with nobody to act"
        )
    rolled = [
        f"{sight.name(r.fighter)} {'/'.join(map(str, r.faces))}" for r in event.rolloff if not sight.unseen(r.fighter)
    ]
    if rolled:
        extra.append(f"DEX ties rolled off ({', '.join(rolled)})")
    lost = [sight.name(fid) for fid in event.lost_holds if not sight.unseen(fid)]
    if lost:
        extra.append(f"held action{'s' if len(lost) > 1 else ''} lost: {_listing(lost)}")
    return f"{where}{acting}" + (f"; {'; '.join(extra)}" if extra else "") + "."


def _recovered(state: State, event: Recovered, sight: Sight) -> str:
    parts = []
    for g in event.gains:
        if sight.unseen(g.fighter):
            continue
        if sight.secret(g.fighter):
            parts.append(f"{sight.name(g.fighter)} recovers")
        else:
            parts.append(f"{sight.name(g.fighter)} regains {_regains(g.stun, g.end)}")
    if event.reason == "action":
        return f"{'; '.join(parts)} from a Recovery." if parts else "A Recovery taken this segment brings nothing back."
    left = [sight.name(fid) for fid in event.left_out if not sight.unseen(fid)]
    tail = f"; no free recovery for {_listing(left)}" if left else ""
    body = "; ".join(parts) if parts else "nobody needs it"
    return f"After segment 12 of turn {event.turn}, everyone recovers: {body}{tail}."


def _ties_ordered(state: State, event: TiesOrdered, sight: Sight) -> str:
    names = [sight.name(fid) for fid in event.order if fid in event.moved and not sight.unseen(fid)]
    return f"The GM orders the characters tied on DEX: {_in_order(names)}."


def _phase_spent(state: State, event: PhaseSpent, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    name = sight.name(event.fighter)
    if event.how == "aborted":
        return f"{name}'s phase in segment {event.segment} was already spent on an abort."
    if event.how == "stunned":
        return f"{name} spends the phase in segment {event.segment} recovering from being Stunned."
    if event.how == "awed":
        return f"{name}, awed by a Presence attack, does not act in the phase in segment {event.segment}."
    if event.stun or event.end:
        f = state.fighter(event.fighter)
        wake = " and wakes up" if f.stun + event.stun > 0 else ""
        if sight.secret(event.fighter):
            return f"{name}, knocked out, recovers in the phase{wake}."
        return (
            f"{name}, knocked out, recovers {_regains(event.stun, event.end)} in the phase "
            f"(STUN {f.stun + event.stun}){wake}."
        )
    return f"{name} is knocked out through the phase in segment {event.segment}."


# --- in the phase ------------------------------------------------------------------------------------------------


def _acted(state: State, event: Acted, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    name = sight.name(event.fighter)
    what = f": {event.text}" if event.text else ""
    if event.action == "recovery":
        return f"{name} takes a Recovery (a full phase; it lands at the end of the segment)."
    ends = "; the phase ends" if event.ends_phase else ""
    if event.action == "half" and not event.ends_phase:
        ends = "; half a phase is left"
    return f"{name} takes {ACTION_LABELS[event.action]}{what}{_cost(sight, event.fighter, event.end)}{ends}."


def _attacked(state: State, event: Attacked, sight: Sight) -> str | None:
    if sight.unseen(event.fighter) and sight.unseen(event.target):
        return None
    attacker, target = sight.name(event.fighter, UNSEEN), sight.name(event.target, UNSEEN)
    what = f" with {event.text}" if event.text and not sight.unseen(event.fighter) else ""  # the GM's words
    needed = f" (needed {event.needed} or less)" if sight.gm else ""
    physical = " (physical dice)" if event.entered else ""
    lead = (
        f"{attacker} attacks {target}{what}{_cost(sight, event.fighter, event.end)}: {event.total} on 3d6"
        f"{physical}{needed}"
    )
    if not event.hit:
        return f"{lead}, a miss."
    parts = [f"{lead}, a hit"]
    if event.damage and not sight.secret(event.target):
        rolled = " (physical dice)" if event.damage_entered else ""
        parts.append(
            f"{len(event.damage)}d6{rolled} roll {event.stun_rolled} STUN and {event.body_rolled} BODY, and "
            f"after {event.defence} defence {target} takes {event.stun} STUN and {event.body} BODY"
        )
    if event.stunned:
        parts.append(f"{target} is Stunned")
    if event.knocked_out:
        parts.append(f"{target} is knocked out")
    return "; ".join(parts) + "."


def _phase_ended(state: State, event: PhaseEnded, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    name = sight.name(event.fighter)
    if event.reason:
        return f"{name}'s phase ends: {name} is {'Stunned' if event.reason == 'stunned' else event.reason}."
    f = state.fighter(event.fighter)
    if f.acted_at == state.now:
        return f"{name} ends the phase."
    return f"{name} lets the {'held action' if state.acting == f.id else 'phase'} go by."


# --- held actions and aborts -------------------------------------------------------------------------------------


def _held_action(state: State, event: HeldAction, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    held = event.held
    if held is None:
        raise ValueError("A held action without its hold.")
    until = {
        "dex": f" until DEX {held.dex}",
        "segment": f" until segment {turn_and_segment(held.at)[1]}",
        "trigger": f" until {held.trigger}",
        "": "",
    }[held.until]
    if held.on:
        until = "" if sight.unseen(held.whom) else f" until {held.trigger}"
    half = " (half a phase)" if held.half else ""
    return f"{sight.name(event.fighter)} holds the action{half}{until}."


def _hold_offered(state: State, event: HoldOffered, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    f = state.fighter(event.fighter)
    held = f.held
    until = f" ({hold_words(state, held)})" if held and not (held.on and sight.unseen(held.whom)) else ""
    return f"{sight.name(f.id)}'s held action: its moment has come{until}; act now or keep holding."


def _hesitated(state: State, event: Hesitated, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    return f"{sight.name(event.fighter)}, very impressed by a Presence attack, has only half a phase."


def _hold_kept(state: State, event: HoldKept, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    return f"{sight.name(event.fighter)} keeps holding the action."


def _moved(state: State, event: Moved, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    what = f" ({event.text})" if event.text else ""
    run = "" if sight.secret(event.fighter) else f" of RUN {event.run} m"
    kind = f"a full move (more than half{run})" if event.full else f"a half move (half{run} or less)"
    ends = "; the phase ends" if event.ends_phase else "; half a phase is left"
    return f"{sight.name(event.fighter)} moves {event.metres} m{what}: {kind}{ends}."


def _presence_attacked(state: State, event: PresenceAttacked, sight: Sight) -> str | None:
    if sight.unseen(event.fighter) and sight.unseen(event.target):
        return None
    attacker, target = sight.name(event.fighter, UNSEEN), sight.name(event.target, UNSEEN)
    what = f" ({event.text})" if event.text and not sight.unseen(event.fighter) else ""
    roll = "" if sight.secret(event.fighter) else f": {event.total} on {len(event.roll)}d6"
    against = "" if sight.secret(event.target) or not roll else f" against {event.against}"
    if event.level == 0:
        effect = f"{target} is not impressed"
    else:
        _, name, does = PRESENCE_LEVELS[event.level - 1]
        effect = f"{target} is {name}: {does}"
    return f"{attacker} makes a Presence attack on {target}{what}{roll}{against}; {effect}."


def _released(state: State, event: Released, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    return f"{sight.name(event.fighter)} acts on the held action."


def _aborted(state: State, event: Aborted, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    to = DEFENSIVE.get(event.action, event.action)
    what = f" ({event.text})" if event.text else ""
    paid = "using the held action" if event.spent_held else f"giving up the next phase ({phase_at(event.loses)})"
    return f"{sight.name(event.fighter)} aborts to {to}{what}{_cost(sight, event.fighter, event.end)}, {paid}."


def _hold_contested(state: State, event: HoldContested, sight: Sight) -> str:
    holder, other = sight.name(event.holder, UNSEEN), sight.name(event.other, UNSEEN)

    def roll(fid: str, faces: tuple[int, ...], target: int) -> str:
        return f"{sum(faces)}" + (f" against {target}" if not sight.secret(fid) else "")

    rolls = (
        f"{roll(event.holder, event.holder_roll, event.holder_target)} and "
        f"{roll(event.other, event.other_roll, event.other_target)}"
    )
    lead = f"{holder}'s held action meets {other}'s phase: DEX rolls {rolls}"
    if not event.winner:
        return f"{lead}; a tie, so the GM decides."
    return f"{lead}; {sight.name(event.winner, UNSEEN)} goes first."


# --- the GM's changes --------------------------------------------------------------------------------------------


def _spd_changed(state: State, event: SpdChanged, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    change = "changes" if sight.secret(event.fighter) else f"changes from {event.old} to {event.new}"
    when = f"; the next phase is in {phase_at(event.next_phase)}" if event.next_phase else ", taking effect next turn"
    return f"{sight.name(event.fighter)}'s SPD {change}{when}."


def _no_recovery_set(state: State, event: NoRecoverySet, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    name = sight.name(event.fighter)
    return f"{name} gets no free recoveries (GM)." if event.excluded else f"{name} gets free recoveries again."


def _pools_adjusted(state: State, event: PoolsAdjusted, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    name = sight.name(event.fighter)
    if sight.secret(event.fighter):
        return f"The GM adjusts {name}'s STUN, BODY or END."
    changes = [f"{label} {n:+d}" for label, n in (("STUN", event.stun), ("BODY", event.body), ("END", event.end)) if n]
    return f"The GM adjusts {name}: {', '.join(changes)}."


def _stunned_set(state: State, event: StunnedSet, sight: Sight) -> str | None:
    if sight.unseen(event.fighter):
        return None
    name = sight.name(event.fighter)
    return f"{name} is Stunned (GM)." if event.stunned else f"{name} is no longer Stunned (GM)."


DESCRIBERS: dict[type[Event], Callable[[State, Any, Sight], str | None]] = {
    DiceRolled: lambda state, event, sight: describe_dice_rolled(state, event, sight.gm),
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
    Revealed: lambda state, event, sight: describe_revealed(state, event),
    HoldOffered: _hold_offered,
    Hesitated: _hesitated,
    HoldKept: _hold_kept,
    Moved: _moved,
    PresenceAttacked: _presence_attacked,
}
