"""`describe(state, event, gm) -> sentence`: one plain sentence for the log, read against the state the event was
applied to. One function per event class, found through `DESCRIBERS`.

For players (gm=False) the sentence leaves out what only the GM knows: Collapse points, and anything about an
enemy the party is not aware of (None: no entry at all, or an unnamed hit). Who a viewer may know of is the core's
`Sight`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from combat.rules.burn_bryte.events import (
    AdvantageSpent,
    AdvantagesUsed,
    CollapseSpent,
    ConditionSet,
    DeclarationChanged,
    Declared,
    HealthAdjusted,
    Moved,
    NovaAdjusted,
    NovaSpent,
    PhaseStarted,
    Resolved,
    SkillRolled,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
)
from combat.rules.burn_bryte.state import Roll, State
from combat.rules.burn_bryte.stats import DIE_SIZES
from combat.rules.core import Event, Revealed, RuleError, Sight, describe_revealed

PHASE_TITLES = {1: "enemies declare", 2: "players act", 3: "enemies move and resolve"}


def describe(state: State, event: Event, gm: bool = True) -> str | None:
    handler = DESCRIBERS.get(type(event))
    if handler is None:
        raise TypeError(f"Burn Bryte has no describe for the event {type(event).__name__}.")
    return handler(state, event, Sight(state.fighters, gm))


# --- wording ------------------------------------------------------------------------------------------------------


def _plural(n: int) -> str:
    return "s" if n != 1 else ""


def _faces(roll: Roll) -> str:
    return ", ".join(str(f) for f in roll.faces) + (" (entered)" if roll.entered else "")


def _at_zero(state: State, fighter_id: str, damage: int) -> str:
    """What dropping to 0 Health Levels means for a PC, as a second sentence ("" if it does not happen)."""
    try:
        f = state.fighter(fighter_id)
    except RuleError:
        return ""
    if f.side != "pc" or f.down or damage < f.health:
        return ""
    _, gained = f.conditions.gain_least_severe()
    if gained:
        return f" {f.name} drops to 0 Health Levels and gains {gained}."
    return f" {f.name} drops to 0 Health Levels holding every negative condition: the GM decides what happens."


# --- Phase 1 -------------------------------------------------------------------------------------------------------


def _declared(state: State, event: Declared, sight: Sight) -> str | None:
    if sight.unseen(event.enemy):
        return None
    extra = (" (an extra attack for 1 Collapse point)" if sight.gm else " (an extra attack)") if event.extra else ""
    return f"{sight.name(event.enemy)} declares: {event.text} against {sight.name(event.target)}{extra}."


def _declaration_changed(state: State, event: DeclarationChanged, sight: Sight) -> str | None:
    if sight.unseen(state.declaration(event.id).enemy):
        return None
    cost = f" ({event.cost} Collapse)" if sight.gm else ""
    return f"The GM changes a declared action to: {event.text} against {sight.name(event.target)}{cost}."


def _phase_started(state: State, event: PhaseStarted, sight: Sight) -> str:
    skipped = f" (Phase {', '.join(map(str, event.skipped))} skipped by surprise)" if event.skipped else ""
    return f"Round {event.round}, Phase {event.phase}: {PHASE_TITLES[event.phase]}{skipped}."


# --- Phase 2 -------------------------------------------------------------------------------------------------------


def _turn_started(state: State, event: TurnStarted, sight: Sight) -> str:
    by = (
        ""
        if not event.picked_by
        else (" (picked by the GM)" if event.picked_by == "gm" else f" (picked by {sight.name(event.picked_by)})")
    )
    return f"{sight.name(event.fighter)} starts their turn{by}."


def _skill_rolled(state: State, event: SkillRolled, sight: Sight) -> str:
    roll = event.roll
    if roll is None:
        raise ValueError("A skill roll without its roll.")
    verdict = "succeeds" if roll.succeeded else "fails on doubles"
    what = {
        "attack": f"to attack {sight.name(roll.target)}",
        "defend": "to defend against a declared attack",
        "advantage": "to create an advantage",
        "move": "to move",
        "other": "",
    }[roll.intent]
    note = f" — {event.note}" if event.note else ""
    return (
        f"{sight.name(roll.fighter)} rolls {roll.skill} {what} at complexity {roll.complexity}: "
        f"{roll.complexity}d{roll.sides} show {_faces(roll)}; the roll {verdict}{note}."
    ).replace("  ", " ")


def _advantage_spent(state: State, event: AdvantageSpent, sight: Sight) -> str:
    entered = " (entered)" if event.entered else ""
    roller = state.last_roll.fighter if state.last_roll else event.fighter
    whose = "" if roller == event.fighter else f" of {sight.name(roller)}'s roll"
    return (
        f"{sight.name(event.fighter)} spends an Advantage to reroll die {event.die + 1}{whose}: "
        f"it shows {event.face}{entered}."
    )


def _moved(state: State, event: Moved, sight: Sight) -> str:
    return f"{sight.name(event.fighter)} moves {event.squares} square{_plural(event.squares)} (free move)."


def _turn_ended(state: State, event: TurnEnded, sight: Sight) -> str:
    name = sight.name(event.fighter)
    if event.down:
        return f"{name}'s turn ends: at 0 Health Levels they take no actions."
    if event.failure == "collapse":
        gain = "; the GM gains 1 Collapse point" if sight.gm else ""
        return f"{name}'s turn ends on a failed roll{gain}."
    if event.failure == "consequence":
        note = f": {event.note}" if event.note else ""
        return f"{name}'s turn ends on a failed roll with a consequence{note}."
    return f"{name} ends their turn."


def _turn_skipped(state: State, event: TurnSkipped, sight: Sight) -> str:
    return f"The GM skips {sight.name(event.fighter)}'s turn this round."


# --- Phase 3 -------------------------------------------------------------------------------------------------------


def _resolved(state: State, event: Resolved, sight: Sight) -> str | None:
    d = state.declaration(event.id)
    target = sight.name(d.target)
    levels = f"{event.damage} Health Level{_plural(event.damage)}"
    if sight.unseen(d.enemy):
        if event.outcome != "hit" or not event.damage:
            return None
        return f"Something unseen hits {target} for {levels}."
    text = {
        "hit": f"hits {target} for {levels}",
        "missed": f"misses {target} (out of range)",
        "cancelled": f"is foiled: {target} was defended",
        "skipped": "does not happen: the enemy is at 0 Health Levels",
    }[event.outcome]
    at_zero = _at_zero(state, d.target, event.damage if event.outcome == "hit" else 0)
    return f"{sight.name(d.enemy)}'s {d.text} {text}.{at_zero}"


# --- any time ------------------------------------------------------------------------------------------------------


def _nova_spent(state: State, event: NovaSpent, sight: Sight) -> str:
    note = f": {event.note}" if event.note else ""
    ability = " on an ability with a skill roll" if event.roll else ""
    f = state.fighter(event.fighter)
    waiting = state.settings.get("nova_at_cap") == "hold" and len(f.nova_boxes) == len(DIE_SIZES)
    refill = " Their five ticked Nova boxes now give 1 Nova point." if waiting else ""
    points = f"{event.points} Nova point{_plural(event.points)}"
    return f"{sight.name(event.fighter)} spends {points}{ability}{note}.{refill}"


def _advantages_used(state: State, event: AdvantagesUsed, sight: Sight) -> str:
    note = f": {event.note}" if event.note else ""
    return f"{sight.name(event.fighter)} spends {event.points} of the party's Advantages on an ability{note}."


def _collapse_spent(state: State, event: CollapseSpent, sight: Sight) -> str:
    """A GM-only event: players never read it."""
    note = f": {event.note}" if event.note else ""
    return f"The GM spends {event.points} Collapse point{_plural(event.points)} on {sight.name(event.enemy)}{note}."


def _health_adjusted(state: State, event: HealthAdjusted, sight: Sight) -> str | None:
    if sight.unseen(event.target):
        return None
    verb = "regains" if event.change > 0 else "loses"
    n = abs(event.change)
    return (
        f"{sight.name(event.target)} {verb} {n} Health Level{_plural(n)}.{_at_zero(state, event.target, -event.change)}"
    )


def _nova_adjusted(state: State, event: NovaAdjusted, sight: Sight) -> str:
    verb = "gains" if event.change > 0 else "loses"
    n = abs(event.change)
    return f"{sight.name(event.target)} {verb} {n} Nova point{_plural(n)}."


def _condition_set(state: State, event: ConditionSet, sight: Sight) -> str | None:
    if sight.unseen(event.target):
        return None
    label = event.slot.replace("neg_", "negative ").replace("pos_", "positive ").replace("_", " ")
    return f"{sight.name(event.target)}'s {label} condition is now {event.value or 'cleared'}."


DESCRIBERS: dict[type[Event], Callable[[State, Any, Sight], str | None]] = {
    Declared: _declared,
    DeclarationChanged: _declaration_changed,
    PhaseStarted: _phase_started,
    TurnStarted: _turn_started,
    SkillRolled: _skill_rolled,
    AdvantageSpent: _advantage_spent,
    Moved: _moved,
    TurnEnded: _turn_ended,
    TurnSkipped: _turn_skipped,
    Resolved: _resolved,
    NovaSpent: _nova_spent,
    AdvantagesUsed: _advantages_used,
    CollapseSpent: _collapse_spent,
    HealthAdjusted: _health_adjusted,
    NovaAdjusted: _nova_adjusted,
    ConditionSet: _condition_set,
    Revealed: lambda state, event, sight: describe_revealed(state, event),
}
