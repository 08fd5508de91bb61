"""The Expanse (AGE) evolve: apply one event to the state. With events.py, this is the stored schema.

Pure: no dice, no clock. Every stored log is replayed through these handlers, so what an event does to the
state must not change once logs hold it; a new rule gets a new event (or a new field with a default).
`EVOLVERS` at the bottom maps each event class to its handler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from combat.rules.core import Event, Revealed, evolve_revealed
from combat.rules.expanse import churn, weapons
from combat.rules.expanse import rulebook as book
from combat.rules.expanse.events import (
    Activated,
    Aimed,
    Blasted,
    BlastWidened,
    BreathersTaken,
    ChurnAdjusted,
    ChurnApplied,
    ChurnJammed,
    ChurnReached,
    ConditionSet,
    ConditionTaken,
    CoverSet,
    Defended,
    DieChanged,
    FortuneAdjusted,
    FortuneSpent,
    GuardedUp,
    GuardTransferred,
    InitiativeRolled,
    Interrupted,
    JamCleared,
    Moved,
    Prepared,
    Pressed,
    Pursued,
    Ran,
    Readied,
    RolledOver,
    RollOverAsked,
    StoodFirm,
    StuntAdded,
    StuntSpent,
    TakenOut,
    Tested,
    TieBroken,
    TurnEnded,
    TurnStarted,
)
from combat.rules.expanse.state import (
    Effect,
    Fighter,
    FreeAttack,
    Hit,
    LandedGrenade,
    PendingBlast,
    State,
    TestRecord,
    cover_bonus,
    known,
    order_for_round,
    put,
    put_hit,
    put_test,
    toughness,
)
from combat.rules.free_roll import DiceRolled, evolve_dice_rolled


def evolve(state: State, event: Event) -> State:
    """The state after `event`. An event class without a handler is a bug in this package, not bad input."""
    handler = EVOLVERS.get(type(event))
    if handler is None:
        raise TypeError(f"The Expanse has no evolve handler for {type(event).__name__}; add one to EVOLVERS.")
    return handler(state, event)


# --- what several events share ---------------------------------------------------------------------------------


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
    return put(state, f)


def _moved(state: State, fighter_id: str, cover: int) -> State:
    """Moving sets the cover where the move ends and lets anyone pressing the attack on the mover pursue."""
    state = put(state, replace(state.fighter(fighter_id), cover=cover))
    effects = tuple(
        replace(e, triggered=True) if e.kind == "press" and e.other == fighter_id else e for e in state.effects
    )
    return replace(state, effects=effects)


def _add_condition(f: Fighter, condition: str) -> Fighter:
    return f if not condition or condition in f.conditions else replace(f, conditions=f.conditions + (condition,))


def _add_effect(state: State, effect: Effect) -> State:
    return replace(state, effects=state.effects + (effect,))


def _make_hit(state: State, test: TestRecord, target_id: str, damage: int) -> State:
    target = state.fighter(target_id)
    hit = Hit(
        id=state.next_id,
        attacker=test.fighter,
        target=target.id,
        test=test.id,
        weapon=test.weapon,
        damage=damage,
        toughness=toughness(target),
        cover=0 if test.stunning and _penetrates_cover(state) else cover_bonus(state, target, test.ranged),
        penetrating=test.stunning,
        stunning=test.stunning,
    )
    hit = replace(hit, stage="fortune" if hit.remaining > 0 else "done")
    return replace(state, hits=state.hits + (hit,), next_id=state.next_id + 1)


def _penetrates_cover(state: State) -> bool:
    """Seed: penetrating damage "ignores Toughness entirely"; cover is an armour bonus (logs from before: no)."""
    return bool(state.settings.get("penetrating_ignores_cover", False))


def _widens_blast(state: State) -> bool:
    """The GM may add who else a grenade caught (setting `gm_widens_blast`; logs from before: no)."""
    return bool(state.settings.get("gm_widens_blast", False))


def _apply_outcome(state: State, test: TestRecord) -> State:
    """Everything that follows from a test's dice: stunt points, damage, a jam, a scattered grenade, Churn."""
    f = state.fighter(test.fighter)
    if not test.resist:
        f = replace(f, sp=test.sp, sp_test=test.id)
    if test.jams and test.weapon not in f.jammed:
        f = replace(f, jammed=f.jammed + (test.weapon,))
    state = weapons.broke(put(state, f), test)
    if test.success and test.damage_faces:
        for target in test.targets if test.kind == "grenade" else (test.target,):
            state = _make_hit(state, test, target, test.damage)
    if test.kind == "grenade" and not test.success:
        state = replace(state, blast=PendingBlast(thrower=test.fighter, test=test.id, scatter=test.scatter))
    if test.kind == "grenade" and test.success and _widens_blast(state):
        landed = LandedGrenade(thrower=test.fighter, test=test.id, targets=test.targets, faces=test.damage_faces)
        state = replace(state, landed=landed)
    if test.success and test.drama == book.CHURN_DRAMA_DIE:
        state = _churn(state, 1)
    return state


