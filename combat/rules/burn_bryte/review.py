"""What each Burn Bryte event means for the after-action review: rolls, damage, Collapse and Advantages."""

from __future__ import annotations

from dataclasses import dataclass, field
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
    ShipDamaged,
    SkillRolled,
    TurnEnded,
)
from combat.rules.burn_bryte.state import Roll, State, chance_of_success, has_doubles
from combat.rules.core import Event


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


def _roll(roll: Roll | None) -> Roll:
    """The roll an event speaks of; the log only speaks of one when there is one."""
    if roll is None:
        raise ValueError("A roll event without its roll.")
    return roll


def facts(state: State, event: Event) -> Facts:
    """Facts of `event` applied to `state` (the state just before it)."""
    base: dict[str, Any] = {"round": state.round, "phase": state.phase, "turn": state.turn}
    if isinstance(event, SkillRolled):
        r = _roll(event.roll)
        succeeded = r.succeeded
        damage = _attack_damage(r) if succeeded else ()
        return Facts(
            **base,
            actor=r.fighter,
            action=True,
            damage=damage,
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
            extra={"rescued": roll.complexity} if rescued else {},
        )
    if isinstance(event, Moved):
        return Facts(**base, actor=event.fighter, action=True)
    if isinstance(event, TurnEnded):
        return Facts(**base, actor=event.fighter, collapse_given=1 if event.failure == "collapse" else 0)
    if isinstance(event, Resolved):
        d = state.declaration(event.id)
        damage = ((d.enemy, d.target, event.damage),) if event.outcome == "hit" and event.damage else ()
        return Facts(**base, actor=d.enemy, action=event.outcome in ("hit", "missed"), damage=damage)
    if isinstance(event, Declared):
        return Facts(**base, actor=event.enemy)
    if isinstance(event, HealthAdjusted):
        damage = (("", event.target, -event.change),) if event.change < 0 else ()
        return Facts(**base, actor=event.target, damage=damage)
    if isinstance(event, AdvantagesUsed):
        return Facts(**base, actor=event.fighter, advantages_used=event.points)
    if isinstance(event, NovaSpent):
        return Facts(**base, actor=event.fighter, extra={"nova_spent": event.points})
    if isinstance(event, CollapseSpent):
        return Facts(**base, actor=event.enemy, extra={"collapse_spent": event.points})
    if isinstance(event, BurstPlaced):
        hits = tuple((event.fighter, t, event.damage) for t in event.targets)
        return Facts(**base, actor=event.fighter, damage=hits, extra={"burst_targets": len(event.targets)})
    if isinstance(event, ShipDamaged):
        return Facts(**base, actor="", extra={"ship_mi_change": event.change})
    actor = getattr(event, "fighter", "") or getattr(event, "target", "")
    return Facts(**base, actor=actor)


def _attack_damage(r: Roll) -> tuple[tuple[str, str, int], ...]:
    """A hit's damage facts: the target's (none yet for a Burst: the GM places it), and Draining's cost."""
    if r.intent != "attack":
        return ()
    hit = ((r.fighter, r.target, r.damage),) if r.target and not r.burst else ()
    return hit + ((("", r.fighter, r.drained),) if r.drained else ())


# (key, label, GM-only): the Collapse pool is the GM's, so players see it only in a revealed log.
MODEL_FIGURES = (("collapse_given", "Collapse points given", True), ("advantages_used", "Advantages used", False))


PHASE_NAMES = {1: "Phase 1: enemies declare", 2: "Phase 2: players act", 3: "Phase 3: enemies resolve"}


def section_title(phase: int, turn: str, names: dict[str, str]) -> str:
    """The timeline's heading inside a round: the phase, and in Phase 2 whose turn it was."""
    title = PHASE_NAMES.get(phase, f"Phase {phase}")
    if phase == 2 and turn:
        title = f"{title} — {names.get(turn, 'someone')}'s turn"
    return title
