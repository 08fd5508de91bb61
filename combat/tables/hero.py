"""The HERO System at the table: the speed chart strip, the segment's acting queue in DEX order, each phase's
actions on the phone, and aborts and held actions off-phase.

An enemy's numbers (SPD, DEX, OCV, DCV, PD, ED, STUN, BODY, END, REC) go into the GM's view model only. Players
see what the table sees of an enemy the party is aware of: its name, whether it is Stunned, knocked out or holding
an action, and the phases it has taken; never the phases it still has to come (they would give its SPD away).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from combat.rules import hero
from combat.rules.core import Sight, as_players_know
from combat.rules.hero import review as hero_review
from combat.tables.base import Table, fighters_from
from combat.tables.hero_extras import Extras, extras, offer_words, out_of_phase_words, waiting_words
from combat.tables.viewmodels import PrivateView, gm_only

SEGMENTS = tuple(range(1, 13))
MARK_LABELS = {
    "phase": "phase to come",
    "acted": "acted",
    "passed": "let the phase go by",
    "held": "held the action",
    "lost": "held action lost",
    "aborted": "aborted",
    "stunned": "spent recovering from Stunned",
    "knocked out": "knocked out",
    "awed": "awed by a Presence attack",
}
MARK_SYMBOLS = {
    "phase": "●",
    "acted": "✓",
    "passed": "–",
    "held": "H",
    "lost": "×",
    "aborted": "A",
    "stunned": "S",
    "knocked out": "KO",
    "awed": "P",
}
ACTIONS = (("half", "Half phase action"), ("full", "Full phase action"), ("zero", "Zero phase action"))
PLACES = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth")
ABORTS = tuple((k, v) for k, v in hero.DEFENSIVE.items() if k != "other")


# --- building and starting ------------------------------------------------------------------------------


def initial_state(engine, encounter, combatants):
    return engine.initial_state(fighters_from(engine, combatants), encounter.settings)


# --- the view models --------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Named:
    """A combatant in a list of choices."""

    key: str
    name: str


@dataclass(frozen=True, kw_only=True)
class Cell:
    """One segment of a combatant's speed chart strip."""

    segment: int
    mark: str
    symbol: str
    label: str
    now: bool
    css: str


@dataclass(frozen=True, kw_only=True)
class Row:
    """A combatant on the speed chart. `numbers`: the row carries them (a PC's, or any on the GM's chart);
    an enemy's row on the players' chart leaves them None."""

    key: str
    name: str
    pc: bool
    numbers: bool
    out: bool
    floor: bool
    flags: tuple[str, ...]
    strip: tuple[Cell, ...]
    spd: int | None = None
    dex: int | None = None
    stun: int | None = None
    stun_max: int | None = None
    body: int | None = None
    body_max: int | None = None
    end: int | None = None
    end_max: int | None = None
    ocv: int | None = None
    dcv: int | None = None
    pd: int | None = None
    ed: int | None = None
    con: int | None = None
    rec: int | None = None


@dataclass(frozen=True, kw_only=True)
class GmRow(Row):
    unseen: bool = gm_only(False)  # no PC is aware of it
    stunned: bool = gm_only(False)  # the GM's quick edits toggle these
    no_recovery: bool = gm_only(False)


@dataclass(frozen=True, kw_only=True)
class QueueRow:
    """A phase in this segment's acting order; `dex` None for an enemy on the players' table."""

    key: str
    name: str
    status: str
    now: bool
    done: bool
    dex: int | None


@dataclass(frozen=True, kw_only=True)
class Holder:
    key: str
    name: str
    held: str


@dataclass(frozen=True, kw_only=True)
class PlayersTable:
    """The table every player sees: the PCs' numbers, of an enemy in sight what the table sees, no one unseen."""

    started: bool
    turn: int
    segment: int
    segments: tuple[int, ...]
    floor_name: str
    on_held: bool
    segment_done: bool
    skipped: str
    several_skipped: bool
    rows: tuple[Row, ...]
    queue: tuple[QueueRow, ...]
    holders: tuple[Holder, ...]
    legend: tuple[tuple[str, str], ...]
    outcome: str
    waiting_on: str  # holders whose moment has come, whom the phase in order waits for


@dataclass(frozen=True, kw_only=True)
class Tie:
    """Characters tied on DEX for the GM to order: `places` are (1, "First"), (2, "Second")..."""

    dex: int
    members: tuple[Named, ...]
    places: tuple[tuple[int, str], ...]


@dataclass(frozen=True, kw_only=True)
class SpdRow:
    key: str
    name: str
    spd: int
    no_recovery: bool


