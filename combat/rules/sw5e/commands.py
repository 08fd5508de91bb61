"""What the GM and the players of an SW5e starship encounter can ask for. `decide` checks each one against the
rules; `who` says who may issue it ("owner": the player of the crew member named in `actor`, and the GM)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from combat.rules.core import Command
from combat.rules.free_roll import FreeRoll


@dataclass(frozen=True)
class AssignCrew(Command):
    """Put a fighter aboard a ship at a station, change their station, or take them off every ship (ship="")."""

    name: ClassVar[str] = "assign_crew"
    label: ClassVar[str] = "Assign a crew member"
    fighter: str = ""
    ship: str = ""
    station: str = ""


@dataclass(frozen=True)
class SetSurprise(Command):
    name: ClassVar[str] = "set_surprise"
    label: ClassVar[str] = "Set surprise (a ship or a crew member)"
    target: str = ""
    surprised: bool = True


@dataclass(frozen=True)
class WorkOutSurprise(Command):
    """The server rolls Dexterity (Stealth) for the crew of the ships that hide and compares each roll with the
    passive Wisdom (Perception) of the crews on the other side; setting surprise by hand stays."""

    name: ClassVar[str] = "work_out_surprise"
    label: ClassVar[str] = "Work out surprise from Stealth"
    hiders: tuple[str, ...] = ()  # the ships that hide


@dataclass(frozen=True)
class RollInitiative(Command):
    name: ClassVar[str] = "roll_initiative"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Roll initiative"
    actor: str = ""
    entered: int = 0  # the face of a physical d20 (0: the server rolls)


@dataclass(frozen=True)
class SetShipInitiative(Command):
    name: ClassVar[str] = "set_ship_initiative"
    label: ClassVar[str] = "Roll or set an NPC ship's initiative"
    ship: str = ""
    value: int = 0
    roll: bool = False  # the server rolls d20 + the ship's initiative modifier


@dataclass(frozen=True)
class OrderTies(Command):
    name: ClassVar[str] = "order_ties"
    label: ClassVar[str] = "Order tied ships"
    order: str = ""  # ship ids, first to act first, separated by commas or spaces


@dataclass(frozen=True)
class StartCombat(Command):
    name: ClassVar[str] = "start_combat"
    label: ClassVar[str] = "Start combat"


@dataclass(frozen=True)
class DistributePower(Command):
    name: ClassVar[str] = "distribute_power"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Distribute the reactor's power dice"
    actor: str = ""
    central: int = 0
    communications: int = 0
    engines: int = 0
    shields: int = 0
    sensors: int = 0
    weapons: int = 0
    # The crew member who stores the dice goes on to take their turn (StartCrewTurn), passing on shield
    # regeneration as starting a turn does: the common ship turn of a lone crew member in one tap.
    start_turn: bool = False


@dataclass(frozen=True)
class RegenerateShields(Command):
    name: ClassVar[str] = "regenerate_shields"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Regenerate shields (spend a shield die)"
    actor: str = ""


@dataclass(frozen=True)
class SetCrewOrder(Command):
    name: ClassVar[str] = "set_crew_order"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Propose the crew's turn order (the helm decides)"
    actor: str = ""
    order: str = ""  # crew ids separated by commas or spaces


@dataclass(frozen=True)
class StartCrewTurn(Command):
    name: ClassVar[str] = "start_crew_turn"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Take my turn"
    actor: str = ""


@dataclass(frozen=True)
class TakeAction(Command):
    name: ClassVar[str] = "take_action"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Take an action"
    actor: str = ""
    action: str = ""  # a key or label of the action menu, or an action the GM allowed
    slot: str = "action"  # "action", "bonus" or "reaction"
    weapon: str = ""  # Fire: the weapon
    target: str = ""  # optional: the ship aimed at
    note: str = ""
    power: int = 0  # Fire: power dice (weapons store, then central) added to the damage of a hit


@dataclass(frozen=True)
class SpendPower(Command):
    name: ClassVar[str] = "spend_power"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Spend power dice"
    actor: str = ""
    system: str = "weapons"  # what the dice fuel
    store: str = "central"  # where they come from: the central store or that system's own store
    count: int = 1
    note: str = ""


@dataclass(frozen=True)
class EndCrewTurn(Command):
    name: ClassVar[str] = "end_crew_turn"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "End my turn"
    actor: str = ""


@dataclass(frozen=True)
class EndShipTurn(Command):
    name: ClassVar[str] = "end_ship_turn"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "End the ship's turn"
    actor: str = ""


@dataclass(frozen=True)
class Damage(Command):
    name: ClassVar[str] = "damage"
    label: ClassVar[str] = "Damage a ship"
    ship: str = ""
    amount: int = 0
    note: str = ""
    by: str = ""  # optional: the ship or crew member that dealt it (for the log and the after-action review)


@dataclass(frozen=True)
class AdjustShip(Command):
    name: ClassVar[str] = "adjust_ship"
    label: ClassVar[str] = "Correct a ship's numbers"
    ship: str = ""
    what: str = "hull"  # one of ADJUSTABLE
    value: int = 0
    change: int = 0  # not 0: a step from the current value instead (the GM's -1/+1 on the table)


@dataclass(frozen=True)
class AllowAction(Command):
    name: ClassVar[str] = "allow_action"
    label: ClassVar[str] = "Allow a free-text action"
    action: str = ""
    helm: bool = False
    repeat: bool = False  # several crew members may take it in one round (a force power, a Medicine check)


@dataclass(frozen=True)
class Stabilise(Command):
    """A crew member's action aboard a disabled ship: the server rolls their Intelligence (Mechanic's Kit) check
    (d20 + the modifier they give) against DC 10; on a success the ship is stable."""

    name: ClassVar[str] = "stabilise"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Try to stabilise the ship (DC 10 Intelligence (Mechanic's Kit))"
    actor: str = ""
    modifier: int = 0


COMMANDS = (
    AssignCrew,
    SetSurprise,
    WorkOutSurprise,
    RollInitiative,
    SetShipInitiative,
    OrderTies,
    StartCombat,
    DistributePower,
    RegenerateShields,
    SetCrewOrder,
    StartCrewTurn,
    TakeAction,
    SpendPower,
    EndCrewTurn,
    EndShipTurn,
    Damage,
    AdjustShip,
    AllowAction,
    Stabilise,
    FreeRoll,
)
