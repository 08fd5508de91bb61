"""`describe(state, event, gm) -> str | None`: each SW5e event as one plain sentence for the log.

A sentence is read against the state the event is applied to, for the GM (gm=True) or for players. What a viewer
may know is asked of the core's `Sight`: SW5e tracks no awareness (surprise does that job), so every ship and crew
member is named to everyone, while an NPC ship's numbers (hull, shields, their dice, stored and spent power, reactor
output, the GM's initiative values) are `secret` to players unless the `enemy_numbers` setting makes them public.
Damage dealt stays public. None means players see no entry at all. One handler per event class, in `DESCRIBERS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any, NamedTuple

from combat.rules.core import Event, Sight
from combat.rules.free_roll import DiceRolled, describe_dice_rolled
from combat.rules.sw5e import disabled
from combat.rules.sw5e.events import (
    ActionAllowed,
    ActionTaken,
    CombatStarted,
    CrewAssigned,
    CrewOrderSet,
    CrewTurnEnded,
    CrewTurnStarted,
    DestructionSaveRolled,
    HullPatched,
    InitiativeRolled,
    PowerDistributed,
    PowerSpent,
    RoundStarted,
    ShieldDieRolled,
    ShieldsRegenerated,
    ShipAdjusted,
    ShipDamaged,
    ShipExploded,
    ShipInitiativeSet,
    ShipRecovered,
    ShipTurnEnded,
    ShipTurnSkipped,
    ShipTurnStarted,
    StabiliseAttempted,
    StealthRolled,
    SurpriseSet,
    SystemDamaged,
    TiesOrdered,
    UsedSaveRolled,
    WeaponFired,
)
from combat.rules.sw5e.evolve import route_power, split_damage
from combat.rules.sw5e.state import (
    REACTOR_LABELS,
    SHIELD_LABELS,
    SLOTS,
    STATION_LABELS,
    STORE_LABELS,
    Fighter,
    Ship,
    State,
    hull_max,
    shields_max,
    what_label,
)


def describe(state: State, event: Event, gm: bool = True) -> str | None:
    """One plain sentence for the log, or None for no entry (players only). An event class with no handler is a
    bug in this package: it fails with a sentence naming it."""
    handler = DESCRIBERS.get(type(event))
    if handler is None:
        raise TypeError(f"SW5e's describe has no handler for {type(event).__name__} events (kind {event.kind!r}).")
    text = handler(Viewer(state, gm), event)
    return None if text is None else _sentence(text)


class _Known(NamedTuple):
    """A ship or crew member as `Sight` reads it; in SW5e every PC is aware of everyone."""

    id: str
    name: str
    side: str
    aware_of: tuple[str, ...]


def _known_to_all(items: Iterable[Ship | Fighter]) -> tuple[_Known, ...]:
    items = tuple(items)
    everyone = tuple(item.id for item in items)
    return tuple(_Known(item.id, item.name, item.side, everyone) for item in items)


class Viewer:
    """The state an entry is worded against and what its reader may know of the crew and the ships (each asked of
    a `Sight` of their own: ship ids and crew ids are apart)."""

    def __init__(self, state: State, gm: bool) -> None:
        self.state = state
        self.gm = gm

    @cached_property
    def _crew(self) -> Sight:
        return Sight(_known_to_all(self.state.fighters), self.gm)

    @cached_property
    def _ships(self) -> Sight:
        return Sight(_known_to_all(self.state.ships), self.gm)

    def name(self, fid: str) -> str:
        """A crew member's name: "the GM" for no one, "someone" for an id this encounter does not have."""
        return self._crew.name(fid) if fid else "the GM"

    def is_ship(self, sid: str) -> bool:
        return self._ships.side(sid) != ""

    def ship_name(self, sid: str) -> str:
        return self._ships.name(sid) if self.is_ship(sid) else "a ship"

    def secret(self, sid: str) -> bool:
        """Whether the ship's numbers stay with the GM: another side's ship unless enemy numbers are public, and
        always a ship this encounter does not have."""
        public = self.state.setting("enemy_numbers") == "public" and self.is_ship(sid)
        return self._ships.secret(sid) and not public


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text[0].upper() + text[1:] if text else text


