"""SW5e starship combat at the table: several ships in initiative order; each ship turn starts with the reactor's
power dice and the shield-regeneration choice, then the crew aboard take their turns in the order the helm
settles.

The builder picks the campaign's ships (party and NPC ships) with surprise per ship and per crew member; crews
come from the ships' crew assignments and are edited in the encounter's set-up stage; ending the encounter writes
the ships' numbers back to their `ships.Ship` rows (both in combat/tables/sw5e_setup.py).

The numbers of an NPC ship (hull, shields, dice, power, the GM's initiative for it, its surprise and crew) go
into the GM's view model only, unless the encounter's `enemy_numbers` setting makes them public: a player's
view names such a ship and says what happens to it (damage dealt is public), never what it holds.
"""

from __future__ import annotations

from combat.rules import sw5e as sw
from combat.rules.core import RuleError, as_players_know
from combat.rules.sw5e import disabled
from combat.rules.sw5e import review as sw_review
from combat.rules.sw5e import ship as sws
from combat.rules.sw5e.stats import STATIONS
from combat.tables.base import Table
from combat.tables.sw5e_setup import build_form, clean_form, initial_state, write_back
from combat.tables.sw5e_views import (
    Action,
    CrewChoice,
    CrewControls,
    CrewRow,
    CustomAction,
    FighterRow,
    GmTableView,
    MeView,
    Named,
    NpcInitiative,
    Numbers,
    QuickFire,
    SecretShipRow,
    Share,
    ShipChoice,
    ShipRow,
    ShipTurn,
    Store,
    StoreChoice,
    TableView,
)

STAGE_TITLES = {
    "power": "the reactor's power dice wait for the crew",
    "start": "the crew may regenerate shields",
    "crew": "crew turns",
}
STATUS_LABELS = {"active": "", "disabled": "disabled", "destroyed": "destroyed"}
COUPLING_LABELS = dict(sws.COUPLING_CHOICES)


# --- pieces of the view models -----------------------------------------------------------------------------------


def _power_die(state, ship) -> str:
    sides = sw.power_die(state, ship)
    return "a flat 1" if sides == 1 else f"d{sides}"


def _numbers(state, ship) -> Numbers:
    stores = tuple(
        Store(key=s, label=s.capitalize(), stored=ship.stored(s), capacity=ship.capacity(s), free=ship.free(s))
        for s in sws.STORES
        if ship.capacity(s) or ship.stored(s)
    )
    return Numbers(
        hull=ship.hull,
        hull_max=sw.hull_max(state, ship),
        shields=ship.shields,
        shields_max=sw.shields_max(state, ship),
        hull_dice=ship.hull_dice,
        shield_dice=ship.shield_dice,
        dice_max=ship.dice_max,
        die=ship.die,
        shield_type=sw.SHIELD_LABELS.get(ship.shield_type, ""),
        regeneration=sw.regeneration(state, ship),
        reactor=sw.REACTOR_LABELS.get(ship.reactor, ""),
        coupling=COUPLING_LABELS.get(ship.coupling, ""),
        power_die=_power_die(state, ship),
        stores=stores,
        weapons=tuple(f"{w} ({ship.weapon_stats[w]})" if w in ship.weapon_stats else w for w in ship.weapons),
        ac=ship.ac,
        reduction=ship.reduction,
        patch_roll=_die_roll(ship.die, ship.con_mod),
        shield_roll=_die_roll(ship.die, ship.str_mod if state.setting("shield_die_mod") == "strength" else 0),
        system_damage=ship.system_damage,
        halved=sw.halved(state, ship),
        used=disabled.used(ship),
        hull_full=ship.hull_max,
        shields_full=ship.shields_max,
        effects=disabled.effects(ship.system_damage),
        saves_made=ship.saves_made,
        saves_failed=ship.saves_failed,
        stable=ship.stable,
        disabled=ship.status == "disabled",
    )


def _die_roll(die: int, mod: int) -> str:
    return f"d{die} {'+' if mod >= 0 else '−'} {abs(mod)}" if mod else f"d{die}"


