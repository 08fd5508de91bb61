"""Between the campaign and a Burn Bryte fight: the encounter's settings, combatants built from character sheets,
the opening state, what goes back to the sheets when the fight ends, and who won."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from combat.rules.burn_bryte.gear import Weapon
from combat.rules.burn_bryte.state import Conditions, Fighter, State
from combat.rules.burn_bryte.stats import DIE_SIZES, SKILLS, nova_box_key, skill_key
from combat.rules.core import ATTACK_REVEALS, RuleError, Setting

KEY = "burn_bryte"

SETTINGS = (
    Setting(
        "change_cost",
        "Collapse points to change a declared enemy action",
        1,
        choices=((0, "0"), (1, "1"), (2, "2"), (3, "3")),
    ),
    Setting("entered_dice", "Players may enter the faces of physical dice", False),
    Setting(
        "failure_default",
        "One-tap choice after a failed roll",
        "collapse",
        choices=(("collapse", "GM gains 1 Collapse point"), ("consequence", "A failure consequence")),
    ),
    Setting(
        "surprise",
        "Surprise in round 1",
        "none",
        choices=(
            ("none", "Nobody is surprised"),
            ("enemies", "Enemies catch all PCs unaware"),
            ("pcs", "PCs catch all enemies unaware"),
        ),
    ),
    Setting(
        "nova_at_zero",
        "PCs at 0 Health Levels may spend Nova points",
        False,
        help="Default off: a PC at 0 Health Levels cannot spend Nova points (unless an ability says otherwise).",
    ),
    Setting(
        "nova_at_cap",
        "All five Nova boxes ticked at the Nova point cap",
        "hold",
        choices=(
            ("hold", "The boxes stay ticked; the point comes once there is room"),
            ("clear", "The boxes clear and the point is lost"),
        ),
        help="The notes: when all five are ticked, +1 Nova point and clear the boxes; Nova points are capped at "
        "the ship's Livability Rating. Default: at the cap the ticked boxes wait for room, so no point is lost.",
    ),
    ATTACK_REVEALS,
    Setting(
        "typed_damage",
        "Damage is typed on each attack instead of worked out from the weapon",
        False,
        help=(
            'Default off: an attack deals 1 damage "unless a weapon or ability says more" (Extra Damage, Charge N, '
            "Draining), read from the character sheet's weapon, an enemy's from its stat block in Phase 3. A player "
            "may add an ability's or Nova's extra damage (up to 3, shown in the log), never replace the weapon's. "
            "On: damage is typed on each attack."
        ),
    ),
    Setting(
        "draining_on_miss",
        "A Draining attack costs its 1 unblockable damage even when it misses",
        False,
        help=(
            'Default off: Draining "may deal 2 by taking 1 unblockable" — the 1 is taken only by an attack that '
            "hits and deals the 2 (the published rules: when you hit, you can choose to deal 2 and take 1 that "
            "shields cannot absorb). On: choosing Draining before the roll costs the 1 even if the roll fails or "
            "the enemy's attack misses."
        ),
    ),
    Setting(
        "ship_dark_no_room",
        "A dark ship gives no room: no new Advantages or Nova points while it is dark",
        False,
        help=(
            'Default off: the notes say only "At 0 MI Health Levels the ship goes dark"; the table shows it and '
            "the GM says what it means for the crew."
        ),
    ),
    # Positions and ranges (positions.py): only combatants the GM has placed on the grid are ever checked.
    Setting(
        "range_check",
        "An attack beyond its reach",
        "refuse",
        choices=(
            ("refuse", "Refused, with the distance"),
            ("warn", "Rolled, the log notes the distance"),
            ("off", "Not checked"),
        ),
        help=(
            'The notes: "Mental/Social attacks reach 5 squares, Physical ones adjacent (thrown Ranged 5 squares) — GM '
            "adjudicates.\" Default: refused with a sentence naming the distance; a weapon's range on the sheet "
            "counts for Physical attacks. Only combatants placed on the grid are checked."
        ),
    ),
    Setting(
        "grid_distance",
        "Counting squares on the grid",
        "chebyshev",
        choices=(("chebyshev", "A diagonal step counts 1"), ("manhattan", "No diagonals: across plus along")),
        help="Default: a diagonal step counts 1 square (Chebyshev distance, the common grid default).",
    ),
    Setting(
        "extra_move",
        "Squares a successful move roll adds",
        "speed",
        choices=(("speed", "Up to speed again"), ("half", "Up to half speed, rounded up")),
        help=(
            'The notes: "Free movement once per turn: up to speed (default 5 squares); extra movement needs a skill '
            "roll.\" They do not say how far; default: the PC's speed again."
        ),
    ),
)


def initial_state(
    fighters: tuple[Fighter, ...], livability: int, settings: dict[str, Any], ship: tuple[str, int, int] = ("", 0, 0)
) -> State:
    """The opening state; `ship` is the party's ship as (name, MI Health Levels, maximum), empty without one."""
    if not any(f.side == "pc" for f in fighters):
        raise RuleError("An encounter needs at least one player character.")
    surprise = settings.get("surprise", "none")
    # PCs surprising all enemies skip Phase 1 of round 1.
    phase = 2 if surprise == "pcs" else 1
    capped = tuple(replace(f, nova_points=min(f.nova_points, livability)) if f.side == "pc" else f for f in fighters)
    name, health, health_max = ship
    return State(
        fighters=capped,
        livability=livability,
        surprise=surprise,
        phase=phase,
        settings=dict(settings),
        ship_name=name,
        ship_health=max(0, min(health, health_max)),
        ship_health_max=health_max,
    )


