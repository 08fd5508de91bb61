"""What a character does with a phase, and off it: act, attack, take a Recovery, end the phase, hold and release
an action, abort to a defence, and a held action's DEX contest with the phase in order.

Each decider checks the command against the rules and the state and returns the events it makes, or raises
`RuleError` with a sentence. `decide.py` dispatches to them (`DECIDERS`) and adds what the rules do on their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from combat.rules.core import Command, Event, RuleError, revealed_by_attack
from combat.rules.core import require as _require
from combat.rules.dice import Dice
from combat.rules.hero.commands import (
    ACTION_KINDS,
    DEFENSIVE,
    HOLD_ON,
    HOLD_UNTIL,
    Abort,
    AbortOther,
    Act,
    Attack,
    ContestHold,
    EndPhase,
    Hold,
    Release,
    TakeRecovery,
)
from combat.rules.hero.events import Aborted, Acted, Attacked, HeldAction, HoldContested, PhaseEnded, Released
from combat.rules.hero.interrupts import release_refusal
from combat.rules.hero.state import (
    Fighter,
    Held,
    State,
    attack_hits,
    body_of,
    dex_roll_target,
    end_cost,
    name_of,
    next_phase_tick,
    phase_at,
    tick,
    to_hit,
)


def _text(raw: str) -> str:
    """A player's words for the log: one line, at most 200 characters."""
    return " ".join(raw.split())[:200]


# --- checks ---------------------------------------------------------------------------------------------------


def _on_floor(state: State, actor: str) -> Fighter:
    f = state.fighter(actor)
    _require(state.floor == f.id, f"It is not {f.name}'s phase.")
    waiting_for_offer(state)
    return f


def waiting_for_offer(state: State) -> None:
    """While a held action's moment is offered, the phase in order waits for the holder."""
    if state.offers and not state.acting:
        holder = name_of(state, state.offers[0])
        raise RuleError(f"Waiting for {holder}: the held action's moment has come (act now or keep holding).")


def _able(f: Fighter) -> None:
    _require(not f.knocked_out, f"{f.name} is knocked out.")
    _require(not f.stunned, f"{f.name} is Stunned and can take no actions.")
    _require(f.presence < 3, f"{f.name} is awed by a Presence attack and does not act until a phase has passed.")


def _floor_halves(state: State, f: Fighter) -> int:
    return state.acting_halves if state.acting == f.id else state.halves


def _pay(state: State, f: Fighter, active_points: int, strength: int) -> int:
    _require(0 <= active_points <= 1000, "Active Points must be from 0 to 1000.")
    _require(0 <= strength <= 500, "STR used must be from 0 to 500.")
    cost = end_cost(active_points, strength, int(state.settings.get("str_end", 10)))
    _require(cost <= f.end, f"{f.name} has {f.end} END and this costs {cost}.")
    return cost


def _can_release(state: State, f: Fighter) -> None:
    _require(f.held is not None, f"{f.name} is not holding an action.")
    _require(not state.acting, f"{name_of(state, state.acting)} is acting on a held action; wait until they finish.")
    refusal = release_refusal(state, f)
    _require(not refusal, refusal)


def _abort_checks(state: State, f: Fighter) -> None:
    _require(not f.knocked_out, f"{f.name} is knocked out.")
    _require(not f.stunned, f"{f.name} is Stunned and cannot abort.")
    _require(f.presence < 3, f"{f.name} is awed by a Presence attack and cannot abort.")
    _require(f.acted_at != state.now, f"{f.name} has already acted in this segment.")
    _require(state.floor != f.id, f"It is {f.name}'s phase: act instead of aborting.")
    _require(f.held is not None or not f.forfeit, f"{f.name} has already aborted: the next phase is spent.")


def abort_refusal(state: State, fighter_id: str) -> str:
    """Why this character cannot abort now ("" when they can): what a phone shows beside its Abort buttons."""
    if not state.started:
        return "Combat has not begun."
    try:
        _abort_checks(state, state.fighter(fighter_id))
    except RuleError as exc:
        return str(exc)
    return ""


# --- in the phase -----------------------------------------------------------------------------------------------


