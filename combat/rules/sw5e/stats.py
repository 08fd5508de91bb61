"""SW5e crew stats: what a crew member brings to starship combat."""

from combat.rules.stats import BOOL, CHOICE, INT, TEXT, Stat, StatSchema

STATIONS = (
    ("pilot", "Helm (pilot)"),
    ("gunner", "Gunner"),
    ("operator", "Operator"),
    ("mechanic", "Mechanic"),
    ("technician", "Technician"),
    ("coordinator", "Coordinator"),
)

# The action menu's keys and labels (state.ACTION_MENU; a test checks): the crew sheet suggests them for the action a
# bonus action is for, which may also be the feature's own action ("Second Wind", a force power).
BONUS_ACTIONS = (
    ("boost_engines", "Boost Engines"),
    ("boost_shields", "Boost Shields"),
    ("boost_weapons", "Boost Weapons"),
    ("detect", "Detect"),
    ("direct", "Direct"),
    ("fire", "Fire"),
    ("interfere", "Interfere"),
    ("patch", "Patch"),
    ("regenerate_shields", "Regenerate Shields"),
    ("attack_run", "Attack Run"),
    ("conceal", "Conceal"),
    ("dogfight", "Dogfight"),
    ("evade", "Evade"),
    ("fly", "Fly"),
    ("harass", "Harass"),
    ("hard_turn", "Hard Turn"),
    ("ram", "Ram"),
)

STATS = StatSchema(
    model="sw5e",
    stats=(
        Stat(
            "initiative_mod",
            "Initiative modifier",
            INT,
            default=0,
            min=-10,
            max=20,
            group="Crew",
            help="Added to the d20 initiative roll (Dexterity modifier plus bonuses).",
        ),
        Stat("station", "Usual deployment", CHOICE, default="", choices=(("", "none"),) + STATIONS, group="Crew"),
        Stat("bonus_action", "A feature grants a bonus action", BOOL, default=False, group="Crew"),
        Stat(
            "bonus_action_for",
            "The action that bonus action allows",
            TEXT,
            default="",
            max=60,
            choices=BONUS_ACTIONS,
            group="Crew",
            help="The feature that grants a bonus action says what it is: an action on the menu (Evade, Patch, "
            "Boost Shields...) or the feature's own, e.g. Second Wind or a force power. Only that action may use it.",
        ),
        Stat(
            "stealth_mod",
            "Dexterity (Stealth) modifier",
            INT,
            default=0,
            min=-10,
            max=20,
            group="Crew",
            help="Added to the d20 when the server works out surprise for a ship that hides.",
        ),
        Stat(
            "passive_perception",
            "Passive Wisdom (Perception)",
            INT,
            default=10,
            min=0,
            max=40,
            group="Crew",
            help="Compared with the Stealth checks of anyone hiding when the server works out surprise.",
        ),
        Stat("hit_points", "Hit points", INT, default=10, min=0, max=999, group="Health"),
        Stat("hit_points_max", "Maximum hit points", INT, default=10, min=1, max=999, group="Health"),
    ),
    capped=(("hit_points", "hit_points_max"),),
)

SUMMARY = ("initiative_mod", "station", "hit_points")
