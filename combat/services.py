"""The only writers of encounter state.

`submit` runs one command: lock the encounter, check who may issue it, let the rules decide, append the
events, store the snapshot, and broadcast after commit. A repeated idempotency key returns the first
result, so a double-tapped button acts once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from campaigns import notices
from campaigns.models import Membership
from combat import store, tables
from combat.broadcast import broadcast
from combat.models import Combatant, Encounter, EncounterEvent, LogCheckpoint
from combat.rules import registry
from combat.rules.core import (
    MARKER_SENTENCES,
    WORDING,
    Ended,
    RuleError,
    Undone,
    clean_settings,
    coerce_form,
    from_json,
    log_aids,
    replay,
    to_json,
    wording,
)
from combat.rules.dice import Dice
from combat.rules.free_roll import FreeRoll

log = logging.getLogger(__name__)

UNDO = "undo"
END = "end_encounter"


class NotAllowed(Exception):
    """The user may not issue this command (not a member, not the GM, not their character)."""


class NoSuchEncounter(Exception):
    """No encounter by that id that this member may see in that campaign (a view answers 404)."""


@dataclass
class Result:
    ok: bool
    error: str = ""
    seqs: list[int] = field(default_factory=list)
    duplicate: bool = False


# --- building and starting ------------------------------------------------------------------------------


@transaction.atomic
def create_encounter(
    campaign, user, *, name, model, pcs, enemies, ship=None, settings=None, hidden=(), session=None, setup=None
) -> Encounter:
    """A draft encounter. `pcs`: PC characters; `enemies`: [(NPC character, quantity)]; `hidden`: character ids
    the other side is not aware of; `setup`: what the model's builder chose beyond that (see combat.tables)."""
    if model not in registry.MODELS:
        raise RuleError("Choose one of the combat models Fray plays.")
    spec = registry.get(model)
    encounter = Encounter.objects.create(
        campaign=campaign,
        name=name,
        model=model,
        ship=ship,
        session=session,
        created_by=user,
        settings=clean_settings(spec.settings, settings),
        setup=setup or {},
    )
    for pc in pcs:
        Combatant.objects.create(
            encounter=encounter,
            key=f"pc{pc.pk}",
            name=pc.name,
            side=Combatant.Side.PC,
            character=pc,
            owner=pc.owner,
            hidden=pc.pk in hidden,
        )
    for npc, quantity in enemies:
        for n in range(1, quantity + 1):
            label = f"{npc.name} {n}" if quantity > 1 else npc.name
            Combatant.objects.create(
                encounter=encounter,
                key=f"npc{npc.pk}-{n}",
                name=label,
                side=Combatant.Side.ENEMY,
                character=npc,
                hidden=npc.pk in hidden,
            )
    return encounter


@transaction.atomic
def delete_draft(encounter: Encounter) -> None:
    """A draft that was never played can go; a started encounter's log is kept for ever."""
    encounter = Encounter.objects.select_for_update().get(pk=encounter.pk)
    if encounter.status != Encounter.Status.DRAFT:
        raise RuleError("Only a draft can be deleted; a played encounter keeps its log.")
    encounter.delete()


@transaction.atomic
def start_encounter(encounter: Encounter, user) -> Encounter:
    encounter = Encounter.objects.select_for_update().get(pk=encounter.pk)
    if encounter.status != Encounter.Status.DRAFT:
        raise RuleError("This encounter has already started.")
    engine = store.engine_for(encounter)
    combatants = list(encounter.combatants.select_related("character"))
    state = tables.get(encounter.model).initial_state(engine, encounter, combatants)
    encounter.initial = encounter.state = to_json(state)
    encounter.status = Encounter.Status.ACTIVE
    encounter.started_at = timezone.now()
    encounter.version = 0
    encounter.save()
    _broadcast_on_commit(encounter)
    url = reverse("encounter", args=[encounter.campaign_id, encounter.pk])
    notices.notify_members(
        encounter.campaign,
        user,
        text=lambda _: f"{encounter.campaign.name}: {encounter.name} has started.",
        url=url,
        action="Join",
    )
    _announce_turns(encounter, None, state, user)
    return encounter


# --- playing ----------------------------------------------------------------------------------------------


def _membership(encounter: Encounter, user, known: Membership | None = None) -> Membership:
    """The user's membership of the encounter's campaign; `known` (the caller's, just read) saves a query, and
    the campaign read with it is the encounter's (the tables and the GM's view read it)."""
    if known is not None and known.campaign_id == encounter.campaign_id and known.user_id == user.pk:
        if Membership.campaign.is_cached(known):
            encounter.campaign = known.campaign
        return known
    membership = Membership.objects.filter(campaign_id=encounter.campaign_id, user=user).first()
    if membership is None:
        raise NotAllowed("No such encounter.")
    return membership


