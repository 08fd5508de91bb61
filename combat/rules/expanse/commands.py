"""The Expanse (AGE) commands: what a GM or a player asks the rules to do, one frozen dataclass each.

`name` is how the web form and the log name a command, `who` says who may issue it ("gm", or "owner": the
player of `actor`, and GMs) and `label` is its button. `decide` checks each one against the state and turns it
into events; a command arrives as untrusted JSON through `CODEC.command_from_json`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from combat.rules.core import Command, Reveal
from combat.rules.expanse.weapons import GiveWeapon
from combat.rules.free_roll import FreeRoll


@dataclass(frozen=True)
class RollInitiative(Command):
    name: ClassVar[str] = "roll_initiative"
    label: ClassVar[str] = "Roll initiative"


@dataclass(frozen=True)
class BreakTie(Command):
    name: ClassVar[str] = "break_tie"
    label: ClassVar[str] = "Break an initiative tie"
    first: str = ""
    second: str = ""


@dataclass(frozen=True)
class NextTurn(Command):
    name: ClassVar[str] = "next_turn"
    label: ClassVar[str] = "Begin / next turn"


@dataclass(frozen=True)
class EndTurn(Command):
    name: ClassVar[str] = "end_turn"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "End my turn"
    actor: str = ""


@dataclass(frozen=True)
class Attack(Command):
    name: ClassVar[str] = "attack"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Attack"
    actor: str = ""
    action: str = "melee_attack"  # melee_attack, ranged_attack, all_out_attack, charge, stunt_attack
    weapon: str = "unarmed"
    target: str = ""
    object_size: str = ""  # attack an object instead of a combatant
    distance: int = 0  # metres to the target (after a Charge's move)
    moved: int = 0  # Charge: metres moved first
    straight: bool = False  # Charge: in a straight line
    focus: str = ""  # another focus than the weapon's (e.g. Grappling for a stunt attack)
    damage_ability: str = ""  # light melee: Strength or Dexterity (the better one when empty)
    stunning: bool = False
    clumsy: int = 0  # makeshift flaws
    weak: int = 0
    fragile: bool = False
    modifier: int = 0  # the GM's situational modifier
    free: bool = False  # the extra attack a stunt granted (Lightning Attack, Double-Team)
    entered: tuple[int, ...] = ()  # physical dice: the test's three faces, the Drama Die last
    damage_entered: tuple[int, ...] = ()  # physical dice: the damage roll, used only if the attack hits


@dataclass(frozen=True)
class ThrowGrenade(Command):
    name: ClassVar[str] = "throw_grenade"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Throw a grenade"
    actor: str = ""
    targets: str = ""  # comma-separated ids of everyone within 5 m of where it is aimed
    distance: int = 0
    modifier: int = 0
    entered: tuple[int, ...] = ()
    damage_entered: tuple[int, ...] = ()


@dataclass(frozen=True)
class Blast(Command):
    name: ClassVar[str] = "blast"
    label: ClassVar[str] = "Where the scattered grenade went off"
    targets: str = ""
    direction: str = ""


@dataclass(frozen=True)
class AlsoInBlast(Command):
    """The GM adds who else the last grenade caught (unseen combatants too, whom the thrower cannot name)."""

    name: ClassVar[str] = "also_in_blast"
    label: ClassVar[str] = "Who else the grenade caught"
    targets: str = ""


@dataclass(frozen=True)
class AbilityTest(Command):
    name: ClassVar[str] = "ability_test"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Ability test"
    actor: str = ""
    ability: str = "Dexterity"
    focus: str = ""
    tn: int = 11
    action: str = "major"  # "major" (another major action), "minor" (Activate) or "free"
    resist: bool = False
    note: str = ""
    entered: tuple[int, ...] = ()


@dataclass(frozen=True)
class Defend(Command):
    name: ClassVar[str] = "defend"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Defend"
    actor: str = ""


@dataclass(frozen=True)
class Run(Command):
    name: ClassVar[str] = "run"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Run"
    actor: str = ""
    metres: int = 0
    cover: int = 0


@dataclass(frozen=True)
class Activate(Command):
    name: ClassVar[str] = "activate"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Activate"
    actor: str = ""
    what: str = ""


@dataclass(frozen=True)
class Aim(Command):
    name: ClassVar[str] = "aim"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Aim"
    actor: str = ""


@dataclass(frozen=True)
class GuardUp(Command):
    name: ClassVar[str] = "guard_up"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Guard Up"
    actor: str = ""
    bonus: int = 1


@dataclass(frozen=True)
class Move(Command):
    name: ClassVar[str] = "move"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Move"
    actor: str = ""
    metres: int = 0
    stand_up: bool = False
    drop_prone: bool = False
    vehicle: bool = False
    cover: int = 0  # the cover rating where the move ends (4: total cover)


@dataclass(frozen=True)
class Prepare(Command):
    name: ClassVar[str] = "prepare"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Prepare"
    actor: str = ""
    action: str = "ranged_attack"


@dataclass(frozen=True)
class PressTheAttack(Command):
    name: ClassVar[str] = "press_the_attack"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Press the Attack"
    actor: str = ""
    target: str = ""


@dataclass(frozen=True)
class Ready(Command):
    name: ClassVar[str] = "ready"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Ready"
    actor: str = ""
    item: str = ""
    stow: str = ""


@dataclass(frozen=True)
class StandFirm(Command):
    name: ClassVar[str] = "stand_firm"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Stand Firm"
    actor: str = ""
    ability: str = ""  # "Strength" (Might) or "Dexterity" (Acrobatics); the better one when empty


@dataclass(frozen=True)
class ClearJam(Command):
    name: ClassVar[str] = "clear_jam"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Clear a jam / reload"
    actor: str = ""
    weapon: str = ""


@dataclass(frozen=True)
class Interrupt(Command):
    name: ClassVar[str] = "interrupt"
    label: ClassVar[str] = "Interrupt now with a prepared action"
    fighter: str = ""  # empty: call off the interrupt in progress


@dataclass(frozen=True)
class InterruptSelf(Command):
    name: ClassVar[str] = "interrupt_self"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Interrupt with my prepared action"
    actor: str = ""


@dataclass(frozen=True)
class Pursue(Command):
    name: ClassVar[str] = "pursue"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Pursue (Press the Attack)"
    actor: str = ""
    target: str = ""
    metres: int = 0


@dataclass(frozen=True)
class SpendStunt(Command):
    name: ClassVar[str] = "spend_stunt"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Spend stunt points"
    actor: str = ""
    stunt: str = ""
    points: int = 0
    ally: str = ""
    moves: str = "self"  # Skirmish: "self" or "target"
    note: str = ""


@dataclass(frozen=True)
class ChangeDie(Command):
    name: ClassVar[str] = "change_die"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Spend Fortune to change a die"
    actor: str = ""
    die: int = 0  # 0 and 1 are the regular dice, 2 the Drama Die
    face: int = 6


@dataclass(frozen=True)
class SpendFortune(Command):
    name: ClassVar[str] = "spend_fortune"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Spend Fortune against damage"
    actor: str = ""
    points: int = 0
    hit: int = 0  # 0: the oldest damage waiting


@dataclass(frozen=True)
class AcceptCondition(Command):
    name: ClassVar[str] = "accept_condition"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Take a condition, or be taken out"
    actor: str = ""
    choice: str = "condition"  # "condition" (injured, then wounded) or "taken_out"
    hit: int = 0


@dataclass(frozen=True)
class RollOver(Command):
    name: ClassVar[str] = "roll_over"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Roll over (bow out)"
    actor: str = ""
    condition: str = "Wounded"


@dataclass(frozen=True)
class ApproveRollOver(Command):
    name: ClassVar[str] = "approve_roll_over"
    label: ClassVar[str] = "Approve or refuse a roll over"
    fighter: str = ""
    approve: bool = True
    condition: str = ""  # the GM may set another condition


@dataclass(frozen=True)
class AddStunt(Command):
    name: ClassVar[str] = "add_stunt"
    label: ClassVar[str] = "Add a stunt"
    stunt: str = ""
    cost: int = 1
    max_cost: int = 0
    effect: str = ""
    damaging: bool = False
    text: str = ""


@dataclass(frozen=True)
class SetCondition(Command):
    name: ClassVar[str] = "set_condition"
    label: ClassVar[str] = "Set a condition"
    target: str = ""
    condition: str = ""
    on: bool = True


@dataclass(frozen=True)
class AdjustFortune(Command):
    name: ClassVar[str] = "adjust_fortune"
    label: ClassVar[str] = "Adjust Fortune"
    target: str = ""
    change: int = 0


@dataclass(frozen=True)
class SetCover(Command):
    name: ClassVar[str] = "set_cover"
    label: ClassVar[str] = "Set cover"
    target: str = ""
    rating: int = 0


@dataclass(frozen=True)
class ChurnJam(Command):
    name: ClassVar[str] = "churn_jam"
    label: ClassVar[str] = "Spend Churn to jam a missed firearm"
    fighter: str = ""


@dataclass(frozen=True)
class AdjustChurn(Command):
    name: ClassVar[str] = "adjust_churn"
    label: ClassVar[str] = "Adjust Churn (end of a scene, corrections)"
    change: int = 1
    reason: str = ""


@dataclass(frozen=True)
class ApplyChurn(Command):
    name: ClassVar[str] = "apply_churn"
    label: ClassVar[str] = "Apply the Churn effect"
    effect: str = "narrate"  # "fail": `target`'s next test fails; "fortune"/"condition": `target` loses `points`
    target: str = ""  # Fortune or takes `condition`; "narrate": what happens, in `note`
    note: str = ""
    points: int = 0
    condition: str = ""


@dataclass(frozen=True)
class Breathers(Command):
    name: ClassVar[str] = "breathers"
    label: ClassVar[str] = "End the encounter with breathers"


COMMANDS = (
    RollInitiative,
    BreakTie,
    NextTurn,
    EndTurn,
    Attack,
    ThrowGrenade,
    Blast,
    AlsoInBlast,
    AbilityTest,
    Defend,
    Run,
    Activate,
    Aim,
    GuardUp,
    Move,
    Prepare,
    PressTheAttack,
    Ready,
    StandFirm,
    ClearJam,
    Interrupt,
    InterruptSelf,
    Pursue,
    SpendStunt,
    ChangeDie,
    SpendFortune,
    AcceptCondition,
    RollOver,
    ApproveRollOver,
    AddStunt,
    SetCondition,
    AdjustFortune,
    SetCover,
    ChurnJam,
    AdjustChurn,
    ApplyChurn,
    Breathers,
    Reveal,
    FreeRoll,
    GiveWeapon,
)
