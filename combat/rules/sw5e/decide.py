"""`decide(state, command, dice) -> list[Event]`: whether the rules allow a command, and what it brings about.

One decider per command class, found through `DECIDERS`: the set-up (crews, surprise, initiative, tied ships),
ship turns (power, shields, the crew's order, handing over to the next ship) and crew turns (actions, power dice
spent), then the GM's hand (damage, corrections, allowing new actions). A refusal is a RuleError with one sentence
for whoever tried; nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from combat.rules.core import Command, Event, RuleError
from combat.rules.core import require as _require
from combat.rules.dice import Dice
from combat.rules.free_roll import FreeRoll, decide_free_roll
from combat.rules.sw5e import disabled, gear
from combat.rules.sw5e import ship as sw
from combat.rules.sw5e.commands import (
    COMMANDS,
    AdjustShip,
    AllowAction,
    AssignCrew,
    Damage,
    DistributePower,
    EndCrewTurn,
    EndShipTurn,
    OrderTies,
    RegenerateShields,
    RollInitiative,
    SetCrewOrder,
    SetShipInitiative,
    SetSurprise,
    SpendPower,
    Stabilise,
    StartCombat,
    StartCrewTurn,
    TakeAction,
    WorkOutSurprise,
)
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
)
from combat.rules.sw5e.evolve import evolve
from combat.rules.sw5e.fire import check_power, fire
from combat.rules.sw5e.state import (
    ACTION_MENU,
    ADJUSTABLE,
    SLOTS,
    STATION_LABELS,
    STORE_LABELS,
    Fighter,
    Ship,
    State,
    adjust_limit,
    bonus_spec,
    custom_key,
    hull_max,
    power_die,
    regeneration,
    shields_max,
    ship_order,
    what_label,
)


def decide(state: State, command: Command, dice: Dice) -> list[Event]:
    """The events `command` brings about, or a RuleError with a sentence when the rules refuse it. Never mutates;
    every die rolled goes into an event. A command of this model with no decider is a bug, said loudly."""
    if isinstance(command, FreeRoll):  # any time, in any phase; it changes nothing, so nothing follows
        return decide_free_roll(state, command, dice)
    _require(not state.ended, "This encounter has ended.")
    handler = DECIDERS.get(type(command))
    if handler is None and type(command) in COMMANDS:
        raise TypeError(f"SW5e's decide has no handler for {type(command).__name__} commands.")
    if handler is None:
        raise RuleError("That is not an action in SW5e starship combat.")
    events, after = _with_follow_ups(state, handler(state, command, dice))
    if after.started and not after.ship_turn and any(disabled.takes_turns(after, s) for s in after.ships):
        # Every ship was out of action and the GM's correction brings one back: a new round begins.
        events += _advance(after, dice, len(after.order))
    return events


def _with_follow_ups(state: State, events: list[Event]) -> tuple[list[Event], State]:
    """`events`, each followed by what it brings about at 0 hull points (system damage, an NPC ship exploding,
    the destruction saves cleared by repairs: disabled.after_event); and the state after them all."""
    out: list[Event] = []
    for event in events:
        after = evolve(state, event)
        out.append(event)
        for extra in disabled.after_event(state, after, event):
            after = evolve(after, extra)
            out.append(extra)
        state = after
    return out, state


BOOST_DC_STEP = 5  # each boost already taken this ship turn raises a further boost's DC by this much


def reactor_output(reactor: str, dice: Dice) -> tuple[tuple[int, ...], int]:
    """(faces rolled, power dice produced): fuel cell 1, ionization 1d2-1, power core 1d2."""
    if reactor == "fuel_cell":
        return (), 1
    faces = dice.roll(1, 2)
    return faces, faces[0] - 1 if reactor == "ionization" else faces[0]


# --- checks shared by the deciders ------------------------------------------------------------------------------------


def _clean_text(text: str, limit: int = 200) -> str:
    return " ".join(text.split())[:limit]


def _ids(text: str) -> tuple[str, ...]:
    return tuple(part for part in text.replace(",", " ").split() if part)


def _setup(state: State) -> None:
    _require(not state.started, "Combat has already started.")


def _combat(state: State) -> None:
    _require(state.started, "Combat has not started yet.")


def _turn_ship(state: State) -> Ship:
    _combat(state)
    _require(bool(state.ship_turn), "No ship is taking its turn.")
    return state.ship(state.ship_turn)


def _acting_name(state: State) -> str:
    return state.fighter(state.acting).name if state.acting else "Someone"


def _crew_or_gm(state: State, ship: Ship, actor: str) -> str:
    """The crew member acting for the ship, or "" for the GM."""
    if actor:
        member = state.fighter(actor)
        _require(member.ship == ship.id, f"{member.name} is not aboard {ship.name}, whose turn it is.")
    return actor


# --- set-up -----------------------------------------------------------------------------------------------------------


def _assign_crew(state: State, c: AssignCrew, dice: Dice) -> list[Event]:
    f = state.fighter(c.fighter)
    _require(c.station == "" or c.station in STATION_LABELS, "Choose one of the stations.")
    _require(state.acting != f.id, f"{f.name} is in the middle of a turn.")
    if c.ship:
        ship = state.ship(c.ship)
        _require(ship.status != "destroyed", f"{ship.name} is destroyed.")
    _require(bool(c.ship) or not c.station, "A station is aboard a ship.")
    _require((f.ship, f.station) != (c.ship, c.station), f"{f.name} is already there.")
    return [CrewAssigned(fighter=f.id, ship=c.ship, station=c.station)]


def _set_surprise(state: State, c: SetSurprise, dice: Dice) -> list[Event]:
    _setup(state)
    try:
        state.ship(c.target)
    except RuleError:
        state.fighter(c.target)
    return [SurpriseSet(target=c.target, surprised=c.surprised)]


def _work_out_surprise(state: State, c: WorkOutSurprise, dice: Dice) -> list[Event]:
    """Seed: "the GM compares the Dexterity (Stealth) checks of anyone hiding with the passive Wisdom (Perception)
    score of each creature on the opposing side." A crew member who notices no one hiding is surprised; a ship
    whose whole crew notices no one is surprised. A ship that hides is checked too, against the Stealth of the other
    side's hiders: when both sides hide, each can surprise the other. Crewless ships, and ships with nobody hiding
    against them, keep what the GM set by hand."""
    _setup(state)
    hiding = tuple(state.ship(sid) for sid in dict.fromkeys(c.hiders))
    _require(bool(hiding), "Choose the ships that hide.")
    hiders = [(f, ship.side) for ship in hiding for f in state.crew(ship.id)]
    _require(bool(hiders), "Nobody is aboard the hiding ships to roll Stealth.")
    rolled = [StealthRolled(fighter=f.id, face=dice.roll(1, 20)[0], modifier=f.stealth_mod) for f, _ in hiders]
    totals = [(e.total, side) for e, (_, side) in zip(rolled, hiders, strict=True)]
    events: list[Event] = list(rolled)
    ties_hide = state.setting("stealth_ties") == "hidden"
    for ship in state.ships:
        against = [total for total, side in totals if side != ship.side]
        crew = state.crew(ship.id)
        if not against or not crew:
            continue
        # A passive score notices a Stealth check it beats (or meets, under the "noticed" setting).
        caught = {f.id: not any(f.passive_perception - t > (0 if ties_hide else -1) for t in against) for f in crew}
        events += [SurpriseSet(target=fid, surprised=surprised) for fid, surprised in caught.items()]
        events.append(SurpriseSet(target=ship.id, surprised=all(caught.values())))
    return events


def _roll_initiative(state: State, c: RollInitiative, dice: Dice) -> list[Event]:
    _setup(state)
    f = state.fighter(c.actor)
    _require(f.is_pc, "NPC crew do not roll initiative: the GM sets their ship's.")
    _require(f.initiative is None, f"{f.name} has already rolled initiative ({f.initiative}).")
    if c.entered:
        _require(bool(state.setting("entered_initiative")), "The GM has the server roll initiative in this encounter.")
        _require(1 <= c.entered <= 20, "A d20 shows a face from 1 to 20.")
        return [InitiativeRolled(fighter=f.id, face=c.entered, modifier=f.initiative_mod, entered=True)]
    return [InitiativeRolled(fighter=f.id, face=dice.roll(1, 20)[0], modifier=f.initiative_mod)]


def _set_ship_initiative(state: State, c: SetShipInitiative, dice: Dice) -> list[Event]:
    _setup(state)
    ship = state.ship(c.ship)
    _require(
        not any(f.is_pc for f in state.crew(ship.id)), f"{ship.name}'s initiative is the lowest of its PCs' rolls."
    )
    if c.roll:
        face = dice.roll(1, 20)[0]
        return [
            ShipInitiativeSet(ship=ship.id, value=face + ship.initiative_mod, face=face, modifier=ship.initiative_mod)
        ]
    _require(-10 <= c.value <= 50, "Initiative must be from -10 to 50.")
    return [ShipInitiativeSet(ship=ship.id, value=c.value)]


def _order_ties(state: State, c: OrderTies, dice: Dice) -> list[Event]:
    _setup(state)
    order = _ids(c.order)
    _require(len(order) >= 2, "Name at least two ships, first to act first.")
    _require(len(order) == len(set(order)), "Name each ship once.")
    for sid in order:
        state.ship(sid)
    return [TiesOrdered(order=order)]


def _start_combat(state: State, c: StartCombat, dice: Dice) -> list[Event]:
    _setup(state)
    waiting = [f.name for f in state.fighters if f.is_pc and f.ship and f.initiative is None]
    _require(not waiting, f"Waiting for initiative from {', '.join(waiting)}.")
    inits = {s.id: state.ship_initiative(s.id) for s in state.ships}
    unset = [s.name for s in state.ships if inits[s.id] is None]
    _require(not unset, f"The GM sets the initiative of {', '.join(unset)} first.")
    order, ties = ship_order(state)
    if ties:
        names = " and ".join(state.ship(sid).name for sid in ties[0])
        raise RuleError(f"Order the tied ships first: {names} share initiative {state.ship_initiative(ties[0][0])}.")
    initiative = {sid: value for sid, value in inits.items() if value is not None}  # every ship's, by now
    events: list[Event] = [CombatStarted(order=order, initiative=initiative), RoundStarted(round=1)]
    after = state
    for e in events:
        after = evolve(after, e)
    return events + _advance(after, dice, 0)


def _advance(state: State, dice: Dice, start: int) -> list[Event]:
    """Events that bring on the next ship able to take a turn, from position `start` of the order (a new round
    when the order runs out). Disabled ships lose their turns; destroyed ships are out."""
    events: list[Event] = []
    s = state
    for lap in range(3):
        for sid in s.order[start:]:
            ship = s.ship(sid)
            if ship.status == "destroyed":
                continue
            saves = disabled.save_at_turn_start(s, ship, dice)  # a disabled ship's destruction save comes first
            for save in saves:
                s = evolve(s, save)
            events += saves
            ship = s.ship(sid)
            if ship.status == "destroyed":
                continue
            if ship.status == "disabled" and not disabled.crew_may_act(s):
                skip: Event = ShipTurnSkipped(ship=sid, reason="disabled")
            elif ship.surprised and ship.turns == 0 and s.setting("surprised_ship") == "skip":
                skip = ShipTurnSkipped(ship=sid, reason="surprised")
            else:
                # A disabled ship's reactor makes no power; its crew may still repair it (disabled.py).
                faces, produced = reactor_output(ship.reactor, dice) if ship.active else ((), 0)
                return events + [ShipTurnStarted(ship=sid, reactor=ship.reactor, faces=faces, produced=produced)]
            events.append(skip)
            s = evolve(s, skip)
        if lap == 2 or not any(disabled.takes_turns(s, ship) for ship in s.ships):
            break
        new_round = RoundStarted(round=s.round + 1)
        events.append(new_round)
        s = evolve(s, new_round)
        start = 0
    return events


# --- ship turns -------------------------------------------------------------------------------------------------------


def _distribute_power(state: State, c: DistributePower, dice: Dice) -> list[Event]:
    ship = _turn_ship(state)
    by = _crew_or_gm(state, ship, c.actor)
    _require(state.stage == "power", f"{ship.name}'s power dice for this turn are already distributed.")
    wanted = {store: getattr(c, store) for store in sw.STORES}
    _require(all(n >= 0 for n in wanted.values()), "Power dice counts cannot be negative.")
    total = sum(wanted.values())
    produced = state.pending_power
    _require(
        total <= produced,
        f"The reactor produced {produced} power {'die' if produced == 1 else 'dice'} this turn, not {total}.",
    )
    if state.setting("over_capacity") == "refuse":
        for store, n in wanted.items():
            if n > ship.free(store):
                cap, free = ship.capacity(store), ship.free(store)
                raise RuleError(
                    f"{n} power {'die does' if n == 1 else 'dice do'} not fit in {ship.name}'s "
                    f"{STORE_LABELS[store]}: this coupling holds {cap} there and {free} "
                    f"{'is' if free == 1 else 'are'} free."
                )
    stored = PowerDistributed(ship=ship.id, by=by, produced=produced, assigned={k: v for k, v in wanted.items() if v})
    if not c.start_turn:
        return [stored]
    _require(bool(by), "Only a crew member aboard can take their turn.")
    # The turn starts as StartCrewTurn would start it once the dice are stored, or the whole command is refused.
    return [stored, *_start_crew_turn(evolve(state, stored), StartCrewTurn(actor=by), dice)]


def _regenerate_shields(state: State, c: RegenerateShields, dice: Dice) -> list[Event]:
    ship = _turn_ship(state)
    by = _crew_or_gm(state, ship, c.actor)
    _require(state.stage != "power", f"Distribute {ship.name}'s power dice first.")
    _require(
        state.stage == "start",
        "Shield regeneration is chosen at the start of the ship's turn, once, before the crew acts.",
    )
    _require(ship.active, f"{ship.name} is {ship.status}.")
    _require(ship.shields_max > 0, f"{ship.name} has no shield generator.")
    _require(ship.shields > 0, f"{ship.name}'s shields are down: regeneration cannot restart them.")
    _require(ship.shields < shields_max(state, ship), f"{ship.name}'s shields are already full.")
    _require(ship.shield_dice > 0, f"{ship.name} has no shield dice left.")
    return [ShieldsRegenerated(ship=ship.id, by=by, points=regeneration(state, ship))]


def _set_crew_order(state: State, c: SetCrewOrder, dice: Dice) -> list[Event]:
    ship = _turn_ship(state)
    by = _crew_or_gm(state, ship, c.actor)
    helm = state.helm(ship.id)
    final = not by or (helm is not None and helm.id == by)
    if state.order_final and not final:
        settled = "the GM" if not state.order_by else f"{state.fighter(state.order_by).name} at the helm"
        raise RuleError(f"{settled[0].upper()}{settled[1:]} has settled the order for this turn.")
    order = _ids(c.order)
    left = {f.id for f in state.remaining_crew(ship.id)}
    _require(bool(left), f"Everyone aboard {ship.name} has already taken their turn.")
    _require(
        len(order) == len(set(order)) and set(order) == left,
        "List each crew member who has not yet taken their turn exactly once: "
        + ", ".join(f.name for f in state.remaining_crew(ship.id))
        + ".",
    )
    return [CrewOrderSet(ship=ship.id, by=by, order=order, final=final)]


def _end_ship_turn(state: State, c: EndShipTurn, dice: Dice) -> list[Event]:
    ship = _turn_ship(state)
    _crew_or_gm(state, ship, c.actor)
    _require(not state.acting, f"{_acting_name(state)} is still taking their turn.")
    if ship.active:
        _require(state.stage != "power", f"Distribute {ship.name}'s power dice first.")
        waiting = [f.name for f in state.remaining_crew(ship.id)]
        _require(not waiting, f"Waiting for {', '.join(waiting)} to take their turn.")
    ended = ShipTurnEnded(ship=ship.id)
    return [ended] + _advance(evolve(state, ended), dice, state.order.index(ship.id) + 1)


# --- crew turns -------------------------------------------------------------------------------------------------------


def _start_crew_turn(state: State, c: StartCrewTurn, dice: Dice) -> list[Event]:
    ship = _turn_ship(state)
    f = state.fighter(c.actor)
    _require(f.ship == ship.id, f"{f.name} is not aboard {ship.name}, whose turn it is.")
    disabled.check_crew_turn(state, ship)
    _require(state.stage != "power", f"Distribute {ship.name}'s power dice first.")
    _require(not state.acting, f"{_acting_name(state)} is still taking their turn.")
    _require(not f.took_turn, f"{f.name} has already taken a turn this round.")
    if state.crew_order:
        nxt = state.remaining_crew(ship.id)[0]
        _require(nxt.id == f.id, f"The crew's order has {nxt.name} go next.")
    if state.surprised_now(f):
        return [CrewTurnStarted(fighter=f.id, ship=ship.id, surprised=True), CrewTurnEnded(fighter=f.id, skipped=True)]
    return [CrewTurnStarted(fighter=f.id, ship=ship.id)]


def _find_action(state: State, text: str) -> tuple[str, str, str]:
    """(key, label, kind) of a menu action or an action the GM allowed."""
    wanted = " ".join(text.split()).casefold()
    for spec in ACTION_MENU:
        if wanted in (spec.key, spec.label.casefold()):
            return spec.key, spec.label, spec.kind
    custom = state.custom_action(custom_key(text))
    if custom is not None:
        return custom.key, custom.label, "helm" if custom.helm else ("repeat" if custom.repeat else "once")
    raise RuleError("That action is not on the menu; the GM can allow it by name.")


def _bonus_action(state: State, f: Fighter, text: str) -> tuple[str, str, str]:
    """(key, label, kind) of a bonus action. Seed: "You can only take a bonus action if some feature gives you one,
    and you can only take one bonus action on each of your turns"; the feature says what it is (the crew sheet names
    it: a menu action or the feature's own), unless the GM's "bonus_actions" setting lets it be any action."""
    _require(f.bonus_action, f"{f.name} has no feature that grants a bonus action.")
    _require(not f.bonus_used, f"{f.name} has already taken a bonus action this turn.")
    spec = bonus_spec(state, f)
    wanted = " ".join(text.split()).casefold()
    if spec is not None and (wanted in (spec.key, spec.label.casefold()) or custom_key(text) == spec.key):
        return spec.key, spec.label, spec.kind
    if state.setting("bonus_actions") == "any":
        return _find_action(state, text)
    _require(spec is not None, f"{f.name}'s bonus action names no action yet: the GM sets it on their crew sheet.")
    raise RuleError(f"{f.name}'s bonus action is for {spec.label if spec else ''} only.")


def _take_action(state: State, c: TakeAction, dice: Dice) -> list[Event]:
    _combat(state)
    f = state.fighter(c.actor)
    _require(bool(f.ship), f"{f.name} is not aboard a ship.")
    ship = state.ship(f.ship)
    _require(c.slot in SLOTS, "Choose an action, a bonus action or a reaction.")
    if c.slot in ("action", "bonus"):
        _require(state.acting == f.id, f"It is not {f.name}'s turn.")
    key, label, kind = _bonus_action(state, f, c.action) if c.slot == "bonus" else _find_action(state, c.action)
    disabled.check_action(state, ship, key, c.slot)
    if c.slot == "action":
        _require(not f.action_used, f"{f.name} has already taken an action this turn.")
    elif c.slot == "reaction":
        _require(not state.surprised_now(f), f"{f.name} is surprised: no reaction until their first turn ends.")
        _require(
            not f.reaction_used,
            f"{f.name} has already used their reaction; it returns at the start of their next turn.",
        )
    target = ""
    if c.target:
        aimed = state.ship(c.target)
        _require(aimed.id != ship.id, f"{f.name} cannot aim at their own ship.")
        _require(aimed.status != "destroyed", f"{aimed.name} is already destroyed.")
        target = aimed.id
    weapon = _clean_text(c.weapon, 60)
    helm = kind == "helm"
    if helm:
        at_helm = state.helm(ship.id)
        _require(
            at_helm is not None and at_helm.id == f.id,
            f"Only the helm can take {label}: "
            + (
                f"{at_helm.name} is at the helm of {ship.name}."
                if at_helm
                else f"nobody is at the helm of {ship.name}."
            ),
        )
        _require(not f.helm_used, f"{f.name} has already taken a helm option this turn.")
        earlier = state.helm_taken.get(ship.id, f.id)
        if earlier != f.id:
            raise RuleError(
                f"Only one crew member can take helm actions aboard {ship.name} in a round: "
                f"{state.fighter(earlier).name} already has this round."
            )
    boost_dc = 0
    if kind == "boost":
        _require(state.ship_turn == ship.id, "Boosts happen on the ship's own turn.")
        _require(key not in ship.boosts, f"{label} has already been used on {ship.name} this ship turn.")
        boost_dc = BOOST_DC_STEP * len(ship.boosts)
    if kind == "turn":
        _require(state.ship_turn == ship.id, f"{label} happens on the ship's own turn.")
        _require(key not in state.turn_actions, f"{label} has already been used on {ship.name} this ship turn.")
    if kind == "weapon":
        _require(bool(weapon), "Name the weapon that fires.")
        if ship.weapons:
            match = next((w for w in ship.weapons if w.casefold() == weapon.casefold()), "")
            _require(bool(match), f"{ship.name}'s weapons are: {', '.join(ship.weapons)}.")
            weapon = match
        _require(state.counted(key, weapon) not in ship.actions, f"The {weapon} has already fired this round.")
    else:
        weapon = ""
    stats = gear.weapon_stats(ship.weapon_stats.get(weapon, "")) if kind == "weapon" else None
    check_power(ship, c.power, stats, target)
    counted = state.counted(key, weapon)
    if counted and kind != "weapon":
        _require(counted not in ship.actions, f"Someone aboard {ship.name} has already taken {label} this round.")
    events: list[Event] = [
        ActionTaken(
            fighter=f.id,
            ship=ship.id,
            action=key,
            label=label,
            slot=c.slot,
            weapon=weapon,
            target=target,
            helm=helm,
            boost_dc=boost_dc,
            note=_clean_text(c.note),
        )
    ]
    if key == "patch":
        _require(ship.hull < hull_max(state, ship), f"{ship.name}'s hull is already at full strength.")
        _require(ship.hull_dice > 0, f"{ship.name} has no hull dice left to patch with.")
        face = dice.roll(1, ship.die)[0]
        events.append(HullPatched(fighter=f.id, ship=ship.id, sides=ship.die, face=face, bonus=ship.con_mod))
    if key == "regenerate_shields":  # unlike the free start-of-turn regeneration, it works at 0 shield points
        _require(ship.shields_max > 0, f"{ship.name} has no shield generator.")
        _require(ship.shields < shields_max(state, ship), f"{ship.name}'s shields are already full.")
        _require(ship.shield_dice > 0, f"{ship.name} has no shield dice left.")
        face = dice.roll(1, ship.die)[0]
        events.append(
            ShieldDieRolled(fighter=f.id, ship=ship.id, sides=ship.die, face=face, bonus=_shield_bonus(state, ship))
        )
    if kind == "weapon":
        events += fire(state, f, ship, weapon, target, c.power, dice)
    return events


def _shield_bonus(state: State, ship: Ship) -> int:
    """What a rolled shield die adds: the ship's Strength modifier (the rules notes work shield points out "with
    shield dice and Str mod", as hull dice add Constitution), unless the GM's setting says the die alone."""
    return ship.str_mod if state.setting("shield_die_mod") == "strength" else 0


