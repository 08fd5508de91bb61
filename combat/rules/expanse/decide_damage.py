"""The Expanse (AGE) deciders for damage waiting to be taken: Fortune spent against it, the injured and wounded
conditions, being taken out, and rolling over (bowing out with a condition, if the GM agrees).

Damage goes through Toughness when the hit is made (evolve does that); here the one hit answers with Fortune,
then with conditions, and is taken out when no condition is left to take.
"""

from __future__ import annotations

from combat.rules.core import Event, require
from combat.rules.dice import Dice
from combat.rules.expanse import rulebook as book
from combat.rules.expanse.commands import AcceptCondition, ApproveRollOver, RollOver, SpendFortune
from combat.rules.expanse.decide_checks import simulate
from combat.rules.expanse.events import (
    ConditionTaken,
    FortuneSpent,
    GuardTransferred,
    RolledOver,
    RollOverAsked,
    TakenOut,
)
from combat.rules.expanse.state import Fighter, Hit, State, known, next_condition
from combat.rules.expanse.stats import CONDITIONS


def _open_hit(state: State, f: Fighter, hit_id: int) -> Hit:
    waiting = [h for h in state.hits if h.target == f.id and h.open]
    require(bool(waiting), f"{f.name} has no damage waiting.")
    if hit_id:
        chosen = [h for h in waiting if h.id == hit_id]
        require(bool(chosen), "That damage is not waiting for this combatant.")
        return chosen[0]
    return waiting[0]


def _guard_events(state: State, f: Fighter, hit: Hit) -> list[Event]:
    """Guardian Angel: before the ally first deals with fresh damage, the guardian takes their share."""
    if not hit.fresh or hit.remaining == 0:
        return []
    for e in state.effects_on(f.id, "guardian"):
        guardian = state.fighter(e.source)
        if not guardian.out:
            points = min(e.points, hit.remaining)
            return [GuardTransferred(guardian=guardian.id, ally=f.id, hit=hit.id, points=points)]
    return []


def spend_fortune(state: State, c: SpendFortune, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    hit = _open_hit(state, f, c.hit)
    require(hit.stage == "fortune", f"{f.name} has already decided how much Fortune to spend on that damage.")
    events = _guard_events(state, f, hit)
    after = simulate(state, events)
    hit = known(after.hit(hit.id), "The damage")
    top = min(f.fortune, hit.remaining)
    require(0 <= c.points <= top, f"{f.name} can spend 0 to {top} Fortune on this damage.")
    events.append(FortuneSpent(fighter=f.id, hit=hit.id, points=c.points))
    return events + _forced_out(simulate(after, events[-1:]), f.id, hit.id)


def _forced_out(state: State, fighter_id: str, hit_id: int) -> list[Event]:
    """Damage left with no condition left to take: the combatant is taken out."""
    f, hit = state.fighter(fighter_id), state.hit(hit_id)
    if hit and hit.open and hit.remaining > 0 and not next_condition(state, f) and not f.out:
        return [TakenOut(fighter=f.id, hit=hit.id, condition=book.STUNNED_OUT if hit.stunning else "")]
    return []


def accept_condition(state: State, c: AcceptCondition, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    hit = _open_hit(state, f, c.hit)
    require(c.choice in ("condition", "taken_out"), "Take a condition, or be taken out.")
    events: list[Event] = []
    if hit.stage == "fortune":  # no Fortune spent: say so first
        events = _guard_events(state, f, hit)
        events.append(FortuneSpent(fighter=f.id, hit=hit.id, points=0))
        after = simulate(state, events)
        hit = known(after.hit(hit.id), "The damage")
        if not hit.open:
            return events
        forced = _forced_out(after, f.id, hit.id)
        if forced:
            return events + forced
        state = after
    if c.choice == "taken_out":
        return events + [TakenOut(fighter=f.id, hit=hit.id, condition=book.STUNNED_OUT if hit.stunning else "")]
    condition = next_condition(state, f)
    require(bool(condition), f"{f.name} is already injured and wounded: they are taken out unless they roll over.")
    roll = dice.roll(1, book.INJURY_DIE)[0]
    events.append(ConditionTaken(fighter=f.id, hit=hit.id, condition=condition, roll=roll))
    return events + _forced_out(simulate(state, events[-1:]), f.id, hit.id)


def roll_over(state: State, c: RollOver, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    require(not f.out, f"{f.name} is already out of the encounter.")
    require(not f.roll_over_asked, f"{f.name} has already asked to roll over; the GM decides.")
    allowed = tuple(x for x in CONDITIONS if x != book.TAKEN_OUT)
    require(c.condition in allowed, f"Choose the condition to take: {', '.join(allowed)}.")
    return [RollOverAsked(fighter=f.id, condition=c.condition)]


def approve_roll_over(state: State, c: ApproveRollOver, dice: Dice) -> list[Event]:
    f = state.fighter(c.fighter)
    require(bool(f.roll_over_asked), f"{f.name} has not asked to roll over.")
    require(not f.out, f"{f.name} is already out of the encounter.")
    condition = c.condition or f.roll_over_asked
    require(condition in CONDITIONS and condition != book.TAKEN_OUT, "Choose one of the conditions.")
    return [RolledOver(fighter=f.id, condition=condition, approved=c.approve)]
