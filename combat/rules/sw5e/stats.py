"""SW5e crew stats: what a crew member brings to starship combat."""

from combat.rules.stats import BOOL, CHOICE, INT, Stat, StatSchema

STATIONS = (
    ("pilot", "Helm (pilot)"),
    ("gunner", "Gunner"),
    ("operator", "Operator"),
    ("mechanic", "Mechanic"),
    ("technician", "Technician"),
    ("coordinator", "Coordinator"),
)

# The actions a bonus action may be for: the keys and labels of the action menu (state.ACTION_MENU; a test checks).
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
            CHOICE,
            default="",
            choices=(("", "none named"),) + BONUS_ACTIONS,
            group="Crew",
            help="The feature that grants a bonus action says what it is for; only that action may use it.",
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