def _down_note(state, ship, hidden: bool) -> str:
    """What happens to a disabled ship on its turn: public, as its status is (its tally and stability are not)."""
    if ship.status != "disabled":
        return ""
    if ship.stable and not hidden:
        return "Stable: no destruction saves unless it takes damage."
    crew = "its crew may repair it" if disabled.crew_may_act(state) else "its crew cannot act"
    return f"Its destruction save (d20, 10 or more) is rolled automatically as its turn starts; {crew}."


def distribution(ship, pending: int) -> tuple[Share, ...]:
    """The stores the reactor's new dice can go to, each with a suggested share: fill them in order."""
    out, left = [], pending
    for store in sws.STORES:
        if not ship.capacity(store):
            continue
        share = min(left, ship.free(store))
        left -= share
        out.append(
            Share(
                key=store,
                label=sw.STORE_LABELS[store].capitalize(),
                stored=ship.stored(store),
                capacity=ship.capacity(store),
                free=ship.free(store),
                suggested=share,
            )
        )
    return tuple(out)


def _taken_label(state, counted: str) -> str:
    if counted.startswith("fire:"):
        return f"Fire ({counted.removeprefix('fire:')})"
    if counted in sw.MENU:
        return sw.MENU[counted].label
    custom = state.custom_action(counted)
    if custom:
        return custom.label
    # A feature's own bonus action ("Second Wind") the GM never added to the menu: the name its sheet gives it.
    return next((f.bonus_for for f in state.fighters if sw.custom_key(f.bonus_for) == counted), counted)


def _menu(state):
    """(value to send, name it counts under, label, kind) of every action on the menu, the GM's free-text ones
    last. Fire counts per weapon, so its name here is empty."""
    for spec in sw.ACTION_MENU:
        yield spec.key, sw.counted_key(spec.key) if spec.kind != "weapon" else "", spec.label, spec.kind
    for custom in state.custom_actions:
        kind = "helm" if custom.helm else ("repeat" if custom.repeat else "once")
        yield custom.label, state.counted(custom.key), custom.label, kind


def weapons_left(ship) -> tuple[str, ...]:
    return tuple(w for w in ship.weapons if sw.counted_key("fire", w) not in ship.actions)


NOTES = {
    "repeat": "may repeat",
    "helm": "helm only",
    "boost": "once per ship turn",
    "turn": "once per ship turn",
    "weapon": "each weapon once",
}


def available_actions(state, ship, fighter=None) -> tuple[Action, ...]:
    """The actions still open to `ship` this round (once-per-round actions not yet taken aboard, boosts not yet
    used this ship turn, weapons not yet fired); with `fighter`, only those that crew member may take."""
    helm = state.helm(ship.id)
    out = []
    for value, counted, label, kind in _menu(state):
        if counted and counted in ship.actions:
            continue
        if kind == "boost" and value in ship.boosts:
            continue
        if kind == "turn" and state.ship_turn == ship.id and value in state.turn_actions:
            continue
        if kind == "weapon" and ship.weapons and not weapons_left(ship):
            continue
        if fighter is not None:
            if kind == "helm" and (helm is None or helm.id != fighter.id or fighter.helm_used):
                continue
            if kind == "helm" and state.helm_taken.get(ship.id, fighter.id) != fighter.id:
                continue  # another crew member took this round's helm actions
            if kind in ("boost", "turn") and state.ship_turn != ship.id:
                continue
        out.append(Action(value=value, label=label, kind=kind, note=NOTES.get(kind, "")))
    if ship.status == "disabled":  # only what the rules leave a disabled ship's crew (rules/sw5e/disabled.py)
        allowed = tuple(a for a in disabled.crew_actions(state) if a != "patch" or ship.hull_dice > 0)
        out = [a for a in out if a.value in allowed]
    return tuple(out)


