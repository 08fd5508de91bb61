"""SW5e starship combat: ships act in initiative order; each ship turn starts with the reactor's power dice
and the shield-regeneration choice, then every crew member aboard takes an individual turn.

The files, in the order a newcomer might read them
--------------------------------------------------
- ``state.py``     the state (``State``, ``Ship``, ``Fighter``), the GM's settings, labels and the action menu
- ``commands.py``  what the GM and players can ask for (``COMMANDS``)
- ``events.py``    what happened, as the log stores it (``EVENTS``): the stored schema
- ``decide.py``    ``decide(state, command, dice)``: the rules' yes (events) or no (a RuleError sentence)
- ``evolve.py``    ``evolve(state, event)``: what each event does to the state: the stored schema too
- ``describe.py``  ``describe(state, event, gm)``: each event as a sentence for the GM or for players
- ``setup.py``     the set-up state from the campaign's ships and crew, and what goes back when it ends
- ``ship.py``, ``stats.py``, ``review.py``: ship statistics, crew sheet stats, after-action review facts
- ``gear.py``, ``fire.py``: armour (AC, damage reduction), weapon stats, hull and shield points from size and
  tier; a weapon with stats firing (``TakeAction`` Fire with a target: ``WeaponFired``, power dice added)
- ``disabled.py``  a ship at 0 hull points: disabled or destroyed, system damage, destruction saves (rolled as its
  turn starts), ``Stabilise``, and what a disabled ship's crew may still do

This module is the model's public surface; the rest of Fray imports from here. (The function names ``decide``,
``evolve`` and ``describe`` hide the modules of the same name: import from those as ``from
combat.rules.sw5e.evolve import ...``.)

The shape of an encounter
-------------------------
An encounter holds several ships (``Ship``), each with a crew of fighters (``Fighter``: PCs with the owner's
user id, NPC crew run by the GM). It moves through two stages:

* Set-up (``state.started`` is False): the GM edits crews and stations (``AssignCrew``) and surprise
  (``SetSurprise``, per ship or per crew member, or ``WorkOutSurprise``: the server rolls the Stealth of the
  hiding ships' crews against the passive Perception of the other side's); every PC rolls initiative
  (``RollInitiative``: the server rolls d20 + modifier, or the player enters the face of a physical d20 when
  the ``entered_initiative`` setting allows it); the GM rolls or enters the initiative of each ship with no PC aboard
  (``SetShipInitiative``) and orders tied ships (``OrderTies``). ``StartCombat`` fixes the order.
* Combat: rounds of ship turns, highest initiative first. A ship's turn moves through three steps
  (``state.stage``): "power" — the reactor's dice wait for ``DistributePower`` (with ``start_turn``, the crew
  member who stores them goes straight on to their own turn); "start" — the crew may
  ``RegenerateShields``; "crew" — crew members take turns (``StartCrewTurn``, ``TakeAction``,
  ``EndCrewTurn``) in the order the crew proposes and the helm settles (``SetCrewOrder``), until
  ``EndShipTurn`` hands over to the next ship (rolling its reactor) or to the next round.

Commands whose ``who`` is "owner" carry an ``actor``: the crew member they are issued for. The player who owns
that character may issue them, and the GM may issue them for anyone (NPC crew included). Ship-level commands
(distributing power, regenerating shields, ordering the crew, ending the ship turn) take ``actor=""`` when the
GM issues them without acting as a crew member.

What players see
----------------
Damage dealt to any ship is public. The numbers of NPC ships (side "npc": hull, shields, their dice, stored
power dice, power rolls, reactor output, GM-set initiative) are GM-only unless the ``enemy_numbers`` setting
makes them public: ``describe(..., gm=False)`` leaves them out, or returns None for entries that are nothing
but such numbers. No ship or crew member is ever hidden from players: surprise, not awareness, is SW5e's rule.
"""

from __future__ import annotations

