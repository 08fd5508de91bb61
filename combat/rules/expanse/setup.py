"""The Expanse (AGE) between the campaign and the encounter: the GM's settings, the state an encounter starts
from, a combatant built from a character sheet, and what goes back to the sheets (and who won) at the end.
"""

from __future__ import annotations

import re
from typing import Any

from combat.rules.core import ATTACK_REVEALS, RuleError, Setting, clean_settings
from combat.rules.expanse import rulebook as book
from combat.rules.expanse import weapons
from combat.rules.expanse.churn import CHURN_OVER_SETTING, CHURN_PUBLIC_SETTING
from combat.rules.expanse.state import Fighter, State, slug
from combat.rules.expanse.stats import ABILITIES, ARMOUR, CONDITIONS, STATS, ability_key

KEY = "expanse"

SETTINGS = (
    Setting(
        "churn",
        "Use the Churn pool (optional rule)",
        False,
        help="+1 on a success with Drama Die 6, on 4+ SP on one stunt, when Fortune changes a die, and at "
        "the end of the encounter; at 10 and 20 the GM rolls on the Churn table, at 30 an epic effect "
        "and a reset.",
    ),
    CHURN_OVER_SETTING,
    CHURN_PUBLIC_SETTING,
    Setting(
        "fortune_die_cost",
        "Fortune to change one regular die of a test",
        2,
        choices=((0, "not allowed"), (1, "1"), (2, "2"), (3, "3"), (4, "4")),
    ),
    Setting(
        "fortune_drama_cost",
        "Fortune to change the Drama Die of a test",
        3,
        choices=((0, "not allowed"), (1, "1"), (2, "2"), (3, "3"), (4, "4"), (5, "5")),
    ),
    Setting("injured_penalty", "Test penalty while injured", 1, choices=((0, "0"), (1, "-1"), (2, "-2"), (3, "-3"))),
    Setting("wounded_penalty", "Test penalty while wounded", 2, choices=((0, "0"), (1, "-1"), (2, "-2"), (3, "-3"))),
    Setting(
        "injury_penalties",
        "Injured and wounded at once",
        "worst",
        choices=(("worst", "Only the worse penalty counts"), ("add", "The two penalties add up")),
        help="The seed lets a character be injured and then wounded, and names no penalty for either.",
    ),
    Setting(
        "wounded_is_last",
        "Wounded without Injured is the last step",
        False,
        help='The seed: with damage left, "or the character is already injured, they must accept a wounded '
        'condition or be taken out". It does not say whether one wounded but no longer injured may take Injured '
        "again. Off: they may. On: more damage takes them out.",
    ),
    Setting(
        "armour_penalty",
        "Armour penalty lowers Dexterity tests and Speed",
        True,
        help="Turn off if your sheets already include it: then Dexterity tests, Speed and Defense all leave it out "
        "(a sheet works Defense out as 10 + Dexterity less the penalty; a Defense the GM set by hand is used as "
        "it is).",
    ),
    Setting(
        "long_range_penalty",
        "Attack penalty beyond a weapon's range (up to its maximum)",
        2,
        choices=((0, "0"), (1, "-1"), (2, "-2"), (3, "-3")),
    ),
    Setting(
        "gm_widens_blast",
        "The GM adds who else a grenade caught",
        True,
        help='Seed: "Grenades effect everyone within 5 metres", but the thrower names only those they see. On: '
        "until the thrower's next turn the GM may add others in the blast, the unseen too; players never read "
        "an unseen one's name. Off: only those the thrower named (or the GM placed after a scatter) are hit.",
    ),
    Setting("cover_vs_melee", "Cover's armour bonus also counts against close combat", False),
    Setting(
        "penetrating_ignores_cover",
        "Penetrating (stunning) damage ignores cover's armour bonus too",
        True,
        help='Seed: penetrating damage "ignores Toughness entirely", and cover is an armour bonus to Toughness.',
    ),
    Setting(
        "run_ends_turn",
        "Run takes the whole turn",
        True,
        help='Seed: Run moves you twice your Speed, "sacrificing the ability to perform another action". '
        "Off (house rule): Run is your major action and a minor may follow.",
    ),
    Setting(
        "prepare_interrupt",
        "Who triggers a prepared action",
        "gm",
        choices=(("gm", "The GM taps 'interrupt now'"), ("player", "The GM, or the prepared player")),
    ),
    Setting("churn_jam_cost", "Churn the GM spends to jam a missed firearm", 1, choices=((1, "1"), (2, "2"), (3, "3"))),
    Setting(
        "extra_stunts",
        "More stunts (Name cost or Name min-max, separated by ;)",
        "",
        help='For example "Called Shot 4; Feint 1-3; Hostage 4+".',
    ),
    Setting(
        "entered_dice",
        "Players may enter the faces of physical dice",
        False,
        help="Attacks, grenades and ability tests then take the three dice typed in (the last is the Drama "
        "Die) and, for a hit, the damage dice; the server rolls whatever is left empty.",
    ),
    ATTACK_REVEALS,
    weapons.SETTING,
)


