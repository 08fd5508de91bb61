"""The Expanse (AGE) decide: check a command against the rules and the state, and say what happens.

`decide` looks the command's class up in `DECIDERS` (at the bottom), runs its decider and adds what follows by
itself: the turn ends when its holder has nothing left to do, and Churn thresholds are announced. Turn order and
the GM's tools are decided here; the other commands by theme in decide_attacks.py (attacks, tests, stunts),
decide_actions.py (the other major and minor actions) and decide_damage.py (Fortune, conditions, rolling over).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from combat.rules.core import Command, Event, Reveal, RuleError, decide_reveal, require
from combat.rules.dice import Dice
from combat.rules.expanse import churn, weapons
from combat.rules.expanse import decide_actions as actions
from combat.rules.expanse import decide_attacks as attacks
from combat.rules.expanse import decide_damage as damage
from combat.rules.expanse import rulebook as book
from combat.rules.expanse.commands import (
    COMMANDS,
    AbilityTest,
    AcceptCondition,
    Activate,
    AddStunt,
    AdjustChurn,
    AdjustFortune,
    Aim,
    AlsoInBlast,
    ApplyChurn,
    ApproveRollOver,
    Attack,
    Blast,
    BreakTie,
    Breathers,
    ChangeDie,
    ChurnJam,
    ClearJam,
    Defend,
    EndTurn,
    GuardUp,
    Interrupt,
    InterruptSelf,
    Move,
    NextTurn,
    Prepare,
    PressTheAttack,
    Pursue,
    Ready,
    RollInitiative,
    RollOver,
    Run,
    SetCondition,
    SetCover,
    SpendFortune,
    SpendStunt,
    StandFirm,
    ThrowGrenade,
)
from combat.rules.expanse.decide_checks import note, simulate
from combat.rules.expanse.events import (
    BreatherRoll,
    BreathersTaken,
    ChurnAdjusted,
    ChurnJammed,
    ConditionSet,
    CoverSet,
    FortuneAdjusted,
    InitiativeRolled,
    InitRoll,
    StuntAdded,
    TieBroken,
    TurnEnded,
    TurnStarted,
)
from combat.rules.expanse.evolve import evolve
from combat.rules.expanse.state import Fighter, State, TestRecord, order_for_round, plural, slug, test_bonus
from combat.rules.expanse.stats import CONDITIONS
from combat.rules.free_roll import FreeRoll, decide_free_roll


def decide(state: State, command: Command, dice: Dice) -> list[Event]:
    """The events `command` leads to, or a RuleError sentence when the rules refuse it. Never changes `state`."""
    if isinstance(command, FreeRoll):  # any time, in any phase; it changes nothing, so nothing follows
        return decide_free_roll(state, command, dice)
    require(not state.ended, "This encounter has ended.")
    handler = DECIDERS.get(type(command))
    if handler is None:
        if type(command) in COMMANDS:
            raise TypeError(f"The Expanse has no decider for {type(command).__name__}; add one to DECIDERS.")
        raise RuleError("That is not an action in The Expanse.")
    events = churn.fail_tests(state, handler(state, command, dice), dice)
    return _follow_up(state, events, dice)


# --- what follows by itself, and whose turn is next ----------------------------------------------------------


def _follow_up(state: State, events: list[Event], dice: Dice) -> list[Event]:
    """What follows by itself: the turn ends when nothing is left; Churn thresholds are announced."""
    after = simulate(state, events)
    holder_out = bool(after.turn) and not after.fighter(after.turn).can_act
    if after.begun and after.turn and (holder_out or not after.interrupt) and not after.ended and _nothing_left(after):
        more: list[Event] = [TurnEnded(fighter=after.turn, auto=True, sp_lost=after.fighter(after.turn).sp)]
        nxt = next_turn(evolve(after, more[0]))
        if nxt:
            more.append(nxt)
        events = events + more
        after = simulate(after, more)
    return events + churn.reached(state, after, dice)


def _nothing_left(state: State) -> bool:
    f = state.fighter(state.turn)
    if not f.can_act:
        return True
    if len(state.turn_actions) < 2 or f.sp > 0 or state.free_attacks:
        return False
    return not _changeable_test(state, f)


def _changeable_test(state: State, f: Fighter) -> TestRecord | None:
    """The fighter's latest test this turn, if Fortune may still change one of its dice."""
    mine = [t for t in state.tests if t.fighter == f.id]
    if not mine or mine[-1].locked or mine[-1].churned:
        return None
    costs = [int(state.settings.get(k, 0)) for k in ("fortune_die_cost", "fortune_drama_cost")]
    affordable = [cost for cost in costs if cost > 0 and cost <= f.fortune]
    return mine[-1] if affordable else None


