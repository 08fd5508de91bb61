"""A ship at 0 hull points (issue 18): destroyed or disabled, system damage, destruction saves, stabilising, and
what a disabled ship's crew may still do.

Rules notes (../shared/rules/sw5e-starships.md): "At 0 hull points: destroyed if the remaining damage ≥ max hull,
else disabled with system damage and destruction saves (d20 ≥ 10; three successes stabilise)." The rest comes
from the public SW5e "Starships of the Galaxy" text (chapter 9, Dropping to 0 Hull Points; appendix A, System
Damage and Disabled), in our words:

* a ship dropped to 0 hull points and not destroyed suffers 1 level of system damage and is disabled;
* a disabled ship rolls a destruction save (a plain d20, 10 or higher succeeds) as its turn starts; three
  successes make it stable; each failure is a level of system damage; a 1 counts as two failures, a 20 gives
  the ship back 1 hull point;
* damage taken at 0 hull points is a level of system damage (two from a critical hit), and destroys the ship
  when it reaches its hull point maximum (evolve.split_damage already does that part);
* a crew member may use their action to try to stabilise it: a DC 10 Intelligence (Mechanic's Kit) check; a
  stable ship makes no saves, and stops being stable when it takes damage;
* system damage has six levels, each adding an effect (SYSTEM_DAMAGE_EFFECTS); at level 6 all primary systems
  fail, so the ship is destroyed;
* a disabled ship can't take actions or reactions: its crew may still repair it (the `disabled_crew` setting
  says which actions; its reactor makes no power and its shields do not regenerate).

Here: the pure rules (`effects`, `crew_actions`, ...), what each new event does to the state (`EVOLVERS`, joined
to evolve.py's), the events that follow damage or repairs (`after_event`, called by decide.decide for every
event) and the Stabilise decider. Three failed saves destroy the ship under the default `destroyed_by` setting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from combat.rules.core import Event
from combat.rules.core import require as _require
from combat.rules.dice import Dice
from combat.rules.sw5e.commands import Stabilise
from combat.rules.sw5e.events import (
    DestructionSaveRolled,
    HullPatched,
    ShipAdjusted,
    ShipDamaged,
    ShipExploded,
    ShipRecovered,
    StabiliseAttempted,
    SystemDamaged,
    UsedSaveRolled,
    WeaponFired,
)
from combat.rules.sw5e.state import MENU, Ship, State, hull_max, put_fighter, put_ship, shields_max

SAVE_DC = 10  # a destruction save succeeds on 10 or higher
STABILISE_DC = 10  # Intelligence (Mechanic's Kit)
SAVES_TO_STABILISE = 3
FAILURES_TO_DESTROY = 3  # under the default `destroyed_by` setting
TOP_LEVEL = 6  # system damage level 6: all primary systems fail
DISADVANTAGE_LEVEL = 3  # "disadvantage on attack rolls and saving throws"
USED_LEVEL = 5  # "Ship becomes permanently 'used'"

SYSTEM_DAMAGE_EFFECTS = (
    "disadvantage on ability checks",
    "1 slowed level",
    "disadvantage on attack rolls and saving throws",
    "hull and shield maxima and shield regeneration halved",
    "permanently used (a 1 on a crew member's roll means a destruction save)",
    "catastrophic power failure: all primary systems fail",
)

CREW_ACTIONS = {"repairs": ("patch", "direct"), "patch": ("patch",), "nothing": ()}


# --- pure rules -------------------------------------------------------------------------------------------------------


def effects(level: int) -> tuple[str, ...]:
    """The effects of `level` levels of system damage: each level adds its own to those below it."""
    return SYSTEM_DAMAGE_EFFECTS[: max(0, min(TOP_LEVEL, level))]


def disadvantage(state: State, ship: Ship) -> bool:
    """Whether `ship`'s attack rolls and saving throws have disadvantage: system damage level 3 or more, when the
    GM's `system_damage_rolls` setting has the server apply it."""
    return state.setting("system_damage_rolls") == "applied" and ship.system_damage >= DISADVANTAGE_LEVEL


def used(ship: Ship) -> bool:
    """SotG level 5: "Ship becomes permanently 'used'" (on its record, or reached in this fight)."""
    return ship.used or ship.system_damage >= USED_LEVEL


