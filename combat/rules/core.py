"""The shared vocabulary of every combat model.

A model is pure: `decide(state, command, dice) -> list[Event]` checks a command against the rules and
raises `RuleError` with a sentence when it is illegal; `evolve(state, event) -> state` applies one event
and never rolls or reads a clock. `replay` folds the log. States, commands and events are frozen
dataclasses that round-trip through JSON with `to_json` / `from_json`.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar


class RuleError(Exception):
    """A command the rules refuse. The message is one sentence for the person who tried it."""


def require(condition: bool, sentence: str) -> None:
    """Refuse with `sentence` unless `condition` holds: the rules' one way of saying no."""
    if not condition:
        raise RuleError(sentence[:1].upper() + sentence[1:])


# --- JSON codec for frozen dataclasses -------------------------------------------------------------


def to_json(value: Any) -> Any:
    kind: type = type(value)
    if value is None or kind in _SCALARS:
        return value
    if kind in (list, tuple):
        return [to_json(v) for v in value]
    if kind is dict:
        return {str(k): to_json(v) for k, v in value.items()}
    names = _field_names(kind)
    if names is not None:
        return {name: to_json(getattr(value, name)) for name in names}
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    raise TypeError(f"{type(value).__name__} is not JSON-able")


_SCALARS = frozenset((bool, int, float, str))


@functools.cache
def _field_names(cls: type) -> tuple[str, ...] | None:
    """The field names of a dataclass type (None for any other type), looked up once per type."""
    return tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else None


def from_json(tp: Any, data: Any) -> Any:
    """Rebuild a value of type `tp` (dataclass, tuple[X, ...], dict[str, X], X | None, primitives)."""
    return _decoder(tp)(data)


@functools.cache
def _decoder(tp: Any) -> Callable[[Any], Any]:
    """The function that decodes JSON data into `tp`, worked out once per type: every state and log entry is
    decoded on each render, so the type is inspected once rather than for every value."""
    if tp is Any:
        return _identity
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        nullable = type(None) in args
        options = tuple(arg for arg in args if arg is not type(None))

        def union(data: Any) -> Any:
            if data is None and nullable:
                return None
            last_error = None
            for arg in options:
                try:
                    return _decoder(arg)(data)
                except (TypeError, ValueError, KeyError) as exc:
                    last_error = exc
            raise TypeError(f"no type of {tp} fits {data!r}") from last_error

        return union
    if origin is tuple:
        args = typing.get_args(tp)

        def sequence(data: Any) -> Any:
            if not isinstance(data, (list, tuple)):
                raise TypeError(f"expected a list for {tp}")
            if len(args) == 2 and args[1] is Ellipsis:
                item = _decoder(args[0])
                return tuple(item(value) for value in data)
            return tuple(_decoder(a)(value) for a, value in zip(args, data, strict=True))

        return sequence
    if origin is dict:
        key_tp, value_tp = typing.get_args(tp)

        def mapping(data: Any) -> Any:
            if not isinstance(data, dict):
                raise TypeError(f"expected an object for {tp}")
            key, value = _decoder(key_tp), _decoder(value_tp)
            return {key(k): value(v) for k, v in data.items()}

        return mapping
    if origin is typing.Literal:
        allowed = typing.get_args(tp)

        def literal(data: Any) -> Any:
            if data not in allowed:
                raise ValueError(f"{data!r} is not one of {allowed}")
            return data

        return literal
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):

        def record(data: Any) -> Any:
            if not isinstance(data, dict):
                raise TypeError(f"expected an object for {tp.__name__}")
            return tp(**{name: decode(data[name]) for name, decode in _field_decoders(tp) if name in data})

        return record
    if tp in _PRIMITIVES:
        return _PRIMITIVES[tp]
    raise TypeError(f"cannot decode {tp}")


def _identity(data: Any) -> Any:
    return data


