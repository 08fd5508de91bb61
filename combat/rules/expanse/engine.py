"""The Expanse (AGE) combat: initiative with the Drama Die, major and minor actions, attacks against Defense,
damage through Toughness, Fortune, injured, wounded and taken out, stunt points, weapon capacity, Churn.

The seed (`/work/shared/seeds/004_…`) is the authority; its tables live as data in `expanse.rulebook`.
Every test is 3d6 where the third die is the Drama Die. Every die rolled is stored in its event.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import ClassVar

from combat.rules.core import require as _require
from combat.rules.core import Command, Event, EventCodec, RuleError, Setting, clean_settings, seen_by_party
from combat.rules.dice import Dice
from combat.rules.expanse import rulebook as T
from combat.rules.expanse.stats import ABILITIES, ARMOUR, CONDITIONS

KEY = "expanse"

SETTINGS = (
    Setting("churn", "Use the Churn pool (optional rule)", False,
            help="+1 on a success with Drama Die 6, on 4+ SP on one stunt, when Fortune changes a die, and at "
                 "the end of the encounter; at 10 and 20 the GM rolls on the Churn table, at 30 an epic effect "
                 "and a reset."),
    Setting("fortune_die_cost", "Fortune to change one regular die of a test", 2,
            choices=((0, "not allowed"), (1, "1"), (2, "2"), (3, "3"), (4, "4"))),
    Setting("fortune_drama_cost", "Fortune to change the Drama Die of a test", 3,
            choices=((0, "not allowed"), (1, "1"), (2, "2"), (3, "3"), (4, "4"), (5, "5"))),
    Setting("injured_penalty", "Test penalty while injured", 1, choices=((0, "0"), (1, "-1"), (2, "-2"), (3, "-3"))),
    Setting("wounded_penalty", "Test penalty while wounded", 2, choices=((0, "0"), (1, "-1"), (2, "-2"), (3, "-3"))),
    Setting("armour_penalty", "Armour penalty lowers Dexterity tests and Speed", True,
            help="Turn off if your sheets already include it."),
    Setting("long_range_penalty", "Attack penalty beyond a weapon's range (up to its maximum)", 2,
            choices=((0, "0"), (1, "-1"), (2, "-2"), (3, "-3"))),
    Setting("cover_vs_melee", "Cover's armour bonus also counts against close combat", False),
    Setting("run_ends_turn", "Run takes the whole turn", False,
            help="Off: Run is your major action and a minor may follow. On: Run is the only action of the turn."),
    Setting("prepare_interrupt", "Who triggers a prepared action", "gm",
            choices=(("gm", "The GM taps 'interrupt now'"), ("player", "The GM, or the prepared player"))),
    Setting("churn_jam_cost", "Churn the GM spends to jam a missed firearm", 1,
            choices=((1, "1"), (2, "2"), (3, "3"))),
    Setting("extra_stunts", "More stunts (Name cost or Name min-max, separated by ;)", "",
            help='For example "Called Shot 4; Feint 1-3; Hostage 4+".'),
    Setting("entered_dice", "Players may enter the faces of physical dice", False,
            help="Attacks, grenades and ability tests then take the three dice typed in (the last is the Drama "
                 "Die) and, for a hit, the damage dice; the server rolls whatever is left empty."),
)

CANNOT_ACT = ("Unconscious", "Helpless")


# --- State -----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Effect:
    """A modifier that expires on its own: at the start of `source`'s next turn, or at the end of the round."""

    kind: str  # "defend", "all_out", "guard_up", "duck_and_weave", "stand_firm", "press", "guardian"
    fighter: str  # who carries it
    source: str  # whose next turn ends it
    until: str = "next_turn"  # "next_turn" or "round_end"
    defense: int = 0
    tests: int = 0
    points: int = 0
    other: str = ""  # Stand Firm's ability; the pressed foe; the guardian angel
    triggered: bool = False  # Press the Attack: the foe has moved


@dataclass(frozen=True)
class Fighter:
    id: str
    name: str
    side: str  # "pc" or "enemy"
    owner: int | None = None
    abilities: dict[str, int] = field(default_factory=dict)
    focuses: tuple[str, ...] = ()
    talents: tuple[str, ...] = ()
    defense: int = 11
    toughness: int = 1
    armour: str = "none"
    shield: str = "none"
    speed: int = 11
    fortune: int = 15
    fortune_max: int = 15
    level: int = 1
    conditions: tuple[str, ...] = ()
    aware_of: tuple[str, ...] = ()
    weapons: tuple[str, ...] = ()  # weapon keys from the sheet, for the attack builder ("": any weapon type)
    initiative: int = 0
    drama: int = 0
    cover: int = 0
    aim: bool = False
    in_hand: str = ""
    jammed: tuple[str, ...] = ()
    prepared: str = ""
    rolled_over: bool = False
    roll_over_asked: str = ""
    sp: int = 0
    sp_test: int = 0
    stunts_used: tuple[str, ...] = ()

    @property
    def out(self) -> bool:
        return self.rolled_over or T.TAKEN_OUT in self.conditions

    @property
    def can_act(self) -> bool:
        return not self.out and not any(c in self.conditions for c in CANNOT_ACT)

    @property
    def prone(self) -> bool:
        return "Prone" in self.conditions

    @property
    def npc(self) -> bool:
        return self.side != "pc" or self.owner is None

    def has_focus(self, ability: str, focus: str) -> bool:
        wanted = f"{ability} ({focus})".lower()
        return any(" ".join(f.split()).lower() == wanted for f in self.focuses)


@dataclass(frozen=True)
class TestRecord:
    """One 3d6 test; faces[2] is the Drama Die. Everything needed to recompute its outcome is here."""

    id: int
    fighter: str
    kind: str  # "attack", "stunt_attack", "grenade" or "test"
    action: str  # the action key it was made for
    ability: str
    focus: str  # the focus that added +2, or ""
    faces: tuple[int, ...]
    modifier: int  # everything added to the dice
    tn: int  # Defense, an object's target number, or the test's TN
    target: str = ""
    object_size: str = ""
    targets: tuple[str, ...] = ()  # grenade: who is within the blast where it was aimed
    weapon: str = ""
    damage_sides: int = 0
    damage_dice: int = 0
    damage_faces: tuple[int, ...] = ()
    damage_bonus: int = 0
    weak: int = 0
    stunning: bool = False
    fragile: bool = False
    ranged: bool = False
    scatter: int = 0
    resist: bool = False  # resistance tests earn no stunt points
    note: str = ""
    entered: bool = False  # the test's three dice were typed in from physical dice
    damage_entered: bool = False
    locked: bool = False  # something was built on this test: Fortune can no longer change its dice

    @property
    def drama(self) -> int:
        return self.faces[2]

    @property
    def total(self) -> int:
        return sum(self.faces) + self.modifier

    @property
    def success(self) -> bool:
        return self.total >= self.tn

    @property
    def doubles(self) -> bool:
        return len(set(self.faces)) < len(self.faces)

    @property
    def sp(self) -> int:
        if not self.success or self.resist:
            return 0
        earned = self.drama if self.doubles else 0
        return earned + 1 if self.kind == "stunt_attack" else earned

    @property
    def damaging(self) -> bool:
        """Whether a success rolls damage against a combatant."""
        return self.kind == "attack" and bool(self.target) or self.kind == "grenade"

    @property
    def damage(self) -> int:
        if not self.damage_faces:
            return 0
        roll = sum(self.damage_faces)
        if self.weak:
            roll = max(1, roll - self.weak)  # seed: Weak has a minimum damage roll of 1
        return roll + self.damage_bonus

    @property
    def jams(self) -> bool:
        return (self.kind in ("attack", "stunt_attack") and not self.success and self.drama == T.JAM_DRAMA_DIE
                and T.WEAPONS[self.weapon].gun)

    @property
    def breaks(self) -> bool:
        return self.fragile and not self.success and self.drama <= T.FRAGILE_BREAKS_AT_OR_BELOW


@dataclass(frozen=True)
class Hit:
    """Damage waiting to be taken: Toughness first, then Fortune, then conditions."""

    id: int
    attacker: str
    target: str
    test: int
    weapon: str
    damage: int
    toughness: int  # Constitution-based Toughness plus armour (ignored when penetrating)
    cover: int = 0  # armour bonus from cover
    penetrating: bool = False
    stunning: bool = False
    transferred: int = 0  # taken by a guardian angel
    fortune: int = 0
    reduced: int = 0  # absorbed by injured / wounded conditions
    stage: str = "fortune"  # "fortune", "conditions" or "done"
    guard_checked: bool = False

    @property
    def soaked(self) -> int:
        return self.cover + (0 if self.penetrating else self.toughness)

    @property
    def after_toughness(self) -> int:
        return max(0, self.damage - self.soaked)

    @property
    def remaining(self) -> int:
        return max(0, self.after_toughness - self.transferred - self.fortune - self.reduced)

    @property
    def fresh(self) -> bool:
        return not self.guard_checked and self.fortune == 0 and self.reduced == 0 and self.transferred == 0

    @property
    def open(self) -> bool:
        return self.stage != "done"


@dataclass(frozen=True)
class FreeAttack:
    fighter: str
    target: str = ""  # "" for any target
    source: str = ""  # the stunt that granted it


@dataclass(frozen=True)
class PendingBlast:
    thrower: str
    test: int
    scatter: int


@dataclass(frozen=True)
class State:
    fighters: tuple[Fighter, ...] = ()
    settings: dict[str, str | int | bool] = field(default_factory=dict)
    stunts: tuple[T.Stunt, ...] = ()
    round: int = 0  # 0 until the first turn
    order: tuple[str, ...] = ()
    initiative_rolled: bool = False
    turn: str = ""
    last_turn: str = ""
    turn_actions: tuple[str, ...] = ()
    interrupt: str = ""
    effects: tuple[Effect, ...] = ()
    tests: tuple[TestRecord, ...] = ()  # this turn's tests
    hits: tuple[Hit, ...] = ()
    free_attacks: tuple[FreeAttack, ...] = ()
    blast: PendingBlast | None = None
    churn: int = 0
    next_id: int = 1
    ended: bool = False

    def fighter(self, fighter_id: str) -> Fighter:
        for f in self.fighters:
            if f.id == fighter_id:
                return f
        raise RuleError("That combatant is not in this encounter.")

    def pcs(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side == "pc")

    def enemies(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side != "pc")

    def test(self, test_id: int) -> TestRecord | None:
        return next((t for t in self.tests if t.id == test_id), None)

    def hit(self, hit_id: int) -> Hit | None:
        return next((h for h in self.hits if h.id == hit_id), None)

    def stunt(self, name: str) -> T.Stunt | None:
        wanted = _slug(name)
        return next((s for s in self.stunts if s.key == wanted or _slug(s.name) == wanted), None)

    def effects_on(self, fighter_id: str, kind: str = "") -> tuple[Effect, ...]:
        return tuple(e for e in self.effects if e.fighter == fighter_id and (not kind or e.kind == kind))

    @property
    def majors_taken(self) -> int:
        return sum(1 for a in self.turn_actions if a in T.MAJOR_ACTIONS or a == "prepared_major")

    @property
    def begun(self) -> bool:
        return self.round >= 1

    @property
    def phase(self) -> int:
        """AGE rounds have no phases; the review and the exports group the log by round and turn (phase 0)."""
        return 0


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower().replace("'", "")).strip("_")


def _put(state: State, fighter: Fighter) -> State:
    return replace(state, fighters=tuple(fighter if f.id == fighter.id else f for f in state.fighters))


def _put_hit(state: State, hit: Hit) -> State:
    return replace(state, hits=tuple(hit if h.id == hit.id else h for h in state.hits))


def _put_test(state: State, test: TestRecord) -> State:
    return replace(state, tests=tuple(test if t.id == test.id else t for t in state.tests))


# --- numbers every rule shares ----------------------------------------------------------------------------------------

def ability(state: State, f: Fighter, name: str) -> int:
    value = f.abilities.get(name, 0)
    if name == "Dexterity" and state.settings.get("armour_penalty", True):
        value += T.ARMOUR_PENALTY.get(f.armour, 0)
    return value


def speed(state: State, f: Fighter) -> int:
    penalty = T.ARMOUR_PENALTY.get(f.armour, 0) if state.settings.get("armour_penalty", True) else 0
    return max(0, f.speed + penalty)