def _check_issuer(command, state, membership: Membership) -> None:
    """A player acts only for a PC they own. Every other refusal reads the same, so a guess at another combatant's
    id (an unseen enemy's) learns nothing."""
    if membership.is_gm:
        return
    if command.who != "owner":
        raise NotAllowed("Only the GM can do that.")
    actor = getattr(command, "actor", "")
    if not actor and isinstance(command, FreeRoll):
        return  # a player's roll in their own name (_in_own_name)
    if not actor:
        raise NotAllowed("Only the GM can do that.")
    try:
        fighter = state.fighter(actor)
    except RuleError:
        fighter = None
    if fighter is None or fighter.owner != membership.user_id:
        raise NotAllowed("You can act only for your own character.")


def _in_own_name(command, membership: Membership, user):
    """A free roll without a PC is the GM's, or a player's in their own name: the name comes from the account,
    never from what was sent."""
    if not isinstance(command, FreeRoll):
        return command
    return replace(command, player="" if membership.is_gm or command.actor else str(user))


def _lock(encounter_id: int) -> Encounter | None:
    """The encounter, its row locked until the transaction ends (PostgreSQL; SQLite's IMMEDIATE transaction
    already holds the database's write lock)."""
    if not 0 < encounter_id < 2**63:  # no such row, and beyond what the databases' integers can bind
        return None
    return Encounter.objects.select_for_update().filter(pk=encounter_id).first()


def _seqs_of_key(encounter_id: int, key: str) -> list[int]:
    """The seqs of the events the action with this key wrote (none if it is new). Read after the lock is held,
    in a statement of its own: under PostgreSQL's READ COMMITTED it sees what the lock's last holder committed."""
    events = EncounterEvent.objects.filter(encounter_id=encounter_id)
    batch = events.filter(idempotency_key=key).values("batch")
    return list(events.filter(batch__in=batch).order_by("seq").values_list("seq", flat=True))


def submit(
    encounter_id: int,
    user,
    name: str,
    data: dict,
    key: str,
    *,
    from_form: bool = False,
    dice: Dice | None = None,
    membership: Membership | None = None,
    campaign_id: int | None = None,
) -> Result:
    """Run one command for `user`. Refusals come back as Result(ok=False, error=sentence); nothing changes.

    `key`: the sender's idempotency key; it is the user's own (two users' equal keys never meet), and a repeat is
    answered only after the permission checks, so a key says nothing about what anyone else did.
    `membership`: the user's membership as the caller just read it, if it has (a view has), so it is not
    read again. `campaign_id`: the campaign the caller found the encounter under (a URL's); unless the encounter
    is there and the member may see it (a player never sees a draft), NoSuchEncounter is raised."""
    key = (key or "").strip()[:64]
    try:
        with transaction.atomic():
            encounter = _lock(encounter_id)
            if encounter is None or (campaign_id is not None and encounter.campaign_id != campaign_id):
                raise NoSuchEncounter
            membership = _membership(encounter, user, membership)
            if campaign_id is not None and encounter.status == Encounter.Status.DRAFT and not membership.is_gm:
                raise NoSuchEncounter
            if not key:
                return Result(ok=False, error="This action arrived without its key; reload the page and try again.")
            if encounter.status == Encounter.Status.DRAFT:
                raise RuleError("This encounter is not running.")
            engine = store.engine_for(encounter)
            command = state = None
            if name in (UNDO, END):
                if not membership.is_gm:
                    raise NotAllowed("Only the GM can undo." if name == UNDO else "Only the GM can end the encounter.")
            else:
                cls = engine.CODEC.commands.get(name)
                if cls is None:
                    raise RuleError("That is not an action this combat model knows.")
                command = engine.CODEC.command_from_json(name, coerce_form(cls, data) if from_form else data)
                state = from_json(engine.State, encounter.state)
                _check_issuer(command, state, membership)
                command = _in_own_name(command, membership, user)
            key = sender_key(user, key)
            done = _seqs_of_key(encounter.pk, key)
            if done:
                return Result(ok=True, seqs=done, duplicate=True)
            if encounter.status != Encounter.Status.ACTIVE:
                raise RuleError("This encounter has ended.")
            if name == UNDO:
                return _undo(encounter, user, key)
            if name == END:
                return _end(encounter, user, key)
            events = engine.decide(state, command, dice or Dice())
            if not events:  # the command changes nothing (the same order set twice): no log line, no version
                return Result(ok=True, seqs=[])
            seqs = _append(encounter, engine, state, events, user, key)
    except RuleError as exc:
        return Result(ok=False, error=str(exc))
    except NotAllowed as exc:
        return Result(ok=False, error=str(exc))
    except IntegrityError:
        # Another request with the same key won the race: it holds the answer. Any other clash is a real error,
        # never reported as done.
        done = _seqs_of_key(encounter_id, key)
        if not done:
            raise
        return Result(ok=True, seqs=done, duplicate=True)
    return Result(ok=True, seqs=seqs)


