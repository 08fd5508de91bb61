"""What each Burn Bryte event means for the after-action review: rolls, damage, Collapse, Advantages and Nova.

The pools: Advantages gained (a successful roll to create an advantage, credited to its roller) and used, Nova
points gained (all five die boxes ticked, or the GM's adjustment) and spent, Collapse points given (a failure the
GM chose to take as Collapse) and spent (GM-only, like the pool).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from combat.rules.burn_bryte.events import (
    AdvantageSpent,
    AdvantagesUsed,
    BurstPlaced,
    CollapseSpent,
    Declared,
    HealthAdjusted,
    Moved,
    NovaSpent,
    Resolved,
    ShieldRecharged,
    ShipDamaged,
    SkillRolled,
    TurnEnded,
)
from combat.rules.burn_bryte.evolve import evolve
from combat.rules.burn_bryte.state import Roll, State, chance_of_success, has_doubles
from combat.rules.core import Event, Sight

# What the damage chart counts.
DAMAGE_UNIT = "Health Levels"
# What the story's closest call counts (`health`).
HEALTH_UNIT = "Health Levels"


@dataclass(frozen=True)
class RollFact:
    sides: int
    faces: tuple[int, ...]
    complexity: int  # dice in the pool; 1 for a reroll of one die
    succeeded: bool
    doubles: bool
    entered: bool
    counted: bool = True  # a new skill roll (a reroll of one die is not)
    chance: float | None = None  # the exact chance of success before rolling


@dataclass(frozen=True)
class Facts:
    round: int
    phase: int
    turn: str  # the PC whose turn it is ("" outside a turn)
    actor: str  # the combatant the event is about ("" for the GM)
    action: bool = False  # counts as an action taken by `actor`
    rolls: tuple[RollFact, ...] = ()
    damage: tuple[tuple[str, str, int], ...] = ()  # (source, target, Health Levels)
    collapse_given: int = 0  # Collapse points the GM gained from `actor`'s failure
    advantages_used: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    credits: tuple[tuple[str, str, int], ...] = ()  # (who, "nova_gained", points): a pool's gain owed to its owner


def _roll(roll: Roll | None) -> Roll:
    """The roll an event speaks of; the log only speaks of one when there is one."""
    if roll is None:
        raise ValueError("A roll event without its roll.")
    return roll


def facts(state: State, event: Event) -> Facts:
    """Facts of `event` applied to `state` (the state just before it), with what the pools gained."""
    f = _facts(state, event)
    after = evolve(state, event)
    spent = f.advantages_used  # an Advantage spent on a reroll that creates one comes back at once
    gained = after.advantages - state.advantages + spent
    extra = {**f.extra, "advantages_gained": gained} if gained > 0 else f.extra
    nova_spent = {event.fighter: event.points} if isinstance(event, NovaSpent) else {}
    old = {x.id: x.nova_points for x in state.fighters}
    credits = tuple(
        (x.id, "nova_gained", n)
        for x in after.fighters
        if (n := x.nova_points - old.get(x.id, 0) + nova_spent.get(x.id, 0)) > 0
    )
    return replace(f, extra=extra, credits=credits)


def _facts(state: State, event: Event) -> Facts:
    base: dict[str, Any] = {"round": state.round, "phase": state.phase, "turn": state.turn}
    if isinstance(event, SkillRolled):
        r = _roll(event.roll)
        succeeded = r.succeeded
        damage = _attack_damage(r) if succeeded else _drained_on_miss(state, r)
        return Facts(
            **base,
            actor=r.fighter,
            action=True,
            damage=damage,
            extra=_aim(r.intent == "attack", succeeded),
            rolls=(
                RollFact(
                    r.sides,
                    r.faces,
                    r.complexity,
                    succeeded,
                    not succeeded,
                    r.entered,
                    chance=chance_of_success(r.complexity, r.sides),
                ),
            ),
        )
    if isinstance(event, AdvantageSpent):
        roll = _roll(state.last_roll)
        faces = tuple(event.face if i == event.die else f for i, f in enumerate(roll.faces))
        rescued = not has_doubles(faces)
        damage = _attack_damage(roll) if rescued else ()
        return Facts(
            **base,
            actor=event.fighter,
            advantages_used=1,
            damage=damage,
            rolls=(RollFact(roll.sides, (event.face,), 1, True, False, event.entered, counted=False),),
            extra={"rescued": roll.complexity, **_aim(roll.intent == "attack", True, rescue=True)} if rescued else {},
        )
    if isinstance(event, Moved):  # a PC's move is an action of their turn; an enemy's belongs to its Phase 3 action
        return Facts(**base, actor=event.fighter, action=state.fighter(event.fighter).side == "pc")
    if isinstance(event, TurnEnded):
        return Facts(**base, actor=event.fighter, collapse_given=1 if event.failure == "collapse" else 0)
    if isinstance(event, Resolved):
        d = state.declaration(event.id)
        hit = event.outcome == "hit" and event.damage
        damage = tuple((d.enemy, t, event.damage) for t in (event.targets or (d.target,))) if hit else ()
        damage += (("", d.enemy, event.drained),) if event.drained else ()
        aim = _aim(event.outcome in ("hit", "missed"), event.outcome == "hit")
        return Facts(**base, actor=d.enemy, action=event.outcome in ("hit", "missed"), damage=damage, extra=aim)
    if isinstance(event, Declared):
        return Facts(**base, actor=event.enemy)
    if isinstance(event, HealthAdjusted):
        damage = (("", event.target, -event.change),) if event.change < 0 else ()
        healed = {"healing": event.change} if event.change > 0 else {}
        return Facts(**base, actor=event.target, damage=damage, extra=healed)
    if isinstance(event, AdvantagesUsed):
        return Facts(**base, actor=event.fighter, advantages_used=event.points)
    if isinstance(event, NovaSpent):
        return Facts(**base, actor=event.fighter, extra={"nova_spent": event.points})
    if isinstance(event, CollapseSpent):
        return Facts(**base, actor=event.enemy, extra={"collapse_spent": event.points})
    if isinstance(event, BurstPlaced):
        hits = tuple((event.fighter, t, event.damage) for t in event.targets)
        return Facts(**base, actor=event.fighter, damage=hits, extra={"burst_targets": len(event.targets)})
    if isinstance(event, ShieldRecharged):
        return Facts(**base, actor=event.target, extra={"shield_recharged": event.points})
    if isinstance(event, ShipDamaged):
        return Facts(**base, actor="", extra={"ship_mi_change": event.change})
    actor = getattr(event, "fighter", "") or getattr(event, "target", "")
    return Facts(**base, actor=actor)


def _aim(attack: bool, hit: bool, rescue: bool = False) -> dict[str, int]:
    """The story's hits and misses (combat.stories): an attack that hit or missed; an Advantage that rescued a failed
    attack turns its miss into a hit."""
    if not attack:
        return {}
    if rescue:
        return {"hits": 1, "misses": -1}
    return {"hits": 1} if hit else {"misses": 1}


def health(state: State, gm: bool) -> dict[str, int]:
    """Health Levels of every combatant this viewer may know the numbers of (the story's closest call)."""
    sight = Sight(state.fighters, gm)
    return {f.id: f.health for f in state.fighters if not sight.secret(f.id)}


def _attack_damage(r: Roll) -> tuple[tuple[str, str, int], ...]:
    """A hit's damage facts: the target's (none yet for a Burst: the GM places it), and Draining's cost."""
    if r.intent != "attack":
        return ()
    hit = ((r.fighter, r.target, r.damage),) if r.target and not r.burst else ()
    return hit + ((("", r.fighter, r.drained),) if r.drained else ())


def _drained_on_miss(state: State, r: Roll) -> tuple[tuple[str, str, int], ...]:
    """A failed Draining attack's cost, when the GM's setting makes a miss pay it too."""
    if r.intent == "attack" and r.drained and state.settings.get("draining_on_miss"):
        return (("", r.fighter, r.drained),)
    return ()


# (key, label, GM-only): the Collapse pool is the GM's, so players see it only in a revealed log; Advantages (the
# party's pool) and Nova points (each PC's) are on everyone's table.
MODEL_FIGURES = (
    ("collapse_given", "Collapse points given", True),
    ("collapse_spent", "Collapse points spent", True),
    ("advantages_gained", "Advantages gained", False),
    ("advantages_used", "Advantages used", False),
    ("nova_gained", "Nova points gained", False),
    ("nova_spent", "Nova points spent", False),
)


PHASE_NAMES = {1: "Phase 1: enemies declare", 2: "Phase 2: players act", 3: "Phase 3: enemies resolve"}


def section_title(phase: int, turn: str, names: dict[str, str]) -> str:
    """The timeline's heading inside a round: the phase, and in Phase 2 whose turn it was."""
    title = PHASE_NAMES.get(phase, f"Phase {phase}")
    if phase == 2 and turn:
        title = f"{title} — {names.get(turn, 'someone')}'s turn"
    return title


# The conditions a story counts (`conditions`), by their slot on the sheet.
CONDITION_SLOTS = (
    ("neg_minor", "Minor negative condition"),
    ("neg_moderate", "Moderate negative condition"),
    ("neg_significant", "Significant negative condition"),
    ("pos_minor", "Minor positive condition"),
    ("pos_moderate", "Moderate positive condition"),
    ("pos_significant", "Significant positive condition"),
)


def conditions(state: State, gm: bool) -> dict[str, dict[str, int]]:
    """The conditions each combatant has, as this viewer may know them (the story's conditions suffered): an
    enemy's are the GM's, as on the table."""
    sight = Sight(state.fighters, gm)
    return {
        f.id: {label: 1 for slot, label in CONDITION_SLOTS if getattr(f.conditions, slot)}
        for f in state.fighters
        if not sight.secret(f.id)
    }