def fighter_from_sheet(
    key: str, name: str, side: str, owner: int | None, stats: dict[str, Any], aware_of: tuple[str, ...]
) -> Fighter:
    """A combatant built from a character sheet (see burn_bryte.stats)."""
    conditions = Conditions(
        neg_minor=stats.get("neg_minor", ""),
        neg_moderate=stats.get("neg_moderate", ""),
        neg_significant=bool(stats.get("neg_significant")),
        pos_minor=stats.get("pos_minor", ""),
        pos_moderate=stats.get("pos_moderate", ""),
        pos_significant=bool(stats.get("pos_significant")),
    )
    return Fighter(
        id=key,
        name=name,
        side=side,
        owner=owner,
        skills={skill: int(stats.get(skill_key(skill), 4)) for skill in SKILLS},
        health=int(stats.get("health", 3)),
        health_max=int(stats.get("health_max", 3)),
        speed=int(stats.get("speed", 5)),
        nova_points=int(stats.get("nova_points", 0)),
        nova_boxes=tuple(size for size in DIE_SIZES if stats.get(nova_box_key(size))),
        conditions=conditions,
        aware_of=aware_of,
        shield=int(stats.get("shield", 0)),
        shield_max=int(stats.get("shield_max", 0)),
        weapon=weapon_from_sheet(stats),
    )


def weapon_from_sheet(stats: dict[str, Any]) -> Weapon:
    """The sheet's weapon (its name is a one-entry list on the sheet)."""
    raw = stats.get("weapon_name") or ()
    return Weapon(
        name=raw if isinstance(raw, str) else ", ".join(raw),
        damage=int(stats.get("weapon_damage", 1)),
        charge=int(stats.get("weapon_charge", 0)),
        draining=bool(stats.get("weapon_draining")),
        burst=int(stats.get("weapon_burst", 0)),
        range=int(stats.get("weapon_range", 0)),
    )


def write_back(state: State) -> dict[str, dict[str, Any]]:
    """What persists on each PC's sheet after the encounter: Health Levels, shield, conditions, Nova points and boxes.

    Advantages and Collapse points end with the encounter, so they are not here.
    """
    out = {}
    for f in state.pcs():
        c = f.conditions
        out[f.id] = {
            "health": f.health,
            "shield": f.shield,
            "nova_points": f.nova_points,
            **{nova_box_key(size): size in f.nova_boxes for size in DIE_SIZES},
            # A condition gained at 0 Health Levels and not yet named by the GM stays held ("?").
            "neg_minor": c.neg_minor,
            "neg_moderate": c.neg_moderate,
            "neg_significant": c.neg_significant,
            "pos_minor": c.pos_minor,
            "pos_moderate": c.pos_moderate,
            "pos_significant": c.pos_significant,
        }
    return out


def outcome(state: State) -> str:
    """ "Victory" when every enemy is at 0 Health Levels, "Defeat" when every PC is; otherwise ""."""
    if state.enemies() and all(f.down for f in state.enemies()):
        return "Victory"
    if state.pcs() and all(f.down for f in state.pcs()):
        return "Defeat"
    return ""
