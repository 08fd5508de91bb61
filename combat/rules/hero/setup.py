"""Between the campaign and a HERO System fight: the encounter's settings, combatants built from character sheets,
the opening state, what goes back to the sheets when the fight ends, and who won."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from combat.rules.core import ATTACK_REVEALS, RuleError, Setting, clean_settings
from combat.rules.hero.state import Fighter, State, schedule
from combat.rules.hero.stats import STATS

KEY = "hero"

SETTINGS = (
    Setting(
        "dex_ties",
        "Characters tied on DEX",
        "gm",
        choices=(("gm", "The GM orders them"), ("roll", "They roll off with a d6 each segment")),
    ),
    Setting("spd1_opening", "SPD 1 characters act in the opening segment 12", True),
    Setting(
        "spd_change",
        "A SPD change mid-turn",
        "lockout",
        choices=(
            ("lockout", "Next phase is the later of the old and new SPD's next phases"),
            ("next_turn", "Takes effect at the start of the next turn"),
        ),
    ),
    Setting("str_end", "END for STR", 10, choices=((10, "1 END per 10 STR"), (5, "1 END per 5 STR"))),
    Setting(
        "hold_collision",
        "A held action colliding with another action",
        "gm",
        choices=(("gm", "The GM decides who goes first"), ("roll", "Both roll DEX; the larger margin goes first")),
    ),
    Setting(
        "entered_dice",
        "Players may enter the faces of physical dice",
        False,
        help="An attack's 3d6 and its damage dice may be typed in; the log marks them as physical dice.",
    ),
    Setting(
        "presence_against",
        "A Presence attack is measured against the target's",
        "pre",
        choices=(("pre", "PRE"), ("higher", "PRE or EGO, whichever is higher"), ("ego", "EGO")),
    ),
    Setting(
        "presence_effects",
        "The engine applies a Presence attack's effects",
        True,
        help="The seed only says Presence attacks take no time; the effect table is HERO 6e's, so the GM may rule "
        "instead. On (DEFAULT): impressed, the target hesitates and the attacker acts first in the target's next "
        "phase; very impressed, that and only a half phase action; awed, that phase is lost, at half DCV until "
        "then; cowed: as awed, at 0 DCV. Off: the log tells the effect and the GM rules on it.",
    ),
    ATTACK_REVEALS,
)

_SHEET = (
    "spd",
    "dex",
    "initiative_dex",
    "con",
    "rec",
    "ocv",
    "dcv",
    "pd",
    "ed",
    "stun",
    "stun_max",
    "body",
    "body_max",
    "end",
    "end_max",
    "run",
    "pre",
    "ego",
)
WRITTEN_BACK = ("stun", "body", "end")


def initial_state(fighters: tuple[Fighter, ...], settings: dict[str, Any] | None) -> State:
    """Turn 1, segment 12, before the GM starts the opening segment (which may need a DEX roll-off)."""
    if not any(f.side == "pc" for f in fighters):
        raise RuleError("An encounter needs at least one player character.")
    clean = clean_settings(SETTINGS, settings)
    opening = tuple(replace(f, phases=schedule(f.spd, 1, 0, bool(clean["spd1_opening"]))) for f in fighters)
    return State(fighters=opening, settings=clean)


def fighter_from_sheet(
    key: str, name: str, side: str, owner: int | None, stats: dict[str, Any], aware_of: tuple[str, ...]
) -> Fighter:
    """A combatant built from a HERO character sheet (see hero.stats); current values never start above maxima.

    Initiative DEX is the sheet's DEX unless the GM overrode it (`STATS.resolve`)."""
    sheet = STATS.resolve(stats)
    try:
        values: dict[str, Any] = {k: int(sheet[k]) for k in _SHEET}
    except (TypeError, ValueError):
        raise RuleError(f"{name}'s sheet has a characteristic that is not a whole number.") from None
    if not 1 <= values["spd"] <= 12:
        raise RuleError(f"{name}'s SPD must be from 1 to 12.")
    for current, maximum in STATS.capped:
        values[current] = min(values[current], values[maximum])
    return Fighter(id=key, name=name, side=side, owner=owner, aware_of=tuple(aware_of), **values)


def write_back(state: State) -> dict[str, dict[str, int]]:
    """What persists on each PC's sheet: STUN, BODY and END (kept within the sheet's limits).

    Enemies share NPC sheets, so nothing is written back for them."""
    out = {}
    for f in state.pcs():
        out[f.id] = {key: max(STATS.get(key).min, getattr(f, key)) for key in WRITTEN_BACK}
    return out


def outcome(state: State) -> str:
    """ "Victory" when every enemy is knocked out or at 0 BODY or less, "Defeat" when every PC is; otherwise ""."""
    if state.enemies() and all(f.out for f in state.enemies()):
        return "Victory"
    if state.pcs() and all(f.out for f in state.pcs()):
        return "Defeat"
    return ""
