"""`evolve(state, event) -> State`: what each SW5e event does to the state. Pure: no dice, no clock.

This is the STORED SCHEMA together with events.py: every saved log replays through these handlers, so a change
here changes what old encounters replay to. One handler per event class, found through `EVOLVERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from combat.rules.core import Event
from combat.rules.free_roll import DiceRolled, evolve_dice_rolled
from combat.rules.sw5e import disabled
from combat.rules.sw5e import ship as sw
from combat.rules.sw5e.events import (
    ActionAllowed,
    ActionTaken,
    CombatStarted,
    CrewAssigned,
    CrewOrderSet,
    CrewTurnEnded,
    CrewTurnStarted,
    HullPatched,
    InitiativeRolled,
    PowerDistributed,
    PowerSpent,
    RoundStarted,
    ShieldDieRolled,
    ShieldsRegenerated,
    ShipAdjusted,
    ShipDamaged,
    ShipInitiativeSet,
    ShipTurnEnded,
    ShipTurnSkipped,
    ShipTurnStarted,
    StealthRolled,
    SurpriseSet,
    TiesOrdered,
    WeaponFired,
)
from combat.rules.sw5e.state import (
    ADJUSTABLE,
    BOOSTS,
    PER_SHIP_TURN,
    CustomAction,
    Fighter,
    Ship,
    State,
    adjust_limit,
    hull_max,
    put_fighter,
    put_ship,
    shields_max,
)


def evolve(state: State, event: Event) -> State:
    """The state after `event`. An event class with no handler is a bug in this package, not bad input."""
    handler = EVOLVERS.get(type(event))
    if handler is None:
        raise TypeError(f"SW5e's evolve has no handler for {type(event).__name__} events (kind {event.kind!r}).")
    return handler(state, event)


# --- rules the log's numbers follow (describe words them the same way) ------------------------------------------------


def route_power(ship: Ship, produced: int, assigned: dict[str, int], state: State) -> tuple[dict[str, int], int]:
    """(dice added per store, dice lost) when the crew assigns `assigned` out of `produced` new power dice."""
    added: dict[str, int] = {}
    lost = 0
    budget = produced
    for store in sw.STORES:
        want = min(max(0, assigned.get(store, 0)), budget)
        budget -= want
        fit = min(want, ship.free(store))
        if fit:
            added[store] = fit
        lost += want - fit
    if budget and state.setting("unassigned_power") == "central_then_lost":
        room = max(0, ship.free("central") - added.get("central", 0))
        fit = min(budget, room)
        if fit:
            added["central"] = added.get("central", 0) + fit
        budget -= fit
    return added, lost + budget


def split_damage(state: State, ship: Ship, amount: int) -> tuple[int, int, str]:
    """(to shields, to hull, status after): shields first, then hull; at 0 hull the ship is destroyed when the
    damage left over is at least its maximum hull points (halved at system damage level 4), else disabled. Under the
    `disable_at_zero` setting "disable" damage never destroys a ship outright."""
    to_shields = min(ship.shields, amount)
    rest = amount - to_shields
    to_hull = min(ship.hull, rest)
    left_over = rest - to_hull
    if ship.status == "destroyed":
        return to_shields, to_hull, "destroyed"
    if ship.hull - to_hull > 0:
        return to_shields, to_hull, ship.status
    massive = left_over >= hull_max(state, ship) and state.setting("disable_at_zero") != "disable"
    return to_shields, to_hull, "destroyed" if massive else "disabled"


def _each_fighter(state: State, change: Callable[[Fighter], Fighter]) -> State:
    return replace(state, fighters=tuple(change(f) for f in state.fighters))


# --- set-up -----------------------------------------------------------------------------------------------------------


def _crew_assigned(state: State, event: CrewAssigned) -> State:
    if event.station == "pilot":  # one helm per ship: whoever held it steps off
        state = _each_fighter(
            state, lambda f: replace(f, station="") if f.ship == event.ship and f.station == "pilot" else f
        )
    return put_fighter(state, replace(state.fighter(event.fighter), ship=event.ship, station=event.station))


def _surprise_set(state: State, event: SurpriseSet) -> State:
    if any(s.id == event.target for s in state.ships):
        return put_ship(state, replace(state.ship(event.target), surprised=event.surprised))
    # Cleared by name, a crew member is not surprised even aboard a surprised ship.
    fighter = replace(state.fighter(event.target), surprised=event.surprised, alert=not event.surprised)
    return put_fighter(state, fighter)


def _stealth_rolled(state: State, event: StealthRolled) -> State:
    return state  # the roll is kept for the log; the SurpriseSet events after it say who is surprised


def _initiative_rolled(state: State, event: InitiativeRolled) -> State:
    return put_fighter(state, replace(state.fighter(event.fighter), initiative=event.total))


def _ship_initiative_set(state: State, event: ShipInitiativeSet) -> State:
    return put_ship(state, replace(state.ship(event.ship), initiative=event.value))


def _ties_ordered(state: State, event: TiesOrdered) -> State:
    return replace(state, tie_order=event.order)


def _combat_started(state: State, event: CombatStarted) -> State:
    ships = tuple(replace(s, initiative=event.initiative.get(s.id, s.initiative)) for s in state.ships)
    return replace(state, started=True, order=event.order, ships=ships)


# --- rounds and ship turns --------------------------------------------------------------------------------------------


def _round_started(state: State, event: RoundStarted) -> State:
    ships = tuple(replace(s, actions=()) for s in state.ships)
    state = replace(state, round=event.round, ships=ships, helm_taken={})
    return _each_fighter(state, lambda f: replace(f, took_turn=False))


def _ship_turn_started(state: State, event: ShipTurnStarted) -> State:
    ship = replace(state.ship(event.ship), boosts=())
    state = put_ship(state, ship)
    return replace(
        state,
        ship_turn=ship.id,
        stage="power" if event.produced > 0 else "start",
        pending_power=max(0, event.produced),
        crew_order=(),
        order_by="",
        order_final=False,
        acting="",
        turn_actions=(),
    )


def _ship_turn_skipped(state: State, event: ShipTurnSkipped) -> State:
    ship = state.ship(event.ship)
    state = put_ship(state, replace(ship, turns=ship.turns + 1, surprised=False))
    if event.reason == "surprised":  # the crew's first turns are lost with the ship's
        state = _each_fighter(
            state, lambda f: replace(f, turns=1, took_turn=True) if f.ship == ship.id and f.turns == 0 else f
        )
    return state


def _power_distributed(state: State, event: PowerDistributed) -> State:
    ship = state.ship(event.ship)
    added, _ = route_power(ship, event.produced, event.assigned, state)
    power = {store: ship.stored(store) + added.get(store, 0) for store in sw.STORES}  # added never exceeds room
    state = put_ship(state, replace(ship, power=power))
    if state.ship_turn == ship.id and state.stage == "power":
        state = replace(state, stage="start", pending_power=0)
    return state


def _shields_regenerated(state: State, event: ShieldsRegenerated) -> State:
    ship = state.ship(event.ship)
    if ship.shields > 0 and ship.shield_dice > 0:
        ship = replace(
            ship, shields=min(shields_max(state, ship), ship.shields + event.points), shield_dice=ship.shield_dice - 1
        )
        state = put_ship(state, ship)
    if state.ship_turn == ship.id and state.stage == "start":
        state = replace(state, stage="crew")
    return state


def _crew_order_set(state: State, event: CrewOrderSet) -> State:
    return replace(state, crew_order=event.order, order_by=event.by, order_final=event.final)


def _ship_turn_ended(state: State, event: ShipTurnEnded) -> State:
    ship = state.ship(event.ship)
    state = put_ship(state, replace(ship, turns=ship.turns + 1, surprised=False))
    return replace(
        state, ship_turn="", stage="", pending_power=0, crew_order=(), order_by="", order_final=False, acting=""
    )


# --- crew turns -------------------------------------------------------------------------------------------------------


def _crew_turn_started(state: State, event: CrewTurnStarted) -> State:
    f = state.fighter(event.fighter)
    state = put_fighter(state, replace(f, action_used=False, bonus_used=False, reaction_used=False, helm_used=False))
    return replace(state, acting=f.id, stage="crew" if state.stage == "start" else state.stage)


def _crew_turn_ended(state: State, event: CrewTurnEnded) -> State:
    f = state.fighter(event.fighter)
    state = put_fighter(state, replace(f, turns=f.turns + 1, took_turn=True))
    return replace(state, acting="" if state.acting == f.id else state.acting)


def _action_taken(state: State, event: ActionTaken) -> State:
    f = state.fighter(event.fighter)
    f = replace(
        f,
        action_used=f.action_used or event.slot == "action",
        bonus_used=f.bonus_used or event.slot == "bonus",
        reaction_used=f.reaction_used or event.slot == "reaction",
        helm_used=f.helm_used or event.helm,
    )
    state = put_fighter(state, f)
    ship = state.ship(event.ship)
    counted = state.counted(event.action, event.weapon)
    if counted:
        ship = replace(ship, actions=ship.actions + (counted,))
    if event.action in BOOSTS:
        ship = replace(ship, boosts=ship.boosts + (event.action,))
    if event.action in PER_SHIP_TURN:
        state = replace(state, turn_actions=state.turn_actions + (event.action,))
    if event.helm:  # one crew member takes the ship's helm actions this round, whoever is at the helm later
        state = replace(state, helm_taken={**state.helm_taken, ship.id: f.id})
    return put_ship(state, ship)


def _hull_patched(state: State, event: HullPatched) -> State:
    ship = state.ship(event.ship)
    if ship.hull_dice > 0 and ship.status != "destroyed":
        hull = min(hull_max(state, ship), ship.hull + event.points)
        status = "active" if hull > 0 else ship.status
        state = put_ship(state, replace(ship, hull=hull, hull_dice=ship.hull_dice - 1, status=status))
    return state


def _shield_die_rolled(state: State, event: ShieldDieRolled) -> State:
    ship = state.ship(event.ship)
    if ship.shield_dice > 0 and ship.status != "destroyed":
        shields = min(shields_max(state, ship), ship.shields + event.points)
        state = put_ship(state, replace(ship, shields=shields, shield_dice=ship.shield_dice - 1))
    return state


def _power_spent(state: State, event: PowerSpent) -> State:
    ship = state.ship(event.ship)
    power = {**ship.power, event.store: max(0, ship.stored(event.store) - len(event.faces))}
    shields = ship.shields
    if event.shield_points > 0 and ship.status != "destroyed":  # dice spent on shields restore them, up to the top
        shields = max(shields, min(shields_max(state, ship), shields + event.shield_points))
    return put_ship(state, replace(ship, power=power, shields=shields))


# --- the GM's hand ----------------------------------------------------------------------------------------------------


def _ship_damaged(state: State, event: ShipDamaged) -> State:
    ship = state.ship(event.ship)
    to_shields, to_hull, status = split_damage(state, ship, event.amount)
    return put_ship(state, replace(ship, shields=ship.shields - to_shields, hull=ship.hull - to_hull, status=status))


def _weapon_fired(state: State, event: WeaponFired) -> State:
    """The damage of a hit, like the GM's damage: shields first, then hull."""
    if event.amount <= 0:
        return state
    return _ship_damaged(state, ShipDamaged(ship=event.target, amount=event.amount))