def _crew_assigned(v: Viewer, event: CrewAssigned) -> str | None:
    f = v.state.fighter(event.fighter)
    if not event.ship:
        return None if f.ship and v.secret(f.ship) else f"{v.name(f.id)} leaves {v.ship_name(f.ship)}'s crew."
    if v.secret(event.ship):
        return None
    station = STATION_LABELS.get(event.station, "")
    at = f" at the {station.lower()} station" if station else ""
    if event.station == "pilot":
        at = " at the helm"
    if f.ship == event.ship:
        return f"{v.name(f.id)} moves{at or ' off their station'} aboard {v.ship_name(event.ship)}."
    return f"{v.name(f.id)} joins {v.ship_name(event.ship)}'s crew{at}."


def _surprise_set(v: Viewer, event: SurpriseSet) -> str | None:
    if v.is_ship(event.target):
        if v.secret(event.target):
            return None
        who = v.ship_name(event.target)
    else:
        f = v.state.fighter(event.target)
        if f.ship and v.secret(f.ship):
            return None
        who = v.name(f.id)
    return f"{who} {'is surprised' if event.surprised else 'is not surprised'}."


def _stealth_rolled(v: Viewer, event: StealthRolled) -> str | None:
    f = v.state.fighter(event.fighter)
    if f.ship and v.secret(f.ship):
        return None  # who hides aboard an NPC ship, and how well, is the GM's
    sign = "+" if event.modifier >= 0 else "−"
    return f"{v.name(f.id)} rolls Dexterity (Stealth): {event.face} {sign} {abs(event.modifier)} = {event.total}."


def _initiative_rolled(v: Viewer, event: InitiativeRolled) -> str | None:
    entered = " (entered)" if event.entered else ""
    sign = "+" if event.modifier >= 0 else "−"
    return (
        f"{v.name(event.fighter)} rolls initiative: {event.face}{entered} {sign} {abs(event.modifier)} = {event.total}."
    )


def _ship_initiative_set(v: Viewer, event: ShipInitiativeSet) -> str | None:
    if v.secret(event.ship):
        return f"The GM sets {v.ship_name(event.ship)}'s initiative."
    if event.face:
        sign = "+" if event.modifier >= 0 else "−"
        return (
            f"The GM rolls initiative for {v.ship_name(event.ship)}: {event.face} {sign} {abs(event.modifier)} "
            f"= {event.value}."
        )
    return f"The GM sets {v.ship_name(event.ship)}'s initiative to {event.value}."


def _ties_ordered(v: Viewer, event: TiesOrdered) -> str | None:
    return "The GM breaks initiative ties in this order: " + ", then ".join(v.ship_name(s) for s in event.order) + "."


def _combat_started(v: Viewer, event: CombatStarted) -> str | None:
    parts = [
        v.ship_name(sid) if v.secret(sid) else f"{v.ship_name(sid)} ({event.initiative.get(sid)})"
        for sid in event.order
    ]
    return "Combat begins; the ships act in this order: " + ", ".join(parts) + "."


def _round_started(v: Viewer, event: RoundStarted) -> str | None:
    return f"Round {event.round} begins."


def _ship_turn_started(v: Viewer, event: ShipTurnStarted) -> str | None:
    if v.state.ship(event.ship).status == "disabled":  # public, as its status is (disabled.py)
        return f"{v.ship_name(event.ship)}'s turn begins: it is disabled, so its crew may only try to repair it."
    if v.secret(event.ship):
        return f"{v.ship_name(event.ship)}'s turn begins."
    reactor = REACTOR_LABELS.get(event.reactor, "reactor").lower()
    roll = f" (d2 shows {event.faces[0]})" if event.faces else ""
    dice = _plural(event.produced, "power die", "power dice")
    return f"{v.ship_name(event.ship)}'s turn begins: its {reactor} produces {dice}{roll}."


def _ship_turn_skipped(v: Viewer, event: ShipTurnSkipped) -> str | None:
    if event.reason == "surprised":
        return f"{v.ship_name(event.ship)} is surprised and loses its first turn."
    return f"{v.ship_name(event.ship)} is disabled and takes no turn."


def _power_distributed(v: Viewer, event: PowerDistributed) -> str | None:
    if v.secret(event.ship):
        return None
    added, lost = route_power(v.state.ship(event.ship), event.produced, event.assigned, v.state)
    stored = ", ".join(f"{n} to the {STORE_LABELS[s]}" for s, n in added.items()) or "nothing stored"
    lost_text = f"; {_plural(lost, 'die is', 'dice are')} lost" if lost else ""
    return f"{v.name(event.by)} distributes {v.ship_name(event.ship)}'s power dice: {stored}{lost_text}."


