"""Stat schemas: the fields a character has under one combat model, with their limits.

Declared as data so the rules engine, the forms and the demo data share one definition. `validate`
turns raw input (strings from a form or values from JSON) into clean values, or explains in a
sentence per field what is wrong.

A stat with `derive` is worked out from the others (Toughness from Constitution): nobody types it. The GM may
override it; the override is stored beside the typed stats, under `OVERRIDES` in the same dict, and the fight
uses it instead of the derived value (`StatSchema.resolve`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

INT = "int"
CHOICE = "choice"
BOOL = "bool"
TAGS = "tags"  # a list of short strings, typed comma-separated
TEXT = "text"  # one short line of free text, at most `max` characters (60 unless set); `choices` are suggestions

OVERRIDES = "overrides"  # the stats' key holding the GM's overrides of derived stats: {stat key: value}


@dataclass(frozen=True)
class Derivation:
    """A derived stat's value and how it was worked out, e.g. (13, "10 + Dexterity 3")."""

    value: int
    formula: str


@dataclass(frozen=True)
class DerivedValue:
    """What the sheet shows of one derived stat: the value the fight uses, and why."""

    key: str
    label: str
    value: int
    derived: Derivation
    overridden: bool

    @property
    def note(self) -> str:
        """What follows the value on the sheet: "= 10 + Dexterity 3", or that the GM set it."""
        if self.overridden:
            return f"— set by the GM; derived would be {self.derived.value}"
        return f"= {self.derived.formula}"

    @property
    def sentence(self) -> str:
        """ "Defense 13 = 10 + Dexterity 3" or "Defense 15 — set by the GM; derived would be 13"."""
        return f"{self.label} {self.value} {self.note}"


def whole(values: Mapping[str, Any], key: str, default: int) -> int:
    """values[key] as a whole number, or `default` when it is missing or not a number (stored JSON may hold
    anything)."""
    raw = values.get(key, default)
    if isinstance(raw, bool):
        return default
    try:
        return int(raw)
    except (TypeError, ValueError, OverflowError):
        return default


@dataclass(frozen=True)
class Stat:
    key: str
    label: str
    kind: str = INT
    default: Any = 0
    min: int | None = None
    max: int | None = None
    choices: tuple[tuple[Any, str], ...] = ()
    group: str = ""
    help: str = ""
    allowed_tags: tuple[str, ...] = ()
    # Worked out from the typed stats (over their defaults); such a stat has no input but the GM's override.
    derive: Callable[[Mapping[str, Any]], Derivation] | None = field(default=None, compare=False)

    def clean(self, raw: Any) -> Any:
        """Return the clean value or raise ValueError with a sentence for the player."""
        if self.kind == BOOL:
            if isinstance(raw, str):
                return raw.strip().lower() in {"1", "true", "on", "yes"}
            return bool(raw)
        if self.kind == TAGS:
            if raw is None or raw == "":
                return []
            if isinstance(raw, str):
                items = raw.split(",")
            elif isinstance(raw, (list, tuple)):
                items = list(raw)
            else:
                raise ValueError(f"{self.label} must be a list of words.")
            tags = []
            for item in items:
                if not isinstance(item, str):
                    raise ValueError(f"{self.label} must be a list of words.")
                tag = " ".join(item.split())
                if not tag:
                    continue
                if len(tag) > 60:
                    raise ValueError(f"Each entry in {self.label} must be at most 60 characters.")
                if self.allowed_tags:
                    match = next((a for a in self.allowed_tags if a.lower() == tag.lower()), None)
                    if match is None:
                        raise ValueError(
                            f"{tag!r} is not one of the {self.label.lower()}: {', '.join(self.allowed_tags)}."
                        )
                    tag = match
                if tag not in tags:
                    tags.append(tag)
            return tags
        if self.kind == TEXT:
            if raw is None:
                return ""
            if not isinstance(raw, str):
                raise ValueError(f"{self.label} must be a few words.")
            text = " ".join(raw.split())
            limit = self.max or 60
            if len(text) > limit:
                raise ValueError(f"{self.label} must be at most {limit} characters (it has {len(text)}).")
            return text
        if self.kind == CHOICE:
            values = {str(value): value for value, _ in self.choices}
            if raw is None or str(raw) not in values:
                options = ", ".join(label for _, label in self.choices)
                raise ValueError(f"{self.label} must be one of: {options}.")
            return values[str(raw)]
        # INT
        if isinstance(raw, bool):
            raise ValueError(f"{self.label} must be a whole number.")
        if isinstance(raw, str):
            raw = raw.strip()
            if raw in {"", "-", "+"}:
                raise ValueError(f"{self.label} is required.")
        try:
            value = int(raw)
        except (TypeError, ValueError, OverflowError):  # OverflowError: float("inf") from JSON
            raise ValueError(f"{self.label} must be a whole number.") from None
        if isinstance(raw, float) and raw != value:
            raise ValueError(f"{self.label} must be a whole number.")
        if self.min is not None and value < self.min:
            raise ValueError(f"{self.label} cannot be below {self.min}.")
        if self.max is not None and value > self.max:
            raise ValueError(f"{self.label} cannot be above {self.max}.")
        return value


