"""`evolve(state, event) -> state`: one Burn Bryte event applied, with no dice and no clock.

Part of the stored schema with events.py: every saved log replays through these functions, so a change here
changes what old fights replay to. One function per event class, found through `EVOLVERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
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
from combat.rules.burn_bryte.gear import absorb, drain_cost
from combat.rules.burn_bryte.state import Declaration, Fighter, Roll, State
from combat.rules.burn_bryte.stats import DIE_SIZES
from combat.rules.core import Event, Revealed, evolve_revealed
from combat.rules.free_roll import DiceRolled, evolve_dice_rolled


def evolve(state: State, event: Event) -> State:
    handler = EVOLVERS.get(type(event))
    if handler is None:
        raise TypeError(f"Burn Bryte has no evolve for the event {type(event).__name__}.")
    return handler(state, event)


# --- small steps events share ----------------------------------------------------------------------------------


def _put(state: State, fighter: Fighter) -> State:
    return replace(state, fighters=tuple(fighter if f.id == fighter.id else f for f in state.fighters))


def _put_declaration(state: State, declaration: Declaration) -> State:
    return replace(state, declarations=tuple(declaration if d.id == declaration.id else d for d in state.declarations))


def _roll_of(roll: Roll | None) -> Roll:
    """The roll an event speaks of; the log only speaks of one when there is one."""
    if roll is None:
        raise ValueError("A roll event without its roll.")
    return roll


def _damage(state: State, fighter_id: str, amount: int) -> State:
    fighter = state.fighter(fighter_id)
    health = max(0, min(fighter.health_max, fighter.health - amount))
    updated = replace(fighter, health=health)
    if fighter.side == "pc" and health == 0 and fighter.health > 0:
        conditions, _ = fighter.conditions.gain_least_severe()
        updated = replace(updated, conditions=conditions)
    return _put(state, updated)


def _hit(state: State, fighter_id: str, amount: int) -> State:
    """An attack's damage: the personal shield absorbs first, the rest comes off Health Levels."""
    fighter = state.fighter(fighter_id)
    shield, through = absorb(fighter.shield, amount)
    return _damage(_put(state, replace(fighter, shield=shield)), fighter_id, through)


def _tick_nova(state: State, fighter: Fighter, sides: int) -> Fighter:
    if fighter.side != "pc" or sides not in DIE_SIZES:
        return fighter
    boxes = tuple(sorted(set(fighter.nova_boxes) | {sides}))
    return _settle_nova(state, replace(fighter, nova_boxes=boxes))


def _settle_nova(state: State, fighter: Fighter) -> Fighter:
    """All five boxes ticked: +1 Nova point and clear them. At the cap the GM's setting says whether the boxes
    wait, ticked, for room (a log without the setting clears them, as it always did)."""
    if len(fighter.nova_boxes) != len(DIE_SIZES):
        return fighter
    if fighter.nova_points >= state.room and state.settings.get("nova_at_cap", "clear") == "hold":
        return fighter
    return replace(fighter, nova_boxes=(), nova_points=min(state.room, fighter.nova_points + 1))


def _room_for_nova(state: State, fighter: Fighter) -> Fighter:
    """Nova points went down: boxes left waiting at the cap ("hold") now give their point."""
    return _settle_nova(state, fighter) if state.settings.get("nova_at_cap") == "hold" else fighter


def _drains_on_miss(state: State) -> bool:
    """The GM's setting: a Draining attack costs its 1 unblockable damage even when the roll fails (a log without
    the setting reads it off, as it always did)."""
    return drain_cost(False, bool(state.settings.get("draining_on_miss")))


def _apply_success(state: State, roll: Roll, drain_paid: bool = False) -> State:
    if roll.intent == "attack" and roll.drained and not drain_paid:
        state = _damage(state, roll.fighter, roll.drained)  # Draining's cost: unblockable, past any shield
    if roll.intent == "attack" and roll.burst:
        state = replace(state, pending_burst=roll)  # the GM says who is in the area (BurstPlaced)
    elif roll.intent == "attack" and roll.target:
        state = _hit(state, roll.target, roll.damage)
    elif roll.intent == "defend" and roll.target:
        state = _put_declaration(state, replace(state.declaration(int(roll.target)), defended=True))
    elif roll.intent == "advantage":
        state = replace(state, advantages=state.advantages + 1 if state.advantages < state.room else state.advantages)
    elif roll.intent == "move":  # extra movement: squares the PC may now move (positions.decide_move)
        granted = positions.extra_squares(state, state.fighter(roll.fighter))
        state = replace(state, moves_left=state.moves_left + granted)
    return state


def _finish_turn(state: State, fighter_id: str) -> State:
    fighter = state.fighter(fighter_id)
    state = _put(state, replace(fighter, took_turn=True))
    return replace(
        state,
        turn="",
        turn_rolls=0,
        free_move_used=False,
        moves_left=0,
        pending_failure=False,
        last_roll=None,
        picker=fighter_id if state.chain else "",
    )


# --- one function per event -------------------------------------------------------------------------------------


def _declared(state: State, event: Declared) -> State:
    declaration = Declaration(
        id=event.id, enemy=event.enemy, target=event.target, text=event.text, extra=event.extra, weapon=event.weapon
    )
    state = replace(state, declarations=state.declarations + (declaration,), next_declaration=event.id + 1)
    return replace(state, collapse=state.collapse - 1) if event.extra else state