def _int(data: Any) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise TypeError(f"expected a whole number, got {data!r}")
    return data


def _float(data: Any) -> float:
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise TypeError(f"expected a number, got {data!r}")
    return float(data)


def _str(data: Any) -> str:
    if not isinstance(data, str):
        raise TypeError(f"expected text, got {data!r}")
    return data


def _bool(data: Any) -> bool:
    if not isinstance(data, bool):
        raise TypeError(f"expected true or false, got {data!r}")
    return data


_PRIMITIVES: dict[type, Callable[[Any], Any]] = {int: _int, float: _float, str: _str, bool: _bool}


@functools.cache
def _field_decoders(cls: type) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """(name, decoder) of a dataclass's init fields. Looked up when first decoding, not when the class's
    decoder is made, so a dataclass may hold values of its own type."""
    return tuple((name, _decoder(hint)) for name, hint in _init_fields(cls))


@functools.cache
def _type_hints(cls: type) -> dict[str, Any]:
    """A class's resolved type hints; resolving them evaluates every annotation, so once per class."""
    return typing.get_type_hints(cls)


@functools.cache
def _init_fields(cls: type) -> tuple[tuple[str, Any], ...]:
    """(name, type) of a dataclass's init fields; resolving the hints is slow, so once per class."""
    hints = _type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls) if f.init)


# --- Events, commands, settings -------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """Base of every event. `kind` names it in the log; subclasses register themselves by kind."""

    kind: ClassVar[str] = ""
    audience: ClassVar[str] = "public"  # "public" or "gm": GM-only events never reach players


@dataclass(frozen=True)
class Command:
    """Base of every command. `actor` is the combatant it is issued for ("" for GM-only commands)."""

    name: ClassVar[str] = ""
    who: ClassVar[str] = "gm"  # "gm": GMs only; "owner": the player of `actor` (and GMs); see contract.WHO
    label: ClassVar[str] = ""


@dataclass(frozen=True)
class Undone(Event):
    """The GM took back the event(s) with these sequence numbers. Nothing is erased from the log. `gm_only`: every
    entry it took back was hidden from players, so the undo is hidden from them too (they never knew of them)."""

    kind: ClassVar[str] = "undone"
    seqs: tuple[int, ...] = ()
    gm_only: bool = False

    @property
    def audience(self) -> str:  # type: ignore[override]
        return "gm" if self.gm_only else "public"


@dataclass(frozen=True)
class Ended(Event):
    """The GM ended the encounter; what persists went back to the campaign. It changes no state."""

    kind: ClassVar[str] = "encounter_ended"


# Events of the log itself rather than of a model's rules: they never reach a model's `evolve`.
MARKERS = (Undone, Ended)
MARKER_SENTENCES = {Undone.kind: "The GM undid the last action.", Ended.kind: "The GM ended the encounter."}


def is_marker(event: Event) -> bool:
    return isinstance(event, MARKERS)


# The version of every model's log sentences. Raise it whenever a `describe` changes what it says (above all,
# what it tells players): sentences stored under another number are not shown, the log is worded anew by replay.
WORDING = 1


def sentence(describe: Callable[..., str | None], state: Any, event: Event, gm: bool) -> str:
    """The log entry in words against `state`, the state the event was applied to, for GMs (gm=True) or for
    players: "" when players see no entry (the event is the GM's alone, or the model's `describe` leaves it out
    for them with None). A `describe` that fails names the event's kind rather than losing it."""
    if not gm and event.audience == "gm":
        return ""
    if is_marker(event):
        return MARKER_SENTENCES[event.kind]
    fallback = event.kind.replace("_", " ").capitalize() + "."
    try:
        text = describe(state, event, gm=gm)
    except Exception:  # an undone entry, replayed, may name something the replayed state no longer has
        return fallback
    return text or (fallback if gm else "")


