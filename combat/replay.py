"""The review's replay: the table as it was at one moment of the log, for one viewer.

A moment is a log entry the viewer may read. Its number (the `?at=` of its URL) is the entry's seq in the log,
for every viewer, so a link the GM shares opens the same moment for players; a player's steps go through the seqs
they may read, and a seq they may not read shows their latest moment at or before it (never the hidden entry).
A seq tells a player nothing new: their live table already carries the encounter's version. The table of a moment
is the state after every live event up to its entry (undone ones never happened), drawn by the model's own table
partial for the viewer's audience, with no controls and no live updates.

The state is read from the newest checkpoint at or before the entry (combat.models.LogCheckpoint, one per 100
events) and at most 99 events are replayed after it, never the whole log. Jumping round by round replays from a
checkpoint before the previous round to the start of the next one.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, replace

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from combat import selectors, tables
from combat.models import Encounter, EncounterEvent, LogCheckpoint
from combat.review import may_see_gm_only
from combat.rules.core import MARKER_SENTENCES, WORDING, Undone, from_json, is_marker
from combat.store import engine_for, load_initial, load_log
from combat.tables.viewmodels import LogEntry, context


@dataclass(frozen=True)
class Moment:
    number: int  # as the URL names it: the log's seq, for every viewer
    seq: int  # the log's own


@dataclass(frozen=True)
class Replay:
    moment: Moment
    entry: LogEntry  # the moment's entry in the viewer's words
    index: int  # the moment's place among the viewer's, from 1
    count: int
    first: int  # moment numbers to step to; None where there is nowhere to go
    last: int
    previous: int | None
    next: int | None
    round: int
    round_title: str
    round_back: int | None  # the start of this round, or of the one before if this is its start
    round_on: int | None  # the start of the next round
    table: SafeString
    notice: str  # why the moment asked for is not the one shown ("" if it is)
    numbers: dict[int, int]  # every moment's number by its log seq (the review's highlights link to them)


def moments(encounter: Encounter, show_all: bool) -> tuple[list[Moment], dict[int, LogEntry]]:
    """The viewer's moments in log order, and the entries already put into words ({seq: entry}: none when the
    log's words are stored, since only the few shown are read, by `words`). One query over the log's seqs; a
    log with rows not worded under the current wording (old, or imported) is worded by replaying it."""
    rows = EncounterEvent.objects.filter(encounter_id=encounter.pk)
    if not show_all:
        rows = rows.exclude(audience="gm").exclude(wording=WORDING, players_text="")
    found = list(rows.order_by("seq").values_list("seq", "wording"))
    if all(wording == WORDING for _, wording in found):
        seqs = [seq for seq, _ in found]
        known: dict[int, LogEntry] = {}
    else:
        entries = selectors.log_view(encounter, show_all, limit=max(encounter.version, 1))
        seqs, known = [e.seq for e in reversed(entries)], {e.seq: e for e in entries}
    return [Moment(seq, seq) for seq in seqs], known


def words(encounter: Encounter, show_all: bool, seqs: list[int], undone: set[int]) -> dict[int, LogEntry]:
    """The entries at `seqs` in their stored words, for the viewer."""
    column = "gm_text" if show_all else "players_text"
    rows = EncounterEvent.objects.filter(encounter_id=encounter.pk, seq__in=seqs)
    return {
        seq: LogEntry(seq, text, seq in undone and kind not in MARKER_SENTENCES, audience == "gm")
        for seq, kind, audience, text in rows.values_list("seq", "kind", "audience", column)
    }


def _undone(encounter: Encounter) -> set[int]:
    rows = EncounterEvent.objects.filter(encounter_id=encounter.pk, kind=Undone.kind)
    return {seq for payload in rows.values_list("payload", flat=True) for seq in payload["data"]["seqs"]}


def _base(encounter: Encounter, engine, seq: int, below_round: int | None = None):
    """(seq, state) to replay from for `seq`: the newest checkpoint at or before it (whose round is below
    `below_round`, if given), else the initial state (0)."""
    rows = LogCheckpoint.objects.filter(encounter_id=encounter.pk, seq__lte=seq).order_by("-seq")
    for at, data in rows.values_list("seq", "state").iterator(chunk_size=10):
        state = from_json(engine.State, data)
        if below_round is None or state.round < below_round:
            return at, state
    return 0, load_initial(encounter)


WALK_READ = 200  # events read at a time when walking on: a walk that stops early reads no more than this past it


def _walk(encounter: Encounter, engine, undone: set[int], after: int, state, until: int | None = None):
    """(seq, state after it) for every live event after `after` up to `until` (the log's end if None), replayed
    from `state`, read a few hundred at a time."""
    end = encounter.version if until is None else until
    while after < end:
        upto = min(end, after + WALK_READ)
        for item in load_log(encounter, after=after, until=upto):
            if not is_marker(item.event) and item.seq not in undone:
                state = engine.evolve(state, item.event)
            yield item.seq, state
        after = upto


def state_at(encounter: Encounter, seq: int, undone: set[int] | None = None):
    """The state after every live event up to `seq`: from a checkpoint, never a replay of the whole log."""
    engine = engine_for(encounter)
    undone = _undone(encounter) if undone is None else undone
    after, start = _base(encounter, engine, seq)
    walked = list(_walk(encounter, engine, undone, after, start, until=seq))  # at most 99 events
    return walked[-1][1] if walked else start


def _round_starts(encounter: Encounter, undone: set[int], seq: int, now: int) -> dict[int, int]:
    """{round: seq of the event that began it} for the round before `now` (the round at `seq`), `now` and the
    next one, where they exist in the log."""
    engine = engine_for(encounter)
    after, start = _base(encounter, engine, seq, below_round=now - 1)
    starts: dict[int, int] = {}
    for at, state in _walk(encounter, engine, undone, after, start):
        if state.round not in starts:
            starts[state.round] = at
        if state.round > now:
            break
    return starts


def build(
    encounter: Encounter, is_gm: bool, at: str | None, players_only: bool = False, entry: str | None = None
) -> Replay | None:
    """The replay at the moment `at` asks for (a log seq; the last moment if absent), for a GM's or a player's
    eyes; None before anything happened. A seq this viewer may not read (or between two of theirs) shows their
    moment before it. `entry` (the slider's, when there is no `at`): the moment's place among the viewer's, from 1,
    so a player's slider never stops on a seq hidden from them."""
    show_all = may_see_gm_only(encounter, is_gm) and not players_only  # a share link: what players see in play
    shown, known = moments(encounter, show_all)
    if not shown:
        return None
    notice, index = "", len(shown) - 1
    if at in (None, "") and entry not in (None, ""):
        try:
            index = min(max(int(entry), 1), len(shown)) - 1
        except (TypeError, ValueError):
            notice = "That is not a moment of this log; here is its last one."
    elif at not in (None, ""):
        try:
            wanted = int(at)
        except (TypeError, ValueError):
            wanted, notice = shown[-1].number, "That is not a moment of this log; here is its last one."
        index = max([i for i, m in enumerate(shown) if m.number <= wanted] or [0])
    moment = shown[index]
    undone = _undone(encounter)
    state = state_at(encounter, moment.seq, undone)
    starts = _round_starts(encounter, undone, moment.seq, state.round)
    at = [m.seq for m in shown]

    def first_from(seq: int | None) -> int | None:
        """The first moment at or after the event `seq` (that event may be hidden from this viewer)."""
        i = bisect_left(at, seq) if seq is not None else len(at)
        return shown[i].number if i < len(at) else None

    this_round = first_from(starts.get(state.round))
    round_back = this_round if this_round is not None and this_round < moment.number else None
    if round_back is None:
        round_back = first_from(starts.get(state.round - 1))
    round_on = first_from(starts.get(state.round + 1))
    table = tables.get(encounter.model)
    ended = encounter.status == Encounter.Status.ENDED and index == len(shown) - 1
    recent = [m.seq for m in shown[max(0, index + 1 - selectors.LOG_LIMIT) : index + 1]]
    entries = {**words(encounter, show_all, [s for s in recent if s not in known], undone), **known}
    log = tuple(entries[s] for s in reversed(recent))  # the table's log: the moment's entry first
    shared = replace(selectors.shared_view(encounter, is_gm, log), replay=True, ended=ended)
    html = render_to_string(f"{table.template}#table", context(shared, table.public_view(encounter, state, is_gm)))
    return Replay(
        moment=moment,
        entry=log[0],
        index=index + 1,
        count=len(shown),
        first=shown[0].number,
        last=shown[-1].number,
        previous=shown[index - 1].number if index else None,
        next=shown[index + 1].number if index + 1 < len(shown) else None,
        round=state.round,
        round_title=table.round_title(state.round),
        round_back=round_back,
        round_on=round_on if round_on is not None and round_on > moment.number else None,
        table=mark_safe(html),  # noqa: S308  (rendered by the model's own template, escaped there)
        notice=notice,
        numbers={m.seq: m.number for m in shown},
    )