@dataclass(frozen=True, kw_only=True)
class Target:
    key: str
    name: str
    hint: str  # what the attack roll needs; against an enemy a player's hint leaves its DCV out
    out: bool


@dataclass(frozen=True, kw_only=True)
class Panel:
    """One combatant's sheet and everything it may do now: a player's own PC, or on the GM's screen whoever has
    the floor (`gm`)."""

    key: str
    name: str
    pc: bool
    gm: bool
    spd: int
    dex: int
    ocv: int
    dcv: int
    pd: int
    ed: int
    stun: int
    stun_max: int
    body: int
    body_max: int
    end: int
    end_max: int
    rec: int
    flags: tuple[str, ...]
    strip: tuple[Cell, ...]
    on_floor: bool
    on_held: bool
    actions_left: str
    can_full: bool
    can_recover: bool
    can_hold: bool
    half_used: bool
    hold_segments: tuple[tuple[int, str], ...]
    hold_dex_max: int
    held: str
    can_release: bool
    abort_refusal: str
    aborts: tuple[tuple[str, str], ...]
    abort_cost: str
    can_abort: bool
    targets: tuple[Target, ...]
    foes: tuple[Target, ...]  # the targets a simple attack is for (enemies in sight still standing), default first
    next_phase: str
    started: bool
    able: bool
    entered_dice: bool
    extras: Extras


@dataclass(frozen=True, kw_only=True)
class GmTable(PlayersTable):
    """The GM's table: every combatant with its numbers, unseen ones too, and the GM's controls."""

    floor_name: str = gm_only("")  # an unseen enemy's name too
    rows: tuple[GmRow, ...] = gm_only(())
    queue: tuple[QueueRow, ...] = gm_only(())  # with every DEX
    holders: tuple[Holder, ...] = gm_only(())
    outcome: str = gm_only("")  # counting enemies the party has not seen
    ties: tuple[Tie, ...] = gm_only(())
    panel: Panel | None = gm_only(None)
    contest: bool = gm_only(False)
    aborts: tuple[tuple[str, str], ...] = gm_only(())
    entered_dice: bool = gm_only(False)
    everyone: tuple[SpdRow, ...] = gm_only(())
    abortable: tuple[Named, ...] = gm_only(())
    releasable: tuple[Holder, ...] = gm_only(())
    offered: tuple[Holder, ...] = gm_only(())  # the moment came: act now or keep holding


@dataclass(frozen=True, kw_only=True)
class HeroPrivate(PrivateView):
    mine: tuple[Panel, ...]
    actions: tuple[tuple[str, str], ...]
    segment: int
    turn: int
    waiting: str = ""  # off-phase: who acts and what the table waits for
    out_of_phase: str = ""  # off-phase: what this player may still do, in words
    offered: str = ""  # one of this player's holds has its moment: "Act now"


# --- what everyone sees -------------------------------------------------------------------------------------


def _held_text(held, sight: Sight | None = None) -> str:
    """The hold in words; a trigger on someone this viewer (`sight`) may not know of is "something happens"."""
    if held is None:
        return ""
    trigger = "something happens" if held.on and sight and sight.unseen(held.whom) else held.trigger
    until = {
        "dex": f"until DEX {held.dex}",
        "segment": f"until segment {hero.turn_and_segment(held.at)[1]}",
        "trigger": f"until {trigger}",
        "": "until they choose",
    }[held.until]
    return ("half a phase held " if held.half else "holding ") + until


def _flags(state, f, sight: Sight) -> tuple[str, ...]:
    out = []
    if f.knocked_out:
        out.append("knocked out")
    elif f.body <= 0:
        out.append("dying")
    if f.stunned:
        out.append("Stunned")
    if f.presence:
        out.append({2: "very impressed", 3: "awed", 4: "cowed"}[f.presence])
    if f.held:
        out.append(_held_text(f.held, sight))
    if f.forfeit:
        out.append("aborted: the next phase is spent")
    if f.id in state.recovering:
        out.append("taking a Recovery")
    if f.no_recovery:
        out.append("no free recoveries")
    return tuple(out)


def _strip(state, f, open_to_all: bool) -> tuple[Cell, ...]:
    """Twelve cells, one a segment. For an enemy on a player's screen, phases still to come stay blank."""
    cells = []
    in_order_now = f.id in state.order
    for segment, mark in zip(SEGMENTS, state.strip(f.id), strict=True):
        if mark == "phase" and not open_to_all and not (segment == state.segment and in_order_now):
            mark = ""
        cells.append(
            Cell(
                segment=segment,
                mark=mark,
                symbol=MARK_SYMBOLS.get(mark, ""),
                label=MARK_LABELS.get(mark, "no phase"),
                now=state.started and segment == state.segment,
                css=mark.replace(" ", "-"),
            )
        )
    return tuple(cells)