def _ship_adjusted(state: State, event: ShipAdjusted) -> State:
    ship = state.ship(event.ship)
    if ship.status == "destroyed" or event.what not in ADJUSTABLE:
        return state
    value = max(0, min(adjust_limit(state, ship, event.what), event.value))
    if event.what.startswith("power_"):
        ship = replace(ship, power={**ship.power, event.what.removeprefix("power_"): value})
    else:
        number: dict[str, Any] = {event.what: value}  # hull, shields, hull_dice or shield_dice
        ship = replace(ship, **number)
    if event.what == "hull":
        ship = replace(ship, status="active" if value > 0 else "disabled")
    return put_ship(state, ship)


def _action_allowed(state: State, event: ActionAllowed) -> State:
    if state.custom_action(event.key) is not None:
        return state
    custom = CustomAction(event.key, event.label, event.helm, event.repeat)
    return replace(state, custom_actions=state.custom_actions + (custom,))


EVOLVERS: dict[type[Event], Callable[[State, Any], State]] = {
    DiceRolled: evolve_dice_rolled,
    CrewAssigned: _crew_assigned,
    SurpriseSet: _surprise_set,
    StealthRolled: _stealth_rolled,
    InitiativeRolled: _initiative_rolled,
    ShipInitiativeSet: _ship_initiative_set,
    TiesOrdered: _ties_ordered,
    CombatStarted: _combat_started,
    RoundStarted: _round_started,
    ShipTurnStarted: _ship_turn_started,
    ShipTurnSkipped: _ship_turn_skipped,
    PowerDistributed: _power_distributed,
    ShieldsRegenerated: _shields_regenerated,
    CrewOrderSet: _crew_order_set,
    ShipTurnEnded: _ship_turn_ended,
    CrewTurnStarted: _crew_turn_started,
    CrewTurnEnded: _crew_turn_ended,
    ActionTaken: _action_taken,
    HullPatched: _hull_patched,
    PowerSpent: _power_spent,
    ShieldDieRolled: _shield_die_rolled,
    ShipDamaged: _ship_damaged,
    ShipAdjusted: _ship_adjusted,
    ActionAllowed: _action_allowed,
    WeaponFired: _weapon_fired,
}
# A ship at 0 hull points: system damage, destruction saves, stabilising (disabled.py).
EVOLVERS.update(disabled.EVOLVERS)