def next_turn(state: State) -> TurnStarted | None:
    """The next combatant able to act, wrapping into a new round (whose order reflects Momentum)."""
    if not state.begun:
        order, rnd = state.order, 1
        candidates = [(fid, rnd) for fid in order]
    else:
        current = state.turn or state.last_turn
        position = state.order.index(current) if current in state.order else -1
        rest = [(fid, state.round) for fid in state.order[position + 1 :]]
        wrapped = [(fid, state.round + 1) for fid in order_for_round(state)]
        candidates = rest + wrapped
    for fid, rnd in candidates:
        if state.fighter(fid).can_act:
            return TurnStarted(fighter=fid, round=rnd)
    return None


# --- initiative and turns --------------------------------------------------------------------------------------


def _roll_initiative(state: State, c: RollInitiative, dice: Dice) -> list[Event]:
    require(not state.initiative_rolled, "Initiative has already been rolled for this encounter.")
    rolls = []
    for f in state.fighters:
        bonus, focus = test_bonus(state, f, "Dexterity", ("Initiative",))
        rolls.append(InitRoll(fighter=f.id, faces=dice.roll(3, 6), bonus=bonus, focus=bool(focus)))
    return [InitiativeRolled(rolls=tuple(rolls))]


def _break_tie(state: State, c: BreakTie, dice: Dice) -> list[Event]:
    require(state.initiative_rolled, "Roll initiative first.")
    require(not state.begun, "Initiative ties are settled before the first turn.")
    a, b = state.fighter(c.first), state.fighter(c.second)
    require(a.id != b.id, "Choose two different combatants.")
    require(
        (a.initiative, a.drama) == (b.initiative, b.drama),
        f"{a.name} and {b.name} are not tied on both initiative and the Drama Die.",
    )
    return [TieBroken(first=a.id, second=b.id)]


def _next_turn_command(state: State, c: NextTurn, dice: Dice) -> list[Event]:
    require(state.initiative_rolled, "Roll initiative first.")
    require(not state.interrupt, "Let the interrupting combatant act first.")
    events: list[Event] = []
    if state.turn:
        f = state.fighter(state.turn)
        events.append(TurnEnded(fighter=f.id, sp_lost=f.sp))
        state = evolve(state, events[0])
    nxt = next_turn(state)
    require(nxt is not None or bool(events), "Nobody is able to act.")
    return events + ([nxt] if nxt else [])


