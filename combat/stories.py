"""Each character's story and the fight's highlights on the review page (issue 20).

Built from a `combat.review.Review`, so only from what its viewer may read: the review already leaves out GM-only
entries, unseen enemies and the figures a player may not know (`Summary.hidden`), and a model's `health(state, gm)`
gives only the numbers its viewer may know. A story adds to the summary's counts the hits and misses and healing
(the `hits`, `misses`, `healing` keys of a model's `Facts.extra`), the conditions suffered (what a model's
`conditions(state, gm)` says each combatant has, counted each time one is gained), the turns taken and the real time
they took (from `EncounterEvent.created_at`: a turn lasts from the event that began it to its last event). HERO has
no one's turn: its characters' "turns" are the phases they act in (its facts' `floor`), each from the event that
opened it to the character's last event in it. SW5e's crews take their own turns inside their ship's (its facts'
`acting`): each crew turn counts as one of the crew member's turns, from its start to its end.

Every summary row gets a story, enemies' included; the page shows an enemy's card only to a viewer who reads the
whole log (the GM, or players once the GM revealed it), since its hits, healing and conditions are the GM's.

Highlights link to their moment in the replay (combat.replay's numbers: the log's seq for whoever reads the whole
log, 1, 2, 3 … over a player's entries). Luck needs odds: the rolls whose facts carry their exact `chance`
(combat.rules.odds; none for a player where the target number is the GM's to know) have a luckiest and unluckiest;
without one the page says why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import median

from combat import replay
from combat.models import Encounter, EncounterEvent
from combat.review import Review, Step, Summary

NO_ODDS = "No roll in this fight was a check with odds you may know, so there is no luckiest or unluckiest roll."


@dataclass
class Story:
    summary: Summary
    turns: int | None = None  # None: the model has no one's turn (HERO's phases are in its figures)
    hits: int = 0
    misses: int = 0
    healing: int = 0
    turn_seconds: list[float] = field(default_factory=list)
    conditions: dict[str, int] = field(default_factory=dict)  # condition -> how often it was gained

    @property
    def conditions_text(self) -> str:
        """ "Stunned ×2, Prone", "none": the conditions suffered in words, in the order first gained."""
        return ", ".join(name if n == 1 else f"{name} ×{n}" for name, n in self.conditions.items()) or "none"

    @property
    def median_seconds(self) -> float | None:
        return median(self.turn_seconds) if self.turn_seconds else None

    @property
    def longest_seconds(self) -> float | None:
        return max(self.turn_seconds) if self.turn_seconds else None


@dataclass(frozen=True)
class Highlight:
    title: str
    text: str
    moment: int | None  # the replay's moment number (`?at=`)


@dataclass
class Stories:
    cards: list[Story]
    highlights: list[Highlight]
    no_luck: str  # why there is no luckiest or unluckiest roll ("" when there is one)


def build(encounter: Encounter, review: Review, numbers: dict[int, int] | None = None) -> Stories:
    """`numbers`: each replay moment's number by its log seq, if the caller has them (replay.Replay.numbers)."""
    if numbers is None:
        numbers = {m.seq: m.number for m in replay.moments(encounter, review.show_all)[0]}
    spans = _turn_spans(review.steps)
    has_turns = any(turn for turn, _ in spans)
    times = _turn_times(encounter, spans) if has_turns else _phase_times(encounter, review.steps)
    crews = _crew_turns(review.steps)
    for who, seconds in _crew_times(encounter, crews).items():
        times.setdefault(who, []).extend(seconds)
    suffered = _conditions(review)
    cards = []
    for s in review.summaries:
        own = sum(1 for turn, _ in spans if turn == s.key) + sum(1 for who, _ in crews if who == s.key)
        story = Story(s, turns=own if has_turns else None)
        story.turn_seconds = times.get(s.key, [])
        story.conditions = suffered.get(s.key, {})
        for step in review.steps:
            if step.facts.actor == s.key:
                extra = step.facts.extra
                story.hits += extra.get("hits", 0)
                story.misses += extra.get("misses", 0)
                story.healing += extra.get("healing", 0)
        cards.append(story)
    highlights = [
        h
        for h in (
            _biggest_hit(review, numbers),
            _closest_call(review, numbers),
            *_luck(review, numbers),
            _swing(review, numbers, spans),
        )
        if h is not None
    ]
    return Stories(cards, highlights, "" if _against_odds(review) else NO_ODDS)


def _turn_spans(steps: list[Step]) -> list[tuple[str, list[Step]]]:
    """[(whose turn, [steps])]: runs of consecutive steps of the same round, phase and `turn` (facts tell the turn
    as it was just before their event, so the event that began a turn is the last of the run before it). HERO has
    no one's turn: its runs are its segments."""
    spans: list[tuple[str, list[Step]]] = []
    where = None
    for step in steps:
        f = step.facts
        if spans and where == (f.round, f.phase, f.turn):
            spans[-1][1].append(step)
        else:
            spans.append((f.turn, [step]))
        where = (f.round, f.phase, f.turn)
    return spans


