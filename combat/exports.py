"""Encounter exports, written as streams so a 10,000-event log needs no more memory than one event.

JSON schema "fray.encounter-export", version 1 (documented in combat/EXPORTS.md):
    {"schema": "fray.encounter-export", "version": 1, "exported_at": ISO time, "complete": bool,
     "encounter": {"name", "model", "status", "settings", "campaign"},
     "combatants": [{"key", "name", "side"}],
     "initial": state JSON (complete exports only),
     "events": [{"seq", "batch", "kind", "audience", "actor", "created_at", "data", "text", "undone"}],
     "final": state JSON (complete exports only)}
A complete export (made by a GM) imports back into a new encounter that replays to the same state.
A player's export holds only what that player may see: no GM-only events, no unseen enemies, no states.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils import timezone

from combat import history, services
from combat.markdown import literal as _md
from combat.models import Combatant, Encounter, EncounterEvent
from combat.review import may_see_gm_only, unseen
from combat.rules import registry
from combat.rules.core import RuleError, Undone, is_marker, sentence
from combat.rules.free_roll import DiceRolled
from combat.selectors import own_roll
from combat.store import engine_for, load_initial, load_state

SCHEMA = "fray.encounter-export"
VERSION = 1
CHUNK = 500


@dataclass
class Row:
    """One log entry as an export shows it. `seq` and `batch` are its numbers as this reader knows them: the log's
    own for whoever sees the whole log; for a player, their entries counted 1, 2, 3 … with no gap where an entry
    hidden from them stands (they are not told it exists)."""

    seq: int
    batch: int
    kind: str
    audience: str
    actor: str
    created_at: str
    payload: dict
    text: str
    round: int
    phase: int
    undone: bool
    dice: str


def rows(encounter: Encounter, gm_view: bool, reader: int | None = None) -> Iterator[Row]:
    """The log in order, one row at a time, with each event's sentence; filtered for a player's view. `reader`:
    the user id of the player it is for, whose own hidden dice rolls it holds in their phone's words.

    Undo markers name earlier events, so which events are undone is read first (one small query)."""
    engine = engine_for(encounter)
    show_all = gm_view or may_see_gm_only(encounter, False)
    undone = set()
    for payload in encounter.events.filter(kind=Undone.kind).values_list("payload", flat=True):
        undone.update(payload["data"]["seqs"])
    state = load_initial(encounter)
    numbers: dict[int, int] = {}  # the log's seq -> the number this reader knows the entry by
    query = (
        EncounterEvent.objects.filter(encounter=encounter)
        .order_by("seq")
        .values_list("seq", "batch", "kind", "audience", "actor__username", "actor_id", "created_at", "payload")
    )
    for seq, batch, kind, audience, actor, actor_id, created_at, payload in query.iterator(chunk_size=CHUNK):
        event = engine.CODEC.event_from_json(payload)
        text = sentence(engine.describe, state, event, show_all)  # "" for what a player does not see
        own = not text and reader is not None and actor_id == reader and isinstance(event, DiceRolled)
        if own:  # the reader's own roll "for me and the GM" or "only me"
            text = own_roll(encounter, event)
        if text:
            numbers[seq] = seq if show_all else len(numbers) + 1
            if not show_all and isinstance(event, Undone):  # the entries it took back, by the player's numbers
                payload = {"kind": kind, "data": {"seqs": [numbers[n] for n in event.seqs if n in numbers]}}
            yield Row(
                numbers[seq],
                numbers.get(batch, numbers[seq]),
                kind,
                audience,
                actor or "",
                created_at.isoformat(),
                payload,
                text,
                state.round,
                state.phase,
                seq in undone,
                _dice(payload, own),
            )
        if not is_marker(event) and seq not in undone:
            state = engine.evolve(state, event)


def _dice(payload: dict, own: bool = False) -> str:
    if payload.get("kind") == DiceRolled.kind:  # a free roll; one for its roller's eyes only shows them alone
        data = payload["data"]
        hidden = data.get("show") == "self" and not own
        return "" if hidden else f"{data['notation']}: " + " ".join(map(str, data["faces"]))
    roll = payload.get("data", {}).get("roll")
    if isinstance(roll, dict):  # a model's "roll" may also be a plain number (The Expanse's injury die)
        return f"{len(roll['faces'])}d{roll['sides']}: " + " ".join(map(str, roll["faces"]))
    if payload.get("kind") == "advantage_spent":
        return f"reroll: {payload['data']['face']}"
    return ""


def write_json(encounter: Encounter, gm_view: bool, out: io.TextIOBase, reader: int | None = None) -> int:
    complete = gm_view
    # An imported encounter's combatants are not flagged hidden: the replayed state says who the party never saw.
    # One revealed during the fight (unseen at the start, not at the end) is the party's to read.
    unseen_keys = set() if gm_view else unseen(load_initial(encounter))
    revealed = unseen_keys - unseen(load_state(encounter)) if unseen_keys and encounter.state else set()
    head = {
        "schema": SCHEMA,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "complete": complete,
        "encounter": {
            "name": encounter.name,
            "model": encounter.model,
            "status": encounter.status,
            "settings": encounter.settings,
            "campaign": encounter.campaign.name,
        },
        "combatants": [
            {"key": c.key, "name": c.name, "side": c.side}
            for c in encounter.combatants.order_by("pk")
            if gm_view or c.side == "pc" or c.key in revealed or not (c.hidden or c.key in unseen_keys)
        ],
    }
    if complete:
        head["initial"] = encounter.initial
    text = json.dumps(head, ensure_ascii=False)
    out.write(text[:-1] + ', "events": [')
    count = 0
    for row in rows(encounter, gm_view, reader):
        if count:
            out.write(",")
        out.write(
            json.dumps(
                {
                    "seq": row.seq,
                    "batch": row.batch,
                    "kind": row.kind,
                    "audience": row.audience,
                    "actor": row.actor,
                    "created_at": row.created_at,
                    "data": row.payload["data"] if (gm_view or row.kind == "undone") else None,
                    "text": row.text,
                    "undone": row.undone,
                },
                ensure_ascii=False,
            )
        )
        count += 1
    out.write("]")
    if complete:
        out.write(', "final": ' + json.dumps(encounter.state, ensure_ascii=False))
    out.write("}\n")
    return count


# A spreadsheet reads a cell starting with one of these as a formula (a PC named "=HYPERLINK(...)").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> object:
    """A CSV cell a spreadsheet shows as written: text that would start a formula gets a leading single quote
    (OWASP's advice for CSV injection); numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_csv(encounter: Encounter, gm_view: bool, out: io.TextIOBase, reader: int | None = None) -> int:
    writer = csv.writer(out)
    writer.writerow(["seq", "time", "round", "phase", "kind", "by", "event", "dice", "undone"])
    count = 0
    for row in rows(encounter, gm_view, reader):
        writer.writerow(
            [
                _cell(value)
                for value in (
                    row.seq,
                    row.created_at,
                    row.round,
                    row.phase,
                    row.kind,
                    row.actor,
                    row.text,
                    row.dice,
                    "yes" if row.undone else "",
                )
            ]
        )
        count += 1
    return count


def session_title(encounter: Encounter) -> str:
    """ "Night at the relay (14 Mar 2031)": the game session the fight belongs to, "" for one outside any."""
    session = encounter.session
    if session is None:
        return ""
    when = timezone.localtime(session.starts_at)
    return f"{session.title} ({when.day} {when:%b %Y})"


def write_markdown(encounter: Encounter, gm_view: bool, out: io.TextIOBase, reader: int | None = None) -> int:
    out.write(f"# {_md(encounter.name)}\n\n{_md(encounter.combat_model.name)} · {_md(encounter.campaign.name)}\n")
    if encounter.session_id:
        out.write(f"\nSession: {_md(session_title(encounter))}\n")
    current = None
    count = 0
    for row in rows(encounter, gm_view, reader):
        if row.round != current:
            current = row.round
            out.write(f"\n## Round {row.round}\n\n")
        text = f"~~{_md(row.text)}~~ (undone)" if row.undone else _md(row.text)
        out.write(f"- {text}\n")
        count += 1
    if encounter.session_id:  # the session's recap, for the same eyes as the log above (combat.history)
        out.write(f"\n---\n\n{history.recap_of(encounter, gm_view)}")
    return count


def write_html(encounter: Encounter, gm_view: bool, out: io.TextIOBase, reader: int | None = None) -> int:
    context = {"encounter": encounter, "session": session_title(encounter)}
    out.write(render_to_string("combat/export_print.html#head", context))
    current = None
    count = 0
    for row in rows(encounter, gm_view, reader):
        if row.round != current:
            if current is not None:
                out.write("</ol></section>")
            current = row.round
            out.write(f"<section><h2>Round {row.round}</h2><ol>")
        out.write(render_to_string("combat/export_print.html#row", {"row": row}))
        count += 1
    if current is not None:
        out.write("</ol></section>")
    out.write(render_to_string("combat/export_print.html#foot", {}))
    return count


WRITERS = {"json": write_json, "csv": write_csv, "md": write_markdown, "html": write_html}


# --- import -------------------------------------------------------------------------------------------------


class ExportImportError(ValueError):
    """The file cannot be imported; the message says why in a sentence."""


MAX_SEQ = 2**31 - 1  # PositiveIntegerField on PostgreSQL
# Bounds far above any real export (a 10,000-entry log writes about 3 MB nested 6 deep, some 150,000 values) that
# keep a hostile file cheap to refuse: parsing it costs little memory, storing it cannot bloat the tables.
MAX_IMPORT_BYTES = 20 * 1024 * 1024
MAX_IMPORT_VALUES = 1_000_000  # counted before parsing, as commas and opening brackets (over-counts: safe side)
MAX_IMPORT_DEPTH = 32
MAX_IMPORT_EVENTS = 50_000
MAX_IMPORT_TEXT = 10_000  # characters in one string; names are at most 120, notes 200
MISSING = "That export is missing parts Fray needs; export it again."
TOO_DEEP = "That file nests its data deeper than any Fray export does."


def _not_json(constant: str):
    raise ValueError(f"{constant} is not JSON")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text} is too large")
    return number