def bonus_offer(state, ship, f, actions) -> Action | None:
    """The action `f`'s bonus action is for (sw.bonus_spec), while they may take it now: their feature grants a
    bonus action not used yet this turn, and the action is still open to them (`actions`, available_actions for
    them) or, for a feature's own action the GM never added to the menu, not yet taken aboard this round."""
    spec = sw.bonus_spec(state, f)
    if ship is None or spec is None or not f.bonus_action or f.bonus_used:
        return None
    for a in actions:
        if a.value == spec.key or sw.custom_key(a.value) == spec.key:
            return a
    if spec.key in sw.MENU or state.custom_action(spec.key) is not None or spec.key in ship.actions:
        return None  # on the menu but closed now, or taken aboard this round
    return Action(value=spec.label, label=spec.label, kind="once", note="")


def _bonus_state(state, f, named, acting: bool, open_now: bool, down: bool) -> str:
    """The bonus action badge's words."""
    if named is None and state.setting("bonus_actions") != "any":
        return "no action named on the sheet"
    if not acting:
        return "used" if f.took_turn else "on my turn"
    if open_now:
        return "ready"
    if down and not f.bonus_used:
        return "not while disabled"
    return "used" if f.bonus_used else "not open now"


def _crew_row(state, f) -> CrewRow:
    return CrewRow(
        key=f.id,
        name=f.name,
        pc=f.is_pc,
        station=sw.STATION_LABELS.get(f.station, ""),
        helm=f.station == "pilot",
        acting=state.acting == f.id,
        took_turn=f.took_turn,
        surprised=state.surprised_now(f),
        initiative=f.initiative if f.is_pc else None,
    )


def _ship_row(state, ship, gm: bool) -> ShipRow:
    """A ship as the viewer may see it: an NPC ship whose numbers are hidden is a bare row for players and a
    SecretShipRow (its numbers marked GM-only) for the GM."""
    hidden = state.hides(ship.id)
    head = dict(
        id=ship.id,
        name=ship.name,
        npc=ship.side != "pc",
        status=ship.status,
        status_label=STATUS_LABELS.get(ship.status, ship.status),
        turn=state.ship_turn == ship.id,
        down_note=_down_note(state, ship, hidden and not gm),
    )
    if hidden and not gm:
        return ShipRow(**head, visible=False)
    kind = SecretShipRow if hidden else ShipRow
    return kind(
        **head,
        visible=True,
        initiative=state.ship_initiative(ship.id),
        surprised=ship.surprised,
        numbers=_numbers(state, ship),
        crew=tuple(_crew_row(state, f) for f in state.crew(ship.id)),
        taken=tuple(_taken_label(state, a) for a in ship.actions),
        available=available_actions(state, ship) if state.started else (),
    )


def _targets(state, ship) -> tuple[Named, ...]:
    """The ships `ship`'s crew may aim at: enemies still active first, then disabled ones, then allies."""
    others = [s for s in state.ships if s.id != ship.id and s.status != "destroyed"]
    others.sort(key=lambda s: (s.side == ship.side, not s.active))  # stable: the table's order within each
    return tuple(Named(id=s.id, name=s.name) for s in others)


def _fire_power(ship) -> int:
    """Power dice a shot from this ship may add: weapons and central stores, when a weapon has stats."""
    return ship.stored("weapons") + ship.stored("central") if ship.weapon_stats else 0


def _default_target(state, ship) -> Named | None:
    """The ship a shot goes to unless the player picks another: an enemy still active, never an ally or a
    disabled ship (the status of every ship is public, so this tells a player nothing hidden)."""
    return next((Named(id=s.id, name=s.name) for s in state.ships if s.side != ship.side and s.active), None)


def _has_enemy(state, ship) -> bool:
    return any(s.side != ship.side and s.status != "destroyed" for s in state.ships)


# The action a station usually takes on its crew turn, preselected on the phone; anyone else fires.
STATION_ACTIONS = {
    "gunner": "fire",
    "coordinator": "direct",
    "mechanic": "patch",
    "operator": "interfere",
    "technician": "boost_shields",
}