def wording(describe: Callable[..., str | None], state: Any, event: Event) -> tuple[str, str]:
    """The entry's sentence for GMs and for players (see `sentence`), as the log stores them."""
    return sentence(describe, state, event, True), sentence(describe, state, event, False)


@dataclass(frozen=True)
class Setting:
    key: str
    label: str
    default: Any
    choices: tuple[tuple[Any, str], ...] = ()
    help: str = ""

    def clean(self, raw: Any) -> Any:
        if self.choices:
            for value, _ in self.choices:
                if str(value) == str(raw):
                    return value
            raise RuleError(f"{self.label} must be one of: {', '.join(lbl for _, lbl in self.choices)}.")
        if isinstance(self.default, bool):
            if isinstance(raw, bool):
                return raw
            return str(raw).lower() in {"1", "true", "on", "yes"}
        if isinstance(self.default, int):
            try:
                return int(raw)
            except (TypeError, ValueError):
                raise RuleError(f"{self.label} must be a whole number.") from None
        return str(raw)


def clean_settings(specs: Sequence[Setting], raw: dict[str, Any] | None) -> dict[str, Any]:
    raw = raw or {}
    return {s.key: (s.clean(raw[s.key]) if s.key in raw else s.default) for s in specs}


@dataclass(frozen=True)
class Logged:
    """One stored event with its place in the log."""

    seq: int
    event: Event


def active_events(log: Iterable[Logged]) -> list[Logged]:
    """The log without undone entries and without the markers (Undone, Ended) themselves."""
    log = list(log)
    undone = {seq for item in log if isinstance(item.event, Undone) for seq in item.event.seqs}
    return [item for item in log if not is_marker(item.event) and item.seq not in undone]


def replay(evolve: Callable[[Any, Event], Any], initial: Any, log: Iterable[Logged]) -> Any:
    state = initial
    for item in active_events(log):
        state = evolve(state, item.event)
    return state


def log_aids(
    describe: Callable[..., str | None],
    evolve: Callable[[Any, Event], Any],
    initial: Any,
    log: list[Logged],
    every: int,
) -> tuple[dict[int, tuple[str, str]], dict[int, Any]]:
    """What a live fight keeps beside its log, worked out from the log alone (an imported fight, or one stored
    before these were kept): ({seq: (GM's words, players' words)}, {seq: state}). Each entry is worded against the
    state it was applied to in play, when it was still live even if undone since; a state is kept at every
    `every`th seq, after the entries live at the end of the log up to it."""
    final_undone = {seq for item in log if isinstance(item.event, Undone) for seq in item.event.seqs}
    words: dict[int, tuple[str, str]] = {}
    states: dict[int, Any] = {}
    then, now = initial, initial  # as play had it at that entry; as the finished log has it
    for index, item in enumerate(log):
        words[item.seq] = wording(describe, None if is_marker(item.event) else then, item.event)
        if isinstance(item.event, Undone):  # play replayed the log without the entries it took back
            then = replay(evolve, initial, log[: index + 1])
        elif not is_marker(item.event):
            then = evolve(then, item.event)
            if item.seq not in final_undone:
                now = evolve(now, item.event)
        if item.seq % every == 0:
            states[item.seq] = now
    return words, states


class EventCodec:
    """Maps event kinds and command names to their classes for one model."""

    def __init__(self, events: Iterable[type[Event]], commands: Iterable[type[Command]]):
        known: tuple[type[Event], ...] = (*events, *MARKERS)
        self.events = {e.kind: e for e in known}
        self.commands = {c.name: c for c in commands}
        assert all(self.events) and all(self.commands), "every event needs a kind and every command a name"

    def event_to_json(self, event: Event) -> dict[str, Any]:
        return {"kind": event.kind, "data": to_json(event)}

    def event_from_json(self, payload: dict[str, Any]) -> Event:
        event: Event = from_json(self.events[payload["kind"]], payload["data"])
        return event

    def command_from_json(self, name: str, data: dict[str, Any]) -> Command:
        """Build a command from untrusted input; anything malformed is a RuleError with a sentence."""
        cls = self.commands.get(name)
        if cls is None:
            raise RuleError("That is not an action this combat model knows.")
        if not isinstance(data, dict):
            raise RuleError("That action arrived garbled; please try again.")
        known = {f.name for f in dataclasses.fields(cls)}
        try:
            command: Command = from_json(cls, {k: v for k, v in data.items() if k in known})
            return command
        except (TypeError, ValueError, KeyError):
            raise RuleError(f"{cls.label or cls.name} arrived with missing or wrong values.") from None


