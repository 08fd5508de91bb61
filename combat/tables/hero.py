"""The HERO System at the table: the speed chart strip, the segment's acting queue in DEX order, each phase's
actions on the phone, and aborts and held actions off-phase.

An enemy's numbers (SPD, DEX, OCV, DCV, PD, ED, STUN, BODY, END, REC) go into the GM's view model only. Players
see what the table sees of an enemy the party is aware of: its name, whether it is Stunned, knocked out or holding
an action, and the phases it has taken; never the phases it still has to come (they would give its SPD away).
"""

from __future__ import annotations

from combat.rules import hero
from combat.rules.core import as_players_know, seen_by_party
from combat.rules.hero import review as hero_review
from combat.tables.base import Table, fighters_from, namer

SEGMENTS = tuple(range(1, 13))
MARK_LABELS = {
    "phase": "phase to come", "acted": "acted", "passed": "let the phase go by", "held": "held the action",
    "lost": "held action lost", "aborted": "aborted", "stunned": "spent recovering from Stunned",
    "knocked out": "knocked out",
}
MARK_SYMBOLS = {"phase": "●", "acted": "✓", "passed": "–", "held": "H", "lost": "×", "aborted": "A",
                "stunned": "S", "knocked out": "KO"}
ACTIONS = (("half", "Half phase action"), ("full", "Full phase action"), ("zero", "Zero phase action"))
PLACES = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth")
ABORTS = tuple((k, v) for k, v in hero.DEFENSIVE.items() if k != "other")


# --- building and starting ------------------------------------------------------------------------------

def initial_state(engine, encounter, combatants):
    return engine.initial_state(fighters_from(engine, combatants), encounter.settings)


# --- what everyone sees -------------------------------------------------------------------------------------

def _held_text(held) -> str:
    if held is None:
        return ""
    until = {"dex": f"until DEX {held.dex}", "segment": f"until segment {hero.turn_and_segment(held.at)[1]}",
             "trigger": f"until {held.trigger}", "": "until they choose"}[held.until]
    return ("half a phase held " if held.half else "holding ") + until


def _flags(state, f) -> list[str]:
    out = []
    if f.knocked_out:
        out.append("knocked out")
    elif f.body <= 0:
        out.append("dying")
    if f.stunned:
        out.append("Stunned")
    if f.held:
        out.append(_held_text(f.held))
    if f.forfeit:
        out.append("aborted: the next phase is spent")
    if f.id in state.recovering:
        out.append("taking a Recovery")
    if f.no_recovery:
        out.append("no free recoveries")
    return out


def _strip(state, f, open_to_all: bool) -> list[dict]:
    """Twelve cells, one a segment. For an enemy on a player's screen, phases still to come stay blank."""
    cells = []
    in_order_now = f.id in state.order
    for segment, mark in zip(SEGMENTS, state.strip(f.id), strict=True):
        if mark == "phase" and not open_to_all and not (segment == state.segment and in_order_now):
            mark = ""
        cells.append({"segment": segment, "mark": mark, "symbol": MARK_SYMBOLS.get(mark, ""),
                      "label": MARK_LABELS.get(mark, "no phase"), "now": state.started and segment == state.segment,
                      "css": mark.replace(" ", "-")})
    return cells


def _row(state, f, gm: bool, seen: set[str]) -> dict:
    open_to_all = gm or f.side == "pc"
    row = {"key": f.id, "name": f.name, "pc": f.side == "pc", "numbers": open_to_all, "out": f.out,
           "floor": state.floor == f.id, "flags": _flags(state, f), "strip": _strip(state, f, open_to_all),
           "unseen": gm and f.side != "pc" and f.id not in seen}
    if open_to_all:
        row.update(spd=f.spd, dex=f.initiative_dex, stun=f.stun, stun_max=f.stun_max, body=f.body,
                   body_max=f.body_max, end=f.end, end_max=f.end_max, ocv=f.ocv, dcv=f.current_dcv, pd=f.pd, ed=f.ed,
                   con=f.con, rec=f.rec)
    return row


def _queue(state, gm: bool, seen: set[str]) -> list[dict]:
    """This segment's phases in acting order: done, now, or waiting."""
    out = []
    for index, fid in enumerate(state.order):
        f = state.fighter(fid)
        if not (gm or f.side == "pc" or fid in seen):
            continue
        mark = f.mark(state.segment)
        if index < state.cursor:
            status = MARK_LABELS.get(mark, "done")
        elif index == state.cursor and not state.acting:
            status = "acting now"
        elif index == state.cursor:
            status = "waiting for the held action"
        else:
            status = "waiting"
        out.append({"key": fid, "name": f.name, "status": status, "now": index == state.cursor,
                    "done": index < state.cursor, "dex": f.initiative_dex if gm or f.side == "pc" else None})
    return out


def public_view(encounter, state, gm: bool) -> dict:
    """The table for the GM (gm=True) or for every player: no per-user facts, no enemy numbers for players."""
    name = namer(state, gm)
    seen = seen_by_party(state.fighters)
    visible = [f for f in state.fighters if gm or f.side == "pc" or f.id in seen]
    holders = [{"key": f.id, "name": f.name, "held": _held_text(f.held)} for f in visible if f.held]
    view = {
        "started": state.started, "turn": state.turn, "segment": state.segment, "segments": SEGMENTS,
        "floor_name": name(state.floor) if state.floor else "", "on_held": bool(state.acting),
        "segment_done": state.started and not state.floor,
        "skipped": hero.segment_ranges(state.skipped) if state.skipped else "", "several_skipped": len(state.skipped) > 1,
        "rows": [_row(state, f, gm, seen) for f in visible], "queue": _queue(state, gm, seen), "holders": holders,
        "legend": [(MARK_SYMBOLS[k], v) for k, v in MARK_LABELS.items()],
        "outcome": hero.outcome(state if gm else as_players_know(state)),
    }
    if gm:
        view.update(_gm_view(state))
    return view