def _shields_regenerated(v: Viewer, event: ShieldsRegenerated) -> str | None:
    ship = v.state.ship(event.ship)
    if v.secret(ship.id):
        return f"{v.ship_name(ship.id)} regenerates its shields."
    gained = max(0, min(shields_max(v.state, ship), ship.shields + event.points) - ship.shields)
    return (
        f"{v.name(event.by)} spends one of {v.ship_name(ship.id)}'s shield dice (d{ship.die}, "
        f"{SHIELD_LABELS.get(ship.shield_type, '')}) to restore {_plural(gained, 'shield point')} "
        f"(shields {ship.shields + gained}/{shields_max(v.state, ship)})."
    )


def _crew_order_set(v: Viewer, event: CrewOrderSet) -> str | None:
    if v.secret(event.ship):
        return None
    names = ", ".join(v.name(fid) for fid in event.order)
    if not event.by:
        return f"The GM settles the crew's order aboard {v.ship_name(event.ship)}: {names}."
    if event.final:
        return f"{v.name(event.by)} at the helm settles the crew's order: {names}."
    return f"{v.name(event.by)} proposes the crew's order: {names}."


def _crew_turn_started(v: Viewer, event: CrewTurnStarted) -> str | None:
    if event.surprised:
        return f"{v.name(event.fighter)} is surprised and can take no action on this first turn."
    return f"{v.name(event.fighter)} starts their turn aboard {v.ship_name(event.ship)}."


def _crew_turn_ended(v: Viewer, event: CrewTurnEnded) -> str | None:
    if event.skipped:
        return f"{v.name(event.fighter)}'s first turn passes; they can react from now on."
    return f"{v.name(event.fighter)} ends their turn."


def _action_taken(v: Viewer, event: ActionTaken) -> str | None:
    slot = SLOTS.get(event.slot, "an action")
    at = f" at {v.ship_name(event.target)}" if event.target else ""
    what = f"fires the {event.weapon}{at}" if event.action == "fire" else f"takes {event.label}{at}"
    dc = f", at +{event.boost_dc} DC for a further boost this turn" if event.boost_dc else ""
    note = f": {event.note}" if event.note else ""
    return f"{v.name(event.fighter)} {what} as {slot}{dc}{note}."


def _hull_patched(v: Viewer, event: HullPatched) -> str | None:
    ship = v.state.ship(event.ship)
    if v.secret(ship.id):
        return f"{v.name(event.fighter)} patches {v.ship_name(ship.id)}'s hull."
    gained = max(0, min(hull_max(v.state, ship), ship.hull + event.points) - ship.hull)
    bonus = f" {'+' if event.bonus >= 0 else '−'} {abs(event.bonus)}" if event.bonus else ""
    return (
        f"{v.name(event.fighter)} spends a hull die: d{event.sides} shows {event.face}{bonus}, restoring "
        f"{_plural(gained, 'hull point')} (hull {ship.hull + gained}/{hull_max(v.state, ship)})."
    )


def _shield_die_rolled(v: Viewer, event: ShieldDieRolled) -> str | None:
    ship = v.state.ship(event.ship)
    if v.secret(ship.id):
        return f"{v.name(event.fighter)} regenerates {v.ship_name(ship.id)}'s shields."
    gained = max(0, min(shields_max(v.state, ship), ship.shields + event.points) - ship.shields)
    bonus = f" {'+' if event.bonus >= 0 else '−'} {abs(event.bonus)}" if event.bonus else ""
    return (
        f"{v.name(event.fighter)} spends a shield die: d{event.sides} shows {event.face}{bonus}, restoring "
        f"{_plural(gained, 'shield point')} (shields {ship.shields + gained}/{shields_max(v.state, ship)})."
    )


def _power_spent(v: Viewer, event: PowerSpent) -> str | None:
    source = f"from the {STORE_LABELS.get(event.store, 'store')}"
    if v.secret(event.ship):
        return f"{v.name(event.fighter)} spends power dice on {event.system}."
    count = _plural(len(event.faces), "power die", "power dice")
    if event.sides == 1:
        rolled = f"flat 1 each, total {sum(event.faces)}"
    else:
        rolled = (
            f"d{event.sides} {'shows' if len(event.faces) == 1 else 'show'} "
            f"{', '.join(map(str, event.faces))}, total {sum(event.faces)}"
        )
    note = f": {event.note}" if event.note else ""
    restored = ""
    if event.shield_points > 0:
        ship = v.state.ship(event.ship)
        gained = max(0, min(shields_max(v.state, ship), ship.shields + event.shield_points) - ship.shields)
        restored = (
            f", restoring {_plural(gained, 'shield point')} (shields {ship.shields + gained}/"
            f"{shields_max(v.state, ship)})"
        )
    return f"{v.name(event.fighter)} spends {count} {source} on {event.system} ({rolled}){restored}{note}."