def coerce_form(cls: type[Command], form: dict[str, Any]) -> dict[str, Any]:
    """Turn form strings into the JSON types a command's fields expect; junk is a RuleError sentence."""
    command_class: type = cls
    hints = _type_hints(command_class)
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in form:
            continue
        raw, tp = form[f.name], hints[f.name]
        if isinstance(raw, (list, tuple)) and typing.get_origin(tp) is not tuple:
            raw = raw[-1] if raw else ""
        try:
            if tp is int:
                out[f.name] = int(str(raw).strip())
            elif tp is bool:
                out[f.name] = str(raw).strip().lower() in {"1", "true", "on", "yes"}
            elif typing.get_origin(tp) is tuple:
                items = raw if isinstance(raw, (list, tuple)) else str(raw).replace(",", " ").split()
                kind = str if typing.get_args(tp)[:1] == (str,) else int  # ids stay text, dice become numbers
                out[f.name] = [kind(str(item).strip()) for item in items if str(item).strip()]
            else:
                out[f.name] = str(raw)
        except ValueError:
            raise RuleError(f"{f.name.replace('_', ' ').capitalize()} must be a whole number.") from None
    return out


def seen_by_party(fighters: Iterable[Any]) -> set[str]:
    """Ids of the combatants some PC is aware of. An enemy outside it is unseen: players never see it named."""
    return {e for f in fighters if f.side == "pc" for e in getattr(f, "aware_of", ())}


UNSEEN_NAME = "someone unseen"


class Sight:
    """What one viewer may know of each combatant: the one rule every engine, table, review and export asks.

    The GM (gm=True) knows everything. Players know every PC and its numbers; of a combatant on another side
    only what the table shows (its numbers are `secret`), and nothing at all of one no PC is aware of
    (`unseen`: never named, its deeds left out of their log or told as "someone unseen"). `fighters` are any
    model's combatants: each has `id`, `name`, `side` ("pc" or another) and, for PCs, `aware_of`."""

    def __init__(self, fighters: Iterable[Any], gm: bool):
        fighters = tuple(fighters)
        self.gm = gm
        self.seen = seen_by_party(fighters)
        # A model whose combatants carry no `aware_of` (SW5e crews: surprise does that job) hides no one.
        self._tracks = any(hasattr(f, "aware_of") for f in fighters)
        self._sides: dict[str, str] = {f.id: f.side for f in fighters}
        self._names: dict[str, str] = {f.id: f.name for f in fighters}

    def side(self, fid: str) -> str:
        """The combatant's side, "" for an id this encounter does not have."""
        return self._sides.get(fid, "")

    def unseen(self, fid: str) -> bool:
        """A combatant this viewer may not know exists."""
        return not self.gm and self._tracks and self.side(fid) not in ("", "pc") and fid not in self.seen

    def secret(self, fid: str) -> bool:
        """Numbers about this combatant (health, pools, what a roll needed) stay with the GM."""
        return not self.gm and self.side(fid) != "pc"

    def visible(self, fid: str) -> bool:
        return not self.unseen(fid)

    def name(self, fid: str, unseen: str = UNSEEN_NAME) -> str:
        """The name this viewer may read: `unseen` for a combatant they may not know of, "someone" for an id the
        encounter does not have."""
        if self.unseen(fid):
            return unseen
        return self._names.get(fid, "someone")


