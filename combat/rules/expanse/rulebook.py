"""The Expanse (AGE) rulebook as data: the seed's tables, the common combat stunts, and the engine's numbers.

Everything the engine looks up lives here so a GM (or a later change) can extend it without touching the
rules: weapons and their damage, ranges, cover, object target numbers, shields, the stunt list, Churn.
Armour reuses `stats.ARMOUR` (the sheet and the engine share one table).
"""

from __future__ import annotations

from dataclasses import dataclass

from combat.rules.expanse.stats import ARMOUR

# --- actions (seed: Major Actions / Minor Actions tables) -----------------------------------------------------

MAJOR_ACTIONS: dict[str, str] = {
    "all_out_attack": "All-Out Attack",
    "charge": "Charge",
    "defend": "Defend",
    "melee_attack": "Melee Attack",
    "ranged_attack": "Ranged Attack",
    "run": "Run",
    "stunt_attack": "Stunt Attack",
    "other_major": "another major action",  # seed: "trying to override a lock ... providing first aid"
}

MINOR_ACTIONS: dict[str, str] = {
    "activate": "Activate",
    "aim": "Aim",
    "guard_up": "Guard Up",
    "move": "Move",
    "prepare": "Prepare",
    "press_the_attack": "Press the Attack",
    "ready": "Ready",
    "stand_firm": "Stand Firm",
    "clear_jam": "Clear a jam",  # seed, Weapon Capacity: "Use a Minor Action to fix the problem."
}

# What Prepare may postpone: any major action.
PREPARABLE = tuple(MAJOR_ACTIONS)

# The attack actions and the weapons each may use.
ATTACK_ACTIONS = ("all_out_attack", "charge", "melee_attack", "ranged_attack", "stunt_attack")
MELEE_FAMILY = ("all_out_attack", "charge", "melee_attack")


# --- weapons: the seed's damage table and range table ----------------------------------------------------------


@dataclass(frozen=True)
class Weapon:
    label: str
    kind: str  # "melee", "ranged" or "thrown"
    dice: int  # damage dice ...
    sides: int  # ... of this many sides
    damage_abilities: tuple[str, ...]  # added to damage; the wielder takes the best of several ("Str or Dex")
    focuses: tuple[str, ...]  # focuses that give +2 on the attack test
    gun: bool = False  # subject to jamming (Weapon Capacity)
    range: int = 2  # metres without penalty (melee: within 2 m)
    max_range: int = 0  # metres at most (0: no farther than `range`)
    range_adds_strength: bool = False  # thrown: 10 + Strength metres
    makeshift: bool = False
    note: str = ""

    @property
    def test_ability(self) -> str:
        return "Fighting" if self.kind == "melee" else "Accuracy"


# Seed, Damage: Unarmed 1d3 + Str (1d6 with Striking Style), Makeshift 1d6 + Str, Light Melee 1d6 + Str or Dex,
# Heavy Melee 2d6 + Str, Pistol 2d6 + Per, Rifle 3d6 + Per, Grenade 3d6 (5 m radius).
# Seed, Range: Bow 100/150 m, Pistol 50/75 m, Rifle 200/300 m, Thrown 10 + Str m.
WEAPONS: dict[str, Weapon] = {
    "unarmed": Weapon("Unarmed", "melee", 1, 3, ("Strength",), ("Brawling",)),
    "makeshift": Weapon("Makeshift weapon", "melee", 1, 6, ("Strength",), ("Brawling",), makeshift=True),
    "light_melee": Weapon("Light melee weapon", "melee", 1, 6, ("Strength", "Dexterity"), ("Light Weapons",)),
    "heavy_melee": Weapon("Heavy melee weapon", "melee", 2, 6, ("Strength",), ("Heavy Weapons",)),
    "pistol": Weapon("Pistol", "ranged", 2, 6, ("Perception",), ("Pistols",), gun=True, range=50, max_range=75),
    "rifle": Weapon("Rifle", "ranged", 3, 6, ("Perception",), ("Rifles",), gun=True, range=200, max_range=300),
    # The seed gives the bow a range but no damage line; 1d6 + Perception is our DEFAULT (edit here).
    "bow": Weapon(
        "Bow",
        "ranged",
        1,
        6,
        ("Perception",),
        ("Bows",),
        range=100,
        max_range=150,
        note="damage not in the seed: DEFAULT 1d6 + Perception",
    ),
    # A thrown light weapon (knife, bottle): range 10 + Strength; damage as a light weapon thrown, DEFAULT.
    "thrown": Weapon(
        "Thrown weapon",
        "thrown",
        1,
        6,
        ("Strength",),
        ("Throwing", "Thrown"),
        range=10,
        range_adds_strength=True,
        note="damage not in the seed: DEFAULT 1d6 + Strength",
    ),
    "grenade": Weapon("Grenade", "thrown", 3, 6, (), ("Throwing", "Thrown"), range=10, range_adds_strength=True),
}
STRIKING_STYLE = "Striking Style"  # the talent that makes unarmed damage 1d6
STRIKING_STYLE_SIDES = 6

