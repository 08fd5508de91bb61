"""What one viewer may see of an encounter. Templates render these view models only, so a player's page
or frame cannot contain a GM-only fact: it is never put into the player's view model."""

from __future__ import annotations

import secrets

from django.db.models import Case, F, When

from campaigns.models import Character, Membership
from combat import tables
from combat.models import Encounter, EncounterEvent
from combat.rules.burn_bryte.stats import SKILLS
from combat.rules.core import MARKER_SENTENCES, WORDING, Undone, active_events, from_json, sentence
from combat.rules.free_roll import DiceRolled, own_sentence
from combat.store import engine_for, load_initial, load_log
from combat.tables.viewmodels import GmShared, LogEntry, PrivateView, Shared, context

LOG_LIMIT = 30  # entries on the live table's log
LOG_WINDOW = 4 * LOG_LIMIT  # entries put into words to find them (some may be hidden from the viewer)


def encounters_for(membership: Membership):
    qs = Encounter.objects.filter(campaign=membership.campaign)
    if not membership.is_gm:
        qs = qs.exclude(status=Encounter.Status.DRAFT)
    return qs


def shared_view(encounter: Encounter, gm: bool, log: tuple[LogEntry, ...] = ()) -> Shared:
    """What every audience's view of the table carries (see viewmodels.Shared); a GM's also the campaign's and the
    NPCs' notes."""
    version = encounter.version if gm else encounter.players_version
    common = {
        "encounter": encounter,
        "gm": gm,
        "ended": encounter.status == Encounter.Status.ENDED,
        "version": version,
        "form_key": f"{encounter.pk}-{version}-{secrets.token_urlsafe(9)}",
        "log": log,
    }
    if not gm:
        return Shared(**common)
    return GmShared(**common, campaign_notes=encounter.campaign.gm_notes, npc_notes=_npc_notes(encounter))


def public_view(encounter: Encounter, state, gm: bool, log=None, replayed=None, start=None, tail=None) -> dict:
    """The template context of everything on the table for the GM (gm=True) or for every player (gm=False): the
    model table's typed view and the shared part. No per-user facts. `log`, `start`, `replayed`, `tail`: see
    log_view."""
    entries = tuple(log_view(encounter, gm, log=log, replayed=replayed, start=start, tail=tail))
    return context(shared_view(encounter, gm, entries), tables.get(encounter.model).public_view(encounter, state, gm))


def _npc_notes(encounter: Encounter) -> tuple[tuple[str, str], ...]:
    """GM notes of the NPC kinds in this encounter (GM view only)."""
    rows = (
        Character.objects.filter(combatants__encounter=encounter, kind=Character.Kind.NPC)
        .exclude(gm_notes="")
        .distinct()
        .values_list("name", "gm_notes")
    )
    return tuple(rows)


def private_view(encounter: Encounter, state, user_id: int, rolls: dict[int, tuple[str, ...]] | None = None) -> dict:
    """The template context of one player's own sheet and controls (the model table's typed private view), with
    the dice roller's part: whom they roll for and their own rolls no other player reads (`rolls`: hidden_rolls,
    if the caller has read them for every player already)."""
    rolls = hidden_rolls(encounter) if rolls is None else rolls
    mine = tuple((f.id, f.name) for f in state.pcs() if f.owner == user_id)
    roller = {
        "roll_as": mine or (("", "yourself"),),  # a player with no PC here rolls in their own name
        "own_rolls": rolls.get(user_id, ()),
        "roll_skills": roll_skills(encounter, state, user_id),
    }
    # The model's private view is a PrivateView too: the roller's part goes last so its defaults do not win.
    return context(
        PrivateView(),
        shared_view(encounter, gm=False),
        tables.get(encounter.model).private_view(encounter, state, user_id),
        roller,
    )


def roll_skills(encounter: Encounter, state, user_id: int) -> tuple[str, ...]:
    """The skills a Burn Bryte player rolls `k+1` dice for (those of their PCs, in the sheet's order); none
    elsewhere. The phone sends the name; the server works out the dice (free_roll.decide_free_roll)."""
    if encounter.model != "burn_bryte":
        return ()
    held = {skill for f in state.pcs() if f.owner == user_id for skill in f.skills}
    return tuple(skill for skill in SKILLS if skill in held)


OWN_ROLLS = 5  # a player's own hidden rolls shown in their dice fold
HIDDEN_ROLLS_READ = 200  # the newest hidden rolls read to find every player's five


def hidden_rolls(encounter: Encounter) -> dict[int, tuple[str, ...]]:
    """Each user's newest free rolls that other players do not read (to the GM, or for themself), in the words for
    their roller, undone ones left out: {user id: sentences, newest first}. One query (two if there are any); only
    each user's own view shows their own, so no one else sees them."""
    if encounter.status == Encounter.Status.DRAFT:
        return {}
    rows = EncounterEvent.objects.filter(encounter_id=encounter.pk)
    hidden = rows.filter(kind=DiceRolled.kind, audience="gm", actor_id__isnull=False).order_by("-seq")
    found = list(hidden.values_list("seq", "actor_id", "payload")[:HIDDEN_ROLLS_READ])
    if not found:
        return {}
    undone = {
        s for data in rows.filter(kind=Undone.kind).values_list("payload", flat=True) for s in data["data"]["seqs"]
    }
    out: dict[int, tuple[str, ...]] = {}
    for seq, user_id, payload in found:
        mine = out.get(user_id, ())
        if seq not in undone and len(mine) < OWN_ROLLS:
            out[user_id] = (*mine, own_roll(encounter, from_json(DiceRolled, payload["data"])))
    return out