# --- Revealing an unseen combatant: one command and one event every model that hides combatants shares ----------


@dataclass(frozen=True)
class Reveal(Command):
    """The GM reveals a combatant no PC is aware of: from then on the whole party is."""

    name: ClassVar[str] = "reveal"
    label: ClassVar[str] = "Reveal"
    fighter: str = ""


@dataclass(frozen=True)
class Revealed(Event):
    """A combatant no PC was aware of is now in sight of every PC. `cause`: "" when the GM chose to reveal it,
    "attack" when the rules did because it attacked (the model's `attack_reveals` setting)."""

    kind: ClassVar[str] = "revealed"
    fighter: str = ""
    cause: str = ""


# Whether an unseen combatant that attacks is revealed by it. The rules notes leave it open, so it is the GM's
# choice; an attack gives the attacker away at the table, so it does by default.
ATTACK_REVEALS = Setting(
    "attack_reveals",
    "An unseen combatant is revealed when it attacks",
    True,
    help="Off: it stays unseen to the players until the GM reveals it.",
)


def decide_reveal(state: Any, command: Reveal) -> list[Event]:
    """The GM's reveal, at any time: only a combatant the party cannot see yet."""
    fighter = state.fighter(command.fighter)
    require(Sight(state.fighters, gm=False).unseen(fighter.id), f"{fighter.name} is already in sight of the party.")
    return [Revealed(fighter=fighter.id)]


def revealed_by_attack(state: Any, attacker: str) -> list[Event]:
    """The reveal an attack by `attacker` brings, before the attack's own events: none unless it is unseen and
    the GM's `attack_reveals` setting says attacking reveals. A new encounter stores the setting (on by default);
    one started before the setting existed has no such key and keeps the rules it started with: no reveal."""
    settings = getattr(state, "settings", {}) or {}
    if not settings.get(ATTACK_REVEALS.key, False):
        return []
    if not Sight(state.fighters, gm=False).unseen(attacker):
        return []
    return [Revealed(fighter=attacker, cause="attack")]


def evolve_revealed(state: Any, event: Revealed) -> Any:
    """Every PC becomes aware of the revealed combatant (PCs already aware of it stay as they are)."""
    fighters = tuple(
        dataclasses.replace(f, aware_of=(*f.aware_of, event.fighter))
        if f.side == "pc" and event.fighter not in f.aware_of
        else f
        for f in state.fighters
    )
    return dataclasses.replace(state, fighters=fighters)


def describe_revealed(state: Any, event: Revealed) -> str:
    """The same sentence for GM and players: once revealed, its name is theirs to read."""
    name = Sight(state.fighters, gm=True).name(event.fighter)
    return f"{name} is revealed{' as it attacks' if event.cause == 'attack' else ''}."


def as_players_know(state: Any) -> Any:
    """The state without the combatants players may not know of: what they judge the fight by (who is left
    standing), as if those combatants were not there."""
    sight = Sight(state.fighters, gm=False)
    return dataclasses.replace(state, fighters=tuple(f for f in state.fighters if sight.visible(f.id)))


def ordered_unique(items: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return tuple(seen)


__all__ = [
    "require",
    "ATTACK_REVEALS",
    "Command",
    "Ended",
    "Event",
    "EventCodec",
    "Logged",
    "MARKERS",
    "MARKER_SENTENCES",
    "Reveal",
    "Revealed",
    "RuleError",
    "Setting",
    "Sight",
    "as_players_know",
    "UNSEEN_NAME",
    "Undone",
    "active_events",
    "clean_settings",
    "decide_reveal",
    "describe_revealed",
    "evolve_revealed",
    "is_marker",
    "coerce_form",
    "field",
    "from_json",
    "ordered_unique",
    "replay",
    "revealed_by_attack",
    "seen_by_party",
    "to_json",
]