def sender_key(user, key: str) -> str:
    """The key as stored: the sender's own, so equal keys from two users never meet."""
    return f"{user.pk}:{key}"


def _append(encounter, engine, state, events, user, key) -> list[int]:
    seqs = []
    first, seen_by_players, before = encounter.version + 1, encounter.players_version, state
    for i, event in enumerate(events):
        seq = encounter.version + 1
        gm_text, players_text = wording(engine.describe, state, event)
        EncounterEvent.objects.create(
            encounter=encounter,
            seq=seq,
            batch=first,
            kind=event.kind,
            payload=engine.CODEC.event_to_json(event),
            audience=event.audience,
            actor=user,
            idempotency_key=key if i == 0 else f"{key}#{i}",
            gm_text=gm_text,
            players_text=players_text,
            wording=WORDING,
        )
        state = engine.evolve(state, event)
        encounter.version = seq
        encounter.players_version += bool(players_text)
        seqs.append(seq)
    encounter.state = to_json(state)
    encounter.save(update_fields=["state", "version", "players_version"])
    if encounter.version // store.CHECKPOINT_EVERY > (first - 1) // store.CHECKPOINT_EVERY:
        LogCheckpoint.objects.create(encounter=encounter, seq=encounter.version, state=encounter.state)
    _broadcast_on_commit(encounter, state, players=encounter.players_version != seen_by_players)
    _announce_turns(encounter, before, state, user)
    return seqs


def _announce_turns(encounter: Encounter, before, after, by=None) -> None:
    """Tell each player whose turn (or HERO phase) has just begun, or who may now act, wherever in Fray they are
    (campaigns.notices); not `by`, who has just done it. Their own table's view, before and after, says so: the same
    test as the banner and the buzz on their phone (static/js/table.js). A notice never costs the action: should
    reading the views fail, nobody is told."""
    table = tables.get(encounter.model)
    url = reverse("encounter", args=[encounter.campaign_id, encounter.pk])
    try:
        told = []
        for user_id in sorted({f.owner for f in after.pcs() if f.owner and f.owner != getattr(by, "pk", None)}):
            now = table.private_view(encounter, after, user_id)
            was = table.private_view(encounter, before, user_id) if before is not None else None
            if now.your_turn and not (was and was.your_turn):
                told.append((user_id, f"Your turn in {encounter.name}."))
            elif now.you_may_act and not now.your_turn and not (was and (was.you_may_act or was.your_turn)):
                told.append((user_id, f"You may act now in {encounter.name}."))
    except Exception:
        log.exception("could not tell whose turn began in encounter %s", encounter.pk)
        return
    for user_id, text in told:
        notices.your_turn(user_id, text=text, url=url, encounter_id=encounter.pk)


def _undo(encounter, user, key) -> Result:
    engine = store.engine_for(encounter)
    rows = list(encounter.events.order_by("seq").values_list("seq", "batch", "payload", "audience", "players_text"))
    undone = set()
    for _, _, payload, _, _ in rows:
        if payload["kind"] == Undone.kind:
            undone.update(payload["data"]["seqs"])
    live = [
        (seq, batch, audience != "gm" and players_text != "")
        for seq, batch, payload, audience, players_text in rows
        if payload["kind"] not in MARKER_SENTENCES and seq not in undone
    ]
    if not live:
        raise RuleError("There is nothing to undo.")
    last_batch = live[-1][1]
    undone_now = [(seq, read) for seq, batch, read in live if batch == last_batch]
    marker = Undone(seqs=tuple(seq for seq, _ in undone_now), gm_only=not any(read for _, read in undone_now))
    seq = _append_marker(encounter, engine, marker, user, key)
    encounter.checkpoints.filter(seq__gte=min(marker.seqs)).delete()  # the state after them has changed
    encounter.state = to_json(replay(engine.evolve, store.load_initial(encounter), store.load_log(encounter)))
    encounter.save(update_fields=["state", "version", "players_version"])
    _broadcast_on_commit(encounter, players=not marker.gm_only)
    return Result(ok=True, seqs=[seq])


def _append_marker(encounter, engine, marker, user, key) -> int:
    """Append a log marker (Undone, Ended): an event of the log itself, which no model's `evolve` sees."""
    seq = encounter.version + 1
    gm_text, players_text = wording(engine.describe, None, marker)
    EncounterEvent.objects.create(
        encounter=encounter,
        seq=seq,
        batch=seq,
        kind=marker.kind,
        payload=engine.CODEC.event_to_json(marker),
        audience=marker.audience,
        actor=user,
        idempotency_key=key,
        gm_text=gm_text,
        players_text=players_text,
        wording=WORDING,
    )
    encounter.version = seq
    encounter.players_version += bool(players_text)
    return seq


