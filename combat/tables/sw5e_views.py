"""SW5e's typed view models (built in combat.tables.sw5e): what the table, the GM's controls and one player's
phone may show.

A player's table is a `TableView`: each NPC ship whose numbers are hidden is a `ShipRow` with nothing but its
name and status. The GM's is a `GmTableView`: such a ship is a `SecretShipRow` (its numbers, crew and
initiative marked GM-only), and the GM's controls (crews, surprise, initiative, corrections) are GM-only fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from combat.tables.viewmodels import PrivateView, gm_only


@dataclass(frozen=True, kw_only=True)
class Named:
    """A ship or a combatant in a choice list."""

    id: str
    name: str


@dataclass(frozen=True, kw_only=True)
class CrewChoice:
    """A crew member in a choice list (keyed as the forms send it)."""

    key: str
    name: str


@dataclass(frozen=True, kw_only=True)
class Store:
    """One power-dice store of a ship."""

    key: str
    label: str
    stored: int
    capacity: int
    free: int


@dataclass(frozen=True, kw_only=True)
class Share(Store):
    """A store the reactor's new dice can go to, with the share suggested for it."""

    suggested: int


@dataclass(frozen=True, kw_only=True)
class Numbers:
    """One ship's numbers: only ever built for a viewer who may see them."""

    hull: int
    hull_max: int
    shields: int
    shields_max: int
    hull_dice: int
    shield_dice: int
    dice_max: int
    die: int
    shield_type: str
    regeneration: int
    reactor: str
    coupling: str
    power_die: str
    stores: tuple[Store, ...]
    weapons: tuple[str, ...]  # names, with their stats where they have them: "laser cannons (+5 2d6+2)"
    ac: int
    reduction: int  # the armour's damage reduction on attack-roll hits (0: none)
    patch_roll: str = ""  # what a hull die spent by Patch rolls: "d8 + 1"
    shield_roll: str = ""  # what a shield die the Regenerate Shields action spends rolls: "d8 + 2" (the GM's setting)
    # At 0 hull points (rules/sw5e/disabled.py): system damage and its effects, the destruction saves' tally
    system_damage: int = 0
    used: bool = False  # level 5 reached, now or in an earlier fight: a crew member's 1 calls for a save
    halved: bool = False  # level 4: hull_max and shields_max are half the stored hull_full and shields_full
    hull_full: int = 0
    shields_full: int = 0
    effects: tuple[str, ...] = ()
    saves_made: int = 0
    saves_failed: int = 0
    stable: bool = False
    disabled: bool = False


@dataclass(frozen=True, kw_only=True)
class Action:
    """An action still open on the menu."""

    value: str
    label: str
    kind: str
    note: str


@dataclass(frozen=True, kw_only=True)
class CrewRow:
    key: str
    name: str
    pc: bool
    station: str
    helm: bool
    acting: bool
    took_turn: bool
    surprised: bool
    initiative: int | None


@dataclass(frozen=True, kw_only=True)
class ShipRow:
    """One ship on the table. `visible` False: an NPC ship whose numbers the viewer may not see, so it carries
    none of them."""

    id: str
    name: str
    npc: bool
    status: str
    status_label: str
    turn: bool
    visible: bool
    down_note: str = ""  # a disabled ship: its destruction save is rolled as its turn starts (status is public)
    initiative: int | None = None
    surprised: bool = False
    numbers: Numbers | None = None
    crew: tuple[CrewRow, ...] = ()
    taken: tuple[str, ...] = ()
    available: tuple[Action, ...] = ()


@dataclass(frozen=True, kw_only=True)
class SecretShipRow(ShipRow):
    """An NPC ship whose numbers are hidden from players, as the GM sees it: those numbers are the GM's."""

    initiative: int | None = gm_only(None)
    surprised: bool = gm_only(False)
    numbers: Numbers | None = gm_only(None)
    crew: tuple[CrewRow, ...] = gm_only(())
    taken: tuple[str, ...] = gm_only(())
    available: tuple[Action, ...] = gm_only(())


@dataclass(frozen=True, kw_only=True)
class StoreChoice:
    key: str
    label: str


@dataclass(frozen=True, kw_only=True)
class QuickFire:
    """The common crew turn in one tap: fire the first weapon not yet fired at the default target."""

    weapon: str
    target: str
    target_name: str