def _depth(value, limit: int) -> int:
    """How deeply lists and objects nest in `value`, counted without recursion; stops once past `limit`."""
    deepest, stack = 0, [(value, 1)]
    while stack and deepest <= limit:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def read_export(upload) -> dict:
    """The JSON in an uploaded file, read within the bounds above; ExportImportError says what is wrong with it."""
    if upload.size > MAX_IMPORT_BYTES:
        raise ExportImportError(
            f"That file is larger than {MAX_IMPORT_BYTES // 2**20} MB; Fray exports are far smaller."
        )
    raw = upload.read()
    if raw.count(b",") + raw.count(b"[") + raw.count(b"{") > MAX_IMPORT_VALUES:
        raise ExportImportError("That file holds far more data than any Fray export does.")
    try:
        # NaN, Infinity and 1e400 are not JSON; Python's reader takes them and the JSON columns refuse them.
        data = json.loads(raw, parse_constant=_not_json, parse_float=_finite)
    except RecursionError:  # nested thousands deep: the parser gives up before the depth check below
        raise ExportImportError(TOO_DEEP) from None
    except ValueError:  # UnicodeDecodeError too
        raise ExportImportError("That file is not valid JSON.") from None
    if _depth(data, MAX_IMPORT_DEPTH) > MAX_IMPORT_DEPTH:
        raise ExportImportError(TOO_DEEP)
    return data