def _turn_times(encounter: Encounter, spans: list[tuple[str, list[Step]]]) -> dict[str, list[float]]:
    """{whose turn: [seconds each of their turns took]}: from the event before the turn's first one (the one that
    began it) to the turn's last event."""
    starts = {}
    previous = None
    for turn, steps in spans:
        if turn and previous is not None:
            starts[turn, steps[0].seq] = (previous, steps[-1].seq)
        previous = steps[-1].seq
    when = _times_of(encounter, {seq for pair in starts.values() for seq in pair})
    times: dict[str, list[float]] = {}
    for (turn, _), (begun, last) in starts.items():
        if begun in when and last in when:
            times.setdefault(turn, []).append((when[last] - when[begun]).total_seconds())
    return times


def _crew_turns(steps: list[Step]) -> list[tuple[str, list[Step]]]:
    """[(crew member, [steps])]: runs of consecutive steps while one crew member takes their own turn (SW5e's facts'
    `acting`, set from the event that starts it); none in a model without crews."""
    runs: list[tuple[str, list[Step]]] = []
    where = None
    for step in steps:
        f = step.facts
        acting = getattr(f, "acting", "")
        if acting and runs and where == (f.round, f.turn, acting):
            runs[-1][1].append(step)
        elif acting:
            runs.append((acting, [step]))
        where = (f.round, f.turn, acting)
    return runs


def _crew_times(encounter: Encounter, runs: list[tuple[str, list[Step]]]) -> dict[str, list[float]]:
    """{crew member: [seconds each of their turns took]}: from the event that started it to its last event."""
    when = _times_of(encounter, {seq for _, steps in runs for seq in (steps[0].seq, steps[-1].seq)})
    times: dict[str, list[float]] = {}
    for who, steps in runs:
        first, last = steps[0].seq, steps[-1].seq
        if first in when and last in when:
            times.setdefault(who, []).append((when[last] - when[first]).total_seconds())
    return times


def _phase_times(encounter: Encounter, steps: list[Step]) -> dict[str, list[float]]:
    """{character: [seconds each phase they acted in took]} for a model without anyone's turn (HERO): a run of steps
    while one character has the floor (their phase, or their released held action) lasts from the step before it
    (the event that gave them the floor) to their own last event in it; a phase interrupted by a held action adds up
    its runs. A run in which the character took no action (a phase spent Stunned, one let go by) is no phase they
    acted in."""
    runs: list[tuple[tuple[int, int, str], list[Step]]] = []
    for step in steps:
        f = step.facts
        where = (f.round, f.phase, getattr(f, "floor", ""))
        if runs and runs[-1][0] == where:
            runs[-1][1].append(step)
        else:
            runs.append((where, [step]))
    pieces: dict[tuple[int, int, str], list[tuple[int, int]]] = {}
    previous = None
    for where, run in runs:
        own = [step for step in run if where[2] and step.facts.actor == where[2]]
        if any(step.facts.action for step in own) and previous is not None:
            pieces.setdefault(where, []).append((previous, own[-1].seq))
        previous = run[-1].seq
    when = _times_of(encounter, {seq for pairs in pieces.values() for pair in pairs for seq in pair})
    times: dict[str, list[float]] = {}
    for (_, _, who), pairs in pieces.items():
        if all(begun in when and last in when for begun, last in pairs):
            times.setdefault(who, []).append(sum((when[last] - when[begun]).total_seconds() for begun, last in pairs))
    return times


def _times_of(encounter: Encounter, seqs: set[int]) -> dict:
    """{seq: created_at} of those log entries (one query)."""
    return dict(EncounterEvent.objects.filter(encounter_id=encounter.pk, seq__in=seqs).values_list("seq", "created_at"))


def _conditions(review: Review) -> dict[str, dict[str, int]]:
    """{combatant: {condition: how often gained}}: each step's conditions after it against those before it, as the
    model's `conditions(state, gm)` gives them to this viewer (only the events this viewer reads count)."""
    module = review.table.review
    read = getattr(module, "conditions", None) if module else None
    if read is None:
        return {}
    seen: dict[int, dict[str, dict[str, int]]] = {}  # consecutive steps share a state: read each once

    def of(state) -> dict[str, dict[str, int]]:
        if id(state) not in seen:
            seen.clear()
            seen[id(state)] = read(state, review.show_all)
        return seen[id(state)]

    out: dict[str, dict[str, int]] = {}
    for step in review.steps:
        before = of(step.before)
        for key, now in of(step.after).items():
            for name, level in now.items():
                gained = level - before.get(key, {}).get(name, 0)
                if gained > 0:
                    out.setdefault(key, {})[name] = out.get(key, {}).get(name, 0) + gained
    return out


