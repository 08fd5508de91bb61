"""Burn Bryte character stats: 18 skills rated d4–d12, Health Levels, Nova points and boxes, conditions."""

from combat.rules.stats import BOOL, CHOICE, INT, TAGS, Stat, StatSchema, die_choices

# Skill categories are data (the split follows the character sheet's order).
SKILL_CATEGORIES = {
    "Mental": ("Computers", "Engineering", "Knowledge", "Medicine", "Perception", "Streetwise"),
    "Physical": ("Athletics", "Melee", "Power", "Ranged", "Skullduggery", "Stealth"),
    "Social": ("Deception", "Decorum", "Empathy", "Performance", "Presence", "Suavity"),
}
SKILLS = tuple(skill for skills in SKILL_CATEGORIES.values() for skill in skills)
DIE_SIZES = (4, 6, 8, 10, 12)


def skill_key(skill: str) -> str:
    return f"skill_{skill.lower()}"


def nova_box_key(size: int) -> str:
    return f"nova_box_d{size}"


_skill_choices = (("", "none"),) + tuple((s, s) for s in SKILLS)
_category_choices = (("", "none"),) + tuple((c, c) for c in SKILL_CATEGORIES)
# A negative condition gained at 0 Health Levels is held at once; the GM names its skill or category later.
UNNAMED = "?"
_held_skill_choices = _skill_choices + ((UNNAMED, "held, GM to name the skill"),)
_held_category_choices = _category_choices + ((UNNAMED, "held, GM to name the category"),)

STATS = StatSchema(
    model="burn_bryte",
    stats=(
        *(
            Stat(skill_key(skill), skill, CHOICE, default=4, choices=die_choices(), group=f"{category} skills")
            for category, skills in SKILL_CATEGORIES.items()
            for skill in skills
        ),
        Stat("health", "Health Levels", INT, default=3, min=0, max=20, group="Health"),
        Stat("health_max", "Maximum Health Levels", INT, default=3, min=1, max=20, group="Health"),
        Stat("speed", "Speed (squares)", INT, default=5, min=0, max=30, group="Health"),
        Stat("shield", "Personal shield", INT, default=0, min=0, max=20, group="Health", help="Absorbs damage first."),
        Stat("shield_max", "Maximum personal shield", INT, default=0, min=0, max=20, group="Health"),
        Stat("weapon_name", "Weapon", TAGS, default=[], group="Weapon", help="Its name; empty for unarmed."),
        Stat(
            "weapon_damage",
            "Damage on a hit",
            INT,
            default=1,
            min=1,
            max=5,
            group="Weapon",
            help="1, or 2 with Extra Damage 2.",
        ),
        Stat(
            "weapon_charge",
            "Charge N",
            INT,
            default=0,
            min=0,
            max=12,
            group="Weapon",
            help="2 damage when the roll used at least N dice; 0 for none.",
        ),
        Stat(
            "weapon_draining",
            "Draining",
            BOOL,
            default=False,
            group="Weapon",
            help="May deal 2 by taking 1 unblockable.",
        ),
        Stat(
            "weapon_burst",
            "Burst N",
            INT,
            default=0,
            min=0,
            max=20,
            group="Weapon",
            help="One roll against every creature within N squares of a point; 0 for none.",
        ),
        Stat(
            "weapon_range",
            "Range (squares)",
            INT,
            default=0,
            min=0,
            max=99,
            group="Weapon",
            help="How far a Physical attack with it reaches; 0 for the rules' default (Ranged 5, Melee adjacent).",
        ),
        Stat(
            "nova_points",
            "Nova points",
            INT,
            default=0,
            min=0,
            max=10,
            group="Nova",
            help="Capped at the ship's Livability Rating in play.",
        ),
        *(
            Stat(nova_box_key(size), f"Nova box d{size} ticked", BOOL, default=False, group="Nova")
            for size in DIE_SIZES
        ),
        Stat(
            "neg_minor",
            "Minor negative condition (skill)",
            CHOICE,
            default="",
            choices=_held_skill_choices,
            group="Conditions",
            help="+1 complexity on rolls with this skill.",
        ),
        Stat(
            "neg_moderate",
            "Moderate negative condition (category)",
            CHOICE,
            default="",
            choices=_held_category_choices,
            group="Conditions",
            help="+1 complexity on rolls in this category.",
        ),
        Stat(
            "neg_significant",
            "Significant negative condition",
            BOOL,
            default=False,
            group="Conditions",
            help="+1 complexity on every roll.",
        ),
        Stat(
            "pos_minor",
            "Minor positive condition (skill)",
            CHOICE,
            default="",
            choices=_skill_choices,
            group="Conditions",
            help="−1 complexity on rolls with this skill (never below 2).",
        ),
        Stat(
            "pos_moderate",
            "Moderate positive condition (category)",
            CHOICE,
            default="",
            choices=_category_choices,
            group="Conditions",
            help="−1 complexity on rolls in this category (never below 2).",
        ),
        Stat(
            "pos_significant",
            "Significant positive condition",
            BOOL,
            default=False,
            group="Conditions",
            help="−1 complexity on every roll (never below 2).",
        ),
    ),
    capped=(("health", "health_max"), ("shield", "shield_max")),
)

SUMMARY = ("health", "health_max", "nova_points", "speed")