def _strings(value) -> Iterator[str]:
    """Every string in `value`, keys included, found without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _check_storable(data: dict) -> None:
    """Refuse, before anything is written, what the tables cannot hold: a repeated or out-of-range seq, text
    longer than its column, an unknown side or audience, a model that cannot be played, NUL characters
    (PostgreSQL refuses them; SQLite would store them). Each of these was a server error."""
    missing = ExportImportError(MISSING)

    def text(value, longest):
        return isinstance(value, str) and len(value) <= longest

    def number(value):
        return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_SEQ

    def limit(model, name):
        return model._meta.get_field(name).max_length

    meta, combatants, events = data.get("encounter"), data.get("combatants"), data.get("events")
    if not (
        isinstance(meta, dict)
        and isinstance(combatants, list)
        and isinstance(events, list)
        and isinstance(data.get("initial"), dict)
        and isinstance(meta.get("settings"), dict)
    ):
        raise missing
    if len(events) > MAX_IMPORT_EVENTS:
        raise ExportImportError(
            f"That export holds {len(events):,} log entries; Fray imports at most {MAX_IMPORT_EVENTS:,}."
        )
    for piece in _strings(data):
        if "\x00" in piece:
            raise ExportImportError("This export contains characters Fray cannot store.")
        if len(piece) > MAX_IMPORT_TEXT:
            raise ExportImportError("This export holds text far longer than any Fray export does.")
    if str(meta.get("model")) not in registry.MODELS:
        raise ExportImportError("This export is of a combat model Fray cannot play.")
    if not text(meta.get("name"), limit(Encounter, "name")):
        raise missing
    for c in combatants:
        if not (
            isinstance(c, dict)
            and text(c.get("key"), limit(Combatant, "key"))
            and text(c.get("name"), limit(Combatant, "name"))
            and c.get("side") in Combatant.Side.values
        ):
            raise missing
    seqs = set()
    for e in events:
        if not (
            isinstance(e, dict)
            and number(e.get("seq"))
            and number(e.get("batch"))
            and text(e.get("kind"), limit(EncounterEvent, "kind"))
            and e.get("audience") in ("public", "gm")
            and isinstance(e.get("data"), dict)
        ):
            raise missing
        if e["seq"] in seqs:
            raise ExportImportError("The imported log numbers two events the same.")
        seqs.add(e["seq"])


def import_encounter(campaign, user, data) -> Encounter:
    """Recreate an encounter from a complete JSON export; its replay must equal the exported final state.
    Anything else is refused with ExportImportError, and nothing is kept."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ExportImportError("This is not a Fray encounter export.")
    version = data.get("version")
    if type(version) is not int or abs(version) > 10**6:
        raise ExportImportError(f"This export does not say which version it uses; Fray reads version {VERSION}.")
    if version != VERSION:
        raise ExportImportError(f"This export uses version {version}; Fray reads version {VERSION}.")
    if data.get("complete") is not True:
        raise ExportImportError("Only a GM's complete export can be imported.")
    _check_storable(data)
    try:
        encounter = services.create_from_export(campaign, user, data)
    except (LookupError, TypeError, ValueError, AttributeError, RuleError):  # a part of the wrong shape, deep down
        raise ExportImportError(MISSING) from None
    if encounter is None:
        raise ExportImportError("The imported log does not replay to the exported state.")
    return encounter