def used_save(state: State, fighter: str, ship: Ship, face: int, dice: Dice) -> list[Event]:
    """The used condition: "When a deployed crew member on a used starship rolls a 1 on an ability check, attack
    roll, or saving throw, they must make a destruction saving throw" (when the `system_damage_rolls` setting has
    the server apply system damage)."""
    if face != 1 or not used(ship) or state.setting("system_damage_rolls") != "applied":
        return []
    return [UsedSaveRolled(fighter=fighter, ship=ship.id, face=dice.roll(1, 20)[0])]


def d20(dice: Dice, disadvantaged: bool) -> tuple[int, int]:
    """(the face that counts, the face thrown away): with disadvantage two d20s and the lower counts."""
    if not disadvantaged:
        return dice.roll(1, 20)[0], 0
    first, second = dice.roll(2, 20)
    return min(first, second), max(first, second)


def crew_may_act(state: State) -> bool:
    """Whether a disabled ship's crew take their turns (else the ship's turn is only its destruction save)."""
    return state.setting("disabled_crew") != "nothing"


def crew_actions(state: State) -> tuple[str, ...]:
    """The menu actions a disabled ship's crew may take (besides trying to stabilise it)."""
    return CREW_ACTIONS.get(str(state.setting("disabled_crew")), ())


def takes_turns(state: State, ship: Ship) -> bool:
    return ship.active or (ship.status == "disabled" and crew_may_act(state))


def doomed(state: State, ship: Ship) -> bool:
    """Whether a disabled ship's tally or system damage destroys it."""
    if ship.system_damage >= TOP_LEVEL:
        return True
    return state.setting("destroyed_by") == "three_failures" and ship.saves_failed >= FAILURES_TO_DESTROY


def can_stabilise(state: State, ship: Ship) -> bool:
    return ship.status == "disabled" and not ship.stable and crew_may_act(state)


def check_crew_turn(state: State, ship: Ship) -> None:
    """Refuses a crew turn aboard a ship that cannot take one."""
    if not ship.active:
        may = ship.status == "disabled" and crew_may_act(state)
        _require(may, f"{ship.name} is {ship.status}: its crew cannot act.")


def check_action(state: State, ship: Ship, key: str, slot: str) -> None:
    """Refuses an action the crew of a disabled (or destroyed) ship may not take."""
    if ship.active:
        return
    _require(ship.status == "disabled", f"{ship.name} is {ship.status}: its crew cannot act.")
    _require(slot != "reaction", f"{ship.name} is disabled: it can't take reactions.")
    allowed = crew_actions(state)
    names = " or ".join(MENU[a].label for a in allowed)
    _require(bool(allowed), f"{ship.name} is disabled: its crew cannot act.")
    _require(key in allowed, f"{ship.name} is disabled: its crew can only {names}, or try to stabilise it.")


# --- the events that follow others (decide.decide asks after every event) ---------------------------------------------


def save_at_turn_start(state: State, ship: Ship, dice: Dice) -> list[Event]:
    """A disabled ship's destruction save as its turn comes round (none once it is stable)."""
    if ship.status != "disabled" or ship.stable:
        return []
    face, other = d20(dice, disadvantage(state, ship))
    return [DestructionSaveRolled(ship=ship.id, face=face, other=other)]


def after_event(before: State, after: State, event: Event) -> list[Event]:
    """System damage from damage that drops a ship to 0 hull points or lands on it there, an NPC ship exploding
    (by the GM's setting), and the tally cleared when repairs lift a ship above 0."""
    if isinstance(event, (ShipDamaged, WeaponFired)):
        sid = event.ship if isinstance(event, ShipDamaged) else event.target
        if event.amount <= 0:
            return []
        was, now = before.ship(sid), after.ship(sid)
        if was.status == "active" and now.status == "disabled":
            disable = after.setting("disable_at_zero") == "disable"
            if now.side != "pc" and after.setting("npc_at_zero") == "destroyed" and not disable:
                return [ShipExploded(ship=sid)]
            return [SystemDamaged(ship=sid, levels=1, cause="zero", stable=disable)]
        if was.status == "disabled" and now.status == "disabled":
            critical = isinstance(event, WeaponFired) and event.critical
            n = 2 if critical else 1
            return [SystemDamaged(ship=sid, levels=n, failures=n, cause="critical" if critical else "damage")]
    if isinstance(event, (HullPatched, ShipAdjusted)):
        if before.ship(event.ship).status == "disabled" and after.ship(event.ship).active:
            return [ShipRecovered(ship=event.ship)]
    return []