# Seed, Makeshift Weapons: Clumsy -1 or -2 to attack; Fragile breaks on a miss with Drama Die 3 or less;
# Weak -1 or -2 to damage with a minimum damage roll of 1.
MAKESHIFT_FLAW_MAX = 2
FRAGILE_BREAKS_AT_OR_BELOW = 3

# Seed, Weapon Capacity: a missed gun attack with this Drama Die jams the gun (or empties it).
JAM_DRAMA_DIE = 6

# Seed, Explosives: Accuracy (Thrown) TN 11; a miss lands 1d6 m away; everyone within 5 m is caught.
GRENADE_TN = 11
GRENADE_RADIUS = 5
GRENADE_SCATTER_SIDES = 6

MELEE_REACH = 2  # seed: melee attacks reach an enemy within 2 metres


# --- defense, armour, shields, cover ------------------------------------------------------------------------------

# Seed, Toughness: armour bonus and penalty (shared with the character sheet).
ARMOUR_BONUS: dict[str, int] = {key: bonus for key, (_, bonus, _) in ARMOUR.items()}
ARMOUR_PENALTY: dict[str, int] = {key: penalty for key, (_, _, penalty) in ARMOUR.items()}

# Seed, shields: Defense bonus.
SHIELDS: dict[str, tuple[str, int]] = {
    "none": ("No shield", 0),
    "riot_shield": ("Riot shield", 2),
    "ballistic_shield": ("Ballistic shield", 3),
}

# Seed, Taking Cover: rating -> (armour bonus, penalty to your own ranged attacks). Rating 4 is total cover:
# you cannot be attacked at range and cannot make ranged attacks.
COVER: dict[int, tuple[int, int]] = {0: (0, 0), 1: (2, -1), 2: (3, -2), 3: (4, -3)}
TOTAL_COVER = 4
COVER_LABELS = {0: "no cover", 1: "cover rating 1", 2: "cover rating 2", 3: "cover rating 3", 4: "total cover"}

# Seed, Attacking Objects: size -> (label, examples, target number).
OBJECT_SIZES: dict[str, tuple[str, str, int]] = {
    "very_large": ("Very large", "truck, tool shed", 7),
    "large": ("Large", "cart, dumpster", 9),
    "human_sized": ("Human-sized", "bicycle, kiosk", 11),
    "small": ("Small", "vehicle tire, window", 13),
    "very_small": ("Very small", "small drone, lamp post", 15),
    "diminutive": ("Diminutive", "handgun, tire", 17),
    "minuscule": ("Minuscule", "switch, door handle", 19),
    "almost_invisible": ("Almost invisible", "keyhole, spy camera", 21),
}

# Seed: Defend +2 Defense; All-Out Attack +1 damage and -1 Defense; Charge +1 after 4 m in a straight line;
# Aim +1 to the next attack; Guard Up +1 or +2 Defense and the same as a test penalty.
DEFEND_BONUS = 2
ALL_OUT_DAMAGE = 1
ALL_OUT_DEFENSE = -1
CHARGE_BONUS = 1
CHARGE_STRAIGHT_METRES = 4
AIM_BONUS = 1
GUARD_UP_CHOICES = (1, 2)
FOCUS_BONUS = 2


# --- damage, injuries, breathers ------------------------------------------------------------------------------------

INJURY_DIE = 6  # seed: an injured condition removes 1d6 damage, a wounded condition another 1d6
INJURY_LADDER = ("Injured", "Wounded")
TAKEN_OUT = "Taken out"
STUNNED_OUT = "Unconscious"  # DEFAULT condition when a stunning weapon takes someone out
BREATHER_DIE = 6  # seed: Breather = 1d6 + Constitution + level in Fortune