def _retract_outcome(state: State, test: TestRecord) -> State:
    """Take back what `_apply_outcome` did for a test whose dice are about to change."""
    f = state.fighter(test.fighter)
    if f.sp_test == test.id:
        f = replace(f, sp=0)
    if test.jams:
        f = replace(f, jammed=tuple(w for w in f.jammed if w != test.weapon))
    state = weapons.mended(put(state, f), test)
    state = replace(state, hits=tuple(h for h in state.hits if h.test != test.id))
    if state.blast and state.blast.test == test.id:
        state = replace(state, blast=None)
    if state.landed and state.landed.test == test.id:
        state = replace(state, landed=None)
    if test.success and test.drama == book.CHURN_DRAMA_DIE:
        state = _churn(state, -1)
    return state


def _lock(state: State, test_id: int) -> State:
    """Something was built on this test: Fortune can no longer change its dice."""
    test = state.test(test_id)
    return put_test(state, replace(test, locked=True)) if test and not test.locked else state


def _restage(hit: Hit) -> Hit:
    if hit.remaining <= 0:
        return replace(hit, stage="done")
    return hit


def _close_hits(state: State, fighter_id: str) -> State:
    return replace(state, hits=tuple(replace(h, stage="done") if h.target == fighter_id else h for h in state.hits))


# --- initiative and turns --------------------------------------------------------------------------------------


def _initiative_rolled(state: State, event: InitiativeRolled) -> State:
    totals = {r.fighter: r for r in event.rolls}
    fighters = tuple(
        replace(f, initiative=totals[f.id].total, drama=totals[f.id].faces[2]) if f.id in totals else f
        for f in state.fighters
    )
    state = replace(state, fighters=fighters, initiative_rolled=True, order=())
    return replace(state, order=order_for_round(state))


def _tie_broken(state: State, event: TieBroken) -> State:
    order = [fid for fid in state.order if fid != event.first]
    order.insert(order.index(event.second), event.first)
    return replace(state, order=tuple(order))


def _turn_started(state: State, event: TurnStarted) -> State:
    if event.round != state.round:
        order = order_for_round(state)
        effects = tuple(e for e in state.effects if e.until != "round_end")
        fighters = tuple(replace(f, stunts_used=()) for f in state.fighters)
        state = replace(state, order=order, effects=effects, fighters=fighters, round=event.round)
    effects = tuple(e for e in state.effects if not (e.until == "next_turn" and e.source == event.fighter))
    if state.landed and state.landed.thrower == event.fighter:  # the GM had until the thrower's next turn
        state = replace(state, landed=None)
    state = replace(
        state,
        effects=effects,
        turn=event.fighter,
        last_turn=event.fighter,
        turn_actions=(),
        tests=(),
        free_attacks=(),
        interrupt="" if state.interrupt == event.fighter else state.interrupt,
    )
    return put(state, replace(state.fighter(event.fighter), prepared=""))  # an unused prepared action is lost


def _turn_ended(state: State, event: TurnEnded) -> State:
    fighters = tuple(replace(f, sp=0) for f in state.fighters)  # unspent stunt points are lost
    return replace(state, fighters=fighters, turn="", turn_actions=(), tests=(), free_attacks=())


def _interrupted(state: State, event: Interrupted) -> State:
    return replace(state, interrupt=event.fighter)


# --- tests and their dice --------------------------------------------------------------------------------------


def _tested(state: State, event: Tested) -> State:
    test = known(event.test, "The test")
    state = replace(state, next_id=max(state.next_id, test.id + 1))
    state = _use_slot(state, test.fighter, test.action, event.slot, test.target)
    f = state.fighter(test.fighter)
    if test.action == "all_out_attack":
        state = _add_effect(state, Effect("all_out", f.id, f.id, defense=book.ALL_OUT_DEFENSE))
    if test.action == "charge" and event.metres:
        state = _moved(state, f.id, 0)
    if test.kind == "grenade":
        state = put(state, replace(state.fighter(f.id), in_hand=""))
    if test.breaks and state.fighter(f.id).in_hand == test.weapon:
        state = put(state, replace(state.fighter(f.id), in_hand=""))
    if test.churned:  # the Churn's automatic failure is used up
        state = put(state, replace(state.fighter(f.id), churn_fail=False))
    state = replace(state, tests=state.tests + (test,))
    return _apply_outcome(state, test)