def _default_action(state, f, ship, actions) -> str:
    values = [a.value for a in actions]
    wanted = STATION_ACTIONS.get(f.station, "fire")
    if wanted == "patch" and ship.hull >= sw.hull_max(state, ship):
        wanted = "fire"  # nothing to patch
    if ship.status == "disabled":
        wanted = "patch"  # repairs first aboard a disabled ship
    return next((v for v in (wanted, "fire") if v in values), values[0] if values else "")


def _waiting(state, f, ship) -> str:
    """Off turn, one sentence: whose turn it is and what this crew member waits for. Only public facts: ship
    names, statuses and turns, and who is acting (the table's status line says as much); never the stage of a
    ship whose numbers are hidden."""
    if not state.started:
        if f.is_pc and f.ship and f.initiative is None:
            return "Set-up: roll your initiative; the GM starts combat when every ship has one."
        return "Set-up: the GM starts combat when every ship has its initiative."
    if state.acting == f.id or ship is None:
        return ""
    if not disabled.takes_turns(state, ship):
        return f"{ship.name} is {ship.status}: its crew cannot act."
    turn = state.ship(state.ship_turn) if state.ship_turn else None
    if turn is None:
        return "Between ship turns."
    acting = state.fighter(state.acting).name if state.acting else ""
    if turn.id != ship.id:
        later = ship.id in state.order and state.order.index(ship.id) > state.order.index(turn.id)
        now = f"{turn.name}'s ship turn" + (f": {acting} is acting" if acting else "")
        return f"{now}. {ship.name} goes {'later this round' if later else 'next round'}."
    if state.stage == "power":
        if state.hides(ship.id):  # a PC aboard an NPC ship: what its reactor makes is the GM's
            return f"{ship.name}'s ship turn: the GM starts it."
        return f"{ship.name}'s ship turn: the crew stores the reactor's power dice first."
    remaining = state.remaining_crew(ship.id)
    if f.took_turn:
        rest = [m.name for m in remaining if m.id != f.id]
        if acting:
            return f"{acting} is taking their turn; you have had yours this round."
        return (
            f"You have had your turn; waiting for {', '.join(rest)}."
            if rest
            else f"You have had your turn; {ship.name}'s turn can end."
        )
    if acting:
        return f"{acting} is taking their turn; yours comes after."
    if state.surprised_now(f):
        return "Surprised: taking your turn only ends it (no action this time)."
    nxt = remaining[0] if state.crew_order and remaining else None
    if nxt is not None and nxt.id != f.id:
        return f"The crew's order has {nxt.name} go next."
    return f"{ship.name}'s ship turn: you may take your turn now."


def _out_of_turn(can_react: bool, can_spend: bool) -> tuple[str, ...]:
    """What a crew member may do while someone else is acting."""
    return tuple(
        text
        for ok, text in ((can_react, "react (your reaction is ready)"), (can_spend, "spend the ship's power dice"))
        if ok
    )