def _spend_power(state: State, c: SpendPower, dice: Dice) -> list[Event]:
    _combat(state)
    f = state.fighter(c.actor)
    _require(bool(f.ship), f"{f.name} is not aboard a ship.")
    ship = state.ship(f.ship)
    _require(ship.active, f"{ship.name} is {ship.status}: its crew cannot act.")
    _require(c.system in sw.SYSTEMS, f"Power dice fuel one of: {', '.join(sw.SYSTEMS)}.")
    _require(c.store in sw.STORES, "Take the dice from the central store or a system's store.")
    _require(
        c.store in ("central", c.system),
        f"Dice in the {STORE_LABELS[c.store]} fuel only {c.store}; central dice fuel anything.",
    )
    have = ship.stored(c.store)
    _require(have > 0, f"{ship.name}'s {STORE_LABELS[c.store]} is empty.")
    _require(
        1 <= c.count <= have,
        f"{ship.name}'s {STORE_LABELS[c.store]} holds {have} power {'die' if have == 1 else 'dice'}.",
    )
    sides = power_die(state, ship)
    faces = (1,) * c.count if sides == 1 else dice.roll(c.count, sides)
    restored = 0
    if c.system == "shields" and state.setting("shield_power") == "restore":
        restored = max(0, min(shields_max(state, ship), ship.shields + sum(faces)) - ship.shields)
    return [
        PowerSpent(
            fighter=f.id,
            ship=ship.id,
            system=c.system,
            store=c.store,
            sides=sides,
            faces=faces,
            note=_clean_text(c.note),
            shield_points=restored,
        )
    ]


