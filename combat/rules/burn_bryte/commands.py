"""What players and the GM may ask of a Burn Bryte fight: one frozen dataclass per command.

`who` says who may issue it: "owner" is the player of `actor` (and the GM), "gm" the GM alone. `decide` checks
each against the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from combat.rules.core import Command, Reveal
from combat.rules.free_roll import FreeRoll

INTENTS = ("attack", "defend", "advantage", "move", "other")  # what a skill roll is for
EXTRA_DAMAGE_MAX = 3  # a player may add at most this much extra damage (an ability or Nova) to one attack


@dataclass(frozen=True)
class Declare(Command):
    name: ClassVar[str] = "declare"
    label: ClassVar[str] = "Declare an enemy action"
    enemy: str = ""
    target: str = ""
    text: str = "attacks"
    extra: bool = False
    unarmed: bool = False  # the action does not use the enemy's weapon (the weapon is named otherwise)


@dataclass(frozen=True)
class ChangeDeclaration(Command):
    name: ClassVar[str] = "change_declaration"
    label: ClassVar[str] = "Change a declared action"
    declaration: int = 0
    target: str = ""
    text: str = ""


@dataclass(frozen=True)
class StartPlayers(Command):
    name: ClassVar[str] = "start_players"
    label: ClassVar[str] = "Start Phase 2"


@dataclass(frozen=True)
class ClaimTurn(Command):
    name: ClassVar[str] = "claim_turn"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Take my turn"
    actor: str = ""


@dataclass(frozen=True)
class PickNext(Command):
    """The GM picks a PC (and from then on the finishing PC picks the next), or the picking PC picks."""

    name: ClassVar[str] = "pick_next"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Pick who goes next"
    actor: str = ""  # the picking PC; empty when the GM picks
    next: str = ""


@dataclass(frozen=True)
class SkillRoll(Command):
    name: ClassVar[str] = "skill_roll"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Roll a skill"
    actor: str = ""
    skill: str = ""
    intent: str = "other"
    target: str = ""
    damage: int = 1  # typed damage, only with the GM's setting `typed_damage`; otherwise 1: the weapon decides
    note: str = ""
    extra_damage: int = 0  # an ability's or Nova's extra damage on a hit, added to the weapon's (EXTRA_DAMAGE_MAX)
    entered: tuple[int, ...] = ()
    drain: bool = False  # use the weapon's Draining: deal 2, take 1 unblockable
    at: str = ""  # a Burst's point, a square ("C5", positions.py); without it the Burst centres on its target


@dataclass(frozen=True)
class FreeMove(Command):
    name: ClassVar[str] = "free_move"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Move"
    actor: str = ""
    squares: int = 0
    to: str = ""  # a square ("C5"): the move is checked on the grid (positions.py); squares then come from it


@dataclass(frozen=True)
class SpendAdvantage(Command):
    name: ClassVar[str] = "spend_advantage"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Spend an Advantage to reroll a die"
    actor: str = ""
    die: int = 0  # index of the die in the failed roll
    entered: tuple[int, ...] = ()


@dataclass(frozen=True)
class EndTurn(Command):
    name: ClassVar[str] = "end_turn"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "End my turn"
    actor: str = ""


@dataclass(frozen=True)
class SkipTurn(Command):
    """The GM passes over a PC whose player is away, so Phase 3 can follow once every other PC has had a turn."""

    name: ClassVar[str] = "skip_turn"
    label: ClassVar[str] = "Skip a PC this round"
    pc: str = ""


@dataclass(frozen=True)
class ResolveFailure(Command):
    name: ClassVar[str] = "resolve_failure"
    label: ClassVar[str] = "Failure: consequence or Collapse point"
    choice: str = "collapse"
    note: str = ""


@dataclass(frozen=True)
class StartEnemies(Command):
    name: ClassVar[str] = "start_enemies"
    label: ClassVar[str] = "Start Phase 3"


@dataclass(frozen=True)
class Resolve(Command):
    name: ClassVar[str] = "resolve"
    label: ClassVar[str] = "Resolve a declared action"
    declaration: int = 0
    outcome: str = "hit"  # "hit" or "missed" (out of range, GM confirms)
    damage: int = 1  # 1 lets the declared weapon decide; any other value overrides it (always typed with the setting)
    drain: bool = False  # the enemy uses its weapon's Draining: deal 2, take 1 unblockable
    targets: tuple[str, ...] = ()  # a Burst weapon: every creature in the area (empty: the declared target alone)


@dataclass(frozen=True)
class NextRound(Command):
    name: ClassVar[str] = "next_round"
    label: ClassVar[str] = "Next round"


@dataclass(frozen=True)
class SpendNova(Command):
    name: ClassVar[str] = "spend_nova"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Spend Nova points"
    actor: str = ""
    points: int = 1
    note: str = ""
    roll: bool = False  # the ability needs a skill roll: only on the owner's turn, as an action


@dataclass(frozen=True)
class UseAdvantages(Command):
    """Any PC's player spends the party's Advantages on an ability that costs them (not a reroll)."""

    name: ClassVar[str] = "use_advantages"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Spend Advantages on an ability"
    actor: str = ""
    points: int = 1
    note: str = ""


@dataclass(frozen=True)
class SpendCollapse(Command):
    name: ClassVar[str] = "spend_collapse"
    label: ClassVar[str] = "Spend Collapse points on an enemy ability"
    enemy: str = ""
    points: int = 1
    note: str = ""


@dataclass(frozen=True)
class AdjustHealth(Command):
    name: ClassVar[str] = "adjust_health"
    label: ClassVar[str] = "Adjust Health Levels"
    target: str = ""
    change: int = 0


@dataclass(frozen=True)
class AdjustNova(Command):
    """The GM's change to a PC's Nova points (a Nova ability's cost paid elsewhere, a ruling): from 0 to the ship's
    Livability Rating, which caps them."""

    name: ClassVar[str] = "adjust_nova"
    label: ClassVar[str] = "Adjust Nova points"
    target: str = ""
    change: int = 0


@dataclass(frozen=True)
class SetCondition(Command):
    name: ClassVar[str] = "set_condition"
    label: ClassVar[str] = "Set a condition"
    target: str = ""
    slot: str = "neg_minor"
    value: str = ""


# --- gear: Burst areas and the ship (gear.py) --------------------------------------------------------------------


@dataclass(frozen=True)
class PlaceBurst(Command):
    """A Burst attack hit: the GM says which creatures are in the area (any side; none is allowed)."""

    name: ClassVar[str] = "place_burst"
    label: ClassVar[str] = "Who is in the Burst area"
    targets: tuple[str, ...] = ()


@dataclass(frozen=True)
class DamageShip(Command):
    """The GM's change to the ship's Magical Intelligence Health Levels (harm or repair)."""

    name: ClassVar[str] = "damage_ship"
    label: ClassVar[str] = "Ship's MI Health Levels"
    change: int = -1


@dataclass(frozen=True)
class RechargeShield(Command):
    """The GM restores a combatant's personal shield: by `points`, or to full when `points` is 0."""

    name: ClassVar[str] = "recharge_shield"
    label: ClassVar[str] = "Recharge a personal shield"
    target: str = ""
    points: int = 0


# --- positions: squares on a grid (positions.py) -----------------------------------------------------------------


@dataclass(frozen=True)
class Place(Command):
    """The GM puts a combatant on a square (setup, or any correction); an empty square takes it off the grid."""

    name: ClassVar[str] = "place"
    label: ClassVar[str] = "Place a combatant on the grid"
    fighter: str = ""
    to: str = ""


@dataclass(frozen=True)
class MoveEnemy(Command):
    """Phase 3: the GM moves an enemy, before or after its action, at most its speed in all."""

    name: ClassVar[str] = "move_enemy"
    label: ClassVar[str] = "Move an enemy"
    enemy: str = ""
    to: str = ""


COMMANDS = (
    Declare,
    ChangeDeclaration,
    StartPlayers,
    ClaimTurn,
    PickNext,
    SkillRoll,
    FreeMove,
    SpendAdvantage,
    EndTurn,
    SkipTurn,
    ResolveFailure,
    StartEnemies,
    Resolve,
    NextRound,
    SpendNova,
    UseAdvantages,
    SpendCollapse,
    AdjustHealth,
    AdjustNova,
    SetCondition,
    PlaceBurst,
    DamageShip,
    RechargeShield,
    Place,
    MoveEnemy,
    Reveal,
    FreeRoll,
)
