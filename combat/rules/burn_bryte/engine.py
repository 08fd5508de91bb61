"""Burn Bryte combat: three phases a round, push-your-luck skill rolls, Advantages, Collapse and Nova points."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from math import perm
from typing import ClassVar

from combat.rules.burn_bryte.stats import DIE_SIZES, SKILL_CATEGORIES, SKILLS
from combat.rules.core import require as _require
from combat.rules.core import Command, Event, EventCodec, RuleError, Setting, seen_by_party
from combat.rules.dice import Dice

KEY = "burn_bryte"
SKILL_CATEGORY = {skill: category for category, skills in SKILL_CATEGORIES.items() for skill in skills}
INTENTS = ("attack", "defend", "advantage", "move", "other")

SETTINGS = (
    Setting("change_cost", "Collapse points to change a declared enemy action", 1,
            choices=((0, "0"), (1, "1"), (2, "2"), (3, "3"))),
    Setting("entered_dice", "Players may enter the faces of physical dice", False),
    Setting("failure_default", "One-tap choice after a failed roll", "collapse",
            choices=(("collapse", "GM gains 1 Collapse point"), ("consequence", "A failure consequence"))),
    Setting("surprise", "Surprise in round 1", "none",
            choices=(("none", "Nobody is surprised"), ("enemies", "Enemies catch all PCs unaware"),
                     ("pcs", "PCs catch all enemies unaware"))),
)


def chance_of_success(dice: int, sides: int) -> float:
    """Probability that `dice` dice of `sides` sides show no two equal faces: S!/((S-N)!·S^N)."""
    if dice > sides:
        return 0.0
    return perm(sides, dice) / sides**dice


def has_doubles(faces) -> bool:
    return len(set(faces)) != len(faces)


# --- State -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Conditions:
    neg_minor: str = ""  # the skill it hinders; "?" when gained at 0 Health Levels and not yet named
    neg_moderate: str = ""  # the category it hinders
    neg_significant: bool = False
    pos_minor: str = ""
    pos_moderate: str = ""
    pos_significant: bool = False

    def modifier(self, skill: str) -> int:
        category = SKILL_CATEGORY.get(skill, "")
        shift = 0
        shift += 1 if self.neg_minor == skill else 0
        shift += 1 if self.neg_moderate and self.neg_moderate == category else 0
        shift += 1 if self.neg_significant else 0
        shift -= 1 if self.pos_minor == skill else 0
        shift -= 1 if self.pos_moderate and self.pos_moderate == category else 0
        shift -= 1 if self.pos_significant else 0
        return shift

    def gain_least_severe(self) -> tuple[Conditions, str]:
        if not self.neg_minor:
            return replace(self, neg_minor="?"), "a minor negative condition"
        if not self.neg_moderate:
            return replace(self, neg_moderate="?"), "a moderate negative condition"
        if not self.neg_significant:
            return replace(self, neg_significant=True), "a significant negative condition"
        return self, ""


@dataclass(frozen=True)
class Fighter:
    id: str
    name: str
    side: str  # "pc" or "enemy"
    owner: int | None = None
    skills: dict[str, int] = field(default_factory=dict)
    health: int = 3
    health_max: int = 3
    speed: int = 5
    nova_points: int = 0
    nova_boxes: tuple[int, ...] = ()
    conditions: Conditions = Conditions()
    aware_of: tuple[str, ...] = ()
    took_turn: bool = False
    collapse_note: str = ""

    @property
    def down(self) -> bool:
        return self.health <= 0


@dataclass(frozen=True)
class Declaration:
    id: int
    enemy: str
    target: str
    text: str
    extra: bool = False
    defended: bool = False
    outcome: str = ""  # "", "hit", "missed", "cancelled", "skipped"


@dataclass(frozen=True)
class Roll:
    fighter: str
    skill: str
    sides: int
    complexity: int
    faces: tuple[int, ...]
    intent: str
    target: str
    damage: int
    entered: bool = False

    @property
    def succeeded(self) -> bool:
        return not has_doubles(self.faces)


@dataclass(frozen=True)
class State:
    fighters: tuple[Fighter, ...] = ()
    round: int = 1
    phase: int = 1
    surprise: str = "none"
    declarations: tuple[Declaration, ...] = ()
    next_declaration: int = 1
    advantages: int = 0
    livability: int = 3
    collapse: int = 2
    turn: str = ""
    turn_rolls: int = 0
    free_move_used: bool = False
    chain: bool = False
    picker: str = ""
    pending_failure: bool = False
    last_roll: Roll | None = None
    settings: dict[str, str | int | bool] = field(default_factory=dict)
    ended: bool = False

    def fighter(self, fighter_id: str) -> Fighter:
        for f in self.fighters:
            if f.id == fighter_id:
                return f
        raise RuleError("That combatant is not in this encounter.")

    def pcs(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side == "pc")

    def enemies(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side == "enemy")

    def declaration(self, declaration_id: int) -> Declaration:
        for d in self.declarations:
            if d.id == declaration_id:
                return d
        raise RuleError("That declared action is not in this round.")

    def pcs_left(self) -> tuple[Fighter, ...]:
        """PCs who still have a turn this round (a PC at 0 Health Levels takes no actions)."""
        return tuple(f for f in self.pcs() if not f.took_turn and not f.down)

    def complexity(self, fighter: Fighter, skill: str) -> int:
        return max(2, 2 + self.turn_rolls + fighter.conditions.modifier(skill))


def _put(state: State, fighter: Fighter) -> State:
    return replace(state, fighters=tuple(fighter if f.id == fighter.id else f for f in state.fighters))


def _put_declaration(state: State, declaration: Declaration) -> State:
    return replace(state, declarations=tuple(declaration if d.id == declaration.id else d
                                             for d in state.declarations))


# --- Commands ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Declare(Command):
    name: ClassVar[str] = "declare"
    label: ClassVar[str] = "Declare an enemy action"
    enemy: str = ""
    target: str = ""
    text: str = "attacks"
    extra: bool = False


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
    damage: int = 1
    note: str = ""
    entered: tuple[int, ...] = ()


@dataclass(frozen=True)
class FreeMove(Command):
    name: ClassVar[str] = "free_move"
    who: ClassVar[str] = "owner"
    label: ClassVar[str] = "Free move"
    actor: str = ""
    squares: int = 0


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
    damage: int = 1


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
class SetCondition(Command):
    name: ClassVar[str] = "set_condition"
    label: ClassVar[str] = "Set a condition"
    target: str = ""
    slot: str = "neg_minor"
    value: str = ""


COMMANDS = (Declare, ChangeDeclaration, StartPlayers, ClaimTurn, PickNext, SkillRoll, FreeMove, SpendAdvantage,
            EndTurn, ResolveFailure, StartEnemies, Resolve, NextRound, SpendNova, SpendCollapse, AdjustHealth,
            SetCondition)


# --- Events ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Declared(Event):
    kind: ClassVar[str] = "declared"
    id: int = 0
    enemy: str = ""
    target: str = ""
    text: str = ""
    extra: bool = False


@dataclass(frozen=True)
class DeclarationChanged(Event):
    kind: ClassVar[str] = "declaration_changed"
    id: int = 0
    target: str = ""
    text: str = ""
    cost: int = 0


@dataclass(frozen=True)
class PhaseStarted(Event):
    kind: ClassVar[str] = "phase_started"
    round: int = 1
    phase: int = 1
    skipped: tuple[int, ...] = ()


@dataclass(frozen=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    fighter: str = ""
    picked_by: str = ""  # "", "gm" or the picking PC's id
    chain: bool = False


@dataclass(frozen=True)
class SkillRolled(Event):
    kind: ClassVar[str] = "skill_rolled"
    roll: Roll | None = None
    note: str = ""


@dataclass(frozen=True)
class AdvantageSpent(Event):
    kind: ClassVar[str] = "advantage_spent"
    fighter: str = ""
    die: int = 0
    face: int = 0
    entered: bool = False


@dataclass(frozen=True)
class Moved(Event):
    kind: ClassVar[str] = "moved"
    fighter: str = ""
    squares: int = 0


@dataclass(frozen=True)
class TurnEnded(Event):
    kind: ClassVar[str] = "turn_ended"
    fighter: str = ""
    failure: str = ""  # "", "collapse" or "consequence"
    note: str = ""


@dataclass(frozen=True)
class Resolved(Event):
    kind: ClassVar[str] = "resolved"
    id: int = 0
    outcome: str = ""
    damage: int = 0


@dataclass(frozen=True)
class NovaSpent(Event):
    kind: ClassVar[str] = "nova_spent"
    fighter: str = ""
    points: int = 0
    note: str = ""


@dataclass(frozen=True)
class CollapseSpent(Event):
    kind: ClassVar[str] = "collapse_spent"
    audience: ClassVar[str] = "gm"
    enemy: str = ""
    points: int = 0
    note: str = ""


@dataclass(frozen=True)
class HealthAdjusted(Event):
    kind: ClassVar[str] = "health_adjusted"
    target: str = ""
    change: int = 0


@dataclass(frozen=True)
class ConditionSet(Event):
    kind: ClassVar[str] = "condition_set"
    target: str = ""
    slot: str = ""
    value: str = ""


EVENTS = (Declared, DeclarationChanged, PhaseStarted, TurnStarted, SkillRolled, AdvantageSpent, Moved, TurnEnded,
          Resolved, NovaSpent, CollapseSpent, HealthAdjusted, ConditionSet)
CODEC = EventCodec(EVENTS, COMMANDS)


# --- Set-up --------------------------------------------------------------------------------------------

def initial_state(fighters: tuple[Fighter, ...], livability: int, settings: dict) -> State:
    if not any(f.side == "pc" for f in fighters):
        raise RuleError("An encounter needs at least one player character.")
    surprise = settings.get("surprise", "none")
    # PCs surprising all enemies skip Phase 1 of round 1.
    phase = 2 if surprise == "pcs" else 1
    capped = tuple(replace(f, nova_points=min(f.nova_points, livability)) if f.side == "pc" else f for f in fighters)
    return State(fighters=capped, livability=livability, surprise=surprise, phase=phase, settings=dict(settings))


# --- decide --------------------------------------------------------------------------------------------



def _roll_faces(state: State, count: int, sides: int, entered: tuple[int, ...], dice: Dice) -> tuple[tuple[int, ...], bool]:
    if entered:
        _require(bool(state.settings.get("entered_dice")), "The GM has the server roll the dice in this encounter.")
        _require(len(entered) == count, f"Enter exactly {count} dice.")
        _require(all(1 <= face <= sides for face in entered), f"Each die must show a face from 1 to {sides}.")
        return tuple(entered), True
    return dice.roll(count, sides), False


def decide(state: State, command: Command, dice: Dice) -> list[Event]:
    _require(not state.ended, "This encounter has ended.")
    handler = _DECIDERS.get(type(command))
    if handler is None:
        raise RuleError("That is not an action in Burn Bryte.")
    return handler(state, command, dice)


def _declare(state: State, c: Declare, dice: Dice) -> list[Event]:
    enemy = state.fighter(c.enemy)
    target = state.fighter(c.target)
    _require(enemy.side == "enemy", "Only enemies declare actions.")
    _require(target.side == "pc", "Enemies target player characters.")
    _require(not enemy.down, f"{enemy.name} is at 0 Health Levels and cannot act.")
    _require(target.id in enemy.aware_of, f"{enemy.name} is not aware of {target.name}.")
    text = " ".join(c.text.split())[:200] or "attacks"
    if c.extra:
        _require(state.collapse >= 1, "An extra enemy attack costs 1 Collapse point and the GM has none.")
        _require(state.phase == 1 or (state.phase == 2 and bool(state.pcs_left())),
                 "Extra attacks are bought in Phase 1, or in Phase 2 while a PC still has a turn.")
    else:
        _require(state.phase == 1, "Enemies declare their actions in Phase 1.")
        _require(not any(d.enemy == enemy.id and not d.extra for d in state.declarations),
                 f"{enemy.name} has already declared its action this round.")
    return [Declared(id=state.next_declaration, enemy=enemy.id, target=target.id, text=text, extra=c.extra)]


def _change_declaration(state: State, c: ChangeDeclaration, dice: Dice) -> list[Event]:
    declaration = state.declaration(c.declaration)
    _require(state.phase in (1, 2), "Declared actions can be changed before Phase 3.")
    _require(not declaration.outcome, "That action has already been resolved.")
    cost = int(state.settings.get("change_cost", 1))
    _require(state.collapse >= cost, f"Changing a declared action costs {cost} Collapse point{'s' if cost != 1 else ''}.")
    target = state.fighter(c.target or declaration.target)
    enemy = state.fighter(declaration.enemy)
    _require(target.side == "pc", "Enemies target player characters.")
    _require(target.id in enemy.aware_of, f"{enemy.name} is not aware of {target.name}.")
    text = " ".join(c.text.split())[:200] or declaration.text
    return [DeclarationChanged(id=declaration.id, target=target.id, text=text, cost=cost)]


def _start_players(state: State, c: StartPlayers, dice: Dice) -> list[Event]:
    _require(state.phase == 1, "Phase 2 starts after Phase 1.")
    missing = [e.name for e in state.enemies()
               if not e.down and e.aware_of and not any(d.enemy == e.id and not d.extra for d in state.declarations)]
    _require(not missing, f"Declare one action for {', '.join(missing)} first.")
    if state.round == 1 and state.surprise == "enemies":
        return [PhaseStarted(round=state.round, phase=3, skipped=(2,))]
    return [PhaseStarted(round=state.round, phase=2)]


def _claim_turn(state: State, c: ClaimTurn, dice: Dice) -> list[Event]:
    _require(state.phase == 2, "Player characters take their turns in Phase 2.")
    pc = state.fighter(c.actor)
    _require(pc.side == "pc", "Only player characters take turns in Phase 2.")
    _require(not state.turn, f"{state.fighter(state.turn).name if state.turn else 'Someone'} is still taking their turn.")
    _require(not state.chain, "The PC who just finished picks who goes next.")
    _require(not pc.took_turn, f"{pc.name} has already taken a turn this round.")
    _require(not pc.down, f"{pc.name} is at 0 Health Levels and cannot act.")
    return [TurnStarted(fighter=pc.id)]


def _pick_next(state: State, c: PickNext, dice: Dice) -> list[Event]:
    _require(state.phase == 2, "Player characters take their turns in Phase 2.")
    _require(not state.turn, f"{state.fighter(state.turn).name if state.turn else 'Someone'} is still taking their turn.")
    if c.actor:
        _require(state.chain and state.picker == c.actor, "It is not this character's pick.")
    nxt = state.fighter(c.next)
    _require(nxt.side == "pc", "Only player characters take turns in Phase 2.")
    _require(not nxt.took_turn, f"{nxt.name} has already taken a turn this round.")
    _require(not nxt.down, f"{nxt.name} is at 0 Health Levels and cannot act.")
    return [TurnStarted(fighter=nxt.id, picked_by=c.actor or "gm", chain=True)]


def _own_turn(state: State, actor: str) -> Fighter:
    pc = state.fighter(actor)
    _require(state.phase == 2 and state.turn == pc.id, f"It is not {pc.name}'s turn.")
    return pc


def _skill_roll(state: State, c: SkillRoll, dice: Dice) -> list[Event]:
    pc = _own_turn(state, c.actor)
    _require(not state.pending_failure, "The last roll failed: the turn is over once the GM decides what follows.")
    _require(c.skill in pc.skills, "Choose one of your skills.")
    _require(c.intent in INTENTS, "Choose what the roll is for: attack, defend, create an advantage, move or other.")
    _require(1 <= c.damage <= 10, "Damage must be between 1 and 10.")
    target = ""
    if c.intent == "attack":
        enemy = state.fighter(c.target)
        _require(enemy.side == "enemy", "Attack an enemy.")
        _require(enemy.id in pc.aware_of, f"{pc.name} is not aware of {enemy.name}.")
        _require(not enemy.down, f"{enemy.name} is already at 0 Health Levels.")
        target = enemy.id
    elif c.intent == "defend":
        try:
            declaration = state.declaration(int(c.target))
        except ValueError:
            raise RuleError("Choose the declared attack to defend against.") from None
        _require(not declaration.defended and not declaration.outcome, "That attack is already dealt with.")
        target = str(declaration.id)
    sides = pc.skills[c.skill]
    complexity = state.complexity(pc, c.skill)
    faces, entered = _roll_faces(state, complexity, sides, c.entered, dice)
    roll = Roll(fighter=pc.id, skill=c.skill, sides=sides, complexity=complexity, faces=faces, intent=c.intent,
                target=target, damage=c.damage if c.intent == "attack" else 0, entered=entered)
    return [SkillRolled(roll=roll, note=" ".join(c.note.split())[:200])]


def _free_move(state: State, c: FreeMove, dice: Dice) -> list[Event]:
    pc = _own_turn(state, c.actor)
    _require(not state.pending_failure, "The last roll failed: the turn is over.")
    _require(not state.free_move_used, f"{pc.name} has already used the free move this turn; roll a skill to move again.")
    _require(1 <= c.squares <= pc.speed, f"{pc.name} can move from 1 to {pc.speed} squares.")
    return [Moved(fighter=pc.id, squares=c.squares)]


def _spend_advantage(state: State, c: SpendAdvantage, dice: Dice) -> list[Event]:
    pc = _own_turn(state, c.actor)
    roll = state.last_roll
    _require(state.pending_failure and roll is not None and roll.fighter == pc.id,
             "Advantages reroll a die of a failed roll.")
    _require(state.advantages >= 1, "The party has no Advantages left.")
    _require(0 <= c.die < len(roll.faces), "Choose one of the dice of the failed roll.")
    faces, entered = _roll_faces(state, 1, roll.sides, c.entered, dice)
    return [AdvantageSpent(fighter=pc.id, die=c.die, face=faces[0], entered=entered)]


def _end_turn(state: State, c: EndTurn, dice: Dice) -> list[Event]:
    pc = _own_turn(state, c.actor)
    _require(not state.pending_failure, "The roll failed: the GM chooses a consequence or a Collapse point to end the turn.")
    return [TurnEnded(fighter=pc.id)]


def _resolve_failure(state: State, c: ResolveFailure, dice: Dice) -> list[Event]:
    _require(state.pending_failure and bool(state.turn), "No failed roll is waiting for the GM.")
    _require(c.choice in ("collapse", "consequence"), "Choose a consequence or a Collapse point.")
    return [TurnEnded(fighter=state.turn, failure=c.choice, note=" ".join(c.note.split())[:200])]


def _start_enemies(state: State, c: StartEnemies, dice: Dice) -> list[Event]:
    _require(state.phase == 2, "Phase 3 follows Phase 2.")
    _require(not state.turn, f"{state.fighter(state.turn).name if state.turn else 'Someone'} is still taking their turn.")
    if state.round == 1 and state.surprise == "pcs":
        return [PhaseStarted(round=2, phase=1, skipped=(3,))]
    return [PhaseStarted(round=state.round, phase=3)]


def _resolve(state: State, c: Resolve, dice: Dice) -> list[Event]:
    _require(state.phase == 3, "Declared actions resolve in Phase 3.")
    declaration = state.declaration(c.declaration)
    _require(not declaration.outcome, "That action has already been resolved.")
    enemy = state.fighter(declaration.enemy)
    if enemy.down:
        return [Resolved(id=declaration.id, outcome="skipped")]
    if declaration.defended:
        return [Resolved(id=declaration.id, outcome="cancelled")]
    _require(c.outcome in ("hit", "missed"), "Choose hit, or missed because the target is out of range.")
    _require(0 <= c.damage <= 10, "Damage must be between 0 and 10.")
    return [Resolved(id=declaration.id, outcome=c.outcome, damage=c.damage if c.outcome == "hit" else 0)]


def _next_round(state: State, c: NextRound, dice: Dice) -> list[Event]:
    _require(state.phase == 3, "A new round begins after Phase 3.")
    waiting = [d for d in state.declarations if not d.outcome and not state.fighter(d.enemy).down and not d.defended]
    _require(not waiting, "Resolve every declared action first.")
    return [PhaseStarted(round=state.round + 1, phase=1)]


def _spend_nova(state: State, c: SpendNova, dice: Dice) -> list[Event]:
    pc = state.fighter(c.actor)
    _require(pc.side == "pc", "Only player characters have Nova points.")
    _require(not pc.down, f"{pc.name} is at 0 Health Levels and cannot spend Nova points.")
    _require(1 <= c.points <= pc.nova_points, f"{pc.name} has {pc.nova_points} Nova point{'s' if pc.nova_points != 1 else ''}.")
    return [NovaSpent(fighter=pc.id, points=c.points, note=" ".join(c.note.split())[:200])]


def _spend_collapse(state: State, c: SpendCollapse, dice: Dice) -> list[Event]:
    enemy = state.fighter(c.enemy)
    _require(enemy.side == "enemy", "Collapse points power enemy abilities.")
    _require(1 <= c.points <= state.collapse, f"The GM has {state.collapse} Collapse point{'s' if state.collapse != 1 else ''}.")
    return [CollapseSpent(enemy=enemy.id, points=c.points, note=" ".join(c.note.split())[:200])]


def _adjust_health(state: State, c: AdjustHealth, dice: Dice) -> list[Event]:
    target = state.fighter(c.target)
    _require(c.change != 0 and -20 <= c.change <= 20, "Change Health Levels by 1 to 20, up or down.")
    return [HealthAdjusted(target=target.id, change=c.change)]


_SLOTS = {"neg_minor": "skill", "neg_moderate": "category", "neg_significant": "flag",
          "pos_minor": "skill", "pos_moderate": "category", "pos_significant": "flag"}


def _set_condition(state: State, c: SetCondition, dice: Dice) -> list[Event]:
    target = state.fighter(c.target)
    kind = _SLOTS.get(c.slot)
    _require(kind is not None, "Choose a minor, moderate or significant condition.")
    if kind == "skill":
        _require(c.value in ("",) + SKILLS, "A minor condition names one skill.")
    elif kind == "category":
        _require(c.value in ("",) + tuple(SKILL_CATEGORIES), "A moderate condition names Mental, Physical or Social.")
    else:
        _require(c.value in ("", "yes"), "A significant condition is either held or not.")
    return [ConditionSet(target=target.id, slot=c.slot, value=c.value)]


_DECIDERS = {
    Declare: _declare, ChangeDeclaration: _change_declaration, StartPlayers: _start_players, ClaimTurn: _claim_turn,
    PickNext: _pick_next, SkillRoll: _skill_roll, FreeMove: _free_move, SpendAdvantage: _spend_advantage,
    EndTurn: _end_turn, ResolveFailure: _resolve_failure, StartEnemies: _start_enemies, Resolve: _resolve,
    NextRound: _next_round, SpendNova: _spend_nova, SpendCollapse: _spend_collapse, AdjustHealth: _adjust_health,
    SetCondition: _set_condition,
}


# --- evolve -------------------------------------------------------------------------------------------

def _damage(state: State, fighter_id: str, amount: int) -> State:
    fighter = state.fighter(fighter_id)
    health = max(0, min(fighter.health_max, fighter.health - amount))
    updated = replace(fighter, health=health)
    if fighter.side == "pc" and health == 0 and fighter.health > 0:
        conditions, _ = fighter.conditions.gain_least_severe()
        updated = replace(updated, conditions=conditions)
    return _put(state, updated)


def _tick_nova(state: State, fighter: Fighter, sides: int) -> Fighter:
    if fighter.side != "pc" or sides not in DIE_SIZES:
        return fighter
    boxes = tuple(sorted(set(fighter.nova_boxes) | {sides}))
    if len(boxes) == len(DIE_SIZES):
        return replace(fighter, nova_boxes=(), nova_points=min(state.livability, fighter.nova_points + 1))
    return replace(fighter, nova_boxes=boxes)


def _apply_success(state: State, roll: Roll) -> State:
    if roll.intent == "attack" and roll.target:
        state = _damage(state, roll.target, roll.damage)
    elif roll.intent == "defend" and roll.target:
        state = _put_declaration(state, replace(state.declaration(int(roll.target)), defended=True))
    elif roll.intent == "advantage":
        state = replace(state, advantages=min(state.livability, state.advantages + 1))
    return state


def _finish_turn(state: State, fighter_id: str) -> State:
    fighter = state.fighter(fighter_id)
    state = _put(state, replace(fighter, took_turn=True))
    return replace(state, turn="", turn_rolls=0, free_move_used=False, pending_failure=False, last_roll=None,
                   picker=fighter_id if state.chain else "")


def evolve(state: State, event: Event) -> State:
    if isinstance(event, Declared):
        declaration = Declaration(id=event.id, enemy=event.enemy, target=event.target, text=event.text,
                                  extra=event.extra)
        state = replace(state, declarations=state.declarations + (declaration,), next_declaration=event.id + 1)
        return replace(state, collapse=state.collapse - 1) if event.extra else state
    if isinstance(event, DeclarationChanged):
        declaration = state.declaration(event.id)
        state = _put_declaration(state, replace(declaration, target=event.target, text=event.text))
        return replace(state, collapse=state.collapse - event.cost)
    if isinstance(event, PhaseStarted):
        if event.round != state.round:
            fighters = tuple(replace(f, took_turn=False) for f in state.fighters)
            state = replace(state, fighters=fighters, declarations=(), chain=False, picker="")
        return replace(state, round=event.round, phase=event.phase, turn="", turn_rolls=0, free_move_used=False)
    if isinstance(event, TurnStarted):
        return replace(state, turn=event.fighter, turn_rolls=0, free_move_used=False, pending_failure=False,
                       last_roll=None, chain=state.chain or event.chain, picker="")
    if isinstance(event, SkillRolled):
        roll = event.roll
        fighter = _tick_nova(state, state.fighter(roll.fighter), roll.sides)
        state = _put(state, fighter)
        state = replace(state, turn_rolls=state.turn_rolls + 1, last_roll=roll)
        if roll.intent == "move" and not state.free_move_used:
            state = replace(state, free_move_used=True)  # a first move that needs a roll uses up the free move
        if roll.succeeded:
            return _apply_success(state, roll)
        return replace(state, pending_failure=True)
    if isinstance(event, AdvantageSpent):
        roll = state.last_roll
        faces = tuple(event.face if i == event.die else f for i, f in enumerate(roll.faces))
        rerolled = replace(roll, faces=faces)
        state = replace(state, advantages=state.advantages - 1, last_roll=rerolled)
        if rerolled.succeeded:
            return _apply_success(replace(state, pending_failure=False), rerolled)
        return state
    if isinstance(event, Moved):
        return replace(state, free_move_used=True)
    if isinstance(event, TurnEnded):
        if event.failure == "collapse":
            state = replace(state, collapse=state.collapse + 1)
        return _finish_turn(state, event.fighter)
    if isinstance(event, Resolved):
        declaration = state.declaration(event.id)
        state = _put_declaration(state, replace(declaration, outcome=event.outcome))
        if event.outcome == "hit" and event.damage:
            state = _damage(state, declaration.target, event.damage)
        return state
    if isinstance(event, NovaSpent):
        fighter = state.fighter(event.fighter)
        return _put(state, replace(fighter, nova_points=fighter.nova_points - event.points))
    if isinstance(event, CollapseSpent):
        return replace(state, collapse=state.collapse - event.points)
    if isinstance(event, HealthAdjusted):
        return _damage(state, event.target, -event.change)
    if isinstance(event, ConditionSet):
        fighter = state.fighter(event.target)
        value: str | bool = event.value
        if event.slot.endswith("significant"):
            value = event.value == "yes"
        return _put(state, replace(fighter, conditions=replace(fighter.conditions, **{event.slot: value})))
    raise TypeError(f"unknown event {event!r}")


# --- the log in sentences ------------------------------------------------------------------------------

def _faces(roll: Roll) -> str:
    return ", ".join(str(f) for f in roll.faces) + (" (entered)" if roll.entered else "")


def _at_zero(state: State, fighter_id: str, damage: int) -> str:
    """What dropping to 0 Health Levels means for a PC, as a second sentence ("" if it does not happen)."""
    try:
        f = state.fighter(fighter_id)
    except RuleError:
        return ""
    if f.side != "pc" or f.down or damage < f.health:
        return ""
    _, gained = f.conditions.gain_least_severe()
    if gained:
        return f" {f.name} drops to 0 Health Levels and gains {gained}."
    return f" {f.name} drops to 0 Health Levels holding every negative condition: the GM decides what happens."


def describe(state: State, event: Event, gm: bool = True) -> str | None:
    """One plain sentence for the log, read against the state the event was applied to.

    For players (gm=False) the sentence leaves out what only the GM knows: Collapse points, and anything
    about an enemy the party is not aware of (None: no entry at all, or an unnamed hit)."""
    def name(fighter_id: str) -> str:
        try:
            return state.fighter(fighter_id).name
        except RuleError:
            return "someone"

    seen = seen_by_party(state.fighters)

    def unseen(fighter_id: str) -> bool:
        enemy = any(f.id == fighter_id and f.side == "enemy" for f in state.fighters)
        return not gm and enemy and fighter_id not in seen

    if isinstance(event, Declared):
        if unseen(event.enemy):
            return None
        extra = (" (an extra attack for 1 Collapse point)" if gm else " (an extra attack)") if event.extra else ""
        return f"{name(event.enemy)} declares: {event.text} against {name(event.target)}{extra}."
    if isinstance(event, DeclarationChanged):
        if unseen(state.declaration(event.id).enemy):
            return None
        cost = f" ({event.cost} Collapse)" if gm else ""
        return f"The GM changes a declared action to: {event.text} against {name(event.target)}{cost}."
    if isinstance(event, PhaseStarted):
        titles = {1: "enemies declare", 2: "players act", 3: "enemies move and resolve"}
        skipped = f" (Phase {', '.join(map(str, event.skipped))} skipped by surprise)" if event.skipped else ""
        return f"Round {event.round}, Phase {event.phase}: {titles[event.phase]}{skipped}."
    if isinstance(event, TurnStarted):
        by = "" if not event.picked_by else (" (picked by the GM)" if event.picked_by == "gm"
                                             else f" (picked by {name(event.picked_by)})")
        return f"{name(event.fighter)} starts their turn{by}."
    if isinstance(event, SkillRolled):
        roll = event.roll
        verdict = "succeeds" if roll.succeeded else "fails on doubles"
        what = {"attack": f"to attack {name(roll.target)}", "defend": "to defend against a declared attack",
                "advantage": "to create an advantage", "move": "to move", "other": ""}[roll.intent]
        note = f" — {event.note}" if event.note else ""
        return (f"{name(roll.fighter)} rolls {roll.skill} {what} at complexity {roll.complexity}: "
                f"{roll.complexity}d{roll.sides} show {_faces(roll)}; the roll {verdict}{note}.").replace("  ", " ")
    if isinstance(event, AdvantageSpent):
        entered = " (entered)" if event.entered else ""
        return f"{name(event.fighter)} spends an Advantage to reroll die {event.die + 1}: it shows {event.face}{entered}."
    if isinstance(event, Moved):
        return f"{name(event.fighter)} moves {event.squares} square{'s' if event.squares != 1 else ''} (free move)."
    if isinstance(event, TurnEnded):
        if event.failure == "collapse":
            gain = "; the GM gains 1 Collapse point" if gm else ""
            return f"{name(event.fighter)}'s turn ends on a failed roll{gain}."
        if event.failure == "consequence":
            note = f": {event.note}" if event.note else ""
            return f"{name(event.fighter)}'s turn ends on a failed roll with a consequence{note}."
        return f"{name(event.fighter)} ends their turn."
    if isinstance(event, Resolved):
        d = state.declaration(event.id)
        if unseen(d.enemy):
            if event.outcome != "hit" or not event.damage:
                return None
            levels = f"{event.damage} Health Level{'s' if event.damage != 1 else ''}"
            return f"Something unseen hits {name(d.target)} for {levels}."
        text = {"hit": f"hits {name(d.target)} for {event.damage} Health Level{'s' if event.damage != 1 else ''}",
                "missed": f"misses {name(d.target)} (out of range)",
                "cancelled": f"is foiled: {name(d.target)} was defended",
                "skipped": "does not happen: the enemy is at 0 Health Levels"}[event.outcome]
        return f"{name(d.enemy)}'s {d.text} {text}.{_at_zero(state, d.target, event.damage if event.outcome == 'hit' else 0)}"
    if isinstance(event, NovaSpent):
        note = f": {event.note}" if event.note else ""
        return f"{name(event.fighter)} spends {event.points} Nova point{'s' if event.points != 1 else ''}{note}."
    if isinstance(event, CollapseSpent):
        note = f": {event.note}" if event.note else ""
        return f"The GM spends {event.points} Collapse point{'s' if event.points != 1 else ''} on {name(event.enemy)}{note}."
    if isinstance(event, (HealthAdjusted, ConditionSet)) and unseen(event.target):
        return None
    if isinstance(event, HealthAdjusted):
        verb = "regains" if event.change > 0 else "loses"
        n = abs(event.change)
        return f"{name(event.target)} {verb} {n} Health Level{'s' if n != 1 else ''}.{_at_zero(state, event.target, -event.change)}"
    if isinstance(event, ConditionSet):
        label = event.slot.replace("neg_", "negative ").replace("pos_", "positive ").replace("_", " ")
        return f"{name(event.target)}'s {label} condition is now {event.value or 'cleared'}."
    return event.kind


# --- between the campaign and the encounter --------------------------------------------------------------

def fighter_from_sheet(key: str, name: str, side: str, owner: int | None, stats: dict, aware_of: tuple[str, ...]) -> Fighter:
    """A combatant built from a character sheet (see burn_bryte.stats)."""
    from combat.rules.burn_bryte.stats import nova_box_key, skill_key

    conditions = Conditions(
        neg_minor=stats.get("neg_minor", ""), neg_moderate=stats.get("neg_moderate", ""),
        neg_significant=bool(stats.get("neg_significant")), pos_minor=stats.get("pos_minor", ""),
        pos_moderate=stats.get("pos_moderate", ""), pos_significant=bool(stats.get("pos_significant")),
    )
    return Fighter(
        id=key, name=name, side=side, owner=owner,
        skills={skill: int(stats.get(skill_key(skill), 4)) for skill in SKILLS},
        health=int(stats.get("health", 3)), health_max=int(stats.get("health_max", 3)),
        speed=int(stats.get("speed", 5)), nova_points=int(stats.get("nova_points", 0)),
        nova_boxes=tuple(size for size in DIE_SIZES if stats.get(nova_box_key(size))),
        conditions=conditions, aware_of=aware_of,
    )


def write_back(state: State) -> dict[str, dict]:
    """What persists on each PC's sheet after the encounter: Health Levels, conditions, Nova points and boxes.

    Advantages and Collapse points end with the encounter, so they are not here.
    """
    from combat.rules.burn_bryte.stats import nova_box_key

    out = {}
    for f in state.pcs():
        c = f.conditions
        out[f.id] = {
            "health": f.health, "nova_points": f.nova_points,
            **{nova_box_key(size): size in f.nova_boxes for size in DIE_SIZES},
            # A condition gained at 0 Health Levels and not yet named by the GM stays held ("?").
            "neg_minor": c.neg_minor, "neg_moderate": c.neg_moderate,
            "neg_significant": c.neg_significant, "pos_minor": c.pos_minor, "pos_moderate": c.pos_moderate,
            "pos_significant": c.pos_significant,
        }
    return out


def outcome(state: State) -> str:
    """"Victory" when every enemy is at 0 Health Levels, "Defeat" when every PC is; otherwise ""."""
    if state.enemies() and all(f.down for f in state.enemies()):
        return "Victory"
    if state.pcs() and all(f.down for f in state.pcs()):
        return "Defeat"
    return ""