def parse_stunts(text: str) -> tuple[book.Stunt, ...]:
    """'Called Shot 4; Feint 1-3; Hostage 4+' -> narrated stunts. A malformed entry is a RuleError sentence."""
    stunts = []
    for raw in (text or "").split(";"):
        entry = " ".join(raw.split())
        if not entry:
            continue
        m = re.fullmatch(r"(.+?)\s+(\d+)(?:\s*(-)\s*(\d+)|(\+))?", entry)
        if not m or not slug(m.group(1)):
            raise RuleError(f'"{entry[:40]}" needs a name and a cost, like "Feint 1-3" or "Called Shot 4".')
        cost = int(m.group(2))
        max_cost = int(m.group(4)) if m.group(4) else (0 if m.group(5) else cost)
        if cost < 1 or (max_cost and max_cost < cost) or cost > 20 or max_cost > 20:
            raise RuleError(f'"{entry[:40]}" needs a cost from 1 to 20 SP.')
        stunts.append(book.Stunt(slug(m.group(1)), m.group(1).strip(), cost, max_cost))
    return tuple(stunts)


def initial_state(fighters: tuple[Fighter, ...], settings: dict[str, Any] | None = None) -> State:
    """The encounter before initiative: the combatants, the GM's settings and the stunt list."""
    if not any(f.side == "pc" for f in fighters):
        raise RuleError("An encounter needs at least one player character.")
    if len({f.id for f in fighters}) != len(fighters):
        raise RuleError("Every combatant needs its own key.")
    clean = clean_settings(SETTINGS, settings)
    stunts = list(book.STUNTS)
    for extra in parse_stunts(str(clean.get("extra_stunts", ""))):
        if any(s.key == extra.key for s in stunts):
            raise RuleError(f"There is already a stunt called {extra.name}.")
        stunts.append(extra)
    return State(fighters=weapons.at_start(tuple(fighters), clean), settings=clean, stunts=tuple(stunts))


def fighter_from_sheet(
    key: str, name: str, side: str, owner: int | None, stats: dict[str, Any], aware_of: tuple[str, ...]
) -> Fighter:
    """A combatant from a character sheet (see expanse.stats); talents may also be typed among the focuses.

    Defense and Toughness are worked out from the sheet unless the GM overrode them (`STATS.resolve`). A worked-out
    Defense has armour's Dexterity penalty in it: `defense_armour` remembers how much, for the `armour_penalty`
    setting."""
    overridden = {d.key for d in STATS.derived(stats) if d.overridden}
    stats = STATS.resolve(stats)

    def number(k: str, default: int) -> int:
        try:
            return int(stats.get(k, default))
        except (TypeError, ValueError):
            return default

    focuses = tuple(" ".join(str(x).split()) for x in (stats.get("focuses") or ()) if str(x).strip())
    talents = tuple(" ".join(str(x).split()) for x in (stats.get("talents") or ()) if str(x).strip())
    talents += tuple(f for f in focuses if "(" not in f)
    fortune_max = max(0, number("fortune_max", 15))
    conditions = tuple(c for c in (stats.get("conditions") or ()) if c in CONDITIONS)
    armour = stats.get("armour", "none")
    shield = stats.get("shield", "none")
    by_label = {w.label.lower(): wkey for wkey, w in book.WEAPONS.items()}
    weapons = tuple(
        dict.fromkeys(
            by_label.get(str(w).strip().lower(), str(w).strip().lower()) for w in (stats.get("weapons") or ())
        )
    )
    return Fighter(
        id=key,
        name=name,
        side=side,
        owner=owner,
        abilities={a: number(ability_key(a), 1) for a in ABILITIES},
        focuses=tuple(f for f in focuses if "(" in f),
        talents=talents,
        defense=number("defense", 11),
        defense_armour=0 if "defense" in overridden else -ARMOUR.get(str(armour), ARMOUR["none"])[2],
        toughness=max(0, number("toughness", 1)),
        armour=armour if armour in ARMOUR else "none",
        shield=shield if shield in book.SHIELDS else "none",
        speed=max(0, number("speed", 11)),
        fortune=min(max(0, number("fortune", 15)), fortune_max),
        fortune_max=fortune_max,
        level=max(1, number("level", 1)),
        conditions=conditions,
        aware_of=tuple(aware_of),
        weapons=tuple(w for w in weapons if w in book.WEAPONS),
    )


def write_back(state: State) -> dict[str, dict[str, Any]]:
    """What persists on each PC's sheet: Fortune (after breathers, if the GM rolled them) and conditions.

    NPCs are left alone (several combatants may share one template sheet). Stunt points, Churn, cover, initiative
    and timed effects end with the encounter, so they are not here.
    """
    return {
        f.id: {"fortune": f.fortune, "conditions": [c for c in f.conditions if c in CONDITIONS]} for f in state.pcs()
    }


def outcome(state: State) -> str:
    """ "Victory" when no enemy can act any more (taken out, rolled over, unconscious), "Defeat" when no PC can."""
    if state.enemies() and not any(f.can_act for f in state.enemies()):
        return "Victory"
    if state.pcs() and not any(f.can_act for f in state.pcs()):
        return "Defeat"
    return ""