def _declaration_changed(state: State, event: DeclarationChanged) -> State:
    declaration = state.declaration(event.id)
    state = _put_declaration(state, replace(declaration, target=event.target, text=event.text))
    return replace(state, collapse=state.collapse - event.cost)


def _phase_started(state: State, event: PhaseStarted) -> State:
    if event.round != state.round:
        fighters = tuple(replace(f, took_turn=False) for f in state.fighters)
        state = replace(state, fighters=fighters, declarations=(), chain=False, picker="")
    state = replace(state, fighters=tuple(replace(f, moved=0) if f.moved else f for f in state.fighters))
    return replace(
        state, round=event.round, phase=event.phase, turn="", turn_rolls=0, free_move_used=False, moves_left=0
    )


def _turn_started(state: State, event: TurnStarted) -> State:
    return replace(
        state,
        turn=event.fighter,
        turn_rolls=0,
        free_move_used=False,
        moves_left=0,
        pending_failure=False,
        last_roll=None,
        chain=state.chain or event.chain,
        picker="",
    )


def _skill_rolled(state: State, event: SkillRolled) -> State:
    roll = _roll_of(event.roll)
    fighter = _tick_nova(state, state.fighter(roll.fighter), roll.sides)
    state = _put(state, fighter)
    state = replace(state, turn_rolls=state.turn_rolls + 1, last_roll=roll)
    if roll.intent == "move" and not state.free_move_used:
        state = replace(state, free_move_used=True)  # a first move that needs a roll uses up the free move
    if roll.succeeded:
        return _apply_success(state, roll)
    if roll.intent == "attack" and roll.drained and _drains_on_miss(state):
        state = _damage(state, roll.fighter, roll.drained)  # paid on a miss too, by the GM's setting
    return replace(state, pending_failure=True)


def _advantage_spent(state: State, event: AdvantageSpent) -> State:
    roll = _roll_of(state.last_roll)
    faces = tuple(event.face if i == event.die else f for i, f in enumerate(roll.faces))
    rerolled = replace(roll, faces=faces)
    state = replace(state, advantages=state.advantages - 1, last_roll=rerolled)
    if rerolled.succeeded:
        return _apply_success(replace(state, pending_failure=False), rerolled, drain_paid=_drains_on_miss(state))
    return state


def _turn_ended(state: State, event: TurnEnded) -> State:
    if event.failure == "collapse":
        state = replace(state, collapse=state.collapse + 1)
    state = _finish_turn(state, event.fighter)
    return replace(state, picker="") if event.down else state  # a PC at 0 takes no actions: the GM picks next


def _turn_skipped(state: State, event: TurnSkipped) -> State:
    return _put(state, replace(state.fighter(event.fighter), took_turn=True))


def _resolved(state: State, event: Resolved) -> State:
    declaration = state.declaration(event.id)
    state = _put_declaration(state, replace(declaration, outcome=event.outcome))
    if event.outcome == "hit" and event.damage:
        for target in event.targets or (declaration.target,):
            state = _hit(state, target, event.damage)
    if event.drained:
        state = _damage(state, declaration.enemy, event.drained)  # Draining's cost: unblockable, past any shield
    return state


def _nova_spent(state: State, event: NovaSpent) -> State:
    fighter = state.fighter(event.fighter)
    return _put(state, _room_for_nova(state, replace(fighter, nova_points=fighter.nova_points - event.points)))


def _advantages_used(state: State, event: AdvantagesUsed) -> State:
    return replace(state, advantages=state.advantages - event.points)


def _collapse_spent(state: State, event: CollapseSpent) -> State:
    return replace(state, collapse=state.collapse - event.points)


def _health_adjusted(state: State, event: HealthAdjusted) -> State:
    return _damage(state, event.target, -event.change)


def _nova_adjusted(state: State, event: NovaAdjusted) -> State:
    fighter = state.fighter(event.target)
    return _put(state, _room_for_nova(state, replace(fighter, nova_points=fighter.nova_points + event.change)))


def _condition_set(state: State, event: ConditionSet) -> State:
    fighter = state.fighter(event.target)
    value: str | bool = event.value
    if event.slot.endswith("significant"):
        value = event.value == "yes"
    change: dict[str, Any] = {event.slot: value}
    return _put(state, replace(fighter, conditions=replace(fighter.conditions, **change)))


# --- gear: Burst areas and the ship (gear.py) --------------------------------------------------------------------


def _burst_placed(state: State, event: BurstPlaced) -> State:
    for target in event.targets:
        state = _hit(state, target, event.damage)
    return replace(state, pending_burst=None)


def _ship_damaged(state: State, event: ShipDamaged) -> State:
    return replace(state, ship_health=max(0, min(state.ship_health_max, state.ship_health + event.change)))


def _shield_recharged(state: State, event: ShieldRecharged) -> State:
    fighter = state.fighter(event.target)
    return _put(state, replace(fighter, shield=min(fighter.shield_max, fighter.shield + event.points)))


EVOLVERS: dict[type[Event], Callable[[State, Any], State]] = {
    DiceRolled: evolve_dice_rolled,
    Declared: _declared,
    DeclarationChanged: _declaration_changed,
    PhaseStarted: _phase_started,
    TurnStarted: _turn_started,
    SkillRolled: _skill_rolled,
    AdvantageSpent: _advantage_spent,
    Moved: positions.evolve_moved,
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
    Placed: positions.evolve_placed,
    Revealed: evolve_revealed,
}