def _blasted(state: State, event: Blasted) -> State:
    blast = known(state.blast, "The scattered grenade")
    state = replace(state, blast=None)
    if _widens_blast(state):
        landed = LandedGrenade(thrower=blast.thrower, test=blast.test, targets=event.targets, faces=event.faces)
        state = replace(state, landed=landed)
    state = _lock(state, blast.test)
    return _blast_hits(state, blast.thrower, blast.test, event.targets, event.faces)


def _blast_widened(state: State, event: BlastWidened) -> State:
    """The GM added who else the grenade caught: the same damage for them; later additions reuse these dice."""
    landed = known(state.landed, "The grenade that went off")
    state = replace(state, landed=replace(landed, targets=landed.targets + event.targets, faces=event.faces))
    state = _lock(state, event.test)
    return _blast_hits(state, event.thrower, event.test, event.targets, event.faces)


def _blast_hits(state: State, thrower: str, test_id: int, targets: tuple[str, ...], faces: tuple[int, ...]) -> State:
    """Each of `targets` takes the blast's damage (the sum of `faces`) as a hit from the thrower's grenade."""
    if faces:
        test = TestRecord(
            id=test_id,
            fighter=thrower,
            kind="grenade",
            action="ranged_attack",
            ability="Accuracy",
            focus="",
            faces=(1, 1, 1),
            modifier=0,
            tn=0,
            weapon="grenade",
            damage_faces=faces,
            ranged=True,
        )
        for target in targets:
            state = _make_hit(state, test, target, sum(faces))
    return state


def _die_changed(state: State, event: DieChanged) -> State:
    old = known(state.test(event.test), "The test")
    faces = tuple(event.face if i == event.die else x for i, x in enumerate(old.faces))
    new = replace(
        old, faces=faces, damage_faces=event.damage_faces or old.damage_faces, scatter=event.scatter or old.scatter
    )
    state = _retract_outcome(state, old)
    state = put_test(state, new)
    state = _apply_outcome(state, new)
    f = state.fighter(event.fighter)
    state = put(state, replace(f, fortune=f.fortune - event.cost))
    return _churn(state, 1)


def _stunt_spent(state: State, event: StuntSpent) -> State:
    f = state.fighter(event.fighter)
    stunt = known(state.stunt(event.stunt), "The stunt")
    state = _lock(state, f.sp_test)
    f = replace(f, sp=f.sp - event.points, stunts_used=f.stunts_used + (stunt.key,))
    state = put(state, f)
    if event.points >= book.STUNT_CHURN_POINTS:
        state = _churn(state, 1)
    held = event.opposed is not None and event.opposed.held
    effect = stunt.effect
    if effect == "fortune":
        state = put(state, replace(f, fortune=min(f.fortune_max, f.fortune + event.points)))
    elif effect == "initiative":
        state = put(state, replace(f, initiative=f.initiative + book.MOMENTUM_PER_SP * event.points))
    elif effect == "defense":
        state = _add_effect(state, Effect("duck_and_weave", f.id, f.id, defense=event.points))
    elif effect == "cover":
        state = put(state, replace(f, cover=min(3, event.points)))
    elif effect == "guardian":
        state = _add_effect(state, Effect("guardian", event.ally, f.id, points=event.points, other=f.id))
    elif effect == "makeshift":
        state = put(state, weapons.take_up(state, f, "makeshift"))
    elif effect == "double_team":
        state = replace(state, free_attacks=state.free_attacks + (FreeAttack(event.ally, event.target, stunt.name),))
    elif effect == "lightning_attack":
        state = replace(state, free_attacks=state.free_attacks + (FreeAttack(f.id, "", stunt.name),))
    elif effect == "knock_prone" and not held:
        state = put(state, _add_condition(state.fighter(event.target), "Prone"))
    elif effect == "injure":
        state = put(state, _add_condition(state.fighter(event.target), "Injured"))
    elif effect == "overcome_toughness":
        hit = replace(known(state.hit(event.hit), "The damage"), penetrating=True)
        hit = replace(hit, cover=0) if _penetrates_cover(state) else hit
        state = put_hit(state, replace(hit, stage="fortune" if hit.remaining > 0 else "done"))
    return state


