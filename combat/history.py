"""The campaign's history for one member: every fight by game session with its outcome, totals per player character
over the fights, dice luck over the campaign against fair dice, and each session's recap in Markdown.

Everything comes from combat.review.build, fight by fight, for this viewer: a figure hidden from them in a fight
stays hidden in the totals ("hidden", or "3 + hidden"), never a 0; the dice they may not see are not counted; an
enemy they never saw is never named among the fallen.

What the page needs of one fight for one audience (the GM's, or players') is kept in Django's cache under the
encounter's version: a finished fight's log never changes, so the page replays only the fights it has not seen at
their current version, and reads the rest in one cache call, however many fights the campaign has.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.core.cache import cache
from django.utils import timezone

from campaigns.models import GameSession, Membership
from combat import charts, review, selectors, store, stories, tables
from combat.markdown import literal as _md
from combat.models import Combatant, Encounter

log = logging.getLogger(__name__)


@dataclass
class Fight:
    encounter: Encounter
    outcome: str
    rounds: int
    fallen: list[str]  # the names of those down at the end, as this viewer knows them
    biggest: stories.Hit | None = None  # the fight's biggest hit, as this viewer may know it
    unit: str = "damage"  # what its damage counts (the model's unit: Health Levels, BODY …)


@dataclass
class Total:
    """One player character's figures added up over the fights this viewer may see: [value, some hidden]."""

    name: str
    fights: int = 0
    cells: list[list] = field(default_factory=lambda: [[0, False] for _ in review.Summary.COLUMNS])


@dataclass
class SessionPart:
    session: GameSession | None  # None: the fights outside any session
    fights: list[Fight]
    recap: str  # Markdown, "" outside a session


@dataclass
class Seen:
    """What the History needs of one fight as one audience sees it (from combat.review.build)."""

    faces: dict[int, Counter]
    summaries: list[review.Summary]
    fighters: dict[str, str]
    rounds: int
    down: list[str]  # the ids of those down at the end (the table's `fallen`)
    biggest: stories.Hit | None  # the fight's biggest hit, as this audience may know it


@dataclass
class History:
    parts: list[SessionPart]
    totals: list[Total]
    luck: list[charts.Chart]

    @property
    def has_hidden(self) -> bool:
        return any(hidden for t in self.totals for _, hidden in t.cells)


def _encounters(membership: Membership):
    """The fights this member may read, newest first (a draft is not a fight yet)."""
    return (
        selectors.encounters_for(membership)
        .exclude(status=Encounter.Status.DRAFT)
        .select_related("session")
        .order_by("-created_at")
    )


def session_recap(membership: Membership, session: GameSession) -> str:
    """One session's recap in Markdown for this member (the "Download recap" of the History page)."""
    return _recap(session, list(_encounters(membership).filter(session=session)), membership.is_gm)


def recap_of(encounter: Encounter, gm: bool) -> str:
    """The recap of the session `encounter` was fought in, for the GM's eyes or a player's ("" for a fight outside
    any session): what a member would download from the History page (an encounter's Markdown export ends with it)."""
    if encounter.session is None:
        return ""
    fights = Encounter.objects.filter(campaign_id=encounter.campaign_id, session=encounter.session)
    fights = fights.exclude(status=Encounter.Status.DRAFT).select_related("session").order_by("-created_at")
    return _recap(encounter.session, list(fights), gm)


def _recap(session: GameSession, encounters: list[Encounter], gm: bool) -> str:
    seen = _seen(encounters, gm)
    return recap_markdown(session, [_fight(e, seen[e.pk], gm) for e in encounters])


def build(membership: Membership) -> History:
    gm = membership.is_gm
    encounters = list(_encounters(membership))
    characters = _pc_identities(encounters)
    totals: dict[str, Total] = {}
    faces: dict[int, Counter] = defaultdict(Counter)
    groups: dict[GameSession | None, list[Fight]] = {}
    seen_by_fight = _seen(encounters, gm)
    for encounter in encounters:
        seen = seen_by_fight[encounter.pk]
        for sides, counts in seen.faces.items():
            faces[sides].update(counts)
        for summary in seen.summaries:
            identity = characters.get((encounter.pk, summary.key))
            if identity is not None:
                _add(totals.setdefault(identity[0], Total(identity[1])), summary)
        groups.setdefault(encounter.session, []).append(_fight(encounter, seen, gm))
    ordered = sorted((s for s in groups if s is not None), key=lambda s: s.starts_at, reverse=True)
    parts = [SessionPart(s, groups[s], recap_markdown(s, groups[s])) for s in ordered]
    if None in groups:
        parts.append(SessionPart(None, groups[None], ""))
    return History(parts, sorted(totals.values(), key=lambda t: t.name), charts.dice_faces(dict(faces)))


SEEN_FOR = 24 * 3600  # seconds a fight's figures stay in the cache unread (a new version is a new key)