def _end_crew_turn(state: State, c: EndCrewTurn, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _require(state.acting == f.id, f"It is not {f.name}'s turn.")
    return [CrewTurnEnded(fighter=f.id)]


# --- the GM's hand ----------------------------------------------------------------------------------------------------


def _damage(state: State, c: Damage, dice: Dice) -> list[Event]:
    _combat(state)
    ship = state.ship(c.ship)
    _require(ship.status != "destroyed", f"{ship.name} is already destroyed.")
    _require(1 <= c.amount <= 100_000, "Damage must be a positive whole number.")
    if c.by and not any(s.id == c.by for s in state.ships):
        state.fighter(c.by)  # a crew member, or a sentence
    return [ShipDamaged(ship=ship.id, amount=c.amount, note=_clean_text(c.note), by=c.by)]


def _adjust_ship(state: State, c: AdjustShip, dice: Dice) -> list[Event]:
    ship = state.ship(c.ship)
    _require(ship.status != "destroyed", f"{ship.name} is destroyed.")
    _require(c.what in ADJUSTABLE, "Choose hull, shields, hull dice, shield dice or a power store.")
    top = adjust_limit(state, ship, c.what)
    # A step applies to the value as it is now, whatever changed since the GM's table was drawn.
    now = ship.stored(c.what.removeprefix("power_")) if c.what.startswith("power_") else getattr(ship, c.what)
    value = now + c.change if c.change else c.value
    _require(0 <= value <= top, f"{what_label(c.what)} of {ship.name} must be from 0 to {top}.")
    return [ShipAdjusted(ship=ship.id, what=c.what, value=value)]


def _allow_action(state: State, c: AllowAction, dice: Dice) -> list[Event]:
    label = _clean_text(c.action, 60)
    _require(bool(label), "Name the action.")
    key = custom_key(label)
    _require(
        not any(key in (custom_key(a.key), custom_key(a.label)) for a in ACTION_MENU),
        f"{label} is already on the action menu.",
    )
    _require(state.custom_action(key) is None, f"{label} is already allowed.")
    return [ActionAllowed(key=key, label=label, helm=c.helm, repeat=c.repeat)]


DECIDERS: dict[type[Command], Callable[[State, Any, Dice], list[Event]]] = {
    FreeRoll: decide_free_roll,  # decide() runs it first: in any phase, and nothing follows it
    AssignCrew: _assign_crew,
    SetSurprise: _set_surprise,
    WorkOutSurprise: _work_out_surprise,
    RollInitiative: _roll_initiative,
    SetShipInitiative: _set_ship_initiative,
    OrderTies: _order_ties,
    StartCombat: _start_combat,
    DistributePower: _distribute_power,
    RegenerateShields: _regenerate_shields,
    SetCrewOrder: _set_crew_order,
    StartCrewTurn: _start_crew_turn,
    TakeAction: _take_action,
    SpendPower: _spend_power,
    EndCrewTurn: _end_crew_turn,
    EndShipTurn: _end_ship_turn,
    Damage: _damage,
    AdjustShip: _adjust_ship,
    AllowAction: _allow_action,
    Stabilise: disabled.decide_stabilise,
}
