"""What each Expanse (AGE) event means for the after-action review: tests, damage past Toughness, stunt points.

Damage is what got past Toughness (and cover): the part a combatant had to answer with Fortune, conditions or
being taken out. A Guardian Angel's share counts as taken by the guardian, not by the ally. Damage dice, injury
dice, breathers and initiative show on the dice charts but are not tests of their own (counted=False).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from combat.rules.expanse import engine as ex


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
    extra: dict = field(default_factory=dict)


ACTIONS = (ex.Defended, ex.Ran, ex.Moved, ex.Activated, ex.Aimed, ex.GuardedUp, ex.Prepared, ex.Pressed, ex.Readied,
           ex.StoodFirm, ex.JamCleared)


def _taken(h) -> int:
    return h.after_toughness - h.transferred


def _damage(before: ex.State, after: ex.State) -> tuple[tuple[str, str, int], ...]:
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


def _test_rolls(t: ex.TestRecord) -> tuple[RollFact, ...]:
    rolls = [RollFact(6, t.faces, t.success, t.doubles, t.entered)]
    if t.damage_faces:
        rolls.append(RollFact(t.damage_sides, t.damage_faces, None, False, t.damage_entered, counted=False))
    if t.scatter:
        rolls.append(RollFact(6, (t.scatter,), None, False, False, counted=False))
    return tuple(rolls)


def facts(state: ex.State, event) -> Facts:
    """Facts of `event` applied to `state` (the state just before it)."""
    after = ex.evolve(state, event)
    base = {"round": state.round, "phase": 0, "turn": state.turn, "damage": _damage(state, after)}
    if isinstance(event, ex.TurnStarted):
        return Facts(**{**base, "round": event.round, "turn": event.fighter}, actor=event.fighter)
    if isinstance(event, ex.Tested):
        t = event.test
        return Facts(**base, actor=t.fighter, action=event.slot != "none", rolls=_test_rolls(t), sp_earned=t.sp)
    if isinstance(event, ex.DieChanged):
        old, new = state.test(event.test), after.test(event.test)
        changed = RollFact(6, (event.face,), None, False, False, counted=False)
        return Facts(**base, actor=event.fighter, rolls=(changed,), sp_earned=new.sp - old.sp,
                     extra={"fortune_on_dice": event.cost})
    if isinstance(event, ex.StuntSpent):
        rolls = ()
        if event.opposed is not None:
            o = event.opposed
            rolls = (RollFact(6, o.attacker_faces, not o.held, False, False, counted=False),
                     RollFact(6, o.defender_faces, o.held, False, False, counted=False))
        return Facts(**base, actor=event.fighter, rolls=rolls, sp_spent=event.points)
    if isinstance(event, ex.InitiativeRolled):
        return Facts(**base, actor="", rolls=tuple(RollFact(6, r.faces, None, False, False, counted=False)
                                                   for r in event.rolls))
    if isinstance(event, ex.Blasted):
        rolls = (RollFact(6, event.faces, None, False, False, counted=False),) if event.faces else ()
        return Facts(**base, actor=event.thrower, rolls=rolls)
    if isinstance(event, ex.ConditionTaken):
        return Facts(**base, actor=event.fighter, rolls=(RollFact(6, (event.roll,), None, False, False,
                                                                  counted=False),))
    if isinstance(event, ex.BreathersTaken):
        return Facts(**base, actor="", rolls=tuple(RollFact(6, (r.face,), None, False, False, counted=False)
                                                   for r in event.rolls))
    if isinstance(event, ex.FortuneSpent):
        return Facts(**base, actor=event.fighter, extra={"fortune_on_damage": event.points})
    if isinstance(event, ex.GuardTransferred):
        return Facts(**base, actor=event.guardian)
    if isinstance(event, ACTIONS):
        return Facts(**base, actor=event.fighter, action=getattr(event, "slot", "turn") != "none")
    actor = getattr(event, "fighter", "") or getattr(event, "target", "")
    return Facts(**base, actor=actor)


# (key, label, GM-only): stunt points are spent in the open, so everyone may see both.
MODEL_FIGURES = (("sp_earned", "Stunt points earned", False), ("sp_spent", "Stunt points spent", False))


def round_title(n: int) -> str:
    return f"Round {n}" if n else "Before the first round"


def section_title(phase: int, turn: str, names: dict[str, str]) -> str:
    return f"{names.get(turn, 'someone')}'s turn" if turn else "Initiative and between turns"