def _act(state: State, c: Act, dice: Dice) -> list[Event]:
    _require(c.kind in ACTION_KINDS, "Choose a full phase, half phase, zero phase or no-time action.")
    f = state.fighter(c.actor)
    _able(f)
    if c.kind != "none":
        _on_floor(state, c.actor)
    halves = _floor_halves(state, f)
    if c.kind == "full":
        _require(halves == 0, f"{f.name} has half a phase left: a half phase action or an attack.")
    cost = _pay(state, f, c.active_points, c.strength)
    ends = c.kind == "full" or (c.kind == "half" and halves + 1 >= 2)
    return [Acted(fighter=f.id, action=c.kind, text=_text(c.text), end=cost, ends_phase=ends)]


def _attack(state: State, c: Attack, dice: Dice) -> list[Event]:
    f = _on_floor(state, c.actor)
    _able(f)
    target = state.fighter(c.target)
    _require(target.id != f.id, "Choose someone else to attack.")
    _require(target.id in f.aware_of or target.side == f.side, f"{f.name} is not aware of {target.name}.")
    _require(0 <= c.dice <= 30, "Damage must be from 0 to 30 dice.")
    _require(0 <= c.defence <= 500, "Defence must be from 0 to 500.")
    _require(c.against in ("", "pd", "ed"), "Choose physical (PD) or energy (ED) defence, or none.")
    _require(-30 <= c.ocv_mod <= 30 and -30 <= c.dcv_mod <= 30, "OCV and DCV modifiers must be from -30 to 30.")
    cost = _pay(state, f, c.active_points, c.strength)
    needed = to_hit(f, target, c.ocv_mod, c.dcv_mod)
    defence = c.defence + (getattr(target, c.against) if c.against else 0)
    if c.entered or c.damage_entered:
        _require(bool(state.settings.get("entered_dice")), "The GM has the server roll the dice in this encounter.")
    if c.entered:
        _require(len(c.entered) == 3, "Enter the three dice of the attack roll.")
        _require(all(1 <= face <= 6 for face in c.entered), "Each die of the attack roll shows a face from 1 to 6.")
    if c.damage_entered:
        _require(
            len(c.damage_entered) == c.dice,
            f"The damage is {c.dice}d6: enter {c.dice} {'die' if c.dice == 1 else 'dice'} or none.",
        )
        _require(all(1 <= face <= 6 for face in c.damage_entered), "Each damage die shows a face from 1 to 6.")
    roll = tuple(c.entered) or dice.roll(3, 6)
    hit = attack_hits(sum(roll), needed)
    damage = (tuple(c.damage_entered) or dice.roll(c.dice, 6)) if hit else ()
    stun = max(0, sum(damage) - defence)
    body = max(0, sum(body_of(face) for face in damage) - defence)
    left = target.stun - stun
    knocked_out = left <= 0 < target.stun
    stunned = stun > target.con and left > 0
    return [
        *revealed_by_attack(state, f.id),  # the attack gives an unseen attacker away, if the GM says so
        Attacked(
            fighter=f.id,
            target=target.id,
            roll=roll,
            needed=needed,
            hit=hit,
            damage=damage,
            defence=defence if hit else 0,
            stun=stun,
            body=body,
            stunned=stunned,
            knocked_out=knocked_out,
            end=cost,
            text=_text(c.text),
            entered=bool(c.entered),
            damage_entered=hit and bool(c.damage_entered) and c.dice > 0,
        ),
    ]


def _take_recovery(state: State, c: TakeRecovery, dice: Dice) -> list[Event]:
    f = _on_floor(state, c.actor)
    _able(f)
    _require(_floor_halves(state, f) == 0, f"A Recovery takes a full phase and {f.name} has only half a phase left.")
    _require(not f.no_recovery, f"The GM has ruled that {f.name} cannot recover now.")
    return [Acted(fighter=f.id, action="recovery", ends_phase=True)]


def _end_phase(state: State, c: EndPhase, dice: Dice) -> list[Event]:
    f = _on_floor(state, c.actor)
    return [PhaseEnded(fighter=f.id)]


# --- held actions ------------------------------------------------------------------------------------------------