# --- actions ---------------------------------------------------------------------------------------------------


def _defended(state: State, event: Defended) -> State:
    state = _use_slot(state, event.fighter, "defend", event.slot)
    return _add_effect(state, Effect("defend", event.fighter, event.fighter, defense=book.DEFEND_BONUS))


def _ran(state: State, event: Ran) -> State:
    state = _use_slot(state, event.fighter, "run", event.slot)
    return _moved(state, event.fighter, event.cover)


def _moved_event(state: State, event: Moved) -> State:
    state = _use_slot(state, event.fighter, "move", "turn")
    f = state.fighter(event.fighter)
    if event.stand_up:
        f = replace(f, conditions=tuple(x for x in f.conditions if x != "Prone"))
    if event.drop_prone:
        f = _add_condition(f, "Prone")
    return _moved(put(state, f), f.id, event.cover)


def _activated(state: State, event: Activated) -> State:
    return _use_slot(state, event.fighter, "activate", "turn")


def _aimed(state: State, event: Aimed) -> State:
    state = _use_slot(state, event.fighter, "aim", "turn")
    return put(state, replace(state.fighter(event.fighter), aim=True))


def _guarded_up(state: State, event: GuardedUp) -> State:
    state = _use_slot(state, event.fighter, "guard_up", "turn")
    return _add_effect(
        state, Effect("guard_up", event.fighter, event.fighter, "round_end", defense=event.bonus, tests=-event.bonus)
    )


def _prepared(state: State, event: Prepared) -> State:
    state = _use_slot(state, event.fighter, "prepare", "turn")
    return put(state, replace(state.fighter(event.fighter), prepared=event.action))


def _pressed(state: State, event: Pressed) -> State:
    state = _use_slot(state, event.fighter, "press_the_attack", "turn")
    return _add_effect(state, Effect("press", event.fighter, event.fighter, other=event.target))


def _readied(state: State, event: Readied) -> State:
    state = _use_slot(state, event.fighter, "ready", "turn")
    f = state.fighter(event.fighter)
    if event.stow in ("shield", f.shield):
        f = replace(f, shield="none")
    elif event.stow and event.stow == f.in_hand:
        f = replace(f, in_hand="")
    if event.item in book.SHIELDS:
        f = replace(f, shield=event.item)
    elif event.item:
        f = replace(f, in_hand=event.item)
    return put(state, f)


def _stood_firm(state: State, event: StoodFirm) -> State:
    state = _use_slot(state, event.fighter, "stand_firm", "turn")
    return _add_effect(state, Effect("stand_firm", event.fighter, event.fighter, other=event.ability))


def _jam_cleared(state: State, event: JamCleared) -> State:
    state = _use_slot(state, event.fighter, "clear_jam", "turn")
    f = state.fighter(event.fighter)
    return put(state, replace(f, jammed=tuple(w for w in f.jammed if w != event.weapon)))


def _pursued(state: State, event: Pursued) -> State:
    effects = tuple(
        e for e in state.effects if not (e.kind == "press" and e.source == event.fighter and e.other == event.target)
    )
    return replace(state, effects=effects)


# --- damage: Toughness, Fortune, conditions, taken out ---------------------------------------------------------


def _guard_transferred(state: State, event: GuardTransferred) -> State:
    hit = known(state.hit(event.hit), "The damage")
    state = _lock(state, hit.test)
    state = put_hit(state, replace(hit, transferred=event.points, guard_checked=True))
    effects = tuple(
        e
        for e in state.effects
        if not (e.kind == "guardian" and e.fighter == event.ally and e.source == event.guardian)
    )
    guardian_hit = Hit(
        id=state.next_id,
        attacker=hit.attacker,
        target=event.guardian,
        test=hit.test,
        weapon=hit.weapon,
        damage=event.points,
        toughness=0,
        stunning=hit.stunning,
        guard_checked=True,
    )
    return replace(state, effects=effects, hits=state.hits + (_restage(guardian_hit),), next_id=state.next_id + 1)


def _fortune_spent(state: State, event: FortuneSpent) -> State:
    hit = known(state.hit(event.hit), "The damage")
    state = _lock(state, hit.test)
    hit = replace(hit, fortune=event.points, guard_checked=True, stage="conditions")
    state = put_hit(state, _restage(hit))
    f = state.fighter(event.fighter)
    return put(state, replace(f, fortune=f.fortune - event.points))