def _ship_damaged(v: Viewer, event: ShipDamaged) -> str | None:
    ship = v.state.ship(event.ship)
    to_shields, to_hull, status = split_damage(v.state, ship, event.amount)
    verdict = (
        {"disabled": "; it is disabled", "destroyed": "; it is destroyed"}.get(status, "")
        if status != ship.status
        else ""
    )
    note = f" ({event.note})" if event.note else ""
    if event.by:
        dealer = v.ship_name(event.by) if v.is_ship(event.by) else v.name(event.by)
        note = f" from {dealer}{note}"
    if v.secret(ship.id):
        return f"{v.ship_name(ship.id)} takes {event.amount} damage{note}{verdict}."
    return (
        f"{v.ship_name(ship.id)} takes {event.amount} damage{note}: {to_shields} to shields and {to_hull} to hull "
        f"(shields {ship.shields - to_shields}/{shields_max(v.state, ship)}, "
        f"hull {ship.hull - to_hull}/{hull_max(v.state, ship)})"
        f"{verdict}."
    )


def _weapon_fired(v: Viewer, event: WeaponFired) -> str | None:
    """The attack roll and the damage; the target's AC, armour and numbers stay with the GM when they are secret."""
    shooter, target = v.name(event.fighter), v.ship_name(event.target)
    secret = v.secret(event.target)
    against = "" if secret else f" against AC {event.ac}"
    roll = (
        f"d20 shows {event.face} {'+' if event.attack >= 0 else '−'} {abs(event.attack)} = {event.face + event.attack}"
        + _disadvantage(event.other)
    )
    if not event.hit:
        return f"{shooter}'s {event.weapon} misses {target} ({roll}{against})."
    n = len(event.faces)
    parts = [f"{n}d{event.sides} {'shows' if n == 1 else 'show'} {', '.join(map(str, event.faces))}"]
    if event.bonus:
        parts.append(f"{'+' if event.bonus > 0 else '−'} {abs(event.bonus)}")
    if event.power:
        parts.append(f"+ {event.power} from power dice")
    if event.reduction and not secret:
        parts.append(f"− {event.reduction} for armour, at least 1")
    crit = " a critical hit," if event.critical else ""
    ship = v.state.ship(event.target)
    to_shields, to_hull, status = split_damage(v.state, ship, event.amount)
    verdict = {"disabled": "; it is disabled", "destroyed": "; it is destroyed"}.get(status, "")
    verdict = verdict if status != ship.status else ""
    where = "" if secret else f": {to_shields} to shields and {to_hull} to hull"
    return (
        f"{shooter}'s {event.weapon} hits {target} ({roll}{against}):{crit} {event.amount} damage "
        f"({'; '.join(parts)}){where}{verdict}."
    )


def _ship_adjusted(v: Viewer, event: ShipAdjusted) -> str | None:
    if v.secret(event.ship):
        return None
    return f"The GM sets {what_label(event.what).lower()} of {v.ship_name(event.ship)} to {event.value}."


def _action_allowed(v: Viewer, event: ActionAllowed) -> str | None:
    helm = " (helm only)" if event.helm else ""
    repeat = " (several crew members may take it each round)" if event.repeat else ""
    return f"The GM allows a new action: {event.label}{helm}{repeat}."


def _ship_turn_ended(v: Viewer, event: ShipTurnEnded) -> str | None:
    return f"{v.ship_name(event.ship)}'s turn ends."


# --- at 0 hull points (disabled.py) ---------------------------------------------------------------------------------


def _after(v: Viewer, event: SystemDamaged | DestructionSaveRolled | StabiliseAttempted) -> Ship:
    """The ship an event of disabled.py is about, as that event leaves it."""
    return disabled.EVOLVERS[type(event)](v.state, event).ship(event.ship)


def _level(ship: Ship) -> str:
    return f"system damage level {ship.system_damage} ({disabled.effects(ship.system_damage)[-1]})"


