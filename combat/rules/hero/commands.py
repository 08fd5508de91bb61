"""What players and the GM may ask of a HERO System fight: one frozen dataclass per command.

`who` says who may issue it: "owner" is the player of `actor` (and the GM), "gm" the GM alone. `decide` checks
each against the rules; the choices a command offers (action kinds, defensive aborts, holds) are named here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from combat.rules.core import Command, Reveal
from combat.rules.free_roll import FreeRoll

ACTION_KINDS = ("full", "half", "zero", "none")
DEFENSIVE = {
    "dodge": "Dodge",
    "block": "Block",
    "dive": "Dive for Cover",
    "defence": "activate a defence",
    "other": "an action the GM allows",
}
HOLD_UNTIL = ("", "dex", "segment", "trigger")
HOLD_ON = {"acts": "'s phase comes up", "attacks": " attacks", "moves": " moves"}  # triggers the engine watches


@dataclass(frozen=True)
class NextSegment(Command):
    name: ClassVar[str] = "next_segment"
    label: ClassVar[str] = "Next segment"


@dataclass(frozen=True)
class OrderTies(Command):
    name: ClassVar[str] = "order_ties"
    label: ClassVar[str] = "Order characters tied on DEX"
    order: tuple[str, ...] = ()


@dataclass(frozen=True)
class Act(Command):
    """A full, half, zero phase action, or one that takes no time (the last at any time)."""

    name: ClassVar[str] = "act"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Act"
    actor: str = ""
    kind: str = "half"
    text: str = ""
    active_points: int = 0
    strength: int = 0


@dataclass(frozen=True)
class Attack(Command):
    name: ClassVar[str] = "attack"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Attack"
    actor: str = ""
    target: str = ""
    dice: int = 0  # d6 of normal damage
    defence: int = 0  # the target's PD or ED against this attack
    ocv_mod: int = 0
    dcv_mod: int = 0
    active_points: int = 0
    strength: int = 0
    text: str = ""
    against: str = ""  # "pd" or "ed": the target's sheet defence is added to `defence`
    entered: tuple[int, ...] = ()  # physical dice (when the GM allows them): the attack roll's three faces
    damage_entered: tuple[int, ...] = ()  # and the damage dice, used only if the attack hits


@dataclass(frozen=True)
class TakeRecovery(Command):
    name: ClassVar[str] = "take_recovery"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Take a Recovery"
    actor: str = ""


@dataclass(frozen=True)
class EndPhase(Command):
    name: ClassVar[str] = "end_phase"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "End my phase"
    actor: str = ""


@dataclass(frozen=True)
class Hold(Command):
    name: ClassVar[str] = "hold"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Hold my action"
    actor: str = ""
    until: str = ""  # "", "dex", "segment" or "trigger"
    dex: int = 0
    segment: int = 0
    trigger: str = ""
    on: str = ""  # with until "trigger": "acts", "attacks" or "moves" of `whom`, which the engine watches for
    whom: str = ""


@dataclass(frozen=True)
class KeepHolding(Command):
    """The engine offered the held action (its moment came) and the holder waits on."""

    name: ClassVar[str] = "keep_holding"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Keep holding"
    actor: str = ""


@dataclass(frozen=True)
class Move(Command):
    """Running: half the RUN or less is a half phase action, more is a full phase action (worked out, not said)."""

    name: ClassVar[str] = "move"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Move"
    actor: str = ""
    metres: int = 0
    text: str = ""


@dataclass(frozen=True)
class PresenceAttack(Command):
    """Takes no time: 1d6 per 5 PRE (plus or minus dice for the circumstances) against the target's PRE or EGO."""

    name: ClassVar[str] = "presence_attack"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Presence attack"
    actor: str = ""
    target: str = ""
    dice_mod: int = 0
    text: str = ""


@dataclass(frozen=True)
class Release(Command):
    name: ClassVar[str] = "release"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Act on my held action"
    actor: str = ""


@dataclass(frozen=True)
class Abort(Command):
    name: ClassVar[str] = "abort"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Abort to a defence"
    actor: str = ""
    action: str = "dodge"  # dodge, block, dive, defence
    text: str = ""
    active_points: int = 0


@dataclass(frozen=True)
class AbortOther(Command):
    """An abort to something else the GM allows."""

    name: ClassVar[str] = "abort_other"
    label: ClassVar[str] = "Let a character abort to another action"
    actor: str = ""
    text: str = ""
    active_points: int = 0


@dataclass(frozen=True)
class ContestHold(Command):
    """Setting "roll": a held action and the open phase collide; both roll DEX."""

    name: ClassVar[str] = "contest_hold"
    label: ClassVar[str] = "Held action against the phase in order: DEX rolls"
    holder: str = ""


@dataclass(frozen=True)
class ChangeSpd(Command):
    name: ClassVar[str] = "change_spd"
    label: ClassVar[str] = "Change SPD"
    target: str = ""
    spd: int = 3


@dataclass(frozen=True)
class SetNoRecovery(Command):
    name: ClassVar[str] = "set_no_recovery"
    label: ClassVar[str] = "No free recoveries for a character"
    target: str = ""
    excluded: bool = True


@dataclass(frozen=True)
class AdjustPools(Command):
    name: ClassVar[str] = "adjust_pools"
    label: ClassVar[str] = "Adjust STUN, BODY or END"
    target: str = ""
    stun: int = 0
    body: int = 0
    end: int = 0


@dataclass(frozen=True)
class SetStunned(Command):
    """The GM sets or clears Stunned (a power's effect, a ruling); damage past CON stuns through `Attack`."""

    name: ClassVar[str] = "set_stunned"
    label: ClassVar[str] = "Set or clear Stunned"
    target: str = ""
    stunned: bool = True


COMMANDS = (
    NextSegment,
    OrderTies,
    Act,
    Attack,
    TakeRecovery,
    EndPhase,
    Hold,
    KeepHolding,
    Release,
    Move,
    PresenceAttack,
    Abort,
    AbortOther,
    ContestHold,
    ChangeSpd,
    SetNoRecovery,
    AdjustPools,
    SetStunned,
    Reveal,
    FreeRoll,
)