def _end_turn(state: State, c: EndTurn, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    require(state.turn == f.id, f"It is not {f.name}'s turn.")
    if state.interrupt:
        raise RuleError(f"{state.fighter(state.interrupt).name} is interrupting; wait for their prepared action.")
    ended = TurnEnded(fighter=f.id, sp_lost=f.sp)
    nxt = next_turn(evolve(state, ended))
    return [ended] + ([nxt] if nxt else [])


# --- the GM's tools, Churn and the end -------------------------------------------------------------------------


def _add_stunt(state: State, c: AddStunt, dice: Dice) -> list[Event]:
    name = note(c.stunt, 40)
    key = slug(name)
    require(bool(key), "Name the stunt.")
    require(state.stunt(name) is None, f"There is already a stunt called {name}.")
    require(1 <= c.cost <= 20 and (c.max_cost == 0 or c.cost <= c.max_cost <= 20), "A stunt costs 1 to 20 SP.")
    require(c.effect in ("",) + book.EFFECTS, "Choose one of the engine's effects, or none for a narrated stunt.")
    return [StuntAdded(stunt=book.Stunt(key, name, c.cost, c.max_cost, c.effect, c.damaging, note(c.text)))]


def _set_condition(state: State, c: SetCondition, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    require(c.condition in CONDITIONS, f"Choose one of the conditions: {', '.join(CONDITIONS)}.")
    require(
        (c.condition in f.conditions) != c.on,
        f"{f.name} {'already has' if c.on else 'does not have'} the {c.condition} condition.",
    )
    return [ConditionSet(target=f.id, condition=c.condition, on=c.on)]


def _adjust_fortune(state: State, c: AdjustFortune, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    require(c.change != 0, "Change Fortune up or down.")
    change = max(-f.fortune, min(f.fortune_max - f.fortune, c.change))
    require(change != 0, f"{f.name}'s Fortune is already at {'its maximum' if c.change > 0 else '0'}.")
    return [FortuneAdjusted(target=f.id, change=change)]


def _set_cover(state: State, c: SetCover, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    require(0 <= c.rating <= book.TOTAL_COVER, "Cover is rated 0 to 3, or 4 for total cover.")
    return [CoverSet(target=f.id, rating=c.rating)]


def _churn_jam(state: State, c: ChurnJam, dice: Dice) -> list[Event]:
    require(bool(state.settings.get("churn")), "This encounter does not use Churn.")
    f = state.fighter(c.fighter)
    cost = int(state.settings.get("churn_jam_cost", 1))
    mine = [t for t in state.tests if t.fighter == f.id]
    last = mine[-1] if mine else None
    if last is None or not (
        last.kind in ("attack", "stunt_attack") and not last.success and book.WEAPONS[last.weapon].gun
    ):
        raise RuleError(f"{f.name}'s last attack this turn was not a missed firearm attack.")
    require(last.weapon not in f.jammed, f"{f.name}'s {book.WEAPONS[last.weapon].label.lower()} is already jammed.")
    require(state.churn >= cost, f"Jamming costs {plural(cost, 'Churn point')} and the pool has {state.churn}.")
    return [ChurnJammed(fighter=f.id, weapon=last.weapon, cost=cost)]


def _adjust_churn(state: State, c: AdjustChurn, dice: Dice) -> list[Event]:
    require(bool(state.settings.get("churn")), "This encounter does not use Churn.")
    require(c.change != 0 and state.churn + c.change >= 0, f"The Churn pool is {state.churn}; it cannot go below 0.")
    return [ChurnAdjusted(change=c.change, reason=note(c.reason, 120))]


def _breathers(state: State, c: Breathers, dice: Dice) -> list[Event]:
    rolls = []
    for f in state.fighters:
        face = dice.roll(1, book.BREATHER_DIE)[0]
        gain = max(0, min(f.fortune_max - f.fortune, face + f.abilities.get("Constitution", 0) + f.level))
        rolls.append(BreatherRoll(fighter=f.id, face=face, gain=gain))
    return [BreathersTaken(rolls=tuple(rolls))]


DECIDERS: dict[type[Command], Callable[[State, Any, Dice], list[Event]]] = {
    FreeRoll: decide_free_roll,  # decide() runs it first: in any phase, and nothing follows it
    RollInitiative: _roll_initiative,
    BreakTie: _break_tie,
    NextTurn: _next_turn_command,
    EndTurn: _end_turn,
    Attack: attacks.attack,
    ThrowGrenade: attacks.throw_grenade,
    Blast: attacks.blast,
    AlsoInBlast: attacks.also_in_blast,
    AbilityTest: attacks.ability_test,
    ChangeDie: attacks.change_die,
    SpendStunt: attacks.spend_stunt,
    Defend: actions.defend,
    Run: actions.run,
    Move: actions.move,
    Activate: actions.activate,
    Aim: actions.aim,
    GuardUp: actions.guard_up,
    Prepare: actions.prepare,
    PressTheAttack: actions.press_the_attack,
    Ready: actions.ready,
    StandFirm: actions.stand_firm,
    ClearJam: actions.clear_jam,
    Interrupt: actions.interrupt,
    InterruptSelf: actions.interrupt_self,
    Pursue: actions.pursue,
    SpendFortune: damage.spend_fortune,
    AcceptCondition: damage.accept_condition,
    RollOver: damage.roll_over,
    ApproveRollOver: damage.approve_roll_over,
    AddStunt: _add_stunt,
    SetCondition: _set_condition,
    AdjustFortune: _adjust_fortune,
    SetCover: _set_cover,
    ChurnJam: _churn_jam,
    AdjustChurn: _adjust_churn,
    ApplyChurn: churn.apply_churn,
    Breathers: _breathers,
    Reveal: lambda state, c, dice: decide_reveal(state, c),
    weapons.GiveWeapon: weapons.decide_give_weapon,
}