@dataclass(frozen=True, kw_only=True)
class CrewControls:
    """What one crew member may do now: on their player's phone, and on the GM's screen for whoever is acting.
    `numbers` is None when the ship's numbers are hidden (even from the GM's panel: the table shows them)."""

    key: str
    name: str
    station: str
    helm: bool
    aboard: bool
    ship_id: str
    ship_name: str
    ship_status: str
    numbers: Numbers | None
    initiative: int | None
    can_roll: bool
    ship_turn: bool
    acting: bool
    surprised: bool
    took_turn: bool
    action_left: bool
    bonus: bool
    bonus_left: bool
    bonus_for: str = ""  # the label of the one action the bonus action allows ("" when none is named)
    bonus_offer: Action | None = None  # that action, while this crew member may take it as their bonus action now
    bonus_any: bool = False  # the GM's setting lets the bonus action be any action, and it is not used yet
    bonus_state: str = ""  # a few words for the badge: "ready", "used", "on my turn"...
    reaction_left: bool
    can_start: bool
    can_distribute: bool
    # Storing the dice may start this crew member's turn in the same tap (DistributePower.start_turn); that
    # passes on shield regeneration, which `regen_waits` says is on offer to a crew that stores the dice alone.
    can_store_and_start: bool
    regen_waits: bool
    pending_power: int
    distribution: tuple[Share, ...]
    can_regen: bool
    regen_note: str
    can_order: bool
    order_choices: tuple[CrewChoice, ...]
    can_end_ship: bool
    actions: tuple[Action, ...]
    ship_actions: tuple[Action, ...]
    weapons: tuple[str, ...]
    any_weapon: bool
    fire_power: int  # power dice a shot may add (weapons and central stores; 0: no weapon with stats or none stored)
    targets: tuple[Named, ...]
    default_action: str  # the action the form preselects: the crew member's station's usual one
    default_target: str  # an enemy ship still active, never an ally or a disabled one ("" if none)
    quick_fire: QuickFire | None
    waiting: str  # off turn: who acts and what this crew member waits for
    out_of_turn: tuple[str, ...]  # what they may do meanwhile
    spend_stores: tuple[StoreChoice, ...]
    can_act: bool
    can_react: bool
    can_spend: bool
    can_stabilise: bool = False  # their action may try to stabilise their disabled ship (DC 10 Mechanic's Kit)


@dataclass(frozen=True, kw_only=True)
class Status:
    """Whose ship turn and whose crew turn it is, and the crew's order, as the viewer may see them."""

    turn_ship: str
    turn_ship_id: str
    stage: str
    stage_title: str
    acting_name: str
    next_name: str
    crew_order: tuple[str, ...]
    order_final: bool
    order_by: str


@dataclass(frozen=True, kw_only=True)
class TableView(Status):
    """The table as every player sees it."""

    started: bool
    round: int
    ships: tuple[ShipRow, ...]
    waiting_initiative: tuple[str, ...]
    outcome: str
    hidden_numbers: bool


# --- the GM's controls ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class FighterRow:
    """A combatant in the GM's set-up and crew lists."""

    key: str
    name: str
    pc: bool
    ship: str
    ship_name: str
    station: str
    station_label: str
    surprised: bool
    initiative: int | None


@dataclass(frozen=True, kw_only=True)
class ShipChoice:
    id: str
    name: str
    surprised: bool


@dataclass(frozen=True, kw_only=True)
class NpcInitiative:
    """A ship without PCs aboard: the GM sets or rolls its initiative."""

    id: str
    name: str
    initiative: int | None
    roll: str


@dataclass(frozen=True, kw_only=True)
class ShipTurn:
    """The ship whose turn it is, as the GM runs it."""

    id: str
    name: str
    active: bool
    pending_power: int
    distribution: tuple[Share, ...]
    can_regen: bool
    remaining: tuple[CrewChoice, ...]
    can_end: bool
    status: str = "active"  # "disabled": its crew may only try to repair it (rules/sw5e/disabled.py)


@dataclass(frozen=True, kw_only=True)
class CustomAction:
    label: str
    helm: bool
    repeat: bool = False


@dataclass(frozen=True, kw_only=True)
class GmTableView(TableView):
    """The GM's table and controls: every ship's numbers, crews, surprise, initiative and the corrections."""

    ships: tuple[ShipRow | SecretShipRow, ...]
    fighters: tuple[FighterRow, ...] = gm_only(())
    ship_choices: tuple[ShipChoice, ...] = gm_only(())
    stations: tuple[tuple[str, str], ...] = gm_only(())
    npc_only: tuple[NpcInitiative, ...] = gm_only(())
    ties: tuple[tuple[Named, ...], ...] = gm_only(())
    start_problems: tuple[str, ...] = gm_only(())
    turn: ShipTurn | None = gm_only(None)
    acting: CrewControls | None = gm_only(None)
    damage_ships: tuple[Named, ...] = gm_only(())
    dealers: tuple[Named, ...] = gm_only(())
    adjustable: tuple[tuple[str, str], ...] = gm_only(())
    custom_actions: tuple[CustomAction, ...] = gm_only(())
    systems: tuple[str, ...] = gm_only(())


@dataclass(frozen=True, kw_only=True)
class MeView(PrivateView, Status):
    """One player's own crew members, their ship's state and what each may do now."""

    mine: tuple[CrewControls, ...]
    started: bool
    round: int
    entered_initiative: bool
    systems: tuple[str, ...]
