"""The Churn (optional rule): the pool's thresholds become effects, and the GM applies each one.

What the seed and the notes give, and the engine applies: the pool grows by itself (evolve.py: a success with
Drama Die 6, 4+ SP on one stunt, Fortune changing a die, the end of the encounter) and the GM may adjust it; the
seed lets the GM "spend Churn Points on missed firearms attacks to cause it to jam or run out of ammo" (ChurnJam);
the notes: "At 10 and 20 the GM rolls on the Churn table; at 30 an epic effect and the pool resets."

What neither gives: the Churn table itself. So everything below the thresholds is the GM's, and labelled so: how
a threshold reads (`churn_over`, a house table: minor or major, with or without a 1d6) and what the effect is. The
prompts in SEVERITIES are our suggestions, not the seed's. When an effect comes due it waits in `State.churn_due`
until the GM picks what it does with `ApplyChurn`, and the engine applies what it can of the pick: a combatant's
next test fails whatever the dice, a combatant loses Fortune, or takes a condition; anything else the GM narrates.
The Churn is the GM's: its events are GM-only (a lost Fortune or a condition is logged as the GM's ordinary edit,
without the word Churn), and players see the pool only when the GM makes it public (`churn_public`).

This module holds the table as data, the decider, the evolve handlers and the sentences for the Churn's events;
decide.py, evolve.py and describe.py map the event and command classes here.
"""

from __future__ import annotations

from dataclasses import replace

from combat.rules.core import Event, RuleError, Setting, Sight, require
from combat.rules.dice import Dice
from combat.rules.expanse import rulebook as book
from combat.rules.expanse.commands import ApplyChurn
from combat.rules.expanse.events import ChurnApplied, ChurnReached, ConditionSet, FortuneAdjusted, Tested
from combat.rules.expanse.state import State, put
from combat.rules.expanse.stats import CONDITIONS

# What a Churn effect may inflict: any condition but being taken out (damage decides that).
CHURN_CONDITIONS = tuple(c for c in CONDITIONS if c != book.TAKEN_OUT)

CHURN_DIE = 6

# Severity -> (label, the GM's prompt). Our suggestions of the setbacks a Churn effect may bring; not the seed's.
SEVERITIES: dict[str, tuple[str, str]] = {
    "minor": (
        "Minor",
        (
            "A setback: someone automatically fails a test or needs a second one, a hazard appears or grows "
            "a level, an NPC turns less friendly."
        ),
    ),
    "major": (
        "Major",
        (
            "A serious setback: a threat rises a rank or reinforcements arrive, a hazard grows two levels, "
            "the ship or the gear suffers a loss."
        ),
    ),
    "epic": ("Epic", "Everything changes: the fight takes a dramatic, dangerous turn of your making."),
}

# The Churn Over table: setting value -> {threshold: the lowest 1d6 roll that makes the effect major}.
# 0: no roll (the threshold alone decides: 10 minor, 20 major).
CHURN_OVER: dict[str, dict[int, int]] = {"roll": {10: 5, 20: 3}, "fixed": {10: 0, 20: 0}}
CHURN_OVER_SETTING = Setting(
    "churn_over",
    "Your Churn table at 10 and 20 (a house rule: the seed and notes give none)",
    "roll",
    choices=(
        ("roll", "House table: roll 1d6; at 10, 5-6 is major; at 20, 3-6 is major; else minor"),
        ("fixed", "House table, no roll: minor at 10, major at 20"),
    ),
    help="The notes say the GM rolls on the Churn table at 10 and 20 (30: an epic effect, and the pool resets) "
    "but neither they nor the seed give the table. Pick how a threshold reads; then, when an effect comes due, "
    "you pick what it does: a combatant's next test fails, a combatant loses Fortune or takes a condition (the "
    "engine applies these), or you narrate it.",
)

CHURN_PUBLIC_SETTING = Setting(
    "churn_public",
    "Players see the Churn pool",
    False,
    help="The notes leave it open. Off: the pool, its thresholds and effects are the GM's alone. On: everyone sees "
    "the pool; the thresholds and the effects stay the GM's to narrate.",
)

EFFECTS = {
    "fail": "a combatant's next test fails",
    "fortune": "a combatant loses Fortune",
    "condition": "a combatant takes a condition",
    "narrate": "narrate what happens",
}
MOST_FORTUNE = 20  # the most Fortune one Churn effect takes


def severity(level: int, roll: int, table: str) -> str:
    """What a threshold brings: "epic" at the reset level, else minor or major by the table (and the roll)."""
    if level >= book.CHURN_RESET_AT:
        return "epic"
    major_from = CHURN_OVER.get(table, CHURN_OVER["roll"]).get(level, 0)
    if major_from == 0:
        return "major" if level >= 20 else "minor"
    return "major" if roll >= major_from else "minor"


# --- deciding --------------------------------------------------------------------------------------------------