def _condition_taken(state: State, event: ConditionTaken) -> State:
    hit = known(state.hit(event.hit), "The damage")
    state = put_hit(state, _restage(replace(hit, reduced=hit.reduced + event.roll)))
    return put(state, _add_condition(state.fighter(event.fighter), event.condition))


def _taken_out(state: State, event: TakenOut) -> State:
    f = _add_condition(_add_condition(state.fighter(event.fighter), book.TAKEN_OUT), event.condition)
    return _close_hits(put(state, replace(f, roll_over_asked="")), f.id)


def _roll_over_asked(state: State, event: RollOverAsked) -> State:
    return put(state, replace(state.fighter(event.fighter), roll_over_asked=event.condition))


def _rolled_over(state: State, event: RolledOver) -> State:
    f = replace(state.fighter(event.fighter), roll_over_asked="")
    if not event.approved:
        return put(state, f)
    f = _add_condition(replace(f, rolled_over=True), event.condition)
    return _close_hits(put(state, f), f.id)


# --- the GM's tools, Churn and the end -------------------------------------------------------------------------


def _stunt_added(state: State, event: StuntAdded) -> State:
    return replace(state, stunts=state.stunts + (known(event.stunt, "The stunt"),))


def _condition_set(state: State, event: ConditionSet) -> State:
    f = state.fighter(event.target)
    if event.on:
        return put(state, _add_condition(f, event.condition))
    return put(state, replace(f, conditions=tuple(x for x in f.conditions if x != event.condition)))


def _fortune_adjusted(state: State, event: FortuneAdjusted) -> State:
    f = state.fighter(event.target)
    return put(state, replace(f, fortune=max(0, min(f.fortune_max, f.fortune + event.change))))


def _cover_set(state: State, event: CoverSet) -> State:
    return put(state, replace(state.fighter(event.target), cover=event.rating))


def _churn_jammed(state: State, event: ChurnJammed) -> State:
    f = state.fighter(event.fighter)
    state = put(state, replace(f, jammed=f.jammed + (event.weapon,)))
    return replace(state, churn=max(0, state.churn - event.cost))


def _churn_adjusted(state: State, event: ChurnAdjusted) -> State:
    return replace(state, churn=max(0, state.churn + event.change))


def _breathers_taken(state: State, event: BreathersTaken) -> State:
    gains = {r.fighter: r.gain for r in event.rolls}
    fighters = tuple(replace(f, fortune=min(f.fortune_max, f.fortune + gains.get(f.id, 0))) for f in state.fighters)
    state = _churn(replace(state, fighters=fighters), 1)  # Churn: +1 at the end of an encounter
    return replace(state, ended=True, turn="", interrupt="")


EVOLVERS: dict[type[Event], Callable[[State, Any], State]] = {
    DiceRolled: evolve_dice_rolled,
    InitiativeRolled: _initiative_rolled,
    TieBroken: _tie_broken,
    TurnStarted: _turn_started,
    TurnEnded: _turn_ended,
    Interrupted: _interrupted,
    Tested: _tested,
    Blasted: _blasted,
    BlastWidened: _blast_widened,
    DieChanged: _die_changed,
    StuntSpent: _stunt_spent,
    Defended: _defended,
    Ran: _ran,
    Moved: _moved_event,
    Activated: _activated,
    Aimed: _aimed,
    GuardedUp: _guarded_up,
    Prepared: _prepared,
    Pressed: _pressed,
    Readied: _readied,
    StoodFirm: _stood_firm,
    JamCleared: _jam_cleared,
    Pursued: _pursued,
    GuardTransferred: _guard_transferred,
    FortuneSpent: _fortune_spent,
    ConditionTaken: _condition_taken,
    TakenOut: _taken_out,
    RollOverAsked: _roll_over_asked,
    RolledOver: _rolled_over,
    StuntAdded: _stunt_added,
    ConditionSet: _condition_set,
    FortuneAdjusted: _fortune_adjusted,
    CoverSet: _cover_set,
    ChurnJammed: _churn_jammed,
    ChurnAdjusted: _churn_adjusted,
    ChurnReached: churn.evolve_reached,
    ChurnApplied: churn.evolve_applied,
    BreathersTaken: _breathers_taken,
    Revealed: evolve_revealed,
    weapons.WeaponGiven: weapons.evolve_weapon_given,
}