def crew_controls(state, f) -> CrewControls:
    """What one crew member may do now, for their player's phone (and the GM's panel for whoever is acting)."""
    ship = state.ship(f.ship) if f.ship else None
    turn = ship is not None and state.ship_turn == ship.id
    acting = state.acting == f.id
    remaining = state.remaining_crew(ship.id) if turn else ()
    nxt = remaining[0] if turn and state.crew_order and remaining else None
    active = ship is not None and ship.active
    crewed = ship is not None and disabled.takes_turns(state, ship)  # active, or disabled with a crew that may act
    visible = ship is not None and not state.hides(ship.id)
    # A PC the GM put aboard an NPC ship whose numbers are hidden leaves its power and shields to the GM.
    # Shields the crew could regenerate at the start of the ship's turn (once its power dice are stored).
    shields_to_regen = visible and active and 0 < ship.shields < sw.shields_max(state, ship) and ship.shield_dice > 0
    can_regen = turn and state.stage == "start" and shields_to_regen
    regen_note = ""
    if turn and state.stage == "start" and not can_regen and visible:
        if ship.shields_max == 0:
            regen_note = f"{ship.name} has no shield generator."
        elif ship.shields == 0:
            regen_note = "The shields are down: regeneration cannot restart them."
        elif ship.shields >= sw.shields_max(state, ship):
            regen_note = "The shields are full."
        elif ship.shield_dice == 0:
            regen_note = "No shield dice are left."
    stores = [s for s in sws.STORES if ship is not None and ship.stored(s)] if visible else []
    can_act = state.started and crewed and acting
    can_react = state.started and active and not acting and state.can_react(f)
    can_spend = state.started and active and bool(stores)
    actions = available_actions(state, ship, f) if ship is not None and state.started else ()
    if ship is not None and not _has_enemy(state, ship):
        actions = tuple(a for a in actions if a.kind != "weapon")  # no attack without a ship to aim at
    named = sw.bonus_spec(state, f)
    down = ship is not None and ship.status == "disabled"  # no weapons, bonus Evade or reactions aboard it
    bonus = bonus_offer(state, ship, f, actions) if can_act else None
    if down and bonus not in actions:
        bonus = None  # a feature's own action is not among what a disabled ship's crew may do
    bonus_any = can_act and f.bonus_action and not f.bonus_used and state.setting("bonus_actions") == "any"
    target = _default_target(state, ship) if ship is not None else None
    left = weapons_left(ship) if ship is not None and not down else ()
    quick = None
    if can_act and not f.action_used and target and left and any(a.kind == "weapon" for a in actions):
        quick = QuickFire(weapon=left[0], target=target.id, target_name=target.name)
    return CrewControls(
        key=f.id,
        name=f.name,
        station=sw.STATION_LABELS.get(f.station, ""),
        helm=f.station == "pilot",
        aboard=ship is not None,
        ship_id=ship.id if ship else "",
        ship_name=ship.name if ship else "",
        ship_status=STATUS_LABELS.get(ship.status, "") if ship else "",
        numbers=_numbers(state, ship) if visible else None,
        initiative=f.initiative,
        can_roll=not state.started and f.is_pc and f.initiative is None,
        ship_turn=turn,
        acting=acting,
        surprised=state.surprised_now(f),
        took_turn=f.took_turn,
        action_left=not f.action_used,
        bonus=f.bonus_action,
        bonus_left=bonus is not None or bonus_any,
        bonus_for=named.label if f.bonus_action and named else "",
        bonus_offer=bonus,
        bonus_any=bonus_any,
        bonus_state=_bonus_state(state, f, named, acting, bonus is not None or bonus_any, down),
        reaction_left=state.can_react(f) and not down,
        can_start=(
            turn
            and crewed
            and state.stage != "power"
            and not state.acting
            and not f.took_turn
            and (nxt is None or nxt.id == f.id)
        ),
        can_distribute=turn and visible and state.stage == "power",
        can_store_and_start=(
            turn
            and visible
            and active
            and state.stage == "power"
            and not state.acting
            and not f.took_turn
            and (nxt is None or nxt.id == f.id)
        ),
        regen_waits=turn and state.stage == "power" and shields_to_regen,
        pending_power=state.pending_power if turn and visible else 0,
        distribution=distribution(ship, state.pending_power) if turn and visible and state.stage == "power" else (),
        can_regen=can_regen,
        regen_note=regen_note,
        can_order=(
            turn
            and crewed
            and len(remaining) > 1
            and not state.acting
            and not (state.order_final and f.station != "pilot")
        ),
        order_choices=tuple(CrewChoice(key=m.id, name=m.name) for m in remaining),
        can_end_ship=turn and not state.acting and (not active or (state.stage != "power" and not remaining)),
        actions=actions,
        ship_actions=available_actions(state, ship) if ship is not None and state.started else (),
        weapons=left,
        any_weapon=ship is not None and not ship.weapons and not down,
        fire_power=_fire_power(ship) if visible and ship is not None and not down else 0,
        targets=_targets(state, ship) if ship is not None else (),
        default_action=_default_action(state, f, ship, actions) if ship is not None else "",
        default_target=target.id if target else "",
        quick_fire=quick,
        waiting=_waiting(state, f, ship),
        out_of_turn=_out_of_turn(can_react, can_spend and not acting) if state.started else (),
        spend_stores=tuple(StoreChoice(key=s, label=sw.STORE_LABELS[s]) for s in stores),
        can_act=can_act,
        can_react=can_react,
        can_spend=can_spend,
        can_stabilise=can_act and not f.action_used and ship is not None and disabled.can_stabilise(state, ship),
    )


