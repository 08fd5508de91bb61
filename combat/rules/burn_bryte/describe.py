"""`describe(state, event, gm) -> sentence`: one plain sentence for the log, read against the state the event was
applied to. One function per event class, found through `DESCRIBERS`.

For players (gm=False) the sentence leaves out what only the GM knows: Collapse points, and anything about an
enemy the party is not aware of (None: no entry at all, or an unnamed hit). Who a viewer may know of is the core's
`Sight`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from combat.rules.burn_bryte import positions
from combat.rules.burn_bryte.events import (
    AdvantageSpent,
    AdvantagesUsed,
    BurstPlaced,
    CollapseSpent,
    ConditionSet,
    DeclarationChanged,
    Declared,
    HealthAdjusted,
    Moved,
    NovaAdjusted,
    NovaSpent,
    PhaseStarted,
    Placed,
    Resolved,
    ShieldRecharged,
    ShipDamaged,
    SkillRolled,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
)
from combat.rules.burn_bryte.gear import absorb
from combat.rules.burn_bryte.state import Roll, State
from combat.rules.burn_bryte.stats import DIE_SIZES
from combat.rules.core import Event, Revealed, RuleError, Sight, describe_revealed
from combat.rules.free_roll import DiceRolled, describe_dice_rolled

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
    weapon = f" with {event.weapon}" if event.weapon else ""
    return f"{sight.name(event.enemy)} declares: {event.text}{weapon} against {sight.name(event.target)}{extra}."


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
        "attack": f"to attack {_aim(roll, sight)}",
        "defend": "to defend against a declared attack",
        "advantage": "to create an advantage",
        "move": "to move",
        "other": "",
    }[roll.intent]
    note = f" — {event.note}" if event.note else ""
    if roll.out_of_range:  # the GM's setting only warns: the log keeps the distance for the GM to adjudicate
        note += f" (out of range at {roll.out_of_range} squares: the GM adjudicates)"
    gear = _gear(state, roll, sight) if roll.intent == "attack" else ("", "")
    return (
        f"{sight.name(roll.fighter)} rolls {roll.skill} {what}{gear[0]} at complexity {roll.complexity}: "
        f"{roll.complexity}d{roll.sides} show {_faces(roll)}; the roll {verdict}{note}.{gear[1]}"
    ).replace("  ", " ")


def _aim(roll: Roll, sight: Sight) -> str:
    """What an attack was aimed at: its target, or the square a Burst was aimed at."""
    if roll.at_col and not roll.target:
        return f"the area around {positions.square_name(roll.at_col, roll.at_row)}"
    return sight.name(roll.target)


def _advantage_spent(state: State, event: AdvantageSpent, sight: Sight) -> str:
    entered = " (entered)" if event.entered else ""
    roller = state.last_roll.fighter if state.last_roll else event.fighter
    whose = "" if roller == event.fighter else f" of {sight.name(roller)}'s roll"
    return (
        f"{sight.name(event.fighter)} spends an Advantage to reroll die {event.die + 1}{whose}: "
        f"it shows {event.face}{entered}."
    )


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
    if event.targets:
        return _resolved_burst(state, event, sight)
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
    if event.out_of_range and event.outcome == "missed":
        text = f"misses {target} (out of range: {event.out_of_range} squares)"
    elif event.out_of_range and event.outcome == "hit":
        text += f" (out of range at {event.out_of_range} squares: the GM resolved it anyway)"
    hit = event.damage if event.outcome == "hit" else 0
    at_zero = _shielded(state, d.target, hit, sight) + _at_zero(state, d.target, _through(state, d.target, hit))
    weapon = f" ({d.weapon})" if d.weapon else ""
    return f"{sight.name(d.enemy)}'s {d.text}{weapon} {text}.{at_zero}{_enemy_drained(event, d.enemy, sight)}"


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


# --- gear: weapons, shields, Burst areas and the ship (gear.py) -------------------------------------------------------


def _through(state: State, fighter_id: str, damage: int) -> int:
    """The part of an attack's damage the target's personal shield lets through."""
    try:
        return absorb(state.fighter(fighter_id).shield, damage)[1]
    except RuleError:
        return damage


def _shielded(state: State, fighter_id: str, damage: int, sight: Sight) -> str:
    """ " X's shield absorbs N." when a personal shield takes some of an attack ("" otherwise)."""
    taken = damage - _through(state, fighter_id, damage)
    if not taken or sight.unseen(fighter_id):
        return ""
    return f" {sight.name(fighter_id)}'s shield absorbs {taken}."


def _gear(state: State, roll: Roll, sight: Sight) -> tuple[str, str]:
    """(" with the weapon", what a hit does) for an attack made with a weapon or its traits; ("", "") otherwise."""
    if not (roll.weapon or roll.burst or roll.drained or roll.extra):
        return "", ""
    with_weapon = f" with {roll.weapon}" if roll.weapon else ""
    name = sight.name(roll.fighter)
    drained = f" {name} takes {roll.drained} unblockable damage (Draining)." if roll.drained else ""
    if not roll.succeeded:
        return with_weapon, drained if state.settings.get("draining_on_miss") else ""
    extra = f" ({roll.extra} extra from an ability or Nova)" if roll.extra else ""
    if roll.burst:
        area = f" Burst {roll.burst}: the GM says who is in the area; {roll.damage} damage each{extra}."
        return with_weapon, area + drained
    through = _through(state, roll.target, roll.damage)
    hit = f" {sight.name(roll.target)} takes {roll.damage} damage{extra}."
    return with_weapon, hit + _shielded(state, roll.target, roll.damage, sight) + _at_zero(
        state, roll.target, through
    ) + drained


def _enemy_drained(event: Resolved, enemy: str, sight: Sight) -> str:
    """ " X takes 1 unblockable damage (Draining)." for an enemy that drained its weapon ("" otherwise)."""
    if not event.drained or sight.unseen(enemy):
        return ""
    return f" {sight.name(enemy)} takes {event.drained} unblockable damage (Draining)."


def _resolved_burst(state: State, event: Resolved, sight: Sight) -> str:
    """An enemy's Burst weapon hit every creature the GM named in its area."""
    d = state.declaration(event.id)
    seen = [t for t in event.targets if not sight.unseen(t)]
    who = ", ".join(sight.name(t) for t in seen) or "someone unseen"
    if seen and len(seen) < len(event.targets):
        who += " and someone unseen"
    after = "".join(
        _shielded(state, t, event.damage, sight) + _at_zero(state, t, _through(state, t, event.damage)) for t in seen
    )
    attacker = "Something unseen" if sight.unseen(d.enemy) else f"{sight.name(d.enemy)}'s {d.text}"
    weapon = f" ({d.weapon})" if d.weapon and not sight.unseen(d.enemy) else ""
    drained = _enemy_drained(event, d.enemy, sight)
    return f"{attacker}{weapon} bursts over {who} for {event.damage} damage each.{after}{drained}"