def _numbers(f) -> dict[str, int]:
    return dict(
        spd=f.spd,
        dex=f.initiative_dex,
        stun=f.stun,
        stun_max=f.stun_max,
        body=f.body,
        body_max=f.body_max,
        end=f.end,
        end_max=f.end_max,
        ocv=f.ocv,
        dcv=f.current_dcv,
        pd=f.pd,
        ed=f.ed,
        con=f.con,
        rec=f.rec,
    )


def _row(state, f, sight: Sight, players: Sight) -> Row:
    """A players' row (numbers for PCs only), or on the GM's chart (sight.gm) a GmRow with every number and
    whether the party (`players`' sight) is aware of the combatant."""
    open_to_all = not sight.secret(f.id)
    facts = dict(
        key=f.id,
        name=f.name,
        pc=f.side == "pc",
        numbers=open_to_all,
        out=f.out,
        floor=state.floor == f.id,
        flags=_flags(state, f, sight),
        strip=_strip(state, f, open_to_all),
        **(_numbers(f) if open_to_all else {}),
    )
    if sight.gm:
        return GmRow(**facts, unseen=players.unseen(f.id), stunned=f.stunned, no_recovery=f.no_recovery)
    return Row(**facts)


def _queue(state, sight: Sight) -> tuple[QueueRow, ...]:
    """This segment's phases in acting order: done, now, or waiting."""
    out = []
    for index, fid in enumerate(state.order):
        f = state.fighter(fid)
        if sight.unseen(fid):
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
        out.append(
            QueueRow(
                key=fid,
                name=f.name,
                status=status,
                now=index == state.cursor,
                done=index < state.cursor,
                dex=None if sight.secret(fid) else f.initiative_dex,
            )
        )
    return tuple(out)


def public_view(encounter, state, gm: bool) -> PlayersTable:
    """The table for the GM (gm=True: a GmTable) or for every player: no per-user facts, no enemy numbers for
    players."""
    sight, players = Sight(state.fighters, gm), Sight(state.fighters, gm=False)
    visible = [f for f in state.fighters if sight.visible(f.id)]
    facts = dict(
        started=state.started,
        turn=state.turn,
        segment=state.segment,
        segments=SEGMENTS,
        floor_name=sight.name(state.floor) if state.floor else "",
        on_held=bool(state.acting),
        segment_done=state.started and not state.floor,
        skipped=hero.segment_ranges(state.skipped) if state.skipped else "",
        several_skipped=len(state.skipped) > 1,
        rows=tuple(_row(state, f, sight, players) for f in visible),
        queue=_queue(state, sight),
        holders=tuple(Holder(key=f.id, name=f.name, held=_held_text(f.held, sight)) for f in visible if f.held),
        legend=tuple((MARK_SYMBOLS[k], v) for k, v in MARK_LABELS.items()),
        outcome=hero.outcome(state if gm else as_players_know(state)),
        waiting_on=", ".join(sight.name(fid) for fid in state.offers if sight.visible(fid)),
    )
    if gm:
        return GmTable(**facts, **_gm_controls(state))
    return PlayersTable(**facts)


def _gm_controls(state) -> dict[str, Any]:
    """The GmTable's fields beyond the chart: the GM's controls and the panel of whoever has the floor."""
    ties = []
    if state.started and state.settings.get("dex_ties") != "roll":
        for group in state.tied_groups():
            ties.append(
                Tie(
                    dex=state.fighter(group[0]).initiative_dex,
                    members=tuple(Named(key=fid, name=state.fighter(fid).name) for fid in group),
                    places=tuple(
                        (n, PLACES[n - 1] if n <= len(PLACES) else f"No. {n}") for n in range(1, len(group) + 1)
                    ),
                )
            )
    panel = None
    if state.floor:
        panel = _panel(state, state.fighter(state.floor), gm=True)
    contest = state.settings.get("hold_collision") == "roll" and bool(state.active) and not state.acting
    return {
        "ties": tuple(ties),
        "panel": panel,
        "contest": contest,
        "aborts": ABORTS,
        "entered_dice": bool(state.settings.get("entered_dice")),
        "everyone": tuple(SpdRow(key=f.id, name=f.name, spd=f.spd, no_recovery=f.no_recovery) for f in state.fighters),
        "abortable": tuple(Named(key=f.id, name=f.name) for f in state.fighters if not hero.abort_refusal(state, f.id)),
        "releasable": tuple(
            Holder(key=f.id, name=f.name, held=_held_text(f.held))
            for f in state.fighters
            if f.held and not state.acting and f.id not in state.offers and not hero.release_refusal(state, f)
        ),
        "offered": tuple(
            Holder(key=f.id, name=f.name, held=offer_words(state, f)) for f in state.fighters if f.id in state.offers
        ),
    }


