"""What each Expanse (AGE) event means for the after-action review: tests, damage past Toughness, stunt points.

Damage is what got past Toughness (and cover): the part a combatant had to answer with Fortune, conditions or
being taken out. A Guardian Angel's share counts as taken by the guardian, not by the ally. Damage dice, injury
dice, breathers and initiative show on the dice charts but are not tests of their own (counted=False).

The pools: stunt points earned and spent, Fortune spent (on dice and on damage) and gained (breathers, a stunt, the
GM's adjustment). An enemy's Fortune is one of its numbers: for players it is never counted, and `secret_figures`
says so ("hidden", never 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from combat.rules import odds
from combat.rules.core import Event, Sight
from combat.rules.expanse.events import (
    Activated,
    Aimed,
    Blasted,
    BlastWidened,
    BreathersTaken,
    ChurnReached,
    ConditionTaken,
    Defended,
    DieChanged,
    FortuneSpent,
    GuardedUp,
    GuardTransferred,
    InitiativeRolled,
    JamCleared,
    Moved,
    Prepared,
    Pressed,
    Ran,
    Readied,
    StoodFirm,
    StuntSpent,
    Tested,
    TurnStarted,
)
from combat.rules.expanse.evolve import evolve
from combat.rules.expanse.state import Hit, State, TestRecord, known

# What the damage chart counts.
DAMAGE_UNIT = "damage past Toughness"
# What the story's closest call counts (`health`).
HEALTH_UNIT = "Fortune"


@dataclass(frozen=True)
class RollFact:
    sides: int
    faces: tuple[int, ...]
    succeeded: bool | None
    doubles: bool
    entered: bool
    counted: bool = True  # a test of its own (damage dice, injury dice and the like are not)
    complexity: int = 0
    chance: float | None = None


@dataclass(frozen=True)
class Facts:
    round: int
    phase: int
    turn: str  # whose turn it is ("" outside a turn)
    actor: str  # the combatant the event is about ("" for the GM)
    action: bool = False  # counts as an action taken by `actor`
    rolls: tuple[RollFact, ...] = ()
    damage: tuple[tuple[str, str, int], ...] = ()  # (source, target, damage past Toughness)
    sp_earned: int = 0
    sp_spent: int = 0
    extra: dict[str, int] = field(default_factory=dict)
    credits: tuple[tuple[str, str, int], ...] = ()  # (who, "fortune_gained", points): owed to the pool's owner


ATTACKS = ("attack", "stunt_attack", "grenade")  # the tests that hit or miss (the story's hits and misses)
ACTIONS = (Defended, Ran, Moved, Activated, Aimed, GuardedUp, Prepared, Pressed, Readied, StoodFirm, JamCleared)


def _taken(h: Hit) -> int:
    return h.after_toughness - h.transferred


def _damage(before: State, after: State) -> tuple[tuple[str, str, int], ...]:
    """How the damage waiting on everyone changed: new hits, hits taken back, Toughness overcome, guardians."""
    old = {h.id: h for h in before.hits}
    new = {h.id: h for h in after.hits}
    out = []
    for hid, h in new.items():
        change = _taken(h) - (_taken(old[hid]) if hid in old else 0)
        if change:
            out.append((h.attacker, h.target, change))
    for hid, h in old.items():
        if hid not in new and _taken(h):
            out.append((h.attacker, h.target, -_taken(h)))
    return tuple(out)


def _chance(state: State, t: TestRecord, gm: bool) -> float | None:
    """The test's exact chance of success before its dice fell; None for one the Churn made fail whatever the dice
    (no odds: the GM's to know), and for players when the target number is a secret combatant's Defense."""
    if t.churned:
        return None
    if t.target and not t.object_size and Sight(state.fighters, gm).secret(t.target):
        return None
    return odds.expanse_test(t.modifier, t.tn)


def _test_rolls(t: TestRecord, chance: float | None = None) -> tuple[RollFact, ...]:
    rolls = [RollFact(6, t.faces, t.success, t.doubles, t.entered, chance=chance)]
    if t.damage_faces:
        rolls.append(RollFact(t.damage_sides, t.damage_faces, None, False, t.damage_entered, counted=False))
    if t.scatter:
        rolls.append(RollFact(6, (t.scatter,), None, False, False, counted=False))
    return tuple(rolls)


FORTUNE = ("fortune_spent", "fortune_gained")


def facts(state: State, event: Event, gm: bool = True) -> Facts:
    """Facts of `event` applied to `state` (the state just before it), as the viewer may see them, with the Fortune
    each combatant spent and gained (only a combatant whose numbers this viewer may know)."""
    after = evolve(state, event)
    f = _facts(state, event, after, gm)
    secret = Sight(state.fighters, gm).secret
    spent = f.extra.get("fortune_on_dice", 0) + f.extra.get("fortune_on_damage", 0)
    extra = {**f.extra, "fortune_spent": spent} if spent and not secret(f.actor) else f.extra
    old = {x.id: x.fortune for x in state.fighters}
    credits = tuple(
        (x.id, "fortune_gained", n)
        for x in after.fighters
        if (n := x.fortune - old.get(x.id, x.fortune)) > 0 and not secret(x.id)
    )
    return replace(f, extra=extra, credits=credits)


def secret_figures(state: State, gm: bool) -> dict[str, tuple[str, ...]]:
    """{combatant: figures}: the pools this viewer may never know of a combatant (an enemy's Fortune)."""
    sight = Sight(state.fighters, gm)
    return {x.id: FORTUNE for x in state.fighters if sight.secret(x.id)}


def _facts(state: State, event: Event, after: State, gm: bool) -> Facts:
    base = Facts(round=state.round, phase=0, turn=state.turn, actor="", damage=_damage(state, after))
    if isinstance(event, TurnStarted):
        return replace(base, round=event.round, turn=event.fighter, actor=event.fighter)
    if isinstance(event, Tested):
        t = known(event.test, "The test")
        aim = ({"hits": 1} if t.success else {"misses": 1}) if t.kind in ATTACKS else {}
        return replace(
            base,
            actor=t.fighter,
            action=event.slot != "none",
            rolls=_test_rolls(t, _chance(state, t, gm)),
            sp_earned=t.sp,
            extra=aim,
        )
    if isinstance(event, DieChanged):
        old, new = known(state.test(event.test), "The test"), known(after.test(event.test), "The test")
        changed = RollFact(6, (event.face,), None, False, False, counted=False)
        return replace(
            base,
            actor=event.fighter,
            rolls=(changed,),
            sp_earned=new.sp - old.sp,
            extra={"fortune_on_dice": event.cost},
        )
    if isinstance(event, StuntSpent):
        rolls: tuple[RollFact, ...] = ()
        if event.opposed is not None:
            o = event.opposed
            rolls = (
                RollFact(6, o.attacker_faces, not o.held, False, False, counted=False),
                RollFact(6, o.defender_faces, o.held, False, False, counted=False),
            )
        return replace(base, actor=event.fighter, rolls=rolls, sp_spent=event.points)
    if isinstance(event, InitiativeRolled):
        return replace(base, rolls=tuple(RollFact(6, r.faces, None, False, False, counted=False) for r in event.rolls))
    if isinstance(event, (Blasted, BlastWidened)):
        rolls = (RollFact(6, event.faces, None, False, False, counted=False),) if event.faces else ()
        return replace(base, actor=event.thrower, rolls=rolls)
    if isinstance(event, ConditionTaken):
        return replace(
            base, actor=event.fighter, rolls=(RollFact(6, (event.roll,), None, False, False, counted=False),)
        )
    if isinstance(event, BreathersTaken):
        return replace(
            base, rolls=tuple(RollFact(6, (r.face,), None, False, False, counted=False) for r in event.rolls)
        )
    if isinstance(event, ChurnReached) and event.roll:  # the Churn Over table's 1d6 (a GM-only entry)
        return replace(base, rolls=(RollFact(6, (event.roll,), None, False, False, counted=False),))
    if isinstance(event, FortuneSpent):
        return replace(base, actor=event.fighter, extra={"fortune_on_damage": event.points})
    if isinstance(event, GuardTransferred):
        return replace(base, actor=event.guardian)
    if isinstance(event, ACTIONS):
        return replace(base, actor=event.fighter, action=getattr(event, "slot", "turn") != "none")
    actor = getattr(event, "fighter", "") or getattr(event, "target", "")
    return replace(base, actor=actor)


# (key, label, GM-only): stunt points are spent in the open, so everyone may see both; an enemy's Fortune is
# hidden from players (`secret_figures`), a PC's is on everyone's table.
MODEL_FIGURES = (
    ("sp_earned", "Stunt points earned", False),
    ("sp_spent", "Stunt points spent", False),
    ("fortune_spent", "Fortune spent", False),
    ("fortune_gained", "Fortune gained", False),
)


def round_title(n: int) -> str:
    return f"Round {n}" if n else "Before the first round"


def section_title(phase: int, turn: str, names: dict[str, str]) -> str:
    return f"{names.get(turn, 'someone')}'s turn" if turn else "Initiative and between turns"


def health(state: State, gm: bool) -> dict[str, int]:
    """Fortune of every combatant this viewer may know the numbers of (the story's closest call): what an Expanse
    combatant spends on damage before conditions take them out."""
    sight = Sight(state.fighters, gm)
    return {f.id: f.fortune for f in state.fighters if not sight.secret(f.id)}


def conditions(state: State, gm: bool) -> dict[str, dict[str, int]]:
    """The conditions each combatant has (Prone, Injured, Wounded, Taken Out …), as the table shows them to this
    viewer (the story's conditions suffered): everyone's but an unseen enemy's."""
    sight = Sight(state.fighters, gm)
    return {f.id: dict.fromkeys(f.conditions, 1) for f in state.fighters if not sight.unseen(f.id)}
