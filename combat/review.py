"""The after-action review of one encounter for one viewer: timeline, per-character summary, chart data.

Built by replaying the log once. GM-only entries reach a player only when the GM has revealed the log
after the encounter ended.

What is the model's own comes from its table (combat.tables.base.Table): `facts(state, event, gm) -> Facts` (the
state just before the event; pure functions beside its rules, in its `review` module), `figures` ((key, label,
GM-only) for the model's own columns, each an attribute of its Facts or a key of `Facts.extra`), `subjects(state,
gm)` -> [(key, name, side)] (the summary's rows: every fighter by default, SW5e's ships and crews), and
`round_title(n)` / `section_title(phase, turn, names)` for the timeline's headings. A table without a `review`
module gives no facts: the timeline is there, with no figures.

Unseen enemies (an enemy whose id is in no PC's `aware_of`) never reach a player who may not see GM-only entries:
whatever a model's `subjects` returns, their rows are left out of the summary and the character filter, so no
figure is counted for them either; the timeline leaves them out or unnamed as the model's `describe` does. An enemy
revealed during the fight (a `Revealed` event) gets its row from then on.

A Facts object may carry `hidden` ((subject, figure key), ...): figures of a subject this viewer may not know all of
(a hit on an enemy whose damage is the GM's to know). The summary then says so ("hidden", or "3 + hidden"), never
a 0 the viewer would take for the truth, and the damage chart says it leaves hidden damage out.

A Facts object may carry `credits` ((subject, figure key, amount), ...) for figures owed to someone other than
its actor (HERO's STUN taken by an attack's target). A Facts object has `round, phase, turn, actor, action, rolls,
damage, extra`; each roll has `sides, faces, succeeded, doubles, entered`, `counted` (False for a reroll of one
die), `complexity` (Burn Bryte's chart; 0 elsewhere) and `chance`: the exact chance of success before the dice fell
(combat.rules.odds, Burn Bryte's no-doubles chance), None for a roll that neither succeeds nor fails and, for a
player, where the target number is the GM's to know. A model's review module may also give `conditions(state, gm)`
({combatant: {condition: level}}, what combat.stories counts as conditions suffered) and `secret_figures(state,
gm)` ({combatant: figure keys}: the pools this viewer may never know of a combatant, an enemy's Fortune or END),
which the summary marks hidden from the start to the end of the fight, so a player reads "hidden", never a 0.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from combat import tables
from combat.models import Encounter, EncounterEvent
from combat.rules import free_roll
from combat.rules.core import MARKER_SENTENCES, Revealed, Sight, active_events, is_marker
from combat.store import engine_for, load_initial, load_log


@dataclass
class Entry:
    seq: int
    kind: str
    text: str
    round: int
    phase: int
    turn: str
    actor: str
    undone: bool
    gm_only: bool
    dice: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)


@dataclass
class Summary:
    key: str
    name: str
    side: str
    actions: int = 0
    rolls: int = 0
    successes: int = 0
    failures: int = 0
    doubles: int = 0
    damage_dealt: int = 0
    damage_taken: int = 0
    figures: dict[str, int] = field(default_factory=dict)
    hidden: set[str] = field(default_factory=set)  # the figures some of which this viewer may not know

    COLUMNS = ("actions", "rolls", "successes", "failures", "doubles", "damage_dealt", "damage_taken")

    @property
    def cells(self) -> list[tuple[int, bool]]:
        """(value as this viewer knows it, whether some of it is hidden from them), column by column: the
        summary's own columns, then the model's figures."""
        own = [(getattr(self, key), key in self.hidden) for key in self.COLUMNS]
        return own + [(value, key in self.hidden) for key, value in self.figures.items()]


@dataclass(frozen=True)
class Step:
    """One live event this viewer may read, with its facts and the state around it (combat.stories reads these)."""

    seq: int
    facts: object
    before: object
    after: object


@dataclass
class Review:
    entries: list[Entry]
    summaries: list[Summary]
    faces: dict[int, Counter]  # die size -> face counts (live rolls only)
    damage_by_round: dict[int, int]
    by_complexity: dict[int, tuple[int, int, float]]  # complexity -> (rolls, successes, expected successes)
    model_figures: tuple[tuple[str, str], ...]
    fighters: dict[str, str]
    damage_hidden: bool  # some damage this viewer may not know of is left out of the damage chart
    kinds: list[str]
    table: tables.Table  # the model's table, for the timeline's headings
    steps: list[Step] = field(default_factory=list)  # the live events this viewer reads, in log order
    show_all: bool = True  # the viewer reads the whole log (the replay's moment numbers are seqs)

    @property
    def has_hidden(self) -> bool:
        return any(s.hidden for s in self.summaries)


def may_see_gm_only(encounter: Encounter, is_gm: bool) -> bool:
    return is_gm or (encounter.status == Encounter.Status.ENDED and encounter.log_revealed)


def unseen(state) -> set[str]:
    """The ids of the enemies no PC is aware of (an id in no PC's `aware_of`): what players never see named.

    Empty for a model whose fighters do not track awareness (SW5e's crews)."""
    sight = Sight(state.fighters, gm=False)
    return {f.id for f in state.fighters if sight.unseen(f.id)}


def _subjects_for(table: tables.Table, show_all: bool) -> Callable[[object], list[tuple[str, str, str]]]:
    """state -> [(key, name, side)] as this viewer may see them: the table's `subjects`, and for players never an
    unseen enemy, whatever the table returns."""

    def subjects(state) -> list[tuple[str, str, str]]:
        rows = table.subjects(state, gm=show_all)
        if show_all:
            return rows
        hidden = unseen(state)
        return [row for row in rows if row[0] not in hidden]

    return subjects


def build(encounter: Encounter, is_gm: bool, players_only: bool = False, reader: int | None = None) -> Review:
    """`reader`: the user id of the player it is for: their own free rolls that other players do not read (to the
    GM, or for themself) are in their timeline, in their phone's words."""
    engine = engine_for(encounter)
    table = tables.get(encounter.model)
    show_all = may_see_gm_only(encounter, is_gm) and not players_only  # a share link: what players see in play
    log = load_log(encounter)
    live = {item.seq for item in active_events(log)}
    state = load_initial(encounter)
    subjects = _subjects_for(table, show_all)
    summaries = {key: Summary(key, name, side) for key, name, side in subjects(state)}
    figures = tuple((key, label) for key, label, gm_only in table.figures if show_all or not gm_only)

    def add_rows(state) -> None:
        """A row for every subject this viewer may see in `state`: for players, an enemy joins when revealed."""
        for key, name, side in subjects(state):
            if key not in summaries:
                summaries[key] = Summary(key, name, side, figures={key: 0 for key, _ in figures})

    for s in summaries.values():
        s.figures = {key: 0 for key, _ in figures}
    _mark_secret(table, state, show_all, summaries)
    entries: list[Entry] = []
    faces: dict[int, Counter] = defaultdict(Counter)
    damage_by_round: dict[int, int] = defaultdict(int)
    complexity: dict[int, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    steps: list[Step] = []
    own = reader is not None and not show_all and not players_only  # a share link is no one's own
    own_rolls = _own_rolls(encounter, reader) if own and reader is not None else set()
    for item in log:
        event = item.event
        if is_marker(event):
            entries.append(
                Entry(
                    item.seq,
                    event.kind,
                    MARKER_SENTENCES[event.kind],
                    state.round,
                    state.phase,
                    state.turn,
                    "",
                    False,
                    False,
                )
            )
            continue
        counted = item.seq in live
        try:
            text = engine.describe(state, event, gm=show_all)
            f = table.facts(state, event, gm=show_all)
        except Exception:  # an undone entry may refer to something the replayed state no longer has
            text, f = event.kind.replace("_", " ").capitalize() + ".", None
        gm_only = event.audience == "gm"
        shown = text is not None and (show_all or not gm_only)
        if isinstance(event, free_roll.DiceRolled) and f is not None:
            readable = event.show == "all" or (event.show == "gm" and show_all)
            f = free_roll.review_facts(f, event, dice=readable or item.seq in own_rolls)
            if not shown and item.seq in own_rolls:  # the reader's own hidden roll: theirs alone to read
                text = free_roll.own_sentence(event, doubles=encounter.model == "burn_bryte")
                entries.append(_entry(item.seq, event, text, f, not counted))
        if shown:
            entries.append(
                Entry(
                    item.seq,
                    event.kind,
                    text,
                    f.round if f else state.round,
                    f.phase if f else state.phase,
                    f.turn if f else state.turn,
                    f.actor if f else "",
                    not counted,
                    gm_only,
                    [(r.sides, r.faces) for r in f.rolls] if f else [],
                )
            )
        if counted and f is not None and shown:  # the charts add up only what this viewer can read
            _count(f, summaries, faces, damage_by_round, complexity)
        if counted:
            before, state = state, engine.evolve(state, event)
            if f is not None and shown:
                steps.append(Step(item.seq, f, before, state))
            if isinstance(event, Revealed) and not show_all:
                add_rows(state)
    _mark_secret(table, state, show_all, summaries)
    by_complexity = {c: (int(n), int(ok), exp) for c, (n, ok, exp) in sorted(complexity.items())}
    damage_hidden = any(key in s.hidden for s in summaries.values() for key in ("damage_dealt", "damage_taken"))
    return Review(
        entries=entries,
        summaries=list(summaries.values()),
        faces=dict(faces),
        damage_by_round=dict(sorted(damage_by_round.items())),
        by_complexity=by_complexity,
        model_figures=figures,
        damage_hidden=damage_hidden,
        fighters={key: name for key, name, _ in subjects(state)},
        kinds=sorted({e.kind for e in entries}),
        table=table,
        steps=steps,
        show_all=show_all,
    )


def _own_rolls(encounter: Encounter, reader: int) -> set[int]:
    """The seqs of `reader`'s own free rolls other players do not read (one query)."""
    rows = EncounterEvent.objects.filter(
        encounter_id=encounter.pk, kind=free_roll.DiceRolled.kind, audience="gm", actor_id=reader
    )
    return set(rows.values_list("seq", flat=True))


def _entry(seq: int, event, text: str, f, undone: bool) -> Entry:
    """The timeline's entry of a roll only its roller (and perhaps the GM) reads, for its roller."""
    dice = [(r.sides, r.faces) for r in f.rolls]
    return Entry(seq, event.kind, text, f.round, f.phase, f.turn, f.actor, undone, True, dice)


def _mark_secret(table: tables.Table, state, show_all: bool, summaries: dict[str, Summary]) -> None:
    """Mark hidden the figures the model's `secret_figures` says this viewer may never know."""
    read = getattr(table.review, "secret_figures", None) if table.review else None
    if read is None:
        return
    for key, keys in read(state, show_all).items():
        if key in summaries:
            summaries[key].hidden.update(k for k in keys if k in summaries[key].figures)


def _count(f, summaries, faces, damage_by_round, complexity) -> None:
    actor = summaries.get(f.actor)
    if actor is not None:
        actor.actions += int(f.action)
        for key in actor.figures:
            actor.figures[key] += getattr(f, key, None) or f.extra.get(key, 0)
    for roll in f.rolls:
        faces[roll.sides].update(roll.faces)
        if roll.counted and actor is not None:  # a reroll of one die is not a new roll
            actor.rolls += 1
            actor.successes += int(bool(roll.succeeded))
            actor.failures += int(roll.succeeded is False)
            actor.doubles += int(roll.doubles)
            if roll.complexity and roll.chance is not None:
                bucket = complexity[roll.complexity]
                bucket[0] += 1
                bucket[1] += int(bool(roll.succeeded))
                bucket[2] += roll.chance
    for subject, key in getattr(f, "hidden", ()):
        if subject in summaries:
            summaries[subject].hidden.add(key)
    for subject, key, amount in getattr(f, "credits", ()):
        if subject in summaries and key in summaries[subject].figures:
            summaries[subject].figures[key] += amount
    rescued = f.extra.get("rescued")
    if rescued and actor is not None:  # an Advantage reroll turned a failed roll into a success
        actor.successes += 1
        actor.failures -= 1
        complexity[rescued][1] += 1
    for source, target, amount in f.damage:
        if source in summaries:
            summaries[source].damage_dealt += amount
        if target in summaries:
            summaries[target].damage_taken += amount
        damage_by_round[f.round] += amount


def filtered(review: Review, fighter: str = "", kind: str = "") -> list[Entry]:
    return [
        e
        for e in review.entries
        if (not fighter or e.actor == fighter or e.turn == fighter) and (not kind or e.kind == kind)
    ]


def grouped(
    entries: list[Entry], names: dict[str, str], table: tables.Table
) -> list[tuple[str, list[tuple[str, list[Entry]]]]]:
    """[(round title, [(phase or turn title, entries)])] in log order, headed as the model's table says."""
    rounds: dict[int, dict[str, list[Entry]]] = {}
    for e in entries:
        rounds.setdefault(e.round, {}).setdefault(table.section_title(e.phase, e.turn, names), []).append(e)
    return [(table.round_title(r), list(phases.items())) for r, phases in rounds.items()]