def _end(encounter, user, key) -> Result:
    """Write back what persists (the model's table decides); what does not (Advantages, Collapse points, stunt
    points) ends here."""
    engine = store.engine_for(encounter)
    state = from_json(engine.State, encounter.state)
    tables.get(encounter.model).write_back(encounter, state)
    seq = _append_marker(encounter, engine, Ended(), user, key)
    encounter.status = Encounter.Status.ENDED
    encounter.ended_at = timezone.now()
    encounter.save(update_fields=["status", "ended_at", "version", "players_version"])
    _broadcast_on_commit(encounter)
    return Result(ok=True, seqs=[seq])


class _DoesNotReplay(Exception):
    pass


def create_from_export(campaign, user, data: dict) -> Encounter | None:
    """A new, ended encounter from a GM's complete export (checked by combat.exports). None, and nothing kept, if
    its log does not replay to the state it was exported with. Entries arrive without words: they are worded, and
    checkpoints kept, as in play (`store_log_aids`)."""
    meta = data["encounter"]
    try:
        with transaction.atomic():
            encounter = Encounter.objects.create(
                campaign=campaign,
                name=meta["name"],
                model=meta["model"],
                status=Encounter.Status.ENDED,
                settings=meta["settings"],
                initial=data["initial"],
                state=data["initial"],
                created_by=user,
                started_at=timezone.now(),
                ended_at=timezone.now(),
            )
            engine = store.engine_for(encounter)
            Combatant.objects.bulk_create(
                Combatant(encounter=encounter, key=c["key"], name=c["name"], side=c["side"]) for c in data["combatants"]
            )
            rows = []
            for e in data["events"]:
                payload = {"kind": e["kind"], "data": e["data"]}
                engine.CODEC.event_from_json(payload)  # refuses malformed events
                rows.append(
                    EncounterEvent(
                        encounter=encounter,
                        seq=e["seq"],
                        batch=e["batch"],
                        kind=e["kind"],
                        payload=payload,
                        audience=e["audience"],
                        actor=None,
                        idempotency_key=f"import-{e['seq']}",
                    )
                )
            EncounterEvent.objects.bulk_create(rows, batch_size=1000)
            try:
                state = replay(engine.evolve, store.load_initial(encounter), store.load_log(encounter))
            except RuleError:
                raise _DoesNotReplay from None
            encounter.state = to_json(state)
            encounter.version = max((e["seq"] for e in data["events"]), default=0)
            encounter.save(update_fields=["state", "version"])
            if "final" in data and encounter.state != data["final"]:
                raise _DoesNotReplay
            try:
                store_log_aids(encounter)  # replays the entries undone since as play had them, too
            except RuleError:
                raise _DoesNotReplay from None
    except _DoesNotReplay:
        return None
    return encounter


def store_log_aids(encounter: Encounter) -> None:
    """Word every entry and keep a checkpoint every CHECKPOINT_EVERY entries, as play does, for a log that came
    without them (an import), so its review reads them rather than replaying the log at each step."""
    engine = store.engine_for(encounter)
    log = store.load_log(encounter)
    words, states = log_aids(engine.describe, engine.evolve, store.load_initial(encounter), log, store.CHECKPOINT_EVERY)
    rows = list(encounter.events.only("pk", "seq"))
    for row in rows:
        row.gm_text, row.players_text = words[row.seq]
        row.wording = WORDING
    EncounterEvent.objects.bulk_update(rows, ["gm_text", "players_text", "wording"], batch_size=1000)
    encounter.checkpoints.all().delete()
    LogCheckpoint.objects.bulk_create(
        LogCheckpoint(encounter=encounter, seq=seq, state=to_json(state)) for seq, state in states.items()
    )
    encounter.players_version = sum(bool(players) for _, players in words.values())  # as play counts them
    encounter.save(update_fields=["players_version"])


def reveal_log(encounter: Encounter, reveal: bool) -> None:
    """After the fight, the GM may let players read the whole log, GM-only entries included (and take it back)."""
    if encounter.status != Encounter.Status.ENDED:
        raise RuleError("The log can be revealed once the encounter has ended.")
    encounter.log_revealed = reveal
    encounter.save(update_fields=["log_revealed"])


def _broadcast_on_commit(encounter: Encounter, state=None, players: bool = True) -> None:
    """`players`: whether players learn of this change; an action they read nothing of sends them no frame."""
    # robust: whatever goes wrong while broadcasting, the committed action and its response stand. The row as
    # committed goes along, and the state if the caller has it, so the broadcast need not read them again.
    transaction.on_commit(lambda: broadcast(encounter.pk, encounter, state, players=players), robust=True)