def condition_penalty(state: State, f: Fighter) -> int:
    """The worst injury penalty held (they do not add up): DEFAULT injured -1, wounded -2."""
    penalties = [0]
    if "Injured" in f.conditions:
        penalties.append(int(state.settings.get("injured_penalty", 1)))
    if "Wounded" in f.conditions:
        penalties.append(int(state.settings.get("wounded_penalty", 2)))
    return -max(penalties)


def test_bonus(state: State, f: Fighter, ability_name: str, focuses: tuple[str, ...]) -> tuple[int, str]:
    """Ability + 2 with a matching focus + injury penalty + Guard Up's penalty (and other timed test modifiers)."""
    focus = next((x for x in focuses if x and f.has_focus(ability_name, x)), "")
    value = ability(state, f, ability_name) + (T.FOCUS_BONUS if focus else 0) + condition_penalty(state, f)
    value += sum(e.tests for e in state.effects_on(f.id))
    return value, focus


def defense(state: State, f: Fighter) -> int:
    return f.defense + T.SHIELDS.get(f.shield, ("", 0))[1] + sum(e.defense for e in state.effects_on(f.id))


def toughness(f: Fighter) -> int:
    return max(0, f.toughness) + T.ARMOUR_BONUS.get(f.armour, 0)


def cover_bonus(state: State, f: Fighter, ranged: bool) -> int:
    if not (ranged or state.settings.get("cover_vs_melee")):
        return 0
    return T.COVER.get(min(f.cover, 3), (0, 0))[0]


def weapon_range(state: State, f: Fighter, weapon: T.Weapon) -> tuple[int, int]:
    base = weapon.range + (ability(state, f, "Strength") if weapon.range_adds_strength else 0)
    return base, max(base, weapon.max_range)


def damage_dice(f: Fighter, weapon_key: str, stunning: bool) -> tuple[int, int]:
    """(count, sides) of the damage roll: stunning weapons roll one die fewer (DEFAULT: never below 1d3)."""
    weapon = T.WEAPONS[weapon_key]
    count, sides = weapon.dice, weapon.sides
    if weapon_key == "unarmed" and any(t.lower() == T.STRIKING_STYLE.lower() for t in f.talents):
        sides = T.STRIKING_STYLE_SIDES
    if stunning:
        count -= 1
        if count < 1:
            count, sides = 1, 3
    return count, sides


# --- Commands --------------------------------------------------------------------------------------------------------

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
class Breathers(Command):
    name: ClassVar[str] = "breathers"
    label: ClassVar[str] = "End the encounter with breathers"


COMMANDS = (RollInitiative, BreakTie, NextTurn, EndTurn, Attack, ThrowGrenade, Blast, AbilityTest, Defend, Run,
            Activate, Aim, GuardUp, Move, Prepare, PressTheAttack, Ready, StandFirm, ClearJam, Interrupt,
            InterruptSelf, Pursue, SpendStunt, ChangeDie, SpendFortune, AcceptCondition, RollOver, ApproveRollOver,
            AddStunt, SetCondition, AdjustFortune, SetCover, ChurnJam, AdjustChurn, Breathers)


# --- Events ----------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class InitRoll:
    fighter: str
    faces: tuple[int, ...]
    bonus: int
    focus: bool = False

    @property
    def total(self) -> int:
        return sum(self.faces) + self.bonus


@dataclass(frozen=True)
class InitiativeRolled(Event):
    kind: ClassVar[str] = "initiative_rolled"
    rolls: tuple[InitRoll, ...] = ()


@dataclass(frozen=True)
class TieBroken(Event):
    kind: ClassVar[str] = "tie_broken"
    first: str = ""
    second: str = ""


