"""A HERO panel's controls for moving, Presence attacks and held actions' moments (issue 19).

`extras(state, f, gm)` is a panel's `extras`: how far the character may move now (a half move is half the RUN or
less, the engine works out which), the Presence attack's dice and targets, whom a hold may wait for, and whether
the held action's moment has come ("Act now") or why it has not yet. And a player's off-phase words: who has the
floor (or whose held action the table waits for) and what the player may do meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from combat.rules import hero
from combat.rules.core import Sight


@dataclass(frozen=True, kw_only=True)
class Choice:
    key: str
    name: str


@dataclass(frozen=True, kw_only=True)
class Extras:
    run: int
    half_run: int
    can_move: bool
    move_max: int  # the RUN, or half of it when half the phase is gone
    pre_dice: int
    presence_targets: tuple[Choice, ...]
    hold_whoms: tuple[Choice, ...]  # whom a hold may wait for
    offered: str  # the held action's moment has come: why, in words ("" when not offered)
    release_refusal: str  # why the held action cannot be acted on yet


def _known(state, f, gm: bool) -> tuple[Choice, ...]:
    """Everyone else the character knows of (an enemy's own allies, a PC's party and the enemies in sight)."""
    sight = Sight(state.fighters, gm)
    return tuple(
        Choice(key=t.id, name=sight.name(t.id))
        for t in state.fighters
        if t.id != f.id and (t.id in f.aware_of or t.side == f.side) and not t.out
    )


def offer_words(state, f) -> str:
    """ "Your held action's moment has come: Ogre attacks." for a holder the engine offered the interrupt."""
    if f.id not in state.offers or f.held is None:
        return ""
    return f"The held action's moment has come: {hero.hold_words(state, f.held)}."


def extras(state, f, gm: bool) -> Extras:
    on_floor = state.floor == f.id and not f.knocked_out and not f.stunned
    half_gone = on_floor and state.floor_halves > 0
    known = _known(state, f, gm)
    return Extras(
        run=f.run,
        half_run=f.run // 2,
        can_move=on_floor and f.run > 0,
        move_max=f.run // 2 if half_gone else f.run,
        pre_dice=hero.presence_dice(f),
        presence_targets=known,
        hold_whoms=known,
        offered=offer_words(state, f),
        release_refusal=hero.release_refusal(state, f) if state.started and not state.acting else "",
    )


def waiting_words(state, mine) -> str:
    """One line for a player whose phase it is not: who has the floor (as the party knows them) and when this
    player's next phase comes."""
    if not state.started:
        return "Before combat: the GM opens combat in segment 12 of turn 1, and everyone acts first."
    players = Sight(state.fighters, gm=False)  # an unseen enemy with the floor is "someone unseen"
    where = f"Turn {state.turn}, segment {state.segment}"
    if state.offers:
        mine_offered = any(p.key == state.offers[0] for p in mine)
        now = f"{where}: waiting for {'your' if mine_offered else players.name(state.offers[0]) + '’s'} held action"
    elif state.floor:
        held = " acts on a held action" if state.acting else "’s phase"
        now = f"{where}: {players.name(state.floor)}{held}"
    else:
        now = f"{where}: every phase is done — the GM moves to the next segment"
    nexts = [p for p in mine if p.next_phase]
    if len(mine) == 1 and nexts:
        now += f" — your next phase: {nexts[0].next_phase}"
    return now + "."


def out_of_phase_words(mine) -> str:
    """What a player may do off-phase: act on a held action, abort to a defence, actions that take no time."""
    may = []
    if any(p.can_release for p in mine):
        may.append("act on your held action")
    if any(p.can_abort for p in mine):
        may.append("abort to a defence (Dodge, Block…)")
    if any(p.able and p.started for p in mine):
        may.append("take actions that take no time")
    return f"Out of your phase you may {', '.join(may[:-1])}{' or ' if len(may) > 1 else ''}{may[-1]}." if may else ""