# --- stunts ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stunt:
    """One stunt: its cost is `cost` to `max_cost` SP (max_cost 0: no upper limit)."""

    key: str
    name: str
    cost: int
    max_cost: int = 0
    effect: str = ""  # a key the engine knows (EFFECTS) or "" for a stunt that is only narrated
    damaging: bool = False  # needs doubles on a Stunt Attack (seed: "may choose a stunt that damages")
    text: str = ""

    def fits(self, points: int) -> bool:
        return points >= self.cost and (self.max_cost == 0 or points <= self.max_cost)

    @property
    def cost_label(self) -> str:
        if self.max_cost == self.cost:
            return str(self.cost)
        return f"{self.cost}+" if self.max_cost == 0 else f"{self.cost}-{self.max_cost}"


# Effects the engine applies; a GM-added stunt may use one of them or none.
EFFECTS = (
    "fortune",
    "initiative",
    "defense",
    "cover",
    "guardian",
    "skirmish",
    "makeshift",
    "group_tactics",
    "double_team",
    "injure",
    "knock_prone",
    "lightning_attack",
    "overcome_toughness",
)

MOMENTUM_PER_SP = 3
SKIRMISH_METRES_PER_SP = 2
GROUP_TACTICS_METRES_PER_2SP = 2
STUNT_CHURN_POINTS = 4  # Churn: +1 when this many SP or more go on one stunt

STUNTS: tuple[Stunt, ...] = (
    Stunt("adrenaline_rush", "Adrenaline Rush", 1, 3, "fortune", text="Regain Fortune equal to the SP spent."),
    Stunt(
        "momentum",
        "Momentum",
        1,
        3,
        "initiative",
        text="+3 initiative per SP, changing your place in the order from the next round.",
    ),
    Stunt(
        "duck_and_weave", "Duck and Weave", 1, 3, "defense", text="+1 Defense per SP until the start of your next turn."
    ),
    Stunt("take_cover", "Take Cover", 1, 3, "cover", text="Gain a cover rating equal to the SP spent."),
    Stunt(
        "guardian_angel",
        "Guardian Angel",
        1,
        0,
        "guardian",
        text="Before your next turn, 1 damage per SP an ally within 5 m would take comes to you instead.",
    ),
    Stunt("skirmish", "Skirmish", 1, 0, "skirmish", text="Move yourself or your target 2 m per SP."),
    Stunt(
        "whatevers_handy",
        "Whatever's Handy",
        1,
        1,
        "makeshift",
        text="Arm yourself with a makeshift weapon from your surroundings.",
    ),
    Stunt("group_tactics", "Group Tactics", 2, 0, "group_tactics", text="An ally moves 2 m per 2 SP."),
    Stunt(
        "double_team",
        "Double-Team",
        2,
        2,
        "double_team",
        damaging=True,
        text="An ally makes an immediate attack on your target.",
    ),
    Stunt(
        "injure",
        "Injure",
        2,
        2,
        "injure",
        damaging=True,
        text="A target who has lost half their Fortune or more becomes injured if the damage beats Toughness.",
    ),
    Stunt("knock_prone", "Knock Prone", 2, 2, "knock_prone", text="Knock your target prone."),
    Stunt(
        "lightning_attack",
        "Lightning Attack",
        2,
        2,
        "lightning_attack",
        damaging=True,
        text="Make a second attack this turn, at the same or another target.",
    ),
    Stunt(
        "overcome_toughness",
        "Overcome Toughness",
        2,
        2,
        "overcome_toughness",
        damaging=True,
        text="This attack's damage ignores the target's Toughness.",
    ),
)


# --- Churn (optional rule) -----------------------------------------------------------------------------------------

# Pool level -> what happens when it is reached. At the last level the pool resets to 0.
CHURN_THRESHOLDS: tuple[tuple[int, str], ...] = (
    (10, "the GM rolls on the Churn table"),
    (20, "the GM rolls on the Churn table"),
    (30, "an epic Churn effect, and the pool resets"),
)
CHURN_RESET_AT = 30
CHURN_DRAMA_DIE = 6  # +1 Churn when a test succeeds with this Drama Die