def _order_names(state, ids) -> tuple[str, ...]:
    names = []
    for fid in ids:
        try:
            names.append(state.fighter(fid).name)
        except RuleError:
            continue
    return tuple(names)


def _status(state, gm: bool) -> dict:
    """Whose ship turn and whose crew turn it is, and the crew's order, as the viewer may see them."""
    turn = state.ship(state.ship_turn) if state.ship_turn else None
    open_to_viewer = turn is not None and (gm or not state.hides(turn.id))
    remaining = state.remaining_crew(turn.id) if turn is not None else ()
    nxt = remaining[0].name if remaining and state.crew_order and not state.acting else ""
    by = state.fighter(state.order_by).name if state.order_by else "the GM"
    return {
        "turn_ship": turn.name if turn else "",
        "turn_ship_id": turn.id if turn else "",
        # An NPC ship's stage would tell whether its reactor produced anything: a hidden number.
        "stage": state.stage if open_to_viewer else "",
        "stage_title": STAGE_TITLES.get(state.stage, "") if open_to_viewer else "",
        "acting_name": state.fighter(state.acting).name if state.acting else "",
        "next_name": nxt if open_to_viewer else "",
        "crew_order": _order_names(state, state.crew_order) if open_to_viewer else (),
        "order_final": state.order_final,
        "order_by": by,
    }


# --- what everyone sees ------------------------------------------------------------------------------------------


def public_view(encounter, state, gm: bool) -> TableView:
    """The table for the GM (gm=True: a GmTableView) or for every player: no per-user facts, no hidden NPC ship
    numbers."""
    order = state.order if state.started else sw.ship_order(state)[0]
    waiting = tuple(f.name for f in state.pcs() if f.ship and f.initiative is None) if not state.started else ()
    view = dict(
        started=state.started,
        round=state.round,
        ships=tuple(_ship_row(state, state.ship(sid), gm) for sid in order),
        waiting_initiative=waiting,
        outcome=sw.outcome(state if gm else as_players_know(state)),
        hidden_numbers=state.setting("enemy_numbers") != "public",
        **_status(state, gm),
    )
    if gm:
        return GmTableView(**view, **_gm_view(state))
    return TableView(**view)


