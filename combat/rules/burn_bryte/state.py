"""The state of a Burn Bryte fight: the round and its phase, each combatant's Health Levels, skills, Nova points
and conditions, the enemies' declared actions, the party's Advantages and the GM's Collapse points.

A round has three phases: 1, enemies declare their actions; 2, each PC takes one turn of skill rolls, each roll
one die more than the last (`complexity`); 3, the declared actions resolve. A roll of that many dice of the
skill's size succeeds when no two faces match (`has_doubles`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from math import perm

from combat.rules.burn_bryte.gear import Weapon
from combat.rules.burn_bryte.stats import SKILL_CATEGORIES
from combat.rules.core import RuleError

SKILL_CATEGORY = {skill: category for category, skills in SKILL_CATEGORIES.items() for skill in skills}


def chance_of_success(dice: int, sides: int) -> float:
    """Probability that `dice` dice of `sides` sides show no two equal faces: S!/((S-N)!·S^N)."""
    if dice > sides:
        return 0.0
    return float(perm(sides, dice) / sides**dice)


def has_doubles(faces: Sequence[int]) -> bool:
    return len(set(faces)) != len(faces)


@dataclass(frozen=True)
class Conditions:
    neg_minor: str = ""  # the skill it hinders; "?" when gained at 0 Health Levels and not yet named
    neg_moderate: str = ""  # the category it hinders
    neg_significant: bool = False
    pos_minor: str = ""
    pos_moderate: str = ""
    pos_significant: bool = False

    def modifier(self, skill: str) -> int:
        category = SKILL_CATEGORY.get(skill, "")
        shift = 0
        shift += 1 if self.neg_minor == skill else 0
        shift += 1 if self.neg_moderate and self.neg_moderate == category else 0
        shift += 1 if self.neg_significant else 0
        shift -= 1 if self.pos_minor == skill else 0
        shift -= 1 if self.pos_moderate and self.pos_moderate == category else 0
        shift -= 1 if self.pos_significant else 0
        return shift

    def gain_least_severe(self) -> tuple[Conditions, str]:
        if not self.neg_minor:
            return replace(self, neg_minor="?"), "a minor negative condition"
        if not self.neg_moderate:
            return replace(self, neg_moderate="?"), "a moderate negative condition"
        if not self.neg_significant:
            return replace(self, neg_significant=True), "a significant negative condition"
        return self, ""


@dataclass(frozen=True)
class Fighter:
    id: str
    name: str
    side: str  # "pc" or "enemy"
    owner: int | None = None
    skills: dict[str, int] = field(default_factory=dict)
    health: int = 3
    health_max: int = 3
    speed: int = 5
    nova_points: int = 0
    nova_boxes: tuple[int, ...] = ()
    conditions: Conditions = Conditions()
    aware_of: tuple[str, ...] = ()
    took_turn: bool = False
    collapse_note: str = ""
    shield: int = 0  # personal shield: absorbs damage before Health Levels (gear.absorb)
    shield_max: int = 0
    weapon: Weapon = Weapon()
    col: int = 0  # the square on the grid (positions.py): column 1 = A; 0 = not placed, never range-checked
    row: int = 0
    moved: int = 0  # an enemy's squares moved this Phase 3 (at most its speed)

    @property
    def down(self) -> bool:
        return self.health <= 0


@dataclass(frozen=True)
class Declaration:
    id: int
    enemy: str
    target: str
    text: str
    extra: bool = False
    defended: bool = False
    outcome: str = ""  # "", "hit", "missed", "cancelled", "skipped"
    weapon: str = ""  # the enemy's weapon it names (gear.py); "" for none


@dataclass(frozen=True)
class Roll:
    fighter: str
    skill: str
    sides: int
    complexity: int
    faces: tuple[int, ...]
    intent: str
    target: str
    damage: int
    entered: bool = False
    burst: int = 0  # Burst N: on a hit the GM picks every creature in the area (PlaceBurst)
    drained: int = 0  # unblockable damage the attacker takes on a hit (Draining)
    weapon: str = ""  # the weapon's name, for the log
    out_of_range: int = 0  # squares to the target when beyond reach and the GM's setting only warns
    at_col: int = 0  # a Burst's point on the grid, when the PC aimed it at a square (0: none)
    at_row: int = 0
    extra: int = 0  # of `damage`, the extra a player added for an ability or Nova (shown in the log)

    @property
    def succeeded(self) -> bool:
        return not has_doubles(self.faces)


@dataclass(frozen=True)
class State:
    fighters: tuple[Fighter, ...] = ()
    round: int = 1
    phase: int = 1
    surprise: str = "none"
    declarations: tuple[Declaration, ...] = ()
    next_declaration: int = 1
    advantages: int = 0
    livability: int = 3
    collapse: int = 2
    turn: str = ""
    turn_rolls: int = 0
    free_move_used: bool = False
    chain: bool = False
    picker: str = ""
    pending_failure: bool = False
    last_roll: Roll | None = None
    settings: dict[str, str | int | bool] = field(default_factory=dict)
    ended: bool = False
    # The party's ship in the fight (gear.py): its Magical Intelligence's Health Levels; none when ship_name is "".
    ship_name: str = ""
    ship_health: int = 0
    ship_health_max: int = 0
    pending_burst: Roll | None = None  # a Burst attack that hit, waiting for the GM to say who is in the area
    moves_left: int = 0  # squares the acting PC's successful move rolls granted and not yet moved

    @property
    def ship_dark(self) -> bool:
        """At 0 MI Health Levels the ship goes dark."""
        return bool(self.ship_name) and self.ship_health <= 0

    @property
    def room(self) -> int:
        """What caps Advantages and Nova points: the Livability Rating, or 0 on a dark ship if the GM so rules."""
        if self.ship_dark and self.settings.get("ship_dark_no_room"):
            return 0
        return self.livability

    def fighter(self, fighter_id: str) -> Fighter:
        for f in self.fighters:
            if f.id == fighter_id:
                return f
        raise RuleError("That combatant is not in this encounter.")

    def pcs(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side == "pc")

    def enemies(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side == "enemy")

    def declaration(self, declaration_id: int) -> Declaration:
        for d in self.declarations:
            if d.id == declaration_id:
                return d
        raise RuleError("That declared action is not in this round.")

    def pcs_left(self) -> tuple[Fighter, ...]:
        """PCs who still have a turn this round (a PC at 0 Health Levels takes no actions)."""
        return tuple(f for f in self.pcs() if not f.took_turn and not f.down)

    def complexity(self, fighter: Fighter, skill: str) -> int:
        return max(2, 2 + self.turn_rolls + fighter.conditions.modifier(skill))