@dataclass(frozen=True)
class StatSchema:
    """All stats of one combat model plus the (current, maximum) pairs that must stay ordered."""

    model: str
    stats: tuple[Stat, ...]
    capped: tuple[tuple[str, str], ...] = ()
    groups: tuple[str, ...] = field(default=())
    # What the fight makes of some stats, for the sheet: {stat key: "7 in a fight, with Medium armour +4"}, read
    # from the resolved sheet (derived values and the GM's overrides in). None: the fight uses the sheet as it is.
    fight: Callable[[Mapping[str, Any]], dict[str, str]] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        keys = [s.key for s in self.stats]
        assert len(keys) == len(set(keys)), f"duplicate stat keys in {self.model}"

    def get(self, key: str) -> Stat:
        for stat in self.stats:
            if stat.key == key:
                return stat
        raise KeyError(key)

    @property
    def typed(self) -> tuple[Stat, ...]:
        """The stats a sheet types in: every one but the derived."""
        return tuple(s for s in self.stats if s.derive is None)

    def defaults(self) -> dict[str, Any]:
        """The typed stats' defaults (derived stats are never stored: `resolve` works them out)."""
        return {s.key: (list(s.default) if s.kind == TAGS else s.default) for s in self.typed}

    def derived(self, values: Mapping[str, Any]) -> list[DerivedValue]:
        """Each derived stat of a sheet: the GM's override if there is one, else the value worked out from the
        typed stats. A stored value under a derived stat's own key is not read: only overrides count."""
        typed = {**self.defaults(), **values}
        overrides = values.get(OVERRIDES)
        if not isinstance(overrides, Mapping):
            overrides = {}
        out = []
        for stat in self.stats:
            if stat.derive is None:
                continue
            worked_out = stat.derive(typed)
            try:
                override = stat.clean(overrides[stat.key]) if stat.key in overrides else None
            except ValueError:
                override = None
            value = worked_out.value if override is None else override
            out.append(DerivedValue(stat.key, stat.label, value, worked_out, override is not None))
        return out

    def resolve(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The sheet as the fight reads it: typed stats over their defaults, plus every derived stat's value."""
        return {**self.defaults(), **values, **{d.key: d.value for d in self.derived(values)}}

    def in_fight(self, values: Mapping[str, Any]) -> dict[str, str]:
        """{stat key: how the fight's value differs from the sheet's} (see `fight`); empty for most models."""
        return self.fight(self.resolve(values)) if self.fight else {}

    def clean_overrides(self, raw: Mapping[str, Any]) -> tuple[dict[str, int], dict[str, str]]:
        """The GM's overrides of derived stats: an empty value means none; other keys are ignored.

        Returns (clean, errors by key)."""
        clean: dict[str, int] = {}
        errors: dict[str, str] = {}
        for stat in self.stats:
            value = raw.get(stat.key)
            if stat.derive is None or value is None or (isinstance(value, str) and not value.strip()):
                continue
            try:
                clean[stat.key] = stat.clean(value)
            except ValueError as exc:
                errors[stat.key] = str(exc)
        return clean, errors

    def validate(self, data: Mapping[str, Any], partial: bool = False) -> tuple[dict[str, Any], dict[str, str]]:
        """Clean `data`. With partial=True, missing keys are left out instead of defaulted.

        Returns (clean values, errors by key). Unknown keys are ignored.
        """
        clean: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for stat in self.typed:
            if stat.key not in data:
                if partial:
                    continue
                if stat.kind == BOOL:
                    clean[stat.key] = False  # an unticked checkbox is not sent at all
                    continue
                clean[stat.key] = list(stat.default) if stat.kind == TAGS else stat.default
                continue
            try:
                clean[stat.key] = stat.clean(data[stat.key])
            except ValueError as exc:
                errors[stat.key] = str(exc)
        for current, maximum in self.capped:
            if current in clean and maximum in clean and current not in errors and maximum not in errors:
                if clean[current] > clean[maximum]:
                    errors[current] = (
                        f"{self.get(current).label} cannot be above {self.get(maximum).label} ({clean[maximum]})."
                    )
        return clean, errors

    def summary(self, values: Mapping[str, Any], keys: tuple[str, ...]) -> list[tuple[str, Any]]:
        resolved = self.resolve(values)
        return [(self.get(k).label, resolved.get(k, self.get(k).default)) for k in keys]


def die_choices(sizes: tuple[int, ...] = (4, 6, 8, 10, 12)) -> tuple[tuple[int, str], ...]:
    return tuple((size, f"d{size}") for size in sizes)