def _gm_view(state) -> dict:
    ties = []
    if state.started and state.settings.get("dex_ties") != "roll":
        for group in state.tied_groups():
            ties.append({"dex": state.fighter(group[0]).initiative_dex,
                         "members": [{"key": fid, "name": state.fighter(fid).name} for fid in group],
                         "places": [(n, PLACES[n - 1] if n <= len(PLACES) else f"No. {n}")
                                    for n in range(1, len(group) + 1)]})
    panel = None
    if state.floor:
        panel = _panel(state, state.fighter(state.floor), gm=True)
    contest = (state.settings.get("hold_collision") == "roll" and bool(state.active) and not state.acting)
    return {
        "ties": ties, "panel": panel, "contest": contest, "aborts": ABORTS,
        "entered_dice": bool(state.settings.get("entered_dice")),
        "everyone": [{"key": f.id, "name": f.name, "spd": f.spd, "no_recovery": f.no_recovery} for f in state.fighters],
        "abortable": [{"key": f.id, "name": f.name} for f in state.fighters
                      if not hero.abort_refusal(state, f.id)],
        "releasable": [{"key": f.id, "name": f.name, "held": _held_text(f.held)}
                       for f in state.fighters if f.held and not state.acting],
    }


# --- one combatant's controls (a player's phone, or the GM acting for anyone) ------------------------------------

def _actions_left(state, f) -> str:
    if state.floor != f.id:
        return ""
    if state.floor_halves:
        return "Half a phase left: one more half phase action, or an attack. Zero phase actions until then."
    return ("A full phase action, or two half phase actions (an attack is a half phase action that ends the "
            "phase). Zero phase actions any time before the phase ends.")


def _targets(state, f, gm: bool) -> list[dict]:
    out = []
    for t in state.fighters:
        if t.id == f.id or not (t.id in f.aware_of or t.side == f.side):
            continue
        hint = (f"hits on {hero.to_hit(f, t)} or less" if gm or t.side == "pc"
                else f"hits on 11 + OCV {f.ocv} − their DCV or less")  # an enemy's DCV is the GM's
        out.append({"key": t.id, "name": t.name, "hint": hint, "out": t.out})
    return out


def _panel(state, f, gm: bool) -> dict:
    on_floor = state.floor == f.id
    able = not f.knocked_out and not f.stunned
    off_phase = state.started and not on_floor
    refusal = hero.abort_refusal(state, f.id) if off_phase else ""
    can_hold = state.active == f.id and not state.acting and able
    next_phase = hero.phase_at(hero.next_phase_at(state, f.id)) if off_phase else ""
    if f.held is not None:
        abort_cost = "Aborting spends your held action."
    elif off_phase and not refusal:
        abort_cost = f"Aborting gives up your next phase ({next_phase})."
    else:
        abort_cost = ""
    return {
        "key": f.id, "name": f.name, "pc": f.side == "pc", "gm": gm,
        "spd": f.spd, "dex": f.initiative_dex, "ocv": f.ocv, "dcv": f.current_dcv, "pd": f.pd, "ed": f.ed,
        "stun": f.stun, "stun_max": f.stun_max, "body": f.body, "body_max": f.body_max, "end": f.end,
        "end_max": f.end_max, "rec": f.rec, "flags": _flags(state, f), "strip": _strip(state, f, True),
        "on_floor": on_floor and able, "on_held": on_floor and state.acting == f.id,
        "actions_left": _actions_left(state, f) if able else "",
        "can_full": on_floor and able and state.floor_halves == 0,
        "can_recover": on_floor and able and state.floor_halves == 0 and not f.no_recovery,
        "can_hold": can_hold, "half_used": can_hold and state.halves == 1,
        "hold_segments": [(s, str(s) if s > state.segment else f"{s} (turn {state.turn + 1})")
                          for s in hero.hold_segments(state, f.id)] if can_hold else [],
        "hold_dex_max": f.initiative_dex - 1,
        "held": _held_text(f.held), "can_release": f.held is not None and not state.acting,
        "abort_refusal": refusal, "aborts": ABORTS, "abort_cost": abort_cost, "can_abort": off_phase and not refusal,
        "targets": _targets(state, f, gm) if on_floor and able else [],
        "next_phase": next_phase, "started": state.started, "able": able,
        "entered_dice": bool(state.settings.get("entered_dice")),
    }


def private_view(encounter, state, user_id: int) -> dict:
    """One player's own characters and what each may do now; `your_turn` / `you_may_act` drive the banner."""
    mine = [_panel(state, f, gm=False) for f in state.pcs() if f.owner == user_id]
    return {"mine": mine, "actions": ACTIONS, "your_turn": any(p["on_floor"] for p in mine),
            "you_may_act": any(p["can_release"] and not p["on_floor"] for p in mine),
            "segment": state.segment, "turn": state.turn}


class HeroTable(Table):
    """The HERO System at the table (the builder needs nothing beyond the characters and the settings): this
    module's functions are its parts."""

    PERSISTS = ("STUN, BODY and END go back to the player characters' sheets; held actions and aborts end with the "
                "fight.")
    review = hero_review
    round_title = staticmethod(hero_review.round_title)
    section_title = staticmethod(hero_review.section_title)

    initial_state = staticmethod(initial_state)
    public_view = staticmethod(public_view)
    private_view = staticmethod(private_view)

    def facts(self, state, event, gm: bool):
        return hero_review.facts(state, event, gm=gm)  # what a player may see of a roll depends on the viewer
