"""What each Burn Bryte event means for the after-action review: rolls, damage, Collapse and Advantages."""

from __future__ import annotations

from dataclasses import dataclass, field

from combat.rules.burn_bryte import engine as bb


@dataclass(frozen=True)
class RollFact:
    sides: int
    faces: tuple[int, ...]
    complexity: int
    succeeded: bool
    doubles: bool
    entered: bool


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
    extra: dict = field(default_factory=dict)


def facts(state: bb.State, event: bb.Event) -> Facts:
    """Facts of `event` applied to `state` (the state just before it)."""
    base = {"round": state.round, "phase": state.phase, "turn": state.turn}
    if isinstance(event, bb.SkillRolled):
        r = event.roll
        succeeded = r.succeeded
        damage = ((r.fighter, r.target, r.damage),) if succeeded and r.intent == "attack" and r.target else ()
        return Facts(**base, actor=r.fighter, action=True, damage=damage,
                     rolls=(RollFact(r.sides, r.faces, r.complexity, succeeded, not succeeded, r.entered),))
    if isinstance(event, bb.AdvantageSpent):
        roll = state.last_roll
        faces = tuple(event.face if i == event.die else f for i, f in enumerate(roll.faces))
        rescued = not bb.has_doubles(faces)
        damage = ((roll.fighter, roll.target, roll.damage),) if rescued and roll.intent == "attack" and roll.target else ()
        return Facts(**base, actor=event.fighter, advantages_used=1, damage=damage,
                     rolls=(RollFact(roll.sides, (event.face,), 1, True, False, event.entered),),
                     extra={"rescued": roll.complexity} if rescued else {})
    if isinstance(event, bb.Moved):
        return Facts(**base, actor=event.fighter, action=True)
    if isinstance(event, bb.TurnEnded):
        return Facts(**base, actor=event.fighter, collapse_given=1 if event.failure == "collapse" else 0)
    if isinstance(event, bb.Resolved):
        d = state.declaration(event.id)
        damage = ((d.enemy, d.target, event.damage),) if event.outcome == "hit" and event.damage else ()
        return Facts(**base, actor=d.enemy, action=event.outcome in ("hit", "missed"), damage=damage)
    if isinstance(event, bb.Declared):
        return Facts(**base, actor=event.enemy)
    if isinstance(event, bb.HealthAdjusted):
        damage = (("", event.target, -event.change),) if event.change < 0 else ()
        return Facts(**base, actor=event.target, damage=damage)
    if isinstance(event, bb.NovaSpent):
        return Facts(**base, actor=event.fighter, extra={"nova_spent": event.points})
    if isinstance(event, bb.CollapseSpent):
        return Facts(**base, actor=event.enemy, extra={"collapse_spent": event.points})
    actor = getattr(event, "fighter", "") or getattr(event, "target", "")
    return Facts(**base, actor=actor)


# (key, label, GM-only): the Collapse pool is the GM's, so players see it only in a revealed log.
MODEL_FIGURES = (("collapse_given", "Collapse points given", True), ("advantages_used", "Advantages used", False))