from combat.rules.core import EventCodec
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
from combat.rules.sw5e.decide import BOOST_DC_STEP, decide, reactor_output
from combat.rules.sw5e.describe import describe
from combat.rules.sw5e.events import (
    EVENTS,
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
from combat.rules.sw5e.evolve import evolve, route_power, split_damage
from combat.rules.sw5e.setup import SETTINGS, fighter_from_sheet, initial_state, outcome, write_back
from combat.rules.sw5e.state import (
    ACTION_MENU,
    ADJUSTABLE,
    BOOSTS,
    HELM_ACTIONS,
    MENU,
    PER_SHIP_TURN,
    REACTOR_LABELS,
    REPEATABLE,
    SHIELD_LABELS,
    SLOTS,
    STATION_LABELS,
    STORE_LABELS,
    ActionSpec,
    CustomAction,
    Fighter,
    Ship,
    State,
    adjust_limit,
    bonus_name,
    bonus_spec,
    counted_key,
    custom_key,
    halved,
    hull_max,
    power_die,
    regeneration,
    shields_max,
    ship_order,
    what_label,
)

KEY = "sw5e"
CODEC = EventCodec(EVENTS, COMMANDS)

__all__ = [
    # What the rest of Fray calls on every model (registry, tables, services, review, exports).
    "KEY",
    "SETTINGS",
    "State",
    "COMMANDS",
    "EVENTS",
    "CODEC",
    "initial_state",
    "decide",
    "evolve",
    "describe",
    "fighter_from_sheet",
    "write_back",
    "outcome",
    # The state, its labels and the action menu (state.py).
    "Fighter",
    "Ship",
    "CustomAction",
    "ActionSpec",
    "ACTION_MENU",
    "MENU",
    "REPEATABLE",
    "HELM_ACTIONS",
    "BOOSTS",
    "PER_SHIP_TURN",
    "SLOTS",
    "ADJUSTABLE",
    "STATION_LABELS",
    "STORE_LABELS",
    "REACTOR_LABELS",
    "SHIELD_LABELS",
    "adjust_limit",
    "bonus_name",
    "bonus_spec",
    "counted_key",
    "custom_key",
    "halved",
    "hull_max",
    "power_die",
    "regeneration",
    "shields_max",
    "ship_order",
    "what_label",
    # Commands (commands.py).
    "AssignCrew",
    "SetSurprise",
    "WorkOutSurprise",
    "RollInitiative",
    "SetShipInitiative",
    "OrderTies",
    "StartCombat",
    "DistributePower",
    "RegenerateShields",
    "SetCrewOrder",
    "StartCrewTurn",
    "TakeAction",
    "SpendPower",
    "EndCrewTurn",
    "EndShipTurn",
    "Damage",
    "AdjustShip",
    "AllowAction",
    "Stabilise",
    "SystemDamaged",
    "DestructionSaveRolled",
    "StabiliseAttempted",
    "ShipRecovered",
    "ShipExploded",
    "UsedSaveRolled",
    # Events (events.py).
    "CrewAssigned",
    "SurpriseSet",
    "StealthRolled",
    "InitiativeRolled",
    "ShipInitiativeSet",
    "TiesOrdered",
    "CombatStarted",
    "RoundStarted",
    "ShipTurnStarted",
    "ShipTurnSkipped",
    "PowerDistributed",
    "ShieldsRegenerated",
    "CrewOrderSet",
    "CrewTurnStarted",
    "CrewTurnEnded",
    "ActionTaken",
    "HullPatched",
    "PowerSpent",
    "ShipDamaged",
    "ShieldDieRolled",
    "ShipAdjusted",
    "ActionAllowed",
    "ShipTurnEnded",
    "WeaponFired",
    # Rules the deciders and the log follow (decide.py, evolve.py).
    "BOOST_DC_STEP",
    "reactor_output",
    "route_power",
    "split_damage",
]
