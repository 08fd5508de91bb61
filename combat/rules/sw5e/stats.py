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
        Stat("hit_points", "Hit points", INT, default=10, min=0, max=999, group="Health"),
        Stat("hit_points_max", "Maximum hit points", INT, default=10, min=1, max=999, group="Health"),
    ),
    capped=(("hit_points", "hit_points_max"),),
)

SUMMARY = ("initiative_mod", "station", "hit_points")