def _gm_view(state) -> dict:
    """The GM's controls: set-up (initiative, ties, crews, surprise), the ship turn, corrections."""
    _, ties = sw.ship_order(state)
    ties = [g for g in ties if all(state.ship_initiative(sid) is not None for sid in g)]  # not "tied" at nothing
    npc_only = tuple(
        NpcInitiative(
            id=s.id,
            name=s.name,
            initiative=s.initiative,
            roll=f"d20 {'+' if s.initiative_mod >= 0 else '−'} {abs(s.initiative_mod)}",
        )
        for s in state.ships
        if not any(f.is_pc for f in state.crew(s.id))
    )
    problems = []
    if not state.started:
        if any(f.is_pc and f.ship and f.initiative is None for f in state.fighters):
            problems.append("every PC aboard a ship rolls initiative")
        unset = [s.name for s in npc_only if s.initiative is None]
        if unset:
            problems.append(f"set the initiative of {', '.join(unset)}")
        if ties:
            problems.append("order the tied ships")
    turn = state.ship(state.ship_turn) if state.ship_turn else None
    remaining = state.remaining_crew(turn.id) if turn else ()
    acting = state.fighter(state.acting) if state.acting else None
    return dict(
        fighters=tuple(
            FighterRow(
                key=f.id,
                name=f.name,
                pc=f.is_pc,
                ship=f.ship,
                ship_name=state.ship(f.ship).name if f.ship else "",
                station=f.station,
                station_label=sw.STATION_LABELS.get(f.station, ""),
                surprised=state.surprised_now(f),  # the ship's surprise counts unless the GM cleared them
                initiative=f.initiative,
            )
            for f in state.fighters
        ),
        ship_choices=tuple(
            ShipChoice(id=s.id, name=s.name, surprised=s.surprised) for s in state.ships if s.status != "destroyed"
        ),
        stations=STATIONS,
        npc_only=npc_only,
        ties=tuple(tuple(Named(id=sid, name=state.ship(sid).name) for sid in group) for group in ties),
        start_problems=tuple(problems),
        turn=ShipTurn(
            id=turn.id,
            name=turn.name,
            active=turn.active,
            pending_power=state.pending_power,
            distribution=distribution(turn, state.pending_power) if state.stage == "power" else (),
            can_regen=(
                state.stage == "start"
                and turn.active
                and 0 < turn.shields < sw.shields_max(state, turn)
                and turn.shield_dice > 0
            ),
            remaining=tuple(CrewChoice(key=f.id, name=f.name) for f in remaining),
            can_end=not state.acting and (not turn.active or (state.stage != "power" and not remaining)),
            status=turn.status,
        )
        if turn
        else None,
        acting=crew_controls(state, acting) if acting else None,
        damage_ships=tuple(Named(id=s.id, name=s.name) for s in state.ships if s.status != "destroyed"),
        dealers=tuple(Named(id=x.id, name=x.name) for x in (*state.ships, *state.fighters)),
        adjustable=tuple((what, sw.what_label(what)) for what in sw.ADJUSTABLE),
        custom_actions=tuple(CustomAction(label=a.label, helm=a.helm, repeat=a.repeat) for a in state.custom_actions),
        systems=sws.SYSTEMS,
    )


def private_view(encounter, state, user_id: int) -> MeView:
    """One player's own crew members: their ship's state, their action economy and what they may do now."""
    mine = tuple(crew_controls(state, f) for f in state.pcs() if f.owner == user_id)
    return MeView(
        mine=mine,
        started=state.started,
        round=state.round,
        entered_initiative=bool(state.setting("entered_initiative")),
        systems=sws.SYSTEMS,
        **_status(state, False),
        your_turn=any(m.acting for m in mine),
        you_may_act=any(m.can_start or m.can_roll or m.can_distribute for m in mine),
    )


class Sw5eTable(Table):
    """SW5e starship combat at the table: this module's functions are its parts."""

    PERSISTS = (
        "Each party and NPC ship keeps its hull and shield points, hull and shield dice and the power dice in "
        "its stores; the crew's actions and reactions end with the fight."
    )
    ENEMIES_REQUIRED = False  # the other side is NPC ships; NPC crew are optional (the GM acts for a crewless ship)
    ME_FIRST = True  # a player's page puts their own controls before the table (combat.fragments)
    review = sw_review
    round_title = staticmethod(sw_review.round_title)
    section_title = staticmethod(sw_review.section_title)

    build_form = staticmethod(build_form)
    clean_form = staticmethod(clean_form)
    initial_state = staticmethod(initial_state)
    public_view = staticmethod(public_view)
    private_view = staticmethod(private_view)
    write_back = staticmethod(write_back)  # to the ships.Ship rows, not to characters

    def facts(self, state, event, gm: bool):
        return sw_review.facts(state, event, gm=gm)  # an NPC ship's numbers are the GM's

    def subjects(self, state, gm: bool) -> list[tuple[str, str, str]]:
        return sw_review.subjects(state)  # the ships and their crews

    def fallen(self, state) -> list[str]:
        return [s.id for s in state.ships if not s.active]  # disabled or destroyed
