"""What one viewer may see of an encounter. Templates render these view models only, so a player's page
or frame cannot contain a GM-only fact: it is never put into the player's view model."""

from __future__ import annotations

from campaigns.models import Membership
from combat import tables
from combat.models import Encounter
from combat.rules.core import MARKER_SENTENCES, active_events, is_marker
from combat.services import engine_for, load_initial, load_log


def encounters_for(membership: Membership):
    qs = Encounter.objects.filter(campaign=membership.campaign)
    if not membership.is_gm:
        qs = qs.exclude(status=Encounter.Status.DRAFT)
    return qs


def _base(encounter: Encounter) -> dict:
    return {"encounter": encounter, "ended": encounter.status == Encounter.Status.ENDED,
            "version": encounter.version}


def public_view(encounter: Encounter, state, gm: bool, log=None, replayed=None) -> dict:
    """Everything on the table for the GM (gm=True) or for every player (gm=False). No per-user facts.

    The model's table builds its part; the log and, for GMs, the campaign's and NPCs' notes are the same for
    every model. `replayed`: a dict shared by the views of one render (see log_view), so the log is replayed
    once."""
    view = {**_base(encounter), "gm": gm, **tables.get(encounter.model).public_view(encounter, state, gm),
            "log": log_view(encounter, gm, log=log, replayed=replayed)}
    if gm:
        view.update(campaign_notes=encounter.campaign.gm_notes, npc_notes=_npc_notes(encounter))
    return view


def _npc_notes(encounter: Encounter) -> list[tuple[str, str]]:
    """GM notes of the NPC kinds in this encounter (GM view only)."""
    from campaigns.models import Character

    rows = (Character.objects.filter(combatants__encounter=encounter, kind=Character.Kind.NPC)
            .exclude(gm_notes="").distinct().values_list("name", "gm_notes"))
    return list(rows)


def private_view(encounter: Encounter, state, user_id: int) -> dict:
    """One player's own sheet and controls; `your_turn` and `you_may_act` drive the banner and vibration."""
    return {**_base(encounter), "your_turn": False, "you_may_act": False,
            **tables.get(encounter.model).private_view(encounter, state, user_id)}


def log_view(encounter: Encounter, gm: bool, limit: int | None = 30, log=None, replayed=None) -> list[dict]:
    """The log as sentences, newest first; undone entries are kept and marked; GM-only ones only for GMs.

    The whole log is replayed (cheap), but only the newest entries are put into words. The replayed states
    do not depend on the audience: pass the same dict as `replayed` to word the log for several audiences
    and it is replayed once."""
    if encounter.status == Encounter.Status.DRAFT:
        return []
    engine = engine_for(encounter)
    log = load_log(encounter) if log is None else log
    live = {item.seq for item in active_events(log)}
    window = len(log) if not limit else min(len(log), 4 * limit)
    replayed = {} if replayed is None else replayed
    while True:
        first = len(log) - window
        if first not in replayed:
            replayed[first] = _replay_from(engine, encounter, log, live, first)
        entries = _describe_tail(engine, log, live, gm, first, replayed[first])
        if not limit or len(entries) >= limit or window >= len(log):
            return entries[:limit] if limit else entries
        window = len(log)  # many hidden entries at the end: word the whole log


def _replay_from(engine, encounter, log, live, first) -> list:
    """The state just before each log entry from index `first` on (undone entries change nothing)."""
    state = load_initial(encounter)
    states = []
    for index, item in enumerate(log):
        if index >= first:
            states.append(state)
        if item.seq in live:  # markers are never live
            state = engine.evolve(state, item.event)
    return states


def _describe_tail(engine, log, live, gm, first, states) -> list[dict]:
    entries = []
    for item, state in zip(log[first:], states, strict=True):
        marker = is_marker(item.event)
        if marker:
            text = MARKER_SENTENCES[item.event.kind]
        else:
            try:
                text = engine.describe(state, item.event, gm=gm)
            except Exception:  # an undone entry may name something the replayed state no longer has
                text = item.event.kind.replace("_", " ").capitalize() + "."
        if gm or (item.event.audience != "gm" and text is not None):
            entries.append({"seq": item.seq, "text": text, "undone": item.seq not in live and not marker,
                            "gm_only": item.event.audience == "gm"})
    entries.reverse()
    return entries