@dataclass(frozen=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    fighter: str = ""
    round: int = 1


@dataclass(frozen=True)
class TurnEnded(Event):
    kind: ClassVar[str] = "turn_ended"
    fighter: str = ""
    auto: bool = False
    sp_lost: int = 0


@dataclass(frozen=True)
class Tested(Event):
    """An attack, a grenade throw or an ability test, with its dice and (on a hit) its damage dice."""

    kind: ClassVar[str] = "tested"
    test: TestRecord | None = None
    slot: str = "turn"  # "turn", "prepared", "free" (a stunt's extra attack) or "none" (a free test)
    metres: int = 0  # Charge: metres moved first


@dataclass(frozen=True)
class Blasted(Event):
    kind: ClassVar[str] = "blasted"
    thrower: str = ""
    targets: tuple[str, ...] = ()
    faces: tuple[int, ...] = ()
    direction: str = ""


@dataclass(frozen=True)
class DieChanged(Event):
    kind: ClassVar[str] = "die_changed"
    fighter: str = ""
    test: int = 0
    die: int = 0
    face: int = 0
    cost: int = 0
    damage_faces: tuple[int, ...] = ()
    scatter: int = 0


@dataclass(frozen=True)
class Defended(Event):
    kind: ClassVar[str] = "defended"
    fighter: str = ""
    slot: str = "turn"


@dataclass(frozen=True)
class Ran(Event):
    kind: ClassVar[str] = "ran"
    fighter: str = ""
    metres: int = 0
    cover: int = 0
    slot: str = "turn"


@dataclass(frozen=True)
class Moved(Event):
    kind: ClassVar[str] = "moved"
    fighter: str = ""
    metres: int = 0
    stand_up: bool = False
    drop_prone: bool = False
    vehicle: bool = False
    cover: int = 0


@dataclass(frozen=True)
class Activated(Event):
    kind: ClassVar[str] = "activated"
    fighter: str = ""
    what: str = ""


@dataclass(frozen=True)
class Aimed(Event):
    kind: ClassVar[str] = "aimed"
    fighter: str = ""


@dataclass(frozen=True)
class GuardedUp(Event):
    kind: ClassVar[str] = "guarded_up"
    fighter: str = ""
    bonus: int = 1


@dataclass(frozen=True)
class Prepared(Event):
    kind: ClassVar[str] = "prepared"
    fighter: str = ""
    action: str = ""


@dataclass(frozen=True)
class Pressed(Event):
    kind: ClassVar[str] = "pressed"
    fighter: str = ""
    target: str = ""


@dataclass(frozen=True)
class Readied(Event):
    kind: ClassVar[str] = "readied"
    fighter: str = ""
    item: str = ""
    stow: str = ""


@dataclass(frozen=True)
class StoodFirm(Event):
    kind: ClassVar[str] = "stood_firm"
    fighter: str = ""
    ability: str = ""


@dataclass(frozen=True)
class JamCleared(Event):
    kind: ClassVar[str] = "jam_cleared"
    fighter: str = ""
    weapon: str = ""


@dataclass(frozen=True)
class Interrupted(Event):
    kind: ClassVar[str] = "interrupted"
    fighter: str = ""
    by: str = "gm"


@dataclass(frozen=True)
class Pursued(Event):
    kind: ClassVar[str] = "pursued"
    fighter: str = ""
    target: str = ""
    metres: int = 0


@dataclass(frozen=True)
class Opposed:
    """Stand Firm: the stunt's Strength (Might) against the defender's chosen ability."""

    attacker_faces: tuple[int, ...]
    attacker_bonus: int
    defender_faces: tuple[int, ...]
    defender_bonus: int
    defender_ability: str

    @property
    def held(self) -> bool:
        """The defender wins ties on the total, then on the Drama Die; a full tie leaves them standing."""
        a = (sum(self.attacker_faces) + self.attacker_bonus, self.attacker_faces[2])
        d = (sum(self.defender_faces) + self.defender_bonus, self.defender_faces[2])
        return d >= a


@dataclass(frozen=True)
class StuntSpent(Event):
    kind: ClassVar[str] = "stunt_spent"
    fighter: str = ""
    stunt: str = ""  # key
    points: int = 0
    target: str = ""
    ally: str = ""
    moves: str = ""
    hit: int = 0
    note: str = ""
    opposed: Opposed | None = None


@dataclass(frozen=True)
class GuardTransferred(Event):
    kind: ClassVar[str] = "guard_transferred"
    guardian: str = ""
    ally: str = ""
    hit: int = 0
    points: int = 0


@dataclass(frozen=True)
class FortuneSpent(Event):
    kind: ClassVar[str] = "fortune_spent"
    fighter: str = ""
    hit: int = 0
    points: int = 0


@dataclass(frozen=True)
class ConditionTaken(Event):
    kind: ClassVar[str] = "condition_taken"
    fighter: str = ""
    hit: int = 0
    condition: str = ""
    roll: int = 0


@dataclass(frozen=True)
class TakenOut(Event):
    kind: ClassVar[str] = "taken_out"
    fighter: str = ""
    hit: int = 0
    condition: str = ""  # a further condition (a stunning weapon knocks unconscious)


@dataclass(frozen=True)
class RollOverAsked(Event):
    kind: ClassVar[str] = "roll_over_asked"
    fighter: str = ""
    condition: str = ""


@dataclass(frozen=True)
class RolledOver(Event):
    kind: ClassVar[str] = "rolled_over"
    fighter: str = ""
    condition: str = ""
    approved: bool = True


@dataclass(frozen=True)
class StuntAdded(Event):
    kind: ClassVar[str] = "stunt_added"
    stunt: T.Stunt | None = None


@dataclass(frozen=True)
class ConditionSet(Event):
    kind: ClassVar[str] = "condition_set"
    target: str = ""
    condition: str = ""
    on: bool = True


@dataclass(frozen=True)
class FortuneAdjusted(Event):
    kind: ClassVar[str] = "fortune_adjusted"
    target: str = ""
    change: int = 0


@dataclass(frozen=True)
class CoverSet(Event):
    kind: ClassVar[str] = "cover_set"
    target: str = ""
    rating: int = 0


@dataclass(frozen=True)
class ChurnJammed(Event):
    kind: ClassVar[str] = "churn_jammed"
    fighter: str = ""
    weapon: str = ""
    cost: int = 0


@dataclass(frozen=True)
class ChurnAdjusted(Event):
    kind: ClassVar[str] = "churn_adjusted"
    audience: ClassVar[str] = "gm"
    change: int = 0
    reason: str = ""


@dataclass(frozen=True)
class ChurnReached(Event):
    kind: ClassVar[str] = "churn_reached"
    audience: ClassVar[str] = "gm"
    level: int = 10
    reset: bool = False


@dataclass(frozen=True)
class BreatherRoll:
    fighter: str
    face: int
    gain: int  # Fortune actually regained (capped at the maximum)


@dataclass(frozen=True)
class BreathersTaken(Event):
    kind: ClassVar[str] = "breathers_taken"
    rolls: tuple[BreatherRoll, ...] = ()


EVENTS = (InitiativeRolled, TieBroken, TurnStarted, TurnEnded, Tested, Blasted, DieChanged, Defended, Ran, Moved,
          Activated, Aimed, GuardedUp, Prepared, Pressed, Readied, StoodFirm, JamCleared, Interrupted, Pursued,
          StuntSpent, GuardTransferred, FortuneSpent, ConditionTaken, TakenOut, RollOverAsked, RolledOver,
          StuntAdded, ConditionSet, FortuneAdjusted, CoverSet, ChurnJammed, ChurnAdjusted, ChurnReached,
          BreathersTaken)
CODEC = EventCodec(EVENTS, COMMANDS)


# --- Set-up ----------------------------------------------------------------------------------------------------------

def parse_stunts(text: str) -> tuple[T.Stunt, ...]:
    """'Called Shot 4; Feint 1-3; Hostage 4+' -> narrated stunts. A malformed entry is a RuleError sentence."""
    stunts = []
    for raw in (text or "").split(";"):
        entry = " ".join(raw.split())
        if not entry:
            continue
        m = re.fullmatch(r"(.+?)\s+(\d+)(?:\s*(-)\s*(\d+)|(\+))?", entry)
        if not m or not _slug(m.group(1)):
            raise RuleError(f'"{entry[:40]}" needs a name and a cost, like "Feint 1-3" or "Called Shot 4".')
        cost = int(m.group(2))
        max_cost = int(m.group(4)) if m.group(4) else (0 if m.group(5) else cost)
        if cost < 1 or (max_cost and max_cost < cost) or cost > 20 or max_cost > 20:
            raise RuleError(f'"{entry[:40]}" needs a cost from 1 to 20 SP.')
        stunts.append(T.Stunt(_slug(m.group(1)), m.group(1).strip(), cost, max_cost))
    return tuple(stunts)


def initial_state(fighters: tuple[Fighter, ...], settings: dict | None = None) -> State:
    if not any(f.side == "pc" for f in fighters):
        raise RuleError("An encounter needs at least one player character.")
    if len({f.id for f in fighters}) != len(fighters):
        raise RuleError("Every combatant needs its own key.")
    clean = clean_settings(SETTINGS, settings)
    stunts = list(T.STUNTS)
    for extra in parse_stunts(str(clean.get("extra_stunts", ""))):
        if any(s.key == extra.key for s in stunts):
            raise RuleError(f"There is already a stunt called {extra.name}.")
        stunts.append(extra)
    return State(fighters=tuple(fighters), settings=clean, stunts=tuple(stunts))


def fighter_from_sheet(key: str, name: str, side: str, owner: int | None, stats: dict,
                       aware_of: tuple[str, ...]) -> Fighter:
    """A combatant from a character sheet (see expanse.stats); talents may also be typed among the focuses."""
    from combat.rules.expanse.stats import ability_key

    def number(k: str, default: int) -> int:
        try:
            return int(stats.get(k, default))
        except (TypeError, ValueError):
            return default

    focuses = tuple(" ".join(str(x).split()) for x in (stats.get("focuses") or ()) if str(x).strip())
    talents = tuple(" ".join(str(x).split()) for x in (stats.get("talents") or ()) if str(x).strip())
    talents += tuple(f for f in focuses if "(" not in f)
    fortune_max = max(0, number("fortune_max", 15))
    conditions = tuple(c for c in (stats.get("conditions") or ()) if c in CONDITIONS)
    armour = stats.get("armour", "none")
    shield = stats.get("shield", "none")
    by_label = {w.label.lower(): key for key, w in T.WEAPONS.items()}
    weapons = tuple(dict.fromkeys(by_label.get(str(w).strip().lower(), str(w).strip().lower())
                                  for w in (stats.get("weapons") or ())))
    return Fighter(
        id=key, name=name, side=side, owner=owner,
        abilities={a: number(ability_key(a), 1) for a in ABILITIES},
        focuses=tuple(f for f in focuses if "(" in f), talents=talents,
        defense=number("defense", 11), toughness=max(0, number("toughness", 1)),
        armour=armour if armour in ARMOUR else "none", shield=shield if shield in T.SHIELDS else "none",
        speed=max(0, number("speed", 11)), fortune=min(max(0, number("fortune", 15)), fortune_max),
        fortune_max=fortune_max, level=max(1, number("level", 1)), conditions=conditions,
        aware_of=tuple(aware_of), weapons=tuple(w for w in weapons if w in T.WEAPONS),
    )


# --- decide ----------------------------------------------------------------------------------------------------------



def _note(text: str, limit: int = 200) -> str:
    return " ".join(str(text).split())[:limit]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _test_faces(state: State, entered: tuple[int, ...], dice: Dice) -> tuple[tuple[int, ...], bool]:
    """The three dice of a test: typed in from physical dice (when the GM allows it) or rolled by the server."""
    if not entered:
        return dice.roll(3, 6), False
    _require(bool(state.settings.get("entered_dice")), "The GM has the server roll the dice in this encounter.")
    _require(len(entered) == 3, "Enter the three dice of the test, the Drama Die last.")
    _require(all(1 <= face <= 6 for face in entered), "Each die of a test shows a face from 1 to 6.")
    return tuple(entered), True


def _check_damage_entry(state: State, entered: tuple[int, ...], count: int, sides: int) -> None:
    """Typed-in damage dice are checked before anything is rolled, hit or miss."""
    if not entered:
        return
    _require(bool(state.settings.get("entered_dice")), "The GM has the server roll the dice in this encounter.")
    _require(len(entered) == count, f"The damage is {count}d{sides}: enter {count} {'die' if count == 1 else 'dice'} or none.")
    _require(all(1 <= face <= sides for face in entered), f"Each damage die shows a face from 1 to {sides}.")


def _damage_faces(entered: tuple[int, ...], count: int, sides: int, dice: Dice) -> tuple[tuple[int, ...], bool]:
    return (tuple(entered), True) if entered else (dice.roll(count, sides), False)


def decide(state: State, command: Command, dice: Dice) -> list[Event]:
    _require(not state.ended, "This encounter has ended.")
    handler = _DECIDERS.get(type(command))
    if handler is None:
        raise RuleError("That is not an action in The Expanse.")
    events = handler(state, command, dice)
    return _follow_up(state, events)


def _simulate(state: State, events: list[Event]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def _follow_up(state: State, events: list[Event]) -> list[Event]:
    """What follows by itself: the turn ends when nothing is left; Churn thresholds are announced."""
    after = _simulate(state, events)
    holder_out = bool(after.turn) and not after.fighter(after.turn).can_act
    if after.begun and after.turn and (holder_out or not after.interrupt) and not after.ended and _nothing_left(after):
        more: list[Event] = [TurnEnded(fighter=after.turn, auto=True, sp_lost=after.fighter(after.turn).sp)]
        nxt = _next_turn(evolve(after, more[0]))
        if nxt:
            more.append(nxt)
        events = events + more
        after = _simulate(after, more)
    if after.settings.get("churn") and after.churn > state.churn:
        for level, _ in T.CHURN_THRESHOLDS:
            if state.churn < level <= after.churn:
                events = events + [ChurnReached(level=level, reset=level >= T.CHURN_RESET_AT)]
    return events


def _nothing_left(state: State) -> bool:
    f = state.fighter(state.turn)
    if not f.can_act:
        return True
    if len(state.turn_actions) < 2 or f.sp > 0 or state.free_attacks:
        return False
    return not _changeable_test(state, f)


def _order_for_round(state: State) -> tuple[str, ...]:
    """Highest initiative first, then the higher Drama Die; remaining ties keep the order the GM settled."""
    place = {fid: i for i, fid in enumerate(state.order)}
    index = {f.id: len(place) + i for i, f in enumerate(state.fighters)}
    return tuple(f.id for f in sorted(state.fighters, key=lambda f: (-f.initiative, -f.drama,
                                                                    place.get(f.id, index[f.id]))))


def _next_turn(state: State) -> TurnStarted | None:
    """The next combatant able to act, wrapping into a new round (whose order reflects Momentum)."""
    if not state.begun:
        order, rnd = state.order, 1
        candidates = [(fid, rnd) for fid in order]
    else:
        current = state.turn or state.last_turn
        position = state.order.index(current) if current in state.order else -1
        rest = [(fid, state.round) for fid in state.order[position + 1:]]
        wrapped = [(fid, state.round + 1) for fid in _order_for_round(state)]
        candidates = rest + wrapped
    for fid, rnd in candidates:
        if state.fighter(fid).can_act:
            return TurnStarted(fighter=fid, round=rnd)
    return None


def _acting(state: State, fighter_id: str) -> Fighter:
    f = state.fighter(fighter_id)
    _require(not f.out, f"{f.name} is out of the encounter.")
    _require(f.can_act, f"{f.name} cannot act while {', '.join(c for c in f.conditions if c in CANNOT_ACT).lower()}.")
    return f


def _slot(state: State, f: Fighter, action: str) -> str:
    """How `f` may take `action` now ("turn" or "prepared"), or a RuleError sentence saying why not."""
    label = T.MAJOR_ACTIONS.get(action) or T.MINOR_ACTIONS.get(action, action)
    if state.interrupt == f.id:
        _require(action == f.prepared,
                 f"{f.name} prepared {T.MAJOR_ACTIONS.get(f.prepared, f.prepared)}, so that is the action to take now.")
        return "prepared"
    _require(state.begun, "Combat has not begun: roll initiative, then begin the first turn.")
    _require(state.turn == f.id, f"It is not {f.name}'s turn.")
    if state.interrupt:
        _require(False, f"{state.fighter(state.interrupt).name} is interrupting with a prepared action; wait for it.")
    _require(len(state.turn_actions) < 2, f"{f.name} has already taken two actions this turn.")
    if action in T.MAJOR_ACTIONS:
        _require(state.majors_taken == 0,
                 f"{f.name} has already taken a major action this turn, so {label} cannot follow; only a minor can.")
    return "turn"


def _free_attack(state: State, f: Fighter, target: str) -> FreeAttack:
    granted = [a for a in state.free_attacks if a.fighter == f.id]
    _require(bool(granted), f"{f.name} has no extra attack from a stunt.")
    fitting = [a for a in granted if not a.target or a.target == target]
    if not fitting:
        raise RuleError(f"{f.name}'s extra attack must go against {state.fighter(granted[0].target).name}.")
    return fitting[0]


def _roll_initiative(state: State, c: RollInitiative, dice: Dice) -> list[Event]:
    _require(not state.initiative_rolled, "Initiative has already been rolled for this encounter.")
    rolls = []
    for f in state.fighters:
        bonus, focus = test_bonus(state, f, "Dexterity", ("Initiative",))
        rolls.append(InitRoll(fighter=f.id, faces=dice.roll(3, 6), bonus=bonus, focus=bool(focus)))
    return [InitiativeRolled(rolls=tuple(rolls))]


def _break_tie(state: State, c: BreakTie, dice: Dice) -> list[Event]:
    _require(state.initiative_rolled, "Roll initiative first.")
    _require(not state.begun, "Initiative ties are settled before the first turn.")
    a, b = state.fighter(c.first), state.fighter(c.second)
    _require(a.id != b.id, "Choose two different combatants.")
    _require((a.initiative, a.drama) == (b.initiative, b.drama),
             f"{a.name} and {b.name} are not tied on both initiative and the Drama Die.")
    return [TieBroken(first=a.id, second=b.id)]


def _next_turn_command(state: State, c: NextTurn, dice: Dice) -> list[Event]:
    _require(state.initiative_rolled, "Roll initiative first.")
    _require(not state.interrupt, "Let the interrupting combatant act first.")
    events: list[Event] = []
    if state.turn:
        f = state.fighter(state.turn)
        events.append(TurnEnded(fighter=f.id, sp_lost=f.sp))
        state = evolve(state, events[0])
    nxt = _next_turn(state)
    _require(nxt is not None or bool(events), "Nobody is able to act.")
    return events + ([nxt] if nxt else [])


def _end_turn(state: State, c: EndTurn, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _require(state.turn == f.id, f"It is not {f.name}'s turn.")
    if state.interrupt:
        raise RuleError(f"{state.fighter(state.interrupt).name} is interrupting; wait for their prepared action.")
    ended = TurnEnded(fighter=f.id, sp_lost=f.sp)
    nxt = _next_turn(evolve(state, ended))
    return [ended] + ([nxt] if nxt else [])


def _focuses(requested: str, defaults: tuple[str, ...]) -> tuple[str, ...]:
    requested = " ".join(requested.split())
    return (requested,) if requested else defaults


def _attack(state: State, c: Attack, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _require(c.action in T.ATTACK_ACTIONS,
             "Choose All-Out Attack, Charge, Melee Attack, Ranged Attack or Stunt Attack.")
    weapon = T.WEAPONS.get(c.weapon)
    _require(weapon is not None, "Choose one of the weapon types.")
    _require(c.weapon != "grenade", "Throw grenades with the grenade action.")
    if c.free:
        _require(c.action in ("melee_attack", "ranged_attack", "stunt_attack"),
                 "A stunt's extra attack is a melee, ranged or stunt attack.")
        _free_attack(state, f, c.target)
        slot = "free"
    else:
        slot = _slot(state, f, c.action)
    label = T.MAJOR_ACTIONS[c.action]
    if c.action in T.MELEE_FAMILY:
        _require(weapon.kind == "melee", f"{label} is made in close combat, not with a {weapon.label.lower()}.")
    elif c.action == "ranged_attack":
        _require(weapon.kind != "melee",
                 f"A ranged attack needs a ranged or thrown weapon, not a {weapon.label.lower()}.")
    _require(c.weapon not in f.jammed,
             f"{f.name}'s {weapon.label.lower()} is jammed or out of ammunition; a minor action fixes it.")
    moved = 0
    if c.action == "charge":
        _require(not f.prone, f"{f.name} is prone and must stand up with a Move first.")
        half = speed(state, f) // 2
        _require(0 <= c.moved <= half, f"{f.name} can charge up to half their Speed: {half} m.")
        moved = c.moved
    makeshift = weapon.makeshift
    for value, flaw in ((c.clumsy, "Clumsy"), (c.weak, "Weak")):
        _require(0 <= value <= T.MAKESHIFT_FLAW_MAX, f"{flaw} is a penalty of 1 or 2.")
        _require(not value or makeshift, f"Only makeshift weapons are {flaw.lower()}.")
    _require(not c.fragile or makeshift, "Only makeshift weapons are fragile.")
    _require(-10 <= c.modifier <= 10, "The GM's modifier must be between -10 and +10.")
    _require(0 <= c.distance <= 10_000, "Distance is a number of metres.")

    target: Fighter | None = None
    if c.object_size:
        size = T.OBJECT_SIZES.get(c.object_size)
        _require(size is not None, "Choose the object's size from the table.")
        tn = size[2]
    else:
        target = state.fighter(c.target)
        _require(target.id != f.id, f"{f.name} cannot attack themselves.")
        _require(target.side != f.side, f"{target.name} is on {f.name}'s side.")
        _require(not target.out, f"{target.name} is already out of the encounter.")
        tn = defense(state, target)

    ranged = weapon.kind != "melee"
    modifier, focus = test_bonus(state, f, weapon.test_ability, _focuses(c.focus, weapon.focuses))
    if ranged:
        short, longest = weapon_range(state, f, weapon)
        _require(c.distance <= longest, f"{target.name if target else 'The object'} is out of range: "
                                        f"the {weapon.label.lower()} reaches {longest} m.")
        if c.distance > short:
            modifier -= int(state.settings.get("long_range_penalty", 2))
        _require(f.cover < T.TOTAL_COVER, f"{f.name} is in total cover and cannot make ranged attacks.")
        modifier += T.COVER.get(f.cover, (0, 0))[1]
        if target:
            _require(target.cover < T.TOTAL_COVER, f"{target.name} is in total cover and cannot be attacked at range.")
    else:
        _require(c.distance <= T.MELEE_REACH, f"Close combat reaches an enemy within {T.MELEE_REACH} m.")
    if f.aim:
        modifier += T.AIM_BONUS
    if c.action == "charge" and c.straight and moved >= T.CHARGE_STRAIGHT_METRES:
        modifier += T.CHARGE_BONUS
    modifier += c.modifier - c.clumsy

    kind = "stunt_attack" if c.action == "stunt_attack" else "attack"
    count, sides = damage_dice(f, c.weapon, c.stunning)
    _check_damage_entry(state, c.damage_entered, count, sides)
    faces, entered = _test_faces(state, c.entered, dice)
    bonus = 0
    if weapon.damage_abilities:
        choices = weapon.damage_abilities
        if c.damage_ability:
            _require(c.damage_ability in choices, f"A {weapon.label.lower()} adds {' or '.join(choices)} to damage.")
            choices = (c.damage_ability,)
        bonus = max(ability(state, f, a) for a in choices)
    if c.action == "all_out_attack":
        bonus += T.ALL_OUT_DAMAGE
    test = TestRecord(
        id=state.next_id, fighter=f.id, kind=kind, action=c.action, ability=weapon.test_ability, focus=focus,
        faces=faces, modifier=modifier, tn=tn, target=target.id if target else "", object_size=c.object_size,
        weapon=c.weapon, damage_sides=sides, damage_dice=count, damage_bonus=bonus, weak=c.weak,
        stunning=c.stunning, fragile=c.fragile, ranged=ranged, entered=entered,
    )
    if test.success and test.damaging:
        damage, typed = _damage_faces(c.damage_entered, count, sides, dice)
        test = replace(test, damage_faces=damage, damage_entered=typed)
    return [Tested(test=test, slot=slot, metres=moved)]


def _parse_targets(state: State, text: str) -> tuple[str, ...]:
    ids = tuple(dict.fromkeys(x.strip() for x in text.replace(";", ",").split(",") if x.strip()))
    for fid in ids:
        _require(not state.fighter(fid).out, f"{state.fighter(fid).name} is already out of the encounter.")
    return ids


def _throw_grenade(state: State, c: ThrowGrenade, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    slot = _slot(state, f, "ranged_attack")
    weapon = T.WEAPONS["grenade"]
    _require(f.in_hand == "grenade", f"{f.name} needs a grenade in hand first: use the Ready action.")
    _require(state.blast is None, "A scattered grenade is still waiting for the GM to place it.")
    _, longest = weapon_range(state, f, weapon)
    _require(0 <= c.distance <= longest, f"{f.name} can throw a grenade {longest} m.")
    _require(f.cover < T.TOTAL_COVER, f"{f.name} is in total cover and cannot make ranged attacks.")
    _require(-10 <= c.modifier <= 10, "The GM's modifier must be between -10 and +10.")
    targets = _parse_targets(state, c.targets)
    modifier, focus = test_bonus(state, f, "Accuracy", weapon.focuses)
    modifier += T.COVER.get(f.cover, (0, 0))[1] + (T.AIM_BONUS if f.aim else 0) + c.modifier
    _check_damage_entry(state, c.damage_entered, weapon.dice, weapon.sides)
    faces, entered = _test_faces(state, c.entered, dice)
    test = TestRecord(id=state.next_id, fighter=f.id, kind="grenade", action="ranged_attack", ability="Accuracy",
                      focus=focus, faces=faces, modifier=modifier, tn=T.GRENADE_TN, targets=targets,
                      weapon="grenade", damage_sides=weapon.sides, damage_dice=weapon.dice, ranged=True,
                      entered=entered)
    if test.success:
        if targets:
            damage, typed = _damage_faces(c.damage_entered, weapon.dice, weapon.sides, dice)
            test = replace(test, damage_faces=damage, damage_entered=typed)
    else:
        test = replace(test, scatter=dice.roll(1, T.GRENADE_SCATTER_SIDES)[0])
    return [Tested(test=test, slot=slot)]


def _blast(state: State, c: Blast, dice: Dice) -> list[Event]:
    _require(state.blast is not None, "No scattered grenade is waiting to be placed.")
    targets = _parse_targets(state, c.targets)
    weapon = T.WEAPONS["grenade"]
    faces = dice.roll(weapon.dice, weapon.sides) if targets else ()
    return [Blasted(thrower=state.blast.thrower, targets=targets, faces=faces, direction=_note(c.direction, 80))]


def _ability_test(state: State, c: AbilityTest, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _require(c.ability in ABILITIES, f"Choose one of the abilities: {', '.join(ABILITIES)}.")
    _require(1 <= c.tn <= 40, "The target number must be between 1 and 40.")
    _require(c.action in ("major", "minor", "free"), "Choose a major, minor or free action.")
    action = {"major": "other_major", "minor": "activate", "free": "free"}[c.action]
    slot = "none" if c.action == "free" else _slot(state, f, action)
    modifier, focus = test_bonus(state, f, c.ability, _focuses(c.focus, ()))
    faces, entered = _test_faces(state, c.entered, dice)
    test = TestRecord(id=state.next_id, fighter=f.id, kind="test", action=action, ability=c.ability, focus=focus,
                      faces=faces, modifier=modifier, tn=c.tn, resist=c.resist, note=_note(c.note, 80),
                      entered=entered)
    return [Tested(test=test, slot=slot)]


def _defend(state: State, c: Defend, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    slot = _slot(state, f, "defend")
    if slot == "turn":
        _require("guard_up" not in state.turn_actions, f"{f.name} used Guard Up this turn and cannot also Defend.")
    return [Defended(fighter=f.id, slot=slot)]


def _run(state: State, c: Run, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    slot = _slot(state, f, "run")
    _require(not f.prone, f"{f.name} is prone and must stand up with a Move first.")
    if slot == "turn" and state.settings.get("run_ends_turn"):
        _require(not state.turn_actions, "Run takes the whole turn in this encounter, so it must be the only action.")
    top = 2 * speed(state, f)
    _require(0 < c.metres <= top, f"{f.name} can run up to twice their Speed: {top} m.")
    _require(0 <= c.cover <= T.TOTAL_COVER, "Cover is rated 0 to 3, or 4 for total cover.")
    return [Ran(fighter=f.id, metres=c.metres, cover=c.cover, slot=slot)]


def _move(state: State, c: Move, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "move")
    _require(not (c.stand_up and c.drop_prone), "Stand up or drop prone, not both.")
    _require(not c.stand_up or f.prone, f"{f.name} is not prone.")
    _require(not c.drop_prone or not f.prone, f"{f.name} is already prone.")
    full = speed(state, f)
    extras = sum((c.stand_up, c.drop_prone, c.vehicle))
    left = full - extras * (full // 2)
    _require(0 <= c.metres <= left,
             f"{f.name} can move {left} m" + (" after the rest of this move." if extras else "."))
    _require(0 <= c.cover <= T.TOTAL_COVER, "Cover is rated 0 to 3, or 4 for total cover.")
    return [Moved(fighter=f.id, metres=c.metres, stand_up=c.stand_up, drop_prone=c.drop_prone, vehicle=c.vehicle,
                  cover=c.cover)]


def _activate(state: State, c: Activate, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "activate")
    return [Activated(fighter=f.id, what=_note(c.what, 120))]


def _aim(state: State, c: Aim, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "aim")
    return [Aimed(fighter=f.id)]


def _guard_up(state: State, c: GuardUp, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "guard_up")
    _require(c.bonus in T.GUARD_UP_CHOICES, "Guard Up adds +1 or +2 to Defense.")
    _require("guard_up" not in state.turn_actions, f"{f.name} has already guarded up this turn: +1 or +2, once.")
    _require("defend" not in state.turn_actions, f"{f.name} took Defend this turn and cannot also Guard Up.")
    _require(state.majors_taken == 0, f"Guard Up must come before any major action on {f.name}'s turn.")
    return [GuardedUp(fighter=f.id, bonus=c.bonus)]


def _prepare(state: State, c: Prepare, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "prepare")
    _require(c.action in T.PREPARABLE, "Prepare one of the major actions.")
    _require(not state.turn_actions,
             f"Prepare postpones {f.name}'s major action, so it needs both of this turn's actions free.")
    return [Prepared(fighter=f.id, action=c.action)]


def _press_the_attack(state: State, c: PressTheAttack, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "press_the_attack")
    target = state.fighter(c.target)
    struck = any(t.fighter == f.id and t.target == target.id and t.action in T.MELEE_FAMILY and t.success
                 for t in state.tests)
    _require(struck, f"{f.name} can press the attack only after striking {target.name} with a melee attack this turn.")
    return [Pressed(fighter=f.id, target=target.id)]


def _ready(state: State, c: Ready, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "ready")
    item = _note(c.item, 60)
    _require(bool(item or c.stow), "Say what you ready or put away.")
    return [Readied(fighter=f.id, item=item, stow=_note(c.stow, 60))]


def _stand_firm(state: State, c: StandFirm, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "stand_firm")
    choice = c.ability
    if not choice:
        might = test_bonus(state, f, "Strength", ("Might",))[0]
        acrobatics = test_bonus(state, f, "Dexterity", ("Acrobatics",))[0]
        choice = "Strength" if might >= acrobatics else "Dexterity"
    _require(choice in ("Strength", "Dexterity"), "Stand Firm resists with Strength (Might) or Dexterity (Acrobatics).")
    return [StoodFirm(fighter=f.id, ability=choice)]


def _clear_jam(state: State, c: ClearJam, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    weapon = c.weapon or (f.jammed[0] if f.jammed else "")
    _require(weapon in f.jammed, f"{f.name} has no jammed or empty weapon.")
    _slot(state, f, "clear_jam")
    return [JamCleared(fighter=f.id, weapon=weapon)]


def _interrupt_checks(state: State, f: Fighter) -> None:
    _require(state.begun, "Combat has not begun.")
    _require(bool(f.prepared), f"{f.name} has no prepared action.")
    if state.interrupt:
        raise RuleError(f"{state.fighter(state.interrupt).name} is already interrupting.")
    _require(state.turn != f.id, f"It is {f.name}'s own turn.")
    _acting(state, f.id)


def _interrupt(state: State, c: Interrupt, dice: Dice) -> list[Event]:
    if not c.fighter:
        _require(bool(state.interrupt), "Nobody is interrupting.")
        return [Interrupted(fighter="", by="gm")]  # the GM calls the interrupt off
    f = state.fighter(c.fighter)
    _interrupt_checks(state, f)
    return [Interrupted(fighter=f.id, by="gm")]


def _interrupt_self(state: State, c: InterruptSelf, dice: Dice) -> list[Event]:
    _require(state.settings.get("prepare_interrupt") == "player",
             "The GM calls interrupts in this encounter: ask the GM to tap 'interrupt now'.")
    f = state.fighter(c.actor)
    _interrupt_checks(state, f)
    return [Interrupted(fighter=f.id, by="self")]


def _pursue(state: State, c: Pursue, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    target = state.fighter(c.target)
    press = [e for e in state.effects if e.kind == "press" and e.source == f.id and e.other == target.id]
    _require(bool(press), f"{f.name} is not pressing the attack on {target.name}.")
    _require(press[0].triggered, f"{target.name} has not moved away, so there is nothing to pursue.")
    top = speed(state, f)
    _require(0 < c.metres <= top, f"{f.name} can pursue up to their Speed: {top} m.")
    return [Pursued(fighter=f.id, target=target.id, metres=c.metres)]


def _spend_stunt(state: State, c: SpendStunt, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _require(f.sp > 0, f"{f.name} has no stunt points to spend.")
    stunt = state.stunt(c.stunt)
    _require(stunt is not None, "That stunt is not on this encounter's list.")
    points = c.points or stunt.cost
    _require(stunt.fits(points), f"{stunt.name} costs {stunt.cost_label} SP.")
    _require(points <= f.sp, f"{f.name} has only {_plural(f.sp, 'stunt point')}.")
    _require(stunt.key not in f.stunts_used, f"{f.name} has already used {stunt.name} this round.")
    test = state.test(f.sp_test)
    _require(test is not None, f"{f.name}'s stunt points are gone.")
    if stunt.damaging and test.kind == "stunt_attack":
        _require(test.doubles, f"Without doubles, a stunt attack's point cannot buy {stunt.name}, which does damage.")
    target = state.fighter(test.target) if test.target else None
    hit = next((h for h in state.hits if h.test == test.id and h.target == (target.id if target else "")), None)
    effect = stunt.effect
    ally = None
    if effect in ("skirmish",) and c.moves == "target" or effect in ("knock_prone", "double_team", "injure",
                                                                        "overcome_toughness"):
        _require(target is not None, f"{stunt.name} needs the combatant this test was against.")
        _require(not target.out, f"{target.name} is already out of the encounter.")
    if effect == "lightning_attack":
        _require(test.kind != "test", f"{stunt.name} follows an attack, not another test.")
    if effect == "skirmish":
        _require(c.moves in ("self", "target"), "Skirmish moves yourself or your target.")
    if effect in ("guardian", "group_tactics", "double_team"):
        ally = state.fighter(c.ally)
        _require(ally.id != f.id and ally.side == f.side, f"Choose an ally of {f.name}'s.")
        _require(not ally.out, f"{ally.name} is out of the encounter.")
        if effect == "double_team":
            _require(ally.can_act, f"{ally.name} cannot act.")
    if effect in ("injure", "overcome_toughness"):
        _require(hit is not None, f"{stunt.name} needs an attack that did damage.")
        _require(hit.fresh, f"{target.name} has already taken that damage.")
    if effect == "injure":
        _require(2 * target.fortune <= target.fortune_max,
                 f"Injure needs {target.name} to have lost half their Fortune or more.")
        _require(hit.damage > hit.soaked, f"Injure needs the damage to beat {target.name}'s Toughness.")
        _require("Injured" not in target.conditions, f"{target.name} is already injured.")
    if effect == "overcome_toughness":
        _require(not hit.penetrating, "That damage already ignores Toughness.")
    opposed = None
    moves_target = effect == "knock_prone" or (effect == "skirmish" and c.moves == "target")
    if moves_target and target.prone and effect == "knock_prone":
        _require(False, f"{target.name} is already prone.")
    firm = state.effects_on(target.id, "stand_firm") if moves_target else ()
    if firm:
        a_bonus, _ = test_bonus(state, f, "Strength", ("Might",))
        d_ability = firm[0].other
        d_bonus, _ = test_bonus(state, target, d_ability, ("Might",) if d_ability == "Strength" else ("Acrobatics",))
        opposed = Opposed(attacker_faces=dice.roll(3, 6), attacker_bonus=a_bonus, defender_faces=dice.roll(3, 6),
                          defender_bonus=d_bonus, defender_ability=d_ability)
    return [StuntSpent(fighter=f.id, stunt=stunt.key, points=points, target=target.id if target else "",
                       ally=ally.id if ally else "", moves=c.moves if effect == "skirmish" else "",
                       hit=hit.id if hit else 0, note=_note(c.note), opposed=opposed)]


def _changeable_test(state: State, f: Fighter) -> TestRecord | None:
    """The fighter's latest test this turn, if Fortune may still change one of its dice."""
    mine = [t for t in state.tests if t.fighter == f.id]
    if not mine or mine[-1].locked:
        return None
    costs = [int(state.settings.get(k, 0)) for k in ("fortune_die_cost", "fortune_drama_cost")]
    affordable = [cost for cost in costs if cost > 0 and cost <= f.fortune]
    return mine[-1] if affordable else None


def _change_die(state: State, c: ChangeDie, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    mine = [t for t in state.tests if t.fighter == f.id]
    _require(bool(mine), f"{f.name} has made no test this turn.")
    test = mine[-1]
    _require(not test.locked, "Too late: something has already followed from that test.")
    _require(c.die in (0, 1, 2), "Choose one of the three dice.")
    _require(1 <= c.face <= 6, "A die shows 1 to 6.")
    _require(test.faces[c.die] != c.face, f"That die already shows {c.face}.")
    cost = int(state.settings.get("fortune_drama_cost" if c.die == 2 else "fortune_die_cost", 0))
    _require(cost > 0, "Fortune cannot change that die in this encounter.")
    _require(f.fortune >= cost, f"Changing that die costs {cost} Fortune and {f.name} has {f.fortune}.")
    faces = tuple(c.face if i == c.die else x for i, x in enumerate(test.faces))
    new = replace(test, faces=faces)
    damage_faces: tuple[int, ...] = ()
    scatter = 0
    if new.success and new.damaging and not test.damage_faces and (new.kind != "grenade" or new.targets):
        damage_faces = dice.roll(new.damage_dice, new.damage_sides)
    if new.kind == "grenade" and not new.success and not test.scatter:
        scatter = dice.roll(1, T.GRENADE_SCATTER_SIDES)[0]
    return [DieChanged(fighter=f.id, test=test.id, die=c.die, face=c.face, cost=cost, damage_faces=damage_faces,
                       scatter=scatter)]


def _open_hit(state: State, f: Fighter, hit_id: int) -> Hit:
    waiting = [h for h in state.hits if h.target == f.id and h.open]
    _require(bool(waiting), f"{f.name} has no damage waiting.")
    if hit_id:
        chosen = [h for h in waiting if h.id == hit_id]
        _require(bool(chosen), "That damage is not waiting for this combatant.")
        return chosen[0]
    return waiting[0]


def _guard_events(state: State, f: Fighter, hit: Hit) -> list[Event]:
    """Guardian Angel: before the ally first deals with fresh damage, the guardian takes their share."""
    if not hit.fresh or hit.remaining == 0:
        return []
    for e in state.effects_on(f.id, "guardian"):
        guardian = state.fighter(e.source)
        if not guardian.out:
            return [GuardTransferred(guardian=guardian.id, ally=f.id, hit=hit.id, points=min(e.points, hit.remaining))]
    return []


def _next_condition(f: Fighter) -> str:
    return next((c for c in T.INJURY_LADDER if c not in f.conditions), "")


def _spend_fortune(state: State, c: SpendFortune, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    hit = _open_hit(state, f, c.hit)
    _require(hit.stage == "fortune", f"{f.name} has already decided how much Fortune to spend on that damage.")
    events = _guard_events(state, f, hit)
    after = _simulate(state, events)
    hit = after.hit(hit.id)
    top = min(f.fortune, hit.remaining)
    _require(0 <= c.points <= top, f"{f.name} can spend 0 to {top} Fortune on this damage.")
    events.append(FortuneSpent(fighter=f.id, hit=hit.id, points=c.points))
    return events + _forced_out(_simulate(after, events[-1:]), f.id, hit.id)


def _forced_out(state: State, fighter_id: str, hit_id: int) -> list[Event]:
    """Damage left with no condition left to take: the combatant is taken out."""
    f, hit = state.fighter(fighter_id), state.hit(hit_id)
    if hit and hit.open and hit.remaining > 0 and not _next_condition(f) and not f.out:
        return [TakenOut(fighter=f.id, hit=hit.id, condition=T.STUNNED_OUT if hit.stunning else "")]
    return []


def _accept_condition(state: State, c: AcceptCondition, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    hit = _open_hit(state, f, c.hit)
    _require(c.choice in ("condition", "taken_out"), "Take a condition, or be taken out.")
    events: list[Event] = []
    if hit.stage == "fortune":  # no Fortune spent: say so first
        events = _guard_events(state, f, hit)
        events.append(FortuneSpent(fighter=f.id, hit=hit.id, points=0))
        after = _simulate(state, events)
        if not after.hit(hit.id).open:
            return events
        forced = _forced_out(after, f.id, hit.id)
        if forced:
            return events + forced
        state, hit = after, after.hit(hit.id)
    if c.choice == "taken_out":
        return events + [TakenOut(fighter=f.id, hit=hit.id, condition=T.STUNNED_OUT if hit.stunning else "")]
    condition = _next_condition(f)
    _require(bool(condition), f"{f.name} is already injured and wounded: they are taken out unless they roll over.")
    events.append(ConditionTaken(fighter=f.id, hit=hit.id, condition=condition, roll=dice.roll(1, T.INJURY_DIE)[0]))
    return events + _forced_out(_simulate(state, events[-1:]), f.id, hit.id)


def _roll_over(state: State, c: RollOver, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _require(not f.out, f"{f.name} is already out of the encounter.")
    _require(not f.roll_over_asked, f"{f.name} has already asked to roll over; the GM decides.")
    allowed = tuple(x for x in CONDITIONS if x != T.TAKEN_OUT)
    _require(c.condition in allowed, f"Choose the condition to take: {', '.join(allowed)}.")
    return [RollOverAsked(fighter=f.id, condition=c.condition)]


def _approve_roll_over(state: State, c: ApproveRollOver, dice: Dice) -> list[Event]:
    f = state.fighter(c.fighter)
    _require(bool(f.roll_over_asked), f"{f.name} has not asked to roll over.")
    _require(not f.out, f"{f.name} is already out of the encounter.")
    condition = c.condition or f.roll_over_asked
    _require(condition in CONDITIONS and condition != T.TAKEN_OUT, "Choose one of the conditions.")
    return [RolledOver(fighter=f.id, condition=condition, approved=c.approve)]


def _add_stunt(state: State, c: AddStunt, dice: Dice) -> list[Event]:
    name = _note(c.stunt, 40)
    key = _slug(name)
    _require(bool(key), "Name the stunt.")
    _require(state.stunt(name) is None, f"There is already a stunt called {name}.")
    _require(1 <= c.cost <= 20 and (c.max_cost == 0 or c.cost <= c.max_cost <= 20), "A stunt costs 1 to 20 SP.")
    _require(c.effect in ("",) + T.EFFECTS, "Choose one of the engine's effects, or none for a narrated stunt.")
    return [StuntAdded(stunt=T.Stunt(key, name, c.cost, c.max_cost, c.effect, c.damaging, _note(c.text)))]


def _set_condition(state: State, c: SetCondition, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(c.condition in CONDITIONS, f"Choose one of the conditions: {', '.join(CONDITIONS)}.")
    _require((c.condition in f.conditions) != c.on,
             f"{f.name} {'already has' if c.on else 'does not have'} the {c.condition} condition.")
    return [ConditionSet(target=f.id, condition=c.condition, on=c.on)]


def _adjust_fortune(state: State, c: AdjustFortune, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(c.change != 0, "Change Fortune up or down.")
    change = max(-f.fortune, min(f.fortune_max - f.fortune, c.change))
    _require(change != 0, f"{f.name}'s Fortune is already at {'its maximum' if c.change > 0 else '0'}.")
    return [FortuneAdjusted(target=f.id, change=change)]


def _set_cover(state: State, c: SetCover, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(0 <= c.rating <= T.TOTAL_COVER, "Cover is rated 0 to 3, or 4 for total cover.")
    return [CoverSet(target=f.id, rating=c.rating)]


def _churn_jam(state: State, c: ChurnJam, dice: Dice) -> list[Event]:
    _require(bool(state.settings.get("churn")), "This encounter does not use Churn.")
    f = state.fighter(c.fighter)
    cost = int(state.settings.get("churn_jam_cost", 1))
    mine = [t for t in state.tests if t.fighter == f.id]
    last = mine[-1] if mine else None
    _require(last is not None and last.kind in ("attack", "stunt_attack") and not last.success
             and T.WEAPONS[last.weapon].gun, f"{f.name}'s last attack this turn was not a missed firearm attack.")
    _require(last.weapon not in f.jammed, f"{f.name}'s {T.WEAPONS[last.weapon].label.lower()} is already jammed.")
    _require(state.churn >= cost, f"Jamming costs {_plural(cost, 'Churn point')} and the pool has {state.churn}.")
    return [ChurnJammed(fighter=f.id, weapon=last.weapon, cost=cost)]


def _adjust_churn(state: State, c: AdjustChurn, dice: Dice) -> list[Event]:
    _require(bool(state.settings.get("churn")), "This encounter does not use Churn.")
    _require(c.change != 0 and state.churn + c.change >= 0, f"The Churn pool is {state.churn}; it cannot go below 0.")
    return [ChurnAdjusted(change=c.change, reason=_note(c.reason, 120))]


def _breathers(state: State, c: Breathers, dice: Dice) -> list[Event]:
    rolls = []
    for f in state.fighters:
        face = dice.roll(1, T.BREATHER_DIE)[0]
        gain = max(0, min(f.fortune_max - f.fortune, face + f.abilities.get("Constitution", 0) + f.level))
        rolls.append(BreatherRoll(fighter=f.id, face=face, gain=gain))
    return [BreathersTaken(rolls=tuple(rolls))]


_DECIDERS = {
    RollInitiative: _roll_initiative, BreakTie: _break_tie, NextTurn: _next_turn_command, EndTurn: _end_turn,
    Attack: _attack, ThrowGrenade: _throw_grenade, Blast: _blast, AbilityTest: _ability_test, Defend: _defend,
    Run: _run, Move: _move, Activate: _activate, Aim: _aim, GuardUp: _guard_up, Prepare: _prepare,
    PressTheAttack: _press_the_attack, Ready: _ready, StandFirm: _stand_firm, ClearJam: _clear_jam,
    Interrupt: _interrupt, InterruptSelf: _interrupt_self, Pursue: _pursue, SpendStunt: _spend_stunt,
    ChangeDie: _change_die, SpendFortune: _spend_fortune, AcceptCondition: _accept_condition, RollOver: _roll_over,
    ApproveRollOver: _approve_roll_over, AddStunt: _add_stunt, SetCondition: _set_condition,
    AdjustFortune: _adjust_fortune, SetCover: _set_cover, ChurnJam: _churn_jam, AdjustChurn: _adjust_churn,
    Breathers: _breathers,
}


# --- evolve ----------------------------------------------------------------------------------------------------------

def _churn(state: State, change: int) -> State:
    if not state.settings.get("churn"):
        return state
    return replace(state, churn=max(0, state.churn + change))


def _use_slot(state: State, fighter_id: str, action: str, slot: str, target: str = "") -> State:
    """Count the action against the turn (or use up the prepared action or the stunt's extra attack); Aim is spent."""
    f = state.fighter(fighter_id)
    if slot == "turn":
        taken = (action, "prepared_major") if action == "prepare" else (action,)
        if action == "run" and state.settings.get("run_ends_turn"):
            taken = ("run", "run_whole_turn")
        state = replace(state, turn_actions=state.turn_actions + taken)
    elif slot == "prepared":
        f = replace(f, prepared="")
        state = replace(state, interrupt="")
    elif slot == "free":
        granted = [a for a in state.free_attacks if a.fighter == f.id and (not a.target or a.target == target)]
        if granted:
            used = granted[0]
            remaining = list(state.free_attacks)
            remaining.remove(used)
            state = replace(state, free_attacks=tuple(remaining))
    if slot != "none":
        f = replace(f, aim=False)
    return _put(state, f)


def _moved(state: State, fighter_id: str, cover: int) -> State:
    """Moving sets the cover where the move ends and lets anyone pressing the attack on the mover pursue."""
    state = _put(state, replace(state.fighter(fighter_id), cover=cover))
    effects = tuple(replace(e, triggered=True) if e.kind == "press" and e.other == fighter_id else e
                    for e in state.effects)
    return replace(state, effects=effects)


def _add_condition(f: Fighter, condition: str) -> Fighter:
    return f if not condition or condition in f.conditions else replace(f, conditions=f.conditions + (condition,))


def _make_hit(state: State, test: TestRecord, target_id: str, damage: int) -> State:
    target = state.fighter(target_id)
    hit = Hit(id=state.next_id, attacker=test.fighter, target=target.id, test=test.id, weapon=test.weapon,
              damage=damage, toughness=toughness(target), cover=cover_bonus(state, target, test.ranged),
              penetrating=test.stunning, stunning=test.stunning)
    hit = replace(hit, stage="fortune" if hit.remaining > 0 else "done")
    return replace(state, hits=state.hits + (hit,), next_id=state.next_id + 1)


def _apply_outcome(state: State, test: TestRecord) -> State:
    """Everything that follows from a test's dice: stunt points, damage, a jam, a scattered grenade, Churn."""
    f = state.fighter(test.fighter)
    if not test.resist:
        f = replace(f, sp=test.sp, sp_test=test.id)
    if test.jams and test.weapon not in f.jammed:
        f = replace(f, jammed=f.jammed + (test.weapon,))
    state = _put(state, f)
    if test.success and test.damage_faces:
        for target in (test.targets if test.kind == "grenade" else (test.target,)):
            state = _make_hit(state, test, target, test.damage)
    if test.kind == "grenade" and not test.success:
        state = replace(state, blast=PendingBlast(thrower=test.fighter, test=test.id, scatter=test.scatter))
    if test.success and test.drama == T.CHURN_DRAMA_DIE:
        state = _churn(state, 1)
    return state


def _retract_outcome(state: State, test: TestRecord) -> State:
    f = state.fighter(test.fighter)
    if f.sp_test == test.id:
        f = replace(f, sp=0)
    if test.jams:
        f = replace(f, jammed=tuple(w for w in f.jammed if w != test.weapon))
    state = _put(state, f)
    state = replace(state, hits=tuple(h for h in state.hits if h.test != test.id))
    if state.blast and state.blast.test == test.id:
        state = replace(state, blast=None)
    if test.success and test.drama == T.CHURN_DRAMA_DIE:
        state = _churn(state, -1)
    return state


def _lock(state: State, test_id: int) -> State:
    test = state.test(test_id)
    return _put_test(state, replace(test, locked=True)) if test and not test.locked else state


def _restage(hit: Hit) -> Hit:
    if hit.remaining <= 0:
        return replace(hit, stage="done")
    return hit


def _close_hits(state: State, fighter_id: str) -> State:
    return replace(state, hits=tuple(replace(h, stage="done") if h.target == fighter_id else h for h in state.hits))


def _start_turn(state: State, event: TurnStarted) -> State:
    if event.round != state.round:
        order = _order_for_round(state)
        effects = tuple(e for e in state.effects if e.until != "round_end")
        fighters = tuple(replace(f, stunts_used=()) for f in state.fighters)
        state = replace(state, order=order, effects=effects, fighters=fighters, round=event.round)
    effects = tuple(e for e in state.effects if not (e.until == "next_turn" and e.source == event.fighter))
    state = replace(state, effects=effects, turn=event.fighter, last_turn=event.fighter, turn_actions=(),
                    tests=(), free_attacks=(), interrupt="" if state.interrupt == event.fighter else state.interrupt)
    return _put(state, replace(state.fighter(event.fighter), prepared=""))  # an unused prepared action is lost


def _end_turn_state(state: State, event: TurnEnded) -> State:
    fighters = tuple(replace(f, sp=0) for f in state.fighters)  # unspent stunt points are lost
    return replace(state, fighters=fighters, turn="", turn_actions=(), tests=(), free_attacks=())


def _evolve_tested(state: State, event: Tested) -> State:
    test = event.test
    state = replace(state, next_id=max(state.next_id, test.id + 1))
    state = _use_slot(state, test.fighter, test.action, event.slot, test.target)
    f = state.fighter(test.fighter)
    if test.action == "all_out_attack":
        state = replace(state, effects=state.effects + (Effect("all_out", f.id, f.id, defense=T.ALL_OUT_DEFENSE),))
    if test.action == "charge" and event.metres:
        state = _moved(state, f.id, 0)
    if test.kind == "grenade":
        state = _put(state, replace(state.fighter(f.id), in_hand=""))
    if test.breaks and state.fighter(f.id).in_hand == test.weapon:
        state = _put(state, replace(state.fighter(f.id), in_hand=""))
    state = replace(state, tests=state.tests + (test,))
    return _apply_outcome(state, test)


def _evolve_stunt(state: State, event: StuntSpent) -> State:
    f = state.fighter(event.fighter)
    stunt = state.stunt(event.stunt)
    state = _lock(state, f.sp_test)
    f = replace(f, sp=f.sp - event.points, stunts_used=f.stunts_used + (stunt.key,))
    state = _put(state, f)
    if event.points >= T.STUNT_CHURN_POINTS:
        state = _churn(state, 1)
    held = event.opposed is not None and event.opposed.held
    effect = stunt.effect
    if effect == "fortune":
        state = _put(state, replace(f, fortune=min(f.fortune_max, f.fortune + event.points)))
    elif effect == "initiative":
        state = _put(state, replace(f, initiative=f.initiative + T.MOMENTUM_PER_SP * event.points))
    elif effect == "defense":
        state = replace(state, effects=state.effects + (Effect("duck_and_weave", f.id, f.id, defense=event.points),))
    elif effect == "cover":
        state = _put(state, replace(f, cover=min(3, event.points)))
    elif effect == "guardian":
        state = replace(state, effects=state.effects + (Effect("guardian", event.ally, f.id, points=event.points,
                                                               other=f.id),))
    elif effect == "makeshift":
        state = _put(state, replace(f, in_hand="makeshift"))
    elif effect == "double_team":
        state = replace(state, free_attacks=state.free_attacks + (FreeAttack(event.ally, event.target, stunt.name),))
    elif effect == "lightning_attack":
        state = replace(state, free_attacks=state.free_attacks + (FreeAttack(f.id, "", stunt.name),))
    elif effect == "knock_prone" and not held:
        state = _put(state, _add_condition(state.fighter(event.target), "Prone"))
    elif effect == "injure":
        state = _put(state, _add_condition(state.fighter(event.target), "Injured"))
    elif effect == "overcome_toughness":
        hit = state.hit(event.hit)
        hit = replace(hit, penetrating=True)
        state = _put_hit(state, replace(hit, stage="fortune" if hit.remaining > 0 else "done"))
    return state


def evolve(state: State, event: Event) -> State:
    if isinstance(event, InitiativeRolled):
        totals = {r.fighter: r for r in event.rolls}
        fighters = tuple(replace(f, initiative=totals[f.id].total, drama=totals[f.id].faces[2]) if f.id in totals
                         else f for f in state.fighters)
        state = replace(state, fighters=fighters, initiative_rolled=True, order=())
        return replace(state, order=_order_for_round(state))
    if isinstance(event, TieBroken):
        order = [fid for fid in state.order if fid != event.first]
        order.insert(order.index(event.second), event.first)
        return replace(state, order=tuple(order))
    if isinstance(event, TurnStarted):
        return _start_turn(state, event)
    if isinstance(event, TurnEnded):
        return _end_turn_state(state, event)
    if isinstance(event, Tested):
        return _evolve_tested(state, event)
    if isinstance(event, Blasted):
        blast = state.blast
        state = replace(state, blast=None)
        state = _lock(state, blast.test)
        if event.faces:
            test = TestRecord(id=blast.test, fighter=blast.thrower, kind="grenade", action="ranged_attack",
                              ability="Accuracy", focus="", faces=(1, 1, 1), modifier=0, tn=0, weapon="grenade",
                              damage_faces=event.faces, ranged=True)
            for target in event.targets:
                state = _make_hit(state, test, target, sum(event.faces))
        return state
    if isinstance(event, DieChanged):
        old = state.test(event.test)
        faces = tuple(event.face if i == event.die else x for i, x in enumerate(old.faces))
        new = replace(old, faces=faces, damage_faces=event.damage_faces or old.damage_faces,
                      scatter=event.scatter or old.scatter)
        state = _retract_outcome(state, old)
        state = _put_test(state, new)
        state = _apply_outcome(state, new)
        f = state.fighter(event.fighter)
        state = _put(state, replace(f, fortune=f.fortune - event.cost))
        return _churn(state, 1)
    if isinstance(event, Defended):
        state = _use_slot(state, event.fighter, "defend", event.slot)
        return replace(state, effects=state.effects + (Effect("defend", event.fighter, event.fighter,
                                                              defense=T.DEFEND_BONUS),))
    if isinstance(event, Ran):
        state = _use_slot(state, event.fighter, "run", event.slot)
        return _moved(state, event.fighter, event.cover)
    if isinstance(event, Moved):
        state = _use_slot(state, event.fighter, "move", "turn")
        f = state.fighter(event.fighter)
        if event.stand_up:
            f = replace(f, conditions=tuple(x for x in f.conditions if x != "Prone"))
        if event.drop_prone:
            f = _add_condition(f, "Prone")
        return _moved(_put(state, f), f.id, event.cover)
    if isinstance(event, Activated):
        return _use_slot(state, event.fighter, "activate", "turn")
    if isinstance(event, Aimed):
        state = _use_slot(state, event.fighter, "aim", "turn")
        return _put(state, replace(state.fighter(event.fighter), aim=True))
    if isinstance(event, GuardedUp):
        state = _use_slot(state, event.fighter, "guard_up", "turn")
        return replace(state, effects=state.effects + (Effect("guard_up", event.fighter, event.fighter, "round_end",
                                                              defense=event.bonus, tests=-event.bonus),))
    if isinstance(event, Prepared):
        state = _use_slot(state, event.fighter, "prepare", "turn")
        return _put(state, replace(state.fighter(event.fighter), prepared=event.action))
    if isinstance(event, Pressed):
        state = _use_slot(state, event.fighter, "press_the_attack", "turn")
        return replace(state, effects=state.effects + (Effect("press", event.fighter, event.fighter,
                                                              other=event.target),))
    if isinstance(event, Readied):
        state = _use_slot(state, event.fighter, "ready", "turn")
        f = state.fighter(event.fighter)
        if event.stow in ("shield", f.shield):
            f = replace(f, shield="none")
        elif event.stow and event.stow == f.in_hand:
            f = replace(f, in_hand="")
        if event.item in T.SHIELDS:
            f = replace(f, shield=event.item)
        elif event.item:
            f = replace(f, in_hand=event.item)
        return _put(state, f)
    if isinstance(event, StoodFirm):
        state = _use_slot(state, event.fighter, "stand_firm", "turn")
        return replace(state, effects=state.effects + (Effect("stand_firm", event.fighter, event.fighter,
                                                              other=event.ability),))
    if isinstance(event, JamCleared):
        state = _use_slot(state, event.fighter, "clear_jam", "turn")
        f = state.fighter(event.fighter)
        return _put(state, replace(f, jammed=tuple(w for w in f.jammed if w != event.weapon)))
    if isinstance(event, Interrupted):
        return replace(state, interrupt=event.fighter)
    if isinstance(event, Pursued):
        effects = tuple(e for e in state.effects
                        if not (e.kind == "press" and e.source == event.fighter and e.other == event.target))
        return replace(state, effects=effects)
    if isinstance(event, StuntSpent):
        return _evolve_stunt(state, event)
    if isinstance(event, GuardTransferred):
        hit = state.hit(event.hit)
        state = _lock(state, hit.test)
        state = _put_hit(state, replace(hit, transferred=event.points, guard_checked=True))
        effects = tuple(e for e in state.effects
                        if not (e.kind == "guardian" and e.fighter == event.ally and e.source == event.guardian))
        guardian_hit = Hit(id=state.next_id, attacker=hit.attacker, target=event.guardian, test=hit.test,
                           weapon=hit.weapon, damage=event.points, toughness=0, stunning=hit.stunning,
                           guard_checked=True)
        return replace(state, effects=effects, hits=state.hits + (_restage(guardian_hit),), next_id=state.next_id + 1)
    if isinstance(event, FortuneSpent):
        hit = state.hit(event.hit)
        state = _lock(state, hit.test)
        hit = replace(hit, fortune=event.points, guard_checked=True, stage="conditions")
        state = _put_hit(state, _restage(hit))
        f = state.fighter(event.fighter)
        return _put(state, replace(f, fortune=f.fortune - event.points))
    if isinstance(event, ConditionTaken):
        hit = state.hit(event.hit)
        state = _put_hit(state, _restage(replace(hit, reduced=hit.reduced + event.roll)))
        return _put(state, _add_condition(state.fighter(event.fighter), event.condition))
    if isinstance(event, TakenOut):
        f = _add_condition(_add_condition(state.fighter(event.fighter), T.TAKEN_OUT), event.condition)
        return _close_hits(_put(state, replace(f, roll_over_asked="")), f.id)
    if isinstance(event, RollOverAsked):
        return _put(state, replace(state.fighter(event.fighter), roll_over_asked=event.condition))
    if isinstance(event, RolledOver):
        f = replace(state.fighter(event.fighter), roll_over_asked="")
        if not event.approved:
            return _put(state, f)
        f = _add_condition(replace(f, rolled_over=True), event.condition)
        return _close_hits(_put(state, f), f.id)
    if isinstance(event, StuntAdded):
        return replace(state, stunts=state.stunts + (event.stunt,))
    if isinstance(event, ConditionSet):
        f = state.fighter(event.target)
        if event.on:
            return _put(state, _add_condition(f, event.condition))
        state = _put(state, replace(f, conditions=tuple(x for x in f.conditions if x != event.condition)))
        return state
    if isinstance(event, FortuneAdjusted):
        f = state.fighter(event.target)
        return _put(state, replace(f, fortune=max(0, min(f.fortune_max, f.fortune + event.change))))
    if isinstance(event, CoverSet):
        return _put(state, replace(state.fighter(event.target), cover=event.rating))
    if isinstance(event, ChurnJammed):
        f = state.fighter(event.fighter)
        state = _put(state, replace(f, jammed=f.jammed + (event.weapon,)))
        return replace(state, churn=max(0, state.churn - event.cost))
    if isinstance(event, ChurnAdjusted):
        return replace(state, churn=max(0, state.churn + event.change))
    if isinstance(event, ChurnReached):
        return replace(state, churn=0) if event.reset else state
    if isinstance(event, BreathersTaken):
        gains = {r.fighter: r.gain for r in event.rolls}
        fighters = tuple(replace(f, fortune=min(f.fortune_max, f.fortune + gains.get(f.id, 0))) for f in state.fighters)
        state = _churn(replace(state, fighters=fighters), 1)  # Churn: +1 at the end of an encounter
        return replace(state, ended=True, turn="", interrupt="")
    raise TypeError(f"unknown event {event!r}")


# --- the log in sentences ---------------------------------------------------------------------------------------

def _dice_text(faces: tuple[int, ...], modifier: int) -> str:
    sign = "+" if modifier >= 0 else "-"
    return f"{faces[0]}, {faces[1]} and Drama Die {faces[2]} {sign} {abs(modifier)} = {sum(faces) + modifier}"


def _article(label: str) -> str:
    return ("an " if label[:1].lower() in "aeiou" else "a ") + label


def _names(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def describe(state: State, event: Event, gm: bool = True) -> str | None:
    """One plain sentence for the log, read against the state the event was applied to.

    For players (gm=False) no NPC's Defense, Toughness or Fortune appears (an attack says whether it hits, not
    against what), enemies the party is not aware of stay unnamed, and Churn is the GM's alone (None)."""
    text = _describe(state, event, gm)
    return None if text is None else _sentence(text)


def _describe(state: State, event: Event, gm: bool) -> str | None:
    seen = seen_by_party(state.fighters)

    def fighter(fid: str) -> Fighter | None:
        return next((f for f in state.fighters if f.id == fid), None)

    def name(fid: str) -> str:
        f = fighter(fid)
        if f is None:
            return "someone"
        if not gm and f.side != "pc" and fid not in seen:
            return "someone unseen"
        return f.name

    def secret(fid: str) -> bool:
        f = fighter(fid)
        return not gm and (f is None or f.npc)

    if isinstance(event, InitiativeRolled):
        after = evolve(state, event)
        rolls = {r.fighter: r for r in event.rolls}
        parts = []
        for fid in after.order:
            r = rolls.get(fid)
            if r is None or secret(fid):
                parts.append(name(fid))
            else:
                parts.append(f"{name(fid)} {r.total} (Drama Die {r.faces[2]}{', with the focus' if r.focus else ''})")
        ties = []
        if gm:
            groups: dict[tuple[int, int], list[str]] = {}
            for fid in after.order:
                f = after.fighter(fid)
                groups.setdefault((f.initiative, f.drama), []).append(f.name)
            ties = [_names(g) for g in groups.values() if len(g) > 1]
        tie_text = "".join(f"; {t} are tied on both, so the GM decides between them" for t in ties)
        return f"Initiative order: {', '.join(parts)}{tie_text}"
    if isinstance(event, TieBroken):
        return f"The GM puts {name(event.first)} ahead of {name(event.second)} in the initiative order"
    if isinstance(event, TurnStarted):
        f = fighter(event.fighter)
        lost = f"; the prepared {T.MAJOR_ACTIONS.get(f.prepared, f.prepared)} is lost" if f and f.prepared else ""
        return f"Round {event.round}: {name(event.fighter)}'s turn{lost}"
    if isinstance(event, TurnEnded):
        lost = f", losing {_plural(event.sp_lost, 'unspent stunt point')}" if event.sp_lost else ""
        if event.auto:
            return f"{name(event.fighter)}'s turn ends with nothing left to do{lost}"
        return f"{name(event.fighter)} ends their turn{lost}"
    if isinstance(event, Tested):
        return _describe_test(state, event, gm, name, secret)
    if isinstance(event, Blasted):
        where = f" {event.direction}" if event.direction else ""
        if not event.targets:
            return f"{name(event.thrower)}'s scattered grenade goes off{where} and catches nobody"
        return (f"{name(event.thrower)}'s scattered grenade goes off{where}, catching "
                f"{_names([name(t) for t in event.targets])} for {sum(event.faces)} damage")
    if isinstance(event, DieChanged):
        old = state.test(event.test)
        which = "the Drama Die" if event.die == 2 else f"die {event.die + 1}"
        new = replace(old, faces=tuple(event.face if i == event.die else x for i, x in enumerate(old.faces)),
                      damage_faces=event.damage_faces or old.damage_faces, scatter=event.scatter or old.scatter)
        cost = "Fortune" if secret(event.fighter) else f"{event.cost} Fortune"
        return (f"{name(event.fighter)} spends {cost} to turn {which} from {old.faces[event.die]} to {event.face}: "
                f"{_dice_text(new.faces, new.modifier)}, {_verdict(state, new, gm, name, secret)}")
    if isinstance(event, Defended):
        lead = "Interrupting, " if event.slot == "prepared" else ""
        return f"{lead}{name(event.fighter)} defends: +{T.DEFEND_BONUS} Defense until the start of their next turn"
    if isinstance(event, Ran):
        lead = "Interrupting, " if event.slot == "prepared" else ""
        cover = f" into {T.COVER_LABELS[event.cover]}" if event.cover else ""
        return f"{lead}{name(event.fighter)} runs {event.metres} m{cover}"
    if isinstance(event, Moved):
        extras = [x for x, on in (("stands up", event.stand_up), ("drops prone", event.drop_prone),
                                  ("gets in or out of a vehicle", event.vehicle)) if on]
        cover = f" into {T.COVER_LABELS[event.cover]}" if event.cover else ""
        extra = f" and {_names(extras)}" if extras else ""
        return f"{name(event.fighter)} moves {event.metres} m{cover}{extra}"
    if isinstance(event, Activated):
        return f"{name(event.fighter)} activates {event.what or 'something'}"
    if isinstance(event, Aimed):
        return f"{name(event.fighter)} aims: +{T.AIM_BONUS} on an attack if it is their next action"
    if isinstance(event, GuardedUp):
        return (f"{name(event.fighter)} guards up: +{event.bonus} Defense and -{event.bonus} on every test until "
                "the end of the round")
    if isinstance(event, Prepared):
        action = T.MAJOR_ACTIONS.get(event.action, event.action)
        return f"{name(event.fighter)} prepares {_article(action)} to interrupt with before their next turn"
    if isinstance(event, Pressed):
        return (f"{name(event.fighter)} presses the attack on {name(event.target)}: if they move away, "
                f"{name(event.fighter)} may follow at once")
    if isinstance(event, Readied):
        item = T.WEAPONS[event.item].label.lower() if event.item in T.WEAPONS else (
            T.SHIELDS[event.item][0].lower() if event.item in T.SHIELDS else event.item)
        stow = f", putting away {event.stow}" if event.stow else ""
        return f"{name(event.fighter)} readies {item or 'nothing new'}{stow}"
    if isinstance(event, StoodFirm):
        how = "Strength (Might)" if event.ability == "Strength" else "Dexterity (Acrobatics)"
        return f"{name(event.fighter)} stands firm, resisting with {how} until the start of their next turn"
    if isinstance(event, JamCleared):
        return f"{name(event.fighter)} clears the jam in their {T.WEAPONS[event.weapon].label.lower()} (or reloads)"
    if isinstance(event, Interrupted):
        if not event.fighter:
            return f"The GM calls off {name(state.interrupt)}'s interrupt"
        f = fighter(event.fighter)
        action = T.MAJOR_ACTIONS.get(f.prepared, f.prepared) if f else "action"
        by = "At the GM's call, " if event.by == "gm" else ""
        return f"{by}{name(event.fighter)} interrupts to take their prepared {action}"
    if isinstance(event, Pursued):
        return f"{name(event.fighter)} pursues {name(event.target)} {event.metres} m"
    if isinstance(event, StuntSpent):
        return _describe_stunt(state, event, name, secret)
    if isinstance(event, GuardTransferred):
        return (f"{name(event.guardian)} takes {event.points} of the damage meant for {name(event.ally)} "
                "(Guardian Angel)")
    if isinstance(event, FortuneSpent):
        hit = state.hit(event.hit)
        left = hit.remaining - event.points if hit else 0
        if secret(event.fighter):
            if event.points == 0:
                return f"{name(event.fighter)} spends no Fortune on the damage"
            return f"{name(event.fighter)} spends Fortune on the damage" + ("; none gets through" if left <= 0 else "")
        rest = "; none gets through" if left <= 0 else f"; {left} damage remains"
        if event.points == 0:
            return f"{name(event.fighter)} spends no Fortune on the damage{rest}"
        return f"{name(event.fighter)} spends {event.points} Fortune on the damage{rest}"
    if isinstance(event, ConditionTaken):
        hit = state.hit(event.hit)
        left = max(0, hit.remaining - event.roll) if hit else 0
        rest = "" if secret(event.fighter) else ("; nothing remains" if left == 0 else f"; {left} damage remains")
        return (f"{name(event.fighter)} takes the {event.condition} condition, which absorbs {event.roll} damage "
                f"(1d6){rest}")
    if isinstance(event, TakenOut):
        extra = " and knocked unconscious" if event.condition == T.STUNNED_OUT else ""
        return f"{name(event.fighter)} is taken out{extra}"
    if isinstance(event, RollOverAsked):
        return (f"{name(event.fighter)} asks to roll over and bow out with the {event.condition} condition; "
                "the GM decides")
    if isinstance(event, RolledOver):
        if not event.approved:
            return f"The GM does not let {name(event.fighter)} roll over"
        return f"{name(event.fighter)} rolls over and bows out of the encounter with the {event.condition} condition"
    if isinstance(event, StuntAdded):
        s = event.stunt
        return f"The GM adds the stunt {s.name} ({s.cost_label} SP)"
    if isinstance(event, ConditionSet):
        return f"{name(event.target)} {'gains' if event.on else 'loses'} the {event.condition} condition"
    if isinstance(event, FortuneAdjusted):
        if secret(event.target):
            return f"The GM adjusts {name(event.target)}'s Fortune"
        f = fighter(event.target)
        now = f.fortune + event.change if f else event.change
        verb = "rises" if event.change > 0 else "drops"
        return f"{name(event.target)}'s Fortune {verb} by {abs(event.change)} to {now}"
    if isinstance(event, CoverSet):
        return f"{name(event.target)} now has {T.COVER_LABELS.get(event.rating, 'cover')}"
    if isinstance(event, ChurnJammed):
        weapon = T.WEAPONS[event.weapon].label.lower()
        lead = f"The GM spends {_plural(event.cost, 'Churn point')}: " if gm else ""
        return f"{lead}{name(event.fighter)}'s {weapon} jams or runs dry"
    if isinstance(event, ChurnAdjusted):
        if not gm:
            return None
        why = f" ({event.reason})" if event.reason else ""
        sign = "+" if event.change > 0 else "-"
        return f"Churn {sign}{abs(event.change)}{why}: the pool is now {state.churn + event.change}"
    if isinstance(event, ChurnReached):
        if not gm:
            return None
        what = dict(T.CHURN_THRESHOLDS).get(event.level, "the GM rolls on the Churn table")
        return f"Churn reaches {event.level}: {what}"
    if isinstance(event, BreathersTaken):
        parts = [f"{name(r.fighter)} regains {r.gain} Fortune (1d6 shows {r.face})" for r in event.rolls
                 if not secret(r.fighter)]
        rest = f": {_names(parts)}" if parts else ""
        return f"Breathers end the encounter{rest}"
    if event.kind == "undone":
        return "The GM takes back an earlier entry"
    return event.kind.replace("_", " ")


def _verdict(state: State, t: TestRecord, gm: bool, name, secret) -> str:
    """How a test came out: hit or miss, damage, stunt points, jams and breaks."""
    weapon = T.WEAPONS.get(t.weapon)
    sp = f"{_plural(t.sp, 'stunt point')}"
    if t.kind == "grenade":
        if t.success:
            if not t.targets:
                return "it lands on target and catches nobody"
            return (f"it lands on target, catching {_names([name(x) for x in t.targets])} "
                    f"for {t.damage} damage" + (f", and doubles earn {sp}" if t.sp else ""))
        return f"it misses and lands {t.scatter} m off in a direction of the GM's choosing"
    if t.kind == "test":
        if not t.success:
            return "a failure"
        return "a success" + (f" earning {sp}" if t.sp else "")
    if not t.success:
        result = "a miss"
        if t.jams:
            result += f", and the {weapon.label.lower()} jams or runs dry (Drama Die {t.drama})"
        if t.breaks:
            result += ", and the makeshift weapon breaks"
        return result
    if t.kind == "stunt_attack":
        return f"a success: {sp} and no damage"
    result = "a hit"
    if t.target:
        result += f" for {t.damage} damage"
        target = state.fighter(t.target)
        if not secret(t.target):
            soak = cover_bonus(state, target, t.ranged) + (0 if t.stunning else toughness(target))
            kind = "penetrating; cover" if t.stunning else "Toughness"
            result += f" ({kind} {soak} leaves {max(0, t.damage - soak)})"
    if t.sp:
        result += f", and doubles earn {sp}"
    return result


def _describe_test(state: State, event: Tested, gm: bool, name, secret) -> str:
    t = event.test
    lead = {"prepared": "Interrupting, ", "free": "With an extra attack, "}.get(event.slot, "")
    roll = _dice_text(t.faces, t.modifier) + (" (physical dice)" if t.entered else "")
    actor = name(t.fighter)
    if t.kind == "grenade":
        return f"{lead}{actor} throws a grenade: {roll} against TN {t.tn}, {_verdict(state, t, gm, name, secret)}"
    if t.kind == "test":
        focus = f" ({t.focus})" if t.focus else ""
        what = f" to {t.note}" if t.note else ""
        resist = " resistance" if t.resist else ""
        return (f"{lead}{actor} makes {_article(t.ability)}{focus}{resist} test{what}: {roll} against TN {t.tn}, "
                f"{_verdict(state, t, gm, name, secret)}")
    weapon = T.WEAPONS[t.weapon].label.lower()
    action = T.MAJOR_ACTIONS[t.action]
    if t.object_size:
        label, examples, _ = T.OBJECT_SIZES[t.object_size]
        against, tn = f"{_article(label.lower())} object ({examples})", f" against target number {t.tn}"
    else:
        against = name(t.target)
        tn = "" if secret(t.target) else f" against Defense {t.tn}"
    moved = f" after moving {event.metres} m" if event.metres else ""
    return (f"{lead}{actor} makes {_article(action)}{moved} with {_article(weapon)} at {against}: {roll}{tn}, "
            f"{_verdict(state, t, gm, name, secret)}")


def _describe_stunt(state: State, e: StuntSpent, name, secret) -> str:
    stunt = state.stunt(e.stunt)
    f = state.fighter(e.fighter)
    p = e.points
    actor, target, ally = name(e.fighter), name(e.target), name(e.ally)
    effect = stunt.effect if stunt else ""
    clause = {
        "fortune": (", regaining Fortune" if secret(e.fighter)
                    else f", regaining {min(p, f.fortune_max - f.fortune)} Fortune"),
        "initiative": f", +{T.MOMENTUM_PER_SP * p} initiative from the next round",
        "defense": f", +{p} Defense until the start of their next turn",
        "cover": f", taking {T.COVER_LABELS[min(3, p)]}",
        "guardian": f" to shield {ally} from up to {p} damage before their next turn",
        "skirmish": f", moving {'themselves' if e.moves == 'self' else target} {T.SKIRMISH_METRES_PER_SP * p} m",
        "makeshift": ", grabbing a makeshift weapon",
        "group_tactics": f": {ally} moves {T.GROUP_TACTICS_METRES_PER_2SP * (p // 2)} m",
        "double_team": f": {ally} may attack {target} at once",
        "injure": f": {target} is injured",
        "knock_prone": f": {target} is knocked prone",
        "lightning_attack": ": a second attack this turn",
        "overcome_toughness": ": the damage ignores Toughness",
    }.get(effect, "")
    if e.opposed is not None:
        o = e.opposed
        a, d = sum(o.attacker_faces) + o.attacker_bonus, sum(o.defender_faces) + o.defender_bonus
        if o.held:
            clause = f", but {target} stands firm ({d} against {a}) and does not budge"
        else:
            clause += f" (standing firm fails, {d} against {a})"
    note = f" ({e.note})" if e.note else ""
    label = stunt.name if stunt else e.stunt
    return f"{actor} spends {_plural(p, 'stunt point')} on {label}{clause}{note}"


# --- between the campaign and the encounter ---------------------------------------------------------------------

def write_back(state: State) -> dict[str, dict]:
    """What persists on each PC's sheet: Fortune (after breathers, if the GM rolled them) and conditions.

    NPCs are left alone (several combatants may share one template sheet). Stunt points, Churn, cover, initiative
    and timed effects end with the encounter, so they are not here.
    """
    return {f.id: {"fortune": f.fortune, "conditions": [c for c in f.conditions if c in CONDITIONS]}
            for f in state.pcs()}


def outcome(state: State) -> str:
    """"Victory" when no enemy can act any more (taken out, rolled over, unconscious), "Defeat" when no PC can."""
    if state.enemies() and not any(f.can_act for f in state.enemies()):
        return "Victory"
    if state.pcs() and not any(f.can_act for f in state.pcs()):
        return "Defeat"
    return ""