def decide_stabilise(state: State, c: Stabilise, dice: Dice) -> list[Event]:
    _require(state.started, "Combat has not started yet.")
    f = state.fighter(c.actor)
    _require(bool(f.ship), f"{f.name} is not aboard a ship.")
    ship = state.ship(f.ship)
    _require(ship.status == "disabled", f"{ship.name} is not disabled: only a ship at 0 hull points is stabilised.")
    _require(not ship.stable, f"{ship.name} is already stable.")
    _require(crew_may_act(state), f"{ship.name} is disabled: its crew cannot act.")
    _require(state.acting == f.id, f"It is not {f.name}'s turn.")
    _require(not f.action_used, f"{f.name} has already taken an action this turn.")
    _require(-5 <= c.modifier <= 20, "An Intelligence (Mechanic's Kit) modifier goes from -5 to +20.")
    face = dice.roll(1, 20)[0]
    attempt = StabiliseAttempted(fighter=f.id, ship=ship.id, face=face, modifier=c.modifier)
    return [attempt, *used_save(state, f.id, ship, face, dice)]


# --- what the events do (evolve) --------------------------------------------------------------------------------------


def _settle(state: State, ship: Ship) -> State:
    """`ship` put back, destroyed if its tally or system damage says so."""
    if ship.status == "disabled" and doomed(state, ship):
        ship = replace(ship, status="destroyed")
    return put_ship(state, ship)


def _cleared(ship: Ship) -> Ship:
    return replace(ship, saves_made=0, saves_failed=0, stable=False)


def _system_damaged(state: State, event: SystemDamaged) -> State:
    ship = state.ship(event.ship)
    if ship.status == "destroyed":
        return state
    if event.cause == "zero":  # a fresh fall to 0 hull points starts a fresh tally
        ship = _cleared(ship)
    ship = replace(
        ship,
        system_damage=min(TOP_LEVEL, ship.system_damage + max(0, event.levels)),
        saves_failed=ship.saves_failed + max(0, event.failures),
        stable=event.stable and event.cause == "zero",
    )
    return _settle(state, ship)


def _destruction_save_rolled(state: State, event: DestructionSaveRolled) -> State:
    ship = state.ship(event.ship)
    if ship.status != "disabled" or ship.stable:
        return state
    if event.face == 20:  # the ship regains 1 hull point: no longer disabled
        return put_ship(state, replace(_cleared(ship), hull=max(1, ship.hull), status="active"))
    if event.face >= SAVE_DC:
        made = ship.saves_made + 1
        if made >= SAVES_TO_STABILISE:  # stable: the tally starts afresh if damage ends that
            return put_ship(state, replace(_cleared(ship), stable=True))
        return put_ship(state, replace(ship, saves_made=made))
    failures = 2 if event.face == 1 else 1
    ship = replace(
        ship,
        saves_failed=ship.saves_failed + failures,
        system_damage=min(TOP_LEVEL, ship.system_damage + failures),
    )
    return _settle(state, ship)


def _stabilise_attempted(state: State, event: StabiliseAttempted) -> State:
    state = put_fighter(state, replace(state.fighter(event.fighter), action_used=True))
    ship = state.ship(event.ship)
    if event.total >= STABILISE_DC and ship.status == "disabled":
        state = put_ship(state, replace(_cleared(ship), stable=True))
    return state


def _ship_recovered(state: State, event: ShipRecovered) -> State:
    return put_ship(state, _cleared(state.ship(event.ship)))


def _used_save_rolled(state: State, event: UsedSaveRolled) -> State:
    """A failure is a level of system damage; at level 6 all primary systems fail, whatever the hull."""
    ship = state.ship(event.ship)
    if event.face >= SAVE_DC or ship.status == "destroyed":
        return state
    ship = replace(ship, system_damage=min(TOP_LEVEL, ship.system_damage + 1))
    if ship.system_damage >= TOP_LEVEL:
        return put_ship(state, replace(_cleared(ship), hull=0, status="destroyed"))
    state = put_ship(state, ship)  # level 4 may have halved the maxima the hull and shields must fit under
    return put_ship(
        state,
        replace(ship, hull=min(ship.hull, hull_max(state, ship)), shields=min(ship.shields, shields_max(state, ship))),
    )


def _ship_exploded(state: State, event: ShipExploded) -> State:
    return put_ship(state, replace(state.ship(event.ship), status="destroyed"))


EVOLVERS: dict[type[Event], Callable[[State, Any], State]] = {
    SystemDamaged: _system_damaged,
    DestructionSaveRolled: _destruction_save_rolled,
    StabiliseAttempted: _stabilise_attempted,
    ShipRecovered: _ship_recovered,
    ShipExploded: _ship_exploded,
    UsedSaveRolled: _used_save_rolled,
}