def reached(before: State, after: State, dice: Dice) -> list[Event]:
    """The thresholds the pool passed between `before` and `after`, each with its roll and the effect now due."""
    if not after.settings.get("churn") or after.churn <= before.churn:
        return []
    table = str(after.settings.get("churn_over", "roll"))
    events: list[Event] = []
    for level, _ in book.CHURN_THRESHOLDS:
        if before.churn < level <= after.churn:
            epic = level >= book.CHURN_RESET_AT
            roll = dice.roll(1, CHURN_DIE)[0] if not epic and CHURN_OVER.get(table, {}).get(level) else 0
            events.append(ChurnReached(level=level, reset=epic, roll=roll, severity=severity(level, roll, table)))
    return events


def fail_tests(state: State, events: list[Event], dice: Dice) -> list[Event]:
    """A combatant the Churn marked fails their next test whatever its dice: no damage; a grenade scatters."""
    marked = {f.id for f in state.fighters if f.churn_fail}
    out: list[Event] = []
    for event in events:
        if isinstance(event, Tested) and event.test and event.test.fighter in marked:
            test = replace(event.test, churned=True, damage_faces=(), damage_entered=False)
            if test.kind == "grenade" and not test.scatter:
                test = replace(test, scatter=dice.roll(1, book.GRENADE_SCATTER_SIDES)[0])
            event = replace(event, test=test)
            marked.discard(test.fighter)
        out.append(event)
    return out


def apply_churn(state: State, c: ApplyChurn, dice: Dice) -> list[Event]:
    require(bool(state.settings.get("churn")), "This encounter does not use Churn.")
    require(bool(state.churn_due), "No Churn effect is due.")
    require(
        c.effect in EFFECTS,
        "Make a combatant's next test fail, take Fortune or give a condition, or narrate what the Churn does.",
    )
    text = " ".join(str(c.note).split())[:200]
    due = state.churn_due[0]
    if c.effect == "narrate":
        require(bool(text), "Say what the Churn does.")
        return [ChurnApplied(severity=due, effect="narrate", note=text)]
    f = state.fighter(c.target)
    require(not f.out, f"{f.name} is out of the encounter.")
    applied = ChurnApplied(severity=due, effect=c.effect, target=f.id, note=text)
    if c.effect == "fortune":
        require(1 <= c.points <= MOST_FORTUNE, f"Take 1 to {MOST_FORTUNE} Fortune.")
        require(f.fortune > 0, f"{f.name} has no Fortune left to lose.")
        lost = min(c.points, f.fortune)
        return [replace(applied, points=lost), FortuneAdjusted(target=f.id, change=-lost)]
    if c.effect == "condition":
        require(c.condition in CHURN_CONDITIONS, f"Choose one of the conditions: {', '.join(CHURN_CONDITIONS)}.")
        require(c.condition not in f.conditions, f"{f.name} already has the {c.condition} condition.")
        return [replace(applied, condition=c.condition), ConditionSet(target=f.id, condition=c.condition)]
    if f.churn_fail:
        raise RuleError(f"{f.name}'s next test already fails.")
    return [applied]


# --- evolving --------------------------------------------------------------------------------------------------


def evolve_reached(state: State, event: ChurnReached) -> State:
    if event.severity:
        state = replace(state, churn_due=state.churn_due + (event.severity,))
    return replace(state, churn=0) if event.reset else state


def evolve_applied(state: State, event: ChurnApplied) -> State:
    state = replace(state, churn_due=state.churn_due[1:])
    if event.effect == "fail":
        state = put(state, replace(state.fighter(event.target), churn_fail=True))
    return state


# --- words -----------------------------------------------------------------------------------------------------


def describe_reached(state: State, event: ChurnReached, sight: Sight) -> str | None:
    if not sight.gm:
        return None
    if not event.severity:  # logs from before the effects were applied keep their words
        what = dict(book.CHURN_THRESHOLDS).get(event.level, "the GM rolls on the Churn table")
        return f"Churn reaches {event.level}: {what}"
    roll = f" (1d6 on the Churn Over table: {event.roll})" if event.roll else ""
    reset = ", and the pool resets to 0" if event.reset else ""
    label, prompt = SEVERITIES[event.severity]
    return f"Churn reaches {event.level}{roll}: a {label.lower()} effect is due{reset}. {prompt}"


def describe_applied(state: State, event: ChurnApplied, sight: Sight) -> str | None:
    if not sight.gm:
        return None
    label = SEVERITIES.get(event.severity, ("The", ""))[0]
    why = f" ({event.note})" if event.note else ""
    who = sight.name(event.target)
    if event.effect == "fail":
        return f"{label} Churn: {who}'s next test fails whatever the dice{why}"
    if event.effect == "fortune":
        return f"{label} Churn: {who} loses {event.points} Fortune{why}"
    if event.effect == "condition":
        return f"{label} Churn: {who} takes the {event.condition} condition{why}"
    return f"{label} Churn: {event.note}"