def _seen(encounters: list[Encounter], gm: bool) -> dict[int, Seen]:
    """{encounter id: what this audience sees of it}: from the cache in one call, the fights missing there (new
    since, or their log grew or was revealed) replayed by combat.review.build and kept for the next reader."""

    def key(encounter: Encounter) -> str:
        audience = "all" if review.may_see_gm_only(encounter, gm) else "players"
        made = int(encounter.created_at.timestamp() * 1e6)  # an id SQLite gives again after a delete is not enough
        return f"history-seen:v2:{encounter.pk}:{made}:{encounter.version}:{audience}"

    keys = {encounter.pk: key(encounter) for encounter in encounters}
    try:
        found = cache.get_many(keys.values())
    except Exception:  # the cache (Redis) is down: replay them all, slower but right
        log.warning("cache unavailable; the History replays every fight", exc_info=True)
        found = {}
    seen, missing = {}, {}
    for encounter in encounters:
        if keys[encounter.pk] in found:
            seen[encounter.pk] = found[keys[encounter.pk]]
            continue
        built = review.build(encounter, is_gm=gm)
        down = tables.get(encounter.model).fallen(store.load_state(encounter)) if encounter.state else []
        rounds = max((e.round for e in built.entries), default=0)
        seen[encounter.pk] = missing[keys[encounter.pk]] = Seen(
            dict(built.faces), built.summaries, built.fighters, rounds, down, stories.biggest_hit(built)
        )
    if missing:
        try:
            cache.set_many(missing, SEEN_FOR)
        except Exception:  # the cache is a speed-up: the next reader replays them again
            log.warning("cache unavailable; the History's fights are not kept", exc_info=True)
    return seen


def _pc_identities(encounters: list[Encounter]) -> dict[tuple[int, str], tuple[str, str]]:
    """(encounter id, key in its state) -> (identity, name) of every player character: the same campaign character
    across fights, or by name for a PC made for one fight."""
    rows = Combatant.objects.filter(encounter__in=encounters, side=Combatant.Side.PC).select_related("character")
    return {
        (c.encounter_id, c.key): (f"c{c.character_id}", c.character.name) if c.character else (f"n{c.name}", c.name)
        for c in rows
    }


def _add(total: Total, summary: review.Summary) -> None:
    total.fights += 1
    for cell, (value, hidden) in zip(total.cells, summary.cells, strict=False):  # the shared columns only
        cell[0] += value
        cell[1] = cell[1] or hidden


def _fight(encounter: Encounter, seen: Seen, gm: bool) -> Fight:
    return Fight(
        encounter=encounter,
        outcome=encounter.outcome_for(gm),
        rounds=seen.rounds,
        fallen=[seen.fighters[key] for key in seen.down if key in seen.fighters],  # only whom this viewer may see
        biggest=seen.biggest,
        unit=tables.get(encounter.model).damage_unit,
    )


def recap_markdown(session: GameSession, fights: list[Fight]) -> str:
    """The session's recap, ready to paste into a group chat: its fights, oldest first, its highlights (the biggest
    hit and who fell), and the GM's recap notes (Markdown of their own, kept as typed). Names are escaped: a name
    is never markup. Built from each fight's review for its reader, so a player's recap names no enemy they never
    saw and shows no number that is the GM's to know."""
    when = timezone.localtime(session.starts_at)
    lines = [f"# {_md(session.title)} ({when.day} {when:%b %Y})", ""]
    oldest_first = list(reversed(fights))
    if fights:
        lines += ["## Fights", ""]
    for f in oldest_first:
        rounds = f"{f.rounds} round{'' if f.rounds == 1 else 's'}"
        fell = "Fell: " + ", ".join(_md(name) for name in f.fallen) + "." if f.fallen else "Nobody fell."
        lines.append(
            f"- **{_md(f.encounter.name)}** ({_md(f.encounter.combat_model.name)}): {_md(f.outcome)} after {rounds}. "
            + fell
        )
    if fights:
        lines += ["", "## Highlights", "", *_highlights(oldest_first)]
    if session.recap.strip():
        lines += ["", "## Notes", "", session.recap.strip()]
    return "\n".join(lines) + "\n"


def _highlights(fights: list[Fight]) -> list[str]:
    """The session's biggest hit (one for each unit its fights' models count damage in: 30 hull points and 3 BODY
    do not compare) and everyone who fell, with the fight it happened in."""
    lines = []
    best: dict[str, tuple[stories.Hit, Fight]] = {}
    for f in fights:
        if f.biggest and (f.unit not in best or f.biggest.amount > best[f.unit][0].amount):
            best[f.unit] = (f.biggest, f)
    for unit, (hit, f) in best.items():
        lines.append(
            f"- The biggest hit: {_md(hit.source)} hit {_md(hit.target)} for {stories.in_units(hit.amount, unit)} "
            f"({_md(f.encounter.name)})."
        )
    fell = [f"{_md(name)} ({_md(f.encounter.name)})" for f in fights for name in f.fallen]
    lines.append("- Who fell: " + ", ".join(fell) + "." if fell else "- Nobody fell.")
    return lines