def own_roll(encounter: Encounter, event: DiceRolled) -> str:
    """A roll other players do not read, in its roller's words (Burn Bryte's skill rolls fail on doubles: its
    rolls say whether they show any)."""
    return own_sentence(event, doubles=encounter.model == "burn_bryte")


def log_view(
    encounter: Encounter, gm: bool, limit: int | None = LOG_LIMIT, log=None, replayed=None, start=None, tail=None
) -> list[LogEntry]:
    """The log as sentences, newest first; undone entries are kept and marked; GM-only ones only for GMs.

    The newest `limit` entries this viewer may read, in the words stored with them (one query). Should one of
    them have none (written before entries were worded, or imported), the log is worded by replaying it: only
    the newest entries, each against the state just before it. `log` may be the whole log or a tail of it
    (services.load_log_tail), `start` the state before its first entry (None: the encounter's initial state);
    given a `log`, it is always worded by replaying; `tail`, a function returning (start, log), is called only
    if a replay is needed. The replayed states do not depend on the audience: pass the same dict as `replayed`
    to word the log for several audiences and it is replayed once. Should the tail hold too few entries this
    viewer may see, the whole log is read and worded."""
    if encounter.status == Encounter.Status.DRAFT:
        return []
    if log is None and limit:
        entries = _stored(encounter, gm, limit)
        if entries is not None:
            return entries
        if tail is not None:
            start, log = tail()
    engine = engine_for(encounter)
    if log is None:
        log, start = load_log(encounter), None
    replayed = {} if replayed is None else replayed
    window = len(log) if not limit else min(len(log), 4 * limit)
    live = {item.seq for item in active_events(log)}
    while True:
        first = len(log) - window
        if (start is None, first) not in replayed:
            replayed[start is None, first] = _replay_from(engine, encounter, log, live, first, start)
        entries = _describe_tail(engine, log, live, gm, first, replayed[start is None, first])
        if not limit or len(entries) >= limit:
            return entries[:limit] if limit else entries
        if window < len(log):
            window = len(log)  # many hidden entries at the end: word all that was read
        elif start is not None:
            log, start = load_log(encounter), None  # and if a tail was not enough, the whole log
            window = len(log)
            live = {item.seq for item in active_events(log)}
        else:
            return entries


def _stored(encounter: Encounter, gm: bool, limit: int) -> list[LogEntry] | None:
    """The newest `limit` entries the viewer may read, in their stored words; None if one has none stored under the
    current rules.core.WORDING.

    Whether an entry is undone is told by the Undone marker that took it back, which is always newer than the
    entry and read by every viewer, so it is among the rows read whenever the entry is."""
    words = "gm_text" if gm else "players_text"
    rows = EncounterEvent.objects.filter(encounter_id=encounter.pk)
    if not gm:  # not the GM's alone, and not known (under the current wording) to say nothing to players
        rows = rows.exclude(audience="gm").exclude(wording=WORDING, players_text="")
    rows = (
        rows.annotate(
            words=Case(When(wording=WORDING, then=F(words))), marker=Case(When(kind=Undone.kind, then=F("payload")))
        )
        .order_by("-seq")
        .values_list("seq", "kind", "audience", "words", "marker")[:limit]
    )
    if any(text is None for _, _, _, text, _ in rows):
        return None
    undone = {seq for _, kind, _, _, marker in rows if kind == Undone.kind for seq in marker["data"]["seqs"]}
    return [_entry(seq, text, kind, audience, seq in undone) for seq, kind, audience, text, _ in rows]


def _replay_from(engine, encounter, log, live, first, start=None) -> list:
    """The state just before each log entry from index `first` on (undone entries change nothing), replaying
    from `start`, the state before log[0] (None: the initial state)."""
    state = load_initial(encounter) if start is None else start
    states = []
    for index, item in enumerate(log):
        if index >= first:
            states.append(state)
        if item.seq in live:  # markers are never live
            state = engine.evolve(state, item.event)
    return states


def _describe_tail(engine, log, live, gm, first, states) -> list[LogEntry]:
    entries = []
    for item, state in zip(log[first:], states, strict=True):
        text = sentence(engine.describe, state, item.event, gm)
        if text:
            entries.append(_entry(item.seq, text, item.event.kind, item.event.audience, item.seq not in live))
    entries.reverse()
    return entries


def _entry(seq: int, text: str, kind: str, audience: str, not_live: bool) -> LogEntry:
    return LogEntry(seq=seq, text=text, undone=not_live and kind not in MARKER_SENTENCES, gm_only=audience == "gm")