def _hold(state: State, c: Hold, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _require(state.active == f.id and not state.acting, f"{f.name} can hold only the phase now open.")
    _able(f)
    waiting_for_offer(state)
    _require(c.until in HOLD_UNTIL, "Hold until a lower DEX, a later segment or a trigger.")
    held = Held(since=state.now, until=c.until, half=state.halves == 1)
    if c.until == "dex":
        _require(0 <= c.dex < f.initiative_dex, f"Hold to a DEX lower than {f.name}'s {f.initiative_dex}.")
        held = replace(held, dex=c.dex)
    elif c.until == "segment":
        _require(1 <= c.segment <= 12, "Choose a segment from 1 to 12.")
        at = tick(state.turn if c.segment > state.segment else state.turn + 1, c.segment)
        nxt = next_phase_tick(state, f, state.segment + 1)
        _require(at < nxt, f"A held action is lost when {f.name}'s next phase begins ({phase_at(nxt)}).")
        held = replace(held, at=at)
    elif c.until == "trigger" and c.on:
        _require(c.on in HOLD_ON, "Wait for someone's phase, their attack or their move.")
        whom = state.fighter(c.whom)
        _require(whom.id != f.id, f"{f.name} cannot wait for their own action.")
        _require(whom.id in f.aware_of or whom.side == f.side, f"{f.name} is not aware of {whom.name}.")
        held = replace(held, on=c.on, whom=whom.id, trigger=f"{whom.name}{HOLD_ON[c.on]}")
    elif c.until == "trigger":
        trigger = _text(c.trigger)
        _require(bool(trigger), "Say what the held action waits for.")
        held = replace(held, trigger=trigger)
    return [HeldAction(fighter=f.id, held=held)]


def _release(state: State, c: Release, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _can_release(state, f)
    return [Released(fighter=f.id)]


def _contest_hold(state: State, c: ContestHold, dice: Dice) -> list[Event]:
    """Setting "roll": a held action and the open phase collide; both roll DEX and the larger margin goes first."""
    _require(
        state.settings.get("hold_collision") == "roll",
        "The GM decides who goes first in this encounter: release the held action to let it go first.",
    )
    holder = state.fighter(c.holder)
    _can_release(state, holder)
    _require(bool(state.active), "No phase is open for the held action to collide with.")
    other = state.fighter(state.active)
    holder_roll, other_roll = dice.roll(3, 6), dice.roll(3, 6)
    holder_target, other_target = dex_roll_target(holder.dex), dex_roll_target(other.dex)
    mine, theirs = holder_target - sum(holder_roll), other_target - sum(other_roll)
    winner = ""
    if (mine, holder.dex) != (theirs, other.dex):
        winner = holder.id if (mine, holder.dex) > (theirs, other.dex) else other.id
    events: list[Event] = [
        HoldContested(
            holder=holder.id,
            other=other.id,
            holder_roll=holder_roll,
            other_roll=other_roll,
            holder_target=holder_target,
            other_target=other_target,
            winner=winner,
        )
    ]
    if winner == holder.id:
        events.append(Released(fighter=holder.id))
    return events


# --- aborts ------------------------------------------------------------------------------------------------------


def _aborted(state: State, f: Fighter, action: str, text: str, active_points: int) -> list[Event]:
    _abort_checks(state, f)
    cost = _pay(state, f, active_points, 0)
    spent_held = f.held is not None
    return [
        Aborted(
            fighter=f.id,
            action=action,
            text=_text(text),
            end=cost,
            spent_held=spent_held,
            loses=0 if spent_held else next_phase_tick(state, f),
        )
    ]


def _abort(state: State, c: Abort, dice: Dice) -> list[Event]:
    _require(
        c.action in DEFENSIVE and c.action != "other",
        "Abort to Dodge, Block, Dive for Cover or activating a defence; the GM allows anything else.",
    )
    return _aborted(state, state.fighter(c.actor), c.action, c.text, c.active_points)


def _abort_other(state: State, c: AbortOther, dice: Dice) -> list[Event]:
    _require(bool(_text(c.text)), "Say what the character aborts to.")
    return _aborted(state, state.fighter(c.actor), "other", c.text, c.active_points)


DECIDERS: dict[type[Command], Callable[[State, Any, Dice], list[Event]]] = {
    Act: _act,
    Attack: _attack,
    TakeRecovery: _take_recovery,
    EndPhase: _end_phase,
    Hold: _hold,
    Release: _release,
    ContestHold: _contest_hold,
    Abort: _abort,
    AbortOther: _abort_other,
}