def _system_damaged(v: Viewer, event: SystemDamaged) -> str | None:
    if v.secret(event.ship):
        return None  # its system damage is one of its numbers; the damage sentence said it is disabled
    ship, after = v.state.ship(event.ship), _after(v, event)
    gone = "; it is destroyed" if after.status == "destroyed" else ""
    if event.cause == "zero":
        calm = ", disabled rather than destroyed: it is stable" if after.stable else ""
        return f"{v.ship_name(ship.id)} is disabled at 0 hull points: {_level(after)}{gone}{calm}."
    crit = " from a critical hit" if event.cause == "critical" else ""
    return (
        f"Damage at 0 hull points{crit}: {v.ship_name(ship.id)} suffers {_plural(event.levels, 'level')} of system "
        f"damage, now {_level(after)}, and {_plural(after.saves_failed, 'failed destruction save')}{gone}."
    )


def _used_save_rolled(v: Viewer, event: UsedSaveRolled) -> str | None:
    ship = v.state.ship(event.ship)
    after = disabled.EVOLVERS[UsedSaveRolled](v.state, event).ship(event.ship)
    name = v.ship_name(ship.id)
    rolled = f"{v.name(event.fighter)} rolled a 1 aboard {name}, a used ship: its destruction save shows {event.face}"
    if event.face >= disabled.SAVE_DC:
        return f"{rolled}, a success."
    if after.status == "destroyed":
        return f"{rolled}, a failure: its primary systems fail and it is destroyed."
    if v.secret(ship.id):
        return f"{rolled}, a failure."
    return f"{rolled}, a failure: {_level(after)}."


def _destruction_save_rolled(v: Viewer, event: DestructionSaveRolled) -> str | None:
    ship, after = v.state.ship(event.ship), _after(v, event)
    name = v.ship_name(ship.id)
    rolled = f"{name}'s destruction save: the d20 shows {event.face}" + _disadvantage(event.other)
    if after.active:
        return f"{rolled}: it regains 1 hull point and is no longer disabled."
    if after.status == "destroyed":
        return f"{rolled}: its primary systems fail and it is destroyed."
    if v.secret(ship.id):
        return f"{rolled}: {'a success' if event.face >= disabled.SAVE_DC else 'a failure'}."
    if after.stable:
        return f"{rolled}: a third success, and it is stable."
    if event.face >= disabled.SAVE_DC:
        return f"{rolled}: a success ({after.saves_made} of {disabled.SAVES_TO_STABILISE})."
    two = "a 1 counts as two failures" if event.face == 1 else "a failure"
    return f"{rolled}: {two} ({after.saves_failed} so far); {_level(after)}."


def _disadvantage(other: int) -> str:
    return f" (disadvantage from system damage: the other d20 showed {other})" if other else ""


def _stabilise_attempted(v: Viewer, event: StabiliseAttempted) -> str | None:
    sign = "+" if event.modifier >= 0 else "−"
    check = f"d20 shows {event.face} {sign} {abs(event.modifier)} = {event.total} against DC {disabled.STABILISE_DC}"
    verdict = "it is stable" if _after(v, event).stable else "it is not"
    return f"{v.name(event.fighter)} tries to stabilise {v.ship_name(event.ship)} ({check}): {verdict}."


def _ship_recovered(v: Viewer, event: ShipRecovered) -> str | None:
    return f"{v.ship_name(event.ship)} is above 0 hull points again: no longer disabled, its destruction saves cleared."


def _ship_exploded(v: Viewer, event: ShipExploded) -> str | None:
    return f"{v.ship_name(event.ship)} explodes at 0 hull points (the GM's rule for NPC ships)."


DESCRIBERS: dict[type[Event], Callable[[Viewer, Any], str | None]] = {
    DiceRolled: lambda v, event: describe_dice_rolled(v.state, event, v.gm),
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
    CrewTurnStarted: _crew_turn_started,
    CrewTurnEnded: _crew_turn_ended,
    ActionTaken: _action_taken,
    HullPatched: _hull_patched,
    PowerSpent: _power_spent,
    ShieldDieRolled: _shield_die_rolled,
    ShipDamaged: _ship_damaged,
    ShipAdjusted: _ship_adjusted,
    ActionAllowed: _action_allowed,
    ShipTurnEnded: _ship_turn_ended,
    WeaponFired: _weapon_fired,
    SystemDamaged: _system_damaged,
    DestructionSaveRolled: _destruction_save_rolled,
    StabiliseAttempted: _stabilise_attempted,
    UsedSaveRolled: _used_save_rolled,
    ShipRecovered: _ship_recovered,
    ShipExploded: _ship_exploded,
}
