"""Held actions whose moment comes: the engine watches for it and offers the holder the interrupt.

The seed: "You can delay it until a lower DEX or later segment, or you can specify a trigger that will start your
action, for example, when the bad guy raises his head. But you must act before your next phase". A hold until a
DEX or a segment is enforced (the holder cannot act before it comes round) and offered when it does; a trigger the
engine can see ("when the Ogre's phase comes up", "when the Ogre attacks", "when the Ogre moves") is offered each
time it happens; a trigger in the player's own words stays the GM's to judge. An offer (HoldOffered) stops the
phase in order until the holder acts on it (Release) or waits on (KeepHolding).
"""

from __future__ import annotations

from combat.rules.core import Event
from combat.rules.hero.commands import HOLD_ON
from combat.rules.hero.events import Attacked, HoldOffered, Moved
from combat.rules.hero.state import Fighter, Held, State, name_of, phase_at, turn_and_segment

WATCHED = {Attacked: "attacks", Moved: "moves"}  # events that are a trigger when `whom` makes them


def hold_words(state: State, held: Held) -> str:
    """What the hold waits for, after "until": "DEX 8", "segment 6", "the Ogre attacks", the player's words."""
    if held.until == "dex":
        return f"DEX {held.dex}"
    if held.until == "segment":
        return f"segment {turn_and_segment(held.at)[1]}"
    if held.until == "trigger" and held.on:
        return f"{name_of(state, held.whom)}{HOLD_ON[held.on]}"
    return held.trigger if held.until == "trigger" else ""


def _mid_phase(state: State) -> bool:
    """The phase in order has begun (its character already did something in it)."""
    return bool(state.active) and state.fighter(state.active).acted_at == state.now


def release_refusal(state: State, f: Fighter) -> str:
    """Why the holder may not act on the held action yet ("" when they may): a DEX or segment not come round."""
    held = f.held
    if held is None:
        return ""
    if held.until == "segment" and state.now < held.at:
        return f"{f.name} holds until {phase_at(held.at)}; it has not come yet."
    if held.until == "dex" and state.now == held.since and state.active:
        other = state.fighter(state.active)
        if other.initiative_dex > held.dex:
            return f"{f.name} holds until DEX {held.dex}: {other.name} acts first, at DEX {other.initiative_dex}."
    return ""


def _due(state: State, f: Fighter, events: list[Event]) -> str:
    """Why the holder's moment has come now ("" when it has not)."""
    held = f.held
    if held is None or f.id in state.offers or f.knocked_out or f.stunned or release_refusal(state, f):
        return ""
    if held.until in ("dex", "segment"):
        return held.until if not held.offered and not _mid_phase(state) else ""
    if held.until != "trigger" or not held.on:
        return ""
    if held.on == "acts":
        opens = state.active == held.whom and not _mid_phase(state) and held.offered != state.now
        return "acts" if opens else ""
    made = any(WATCHED.get(type(e)) == held.on and getattr(e, "fighter", "") == held.whom for e in events)
    return held.on if made else ""


def due_offer(state: State, events: list[Event]) -> HoldOffered | None:
    """The next holder to offer the interrupt to, after `events` (a command's, with what followed on its own)."""
    if state.acting:  # someone is acting on a held action already: the moment waits for them to finish
        return None
    for f in state.fighters:
        why = _due(state, f, events)
        if why:
            return HoldOffered(fighter=f.id, why=why)
    return None