def _shield_recharged(state: State, event: ShieldRecharged, sight: Sight) -> str | None:
    if sight.unseen(event.target):
        return None
    f = state.fighter(event.target)
    now = min(f.shield_max, f.shield + event.points)
    return f"The GM recharges {sight.name(event.target)}'s shield by {event.points} ({now}/{f.shield_max})."


def _burst_placed(state: State, event: BurstPlaced, sight: Sight) -> str:
    name = sight.name(event.fighter)
    seen = [t for t in event.targets if not sight.unseen(t)]
    if not event.targets:
        return f"{name}'s Burst catches nobody."
    who = ", ".join(sight.name(t) for t in seen) or "someone unseen"
    if len(seen) < len(event.targets) and seen:
        who += " and someone unseen"
    after = "".join(
        _shielded(state, t, event.damage, sight) + _at_zero(state, t, _through(state, t, event.damage)) for t in seen
    )
    return f"{name}'s Burst hits {who} for {event.damage} damage each.{after}"


def _ship_damaged(state: State, event: ShipDamaged, sight: Sight) -> str:
    now = max(0, min(state.ship_health_max, state.ship_health + event.change))
    verb = "regains" if event.change > 0 else "loses"
    n = abs(event.change)
    dark = " The ship goes dark." if now == 0 and state.ship_health > 0 else ""
    lit = " The ship's MI wakes: it is no longer dark." if now > 0 and state.ship_health == 0 else ""
    return f"{state.ship_name}'s MI {verb} {n} Health Level{_plural(n)} ({now}/{state.ship_health_max}).{dark}{lit}"


DESCRIBERS: dict[type[Event], Callable[[State, Any, Sight], str | None]] = {
    DiceRolled: lambda state, event, sight: describe_dice_rolled(state, event, sight.gm, doubles=True),
    Declared: _declared,
    DeclarationChanged: _declaration_changed,
    PhaseStarted: _phase_started,
    TurnStarted: _turn_started,
    SkillRolled: _skill_rolled,
    AdvantageSpent: _advantage_spent,
    Moved: positions.describe_moved,
    TurnEnded: _turn_ended,
    TurnSkipped: _turn_skipped,
    Resolved: _resolved,
    NovaSpent: _nova_spent,
    AdvantagesUsed: _advantages_used,
    CollapseSpent: _collapse_spent,
    HealthAdjusted: _health_adjusted,
    NovaAdjusted: _nova_adjusted,
    ConditionSet: _condition_set,
    BurstPlaced: _burst_placed,
    ShipDamaged: _ship_damaged,
    ShieldRecharged: _shield_recharged,
    Placed: positions.describe_placed,
    Revealed: lambda state, event, sight: describe_revealed(state, event),
}