# --- one combatant's controls (a player's phone, or the GM acting for anyone) ------------------------------------


def _actions_left(state, f) -> str:
    if state.floor != f.id:
        return ""
    if state.floor_halves:
        return "Half a phase left: one more half phase action, or an attack. Zero phase actions until then."
    return (
        "A full phase action, or two half phase actions (an attack is a half phase action that ends the "
        "phase). Zero phase actions any time before the phase ends."
    )


def _targets(state, f, sight: Sight) -> tuple[Target, ...]:
    out = []
    for t in state.fighters:
        if t.id == f.id or not (t.id in f.aware_of or t.side == f.side):
            continue
        hint = (
            f"hits on {hero.to_hit(f, t)} or less"
            if not sight.secret(t.id)
            else f"hits on 11 + OCV {f.ocv} − their DCV or less"
        )  # an enemy's DCV is the GM's
        out.append(Target(key=t.id, name=t.name, hint=hint, out=t.out))
    return tuple(out)


def _panel(state, f, gm: bool) -> Panel:
    on_floor = state.floor == f.id and not (state.offers and not state.acting)  # an offered hold goes first
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
    targets = _targets(state, f, Sight(state.fighters, gm)) if on_floor and able else ()
    return Panel(
        key=f.id,
        name=f.name,
        pc=f.side == "pc",
        gm=gm,
        spd=f.spd,
        dex=f.initiative_dex,
        ocv=f.ocv,
        dcv=f.current_dcv,
        pd=f.pd,
        ed=f.ed,
        stun=f.stun,
        stun_max=f.stun_max,
        body=f.body,
        body_max=f.body_max,
        end=f.end,
        end_max=f.end_max,
        rec=f.rec,
        flags=_flags(state, f, Sight(state.fighters, gm)),
        strip=_strip(state, f, True),
        on_floor=on_floor and able,
        on_held=on_floor and state.acting == f.id,
        actions_left=_actions_left(state, f) if able else "",
        can_full=on_floor and able and state.floor_halves == 0,
        can_recover=on_floor and able and state.floor_halves == 0 and not f.no_recovery,
        can_hold=can_hold,
        half_used=can_hold and state.halves == 1,
        hold_segments=tuple(
            (s, str(s) if s > state.segment else f"{s} (turn {state.turn + 1})")
            for s in hero.hold_segments(state, f.id)
        )
        if can_hold
        else (),
        hold_dex_max=f.initiative_dex - 1,
        held=_held_text(f.held),
        can_release=f.held is not None and not state.acting and not hero.release_refusal(state, f),
        abort_refusal=refusal,
        aborts=ABORTS,
        abort_cost=abort_cost,
        can_abort=off_phase and not refusal,
        targets=targets,
        foes=tuple(t for t in targets if not t.out and state.fighter(t.key).side != f.side),
        next_phase=next_phase,
        started=state.started,
        able=able,
        entered_dice=bool(state.settings.get("entered_dice")),
        extras=extras(state, f, gm),
    )


def private_view(encounter, state, user_id: int) -> HeroPrivate:
    """One player's own characters and what each may do now; `your_turn` / `you_may_act` drive the banner."""
    mine = tuple(_panel(state, f, gm=False) for f in state.pcs() if f.owner == user_id)
    your_turn = any(p.on_floor for p in mine)
    return HeroPrivate(
        mine=mine,
        actions=ACTIONS,
        your_turn=your_turn,
        you_may_act=any(p.can_release and not p.on_floor for p in mine),
        segment=state.segment,
        turn=state.turn,
        waiting="" if your_turn or not mine else waiting_words(state, mine),
        out_of_phase="" if your_turn else out_of_phase_words(mine),
        offered=" ".join(p.extras.offered for p in mine if p.extras.offered),
    )


class HeroTable(Table):
    """The HERO System at the table (the builder needs nothing beyond the characters and the settings): this
    module's functions are its parts."""

    PERSISTS = (
        "STUN, BODY and END go back to the player characters' sheets; held actions and aborts end with the fight."
    )
    review = hero_review
    ME_FIRST = True
    round_title = staticmethod(hero_review.round_title)
    section_title = staticmethod(hero_review.section_title)

    initial_state = staticmethod(initial_state)
    public_view = staticmethod(public_view)
    private_view = staticmethod(private_view)

    def facts(self, state, event, gm: bool):
        return hero_review.facts(state, event, gm=gm)  # what a player may see of a roll depends on the viewer

    def fallen(self, state) -> list[str]:
        return [f.id for f in state.fighters if f.out]  # knocked out or at 0 BODY