def in_units(n: int, unit: str) -> str:
    """ "1 Health Level", "3 Health Levels": a unit's name is given in the plural."""
    return f"{n} {unit[:-1] if n == 1 and unit.endswith('s') else unit}"


def _name(review: Review, key: str) -> str | None:
    return review.fighters.get(key) or next((s.name for s in review.summaries if s.key == key), None)


@dataclass(frozen=True)
class Hit:
    amount: int
    source: str  # names, as this viewer knows them
    target: str
    seq: int


def biggest_hit(review: Review) -> Hit | None:
    """The largest damage one event dealt, between two combatants this viewer may name (the first, on a tie)."""
    best: Hit | None = None
    for step in review.steps:
        for source, target, amount in step.facts.damage:
            if amount > 0 and (best is None or amount > best.amount):
                who, whom = _name(review, source), _name(review, target)
                if who and whom:
                    best = Hit(amount, who, whom, step.seq)
    return best


def _biggest_hit(review: Review, numbers: dict[int, int]) -> Highlight | None:
    hit = biggest_hit(review)
    if hit is None:
        return None
    text = f"{hit.source} hit {hit.target} for {in_units(hit.amount, review.table.damage_unit)}."
    return Highlight("The biggest hit", text, numbers.get(hit.seq))


def _health(review: Review, state) -> dict[str, int]:
    module = review.table.review
    return module.health(state, review.show_all) if module and hasattr(module, "health") else {}


def _closest_call(review: Review, numbers: dict[int, int]) -> Highlight | None:
    """The lowest health anyone came down to and still stood at the end."""
    if not review.steps:
        return None
    standing = {key for key, value in _health(review, review.steps[-1].after).items() if value > 0}
    best: tuple[int, Step, str] | None = None
    for step in review.steps:
        before = _health(review, step.before)
        for key, value in _health(review, step.after).items():
            dropped = value < before.get(key, value)
            if key in standing and dropped and _name(review, key) and (best is None or value < best[0]):
                best = (value, step, key)
    if best is None:
        return None
    value, step, key = best
    unit = getattr(review.table.review, "HEALTH_UNIT", "health")
    text = f"{_name(review, key)} came down to {in_units(value, unit)} and was still standing at the end."
    return Highlight("The closest call", text, numbers.get(step.seq))


def _against_odds(review: Review) -> list[tuple[float, bool | None, Step]]:
    """(chance, succeeded, step) of every roll with odds this viewer may know, by someone they may name."""
    return [
        (r.chance, r.succeeded, step)
        for step in review.steps
        for r in step.facts.rolls
        if r.counted and r.chance is not None and _name(review, step.facts.actor)
    ]


def _luck(review: Review, numbers: dict[int, int]) -> Iterable[Highlight]:
    """The success least likely and the failure most likely, by the exact chance the engine knew."""
    rolls = _against_odds(review)
    won = [(chance, step) for chance, ok, step in rolls if ok]
    lost = [(chance, step) for chance, ok, step in rolls if ok is False]
    if won:
        chance, step = min(won, key=lambda pair: pair[0])
        text = f"{_name(review, step.facts.actor)} succeeded against {_a(chance)} chance."
        yield Highlight("The luckiest roll", text, numbers.get(step.seq))
    if lost:
        chance, step = max(lost, key=lambda pair: pair[0])
        text = f"{_name(review, step.facts.actor)} failed with a {chance:.0%} chance of success."
        yield Highlight("The unluckiest roll", text, numbers.get(step.seq))


def _a(chance: float) -> str:
    """ "a 62%", "an 83%", "an 11%": the article as the percentage is spoken."""
    percent = f"{chance:.0%}"
    spoken_with_a_vowel = percent.startswith("8") or percent in ("11%", "18%")
    return f"{'an' if spoken_with_a_vowel else 'a'} {percent}"


def _swing(review: Review, numbers: dict[int, int], spans: list[tuple[str, list[Step]]]) -> Highlight | None:
    """The turn (or, without turns, the span of the log) in which one side lost the most health to damage."""
    sides = {s.key: s.side for s in review.summaries}
    best: tuple[int, str, list[Step]] | None = None
    for _, steps in spans:
        lost: dict[str, int] = {}
        for step in steps:
            for _, target, amount in step.facts.damage:
                if target in sides:
                    lost[sides[target]] = lost.get(sides[target], 0) + amount
        for side, amount in lost.items():
            if amount > 0 and (best is None or amount > best[0]):
                best = (amount, side, steps)
    if best is None:
        return None
    amount, side, steps = best
    first = steps[0].facts
    where = review.table.section_title(first.phase, first.turn, review.fighters)
    who = "the player characters" if side == "pc" else "their opponents"
    lost = in_units(amount, review.table.damage_unit)
    text = f"{review.table.round_title(first.round)}, {where}: {who} lost {lost} in all."
    return Highlight("The turn that swung the fight", text, numbers.get(steps[0].seq))
