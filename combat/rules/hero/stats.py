"""HERO System characteristics used in combat."""

from combat.rules.stats import INT, Stat, StatSchema

STATS = StatSchema(
    model="hero",
    stats=(
        Stat("spd", "SPD", INT, default=3, min=1, max=12, group="Speed", help="Phases per turn, 1–12."),
        Stat("dex", "DEX", INT, default=10, min=0, max=100, group="Speed"),
        Stat(
            "initiative_dex",
            "DEX for initiative",
            INT,
            default=10,
            min=0,
            max=200,
            group="Speed",
            help="DEX plus bonuses such as Lightning Reflexes; used only to order actions.",
        ),
        Stat("con", "CON", INT, default=10, min=0, max=100, group="Characteristics"),
        Stat("rec", "REC", INT, default=4, min=0, max=100, group="Characteristics"),
        Stat("ocv", "OCV", INT, default=3, min=0, max=30, group="Characteristics"),
        Stat("dcv", "DCV", INT, default=3, min=0, max=30, group="Characteristics"),
        Stat(
            "pd",
            "PD",
            INT,
            default=2,
            min=0,
            max=100,
            group="Defences",
            help="Physical Defence: subtracted from physical attacks' STUN and BODY.",
        ),
        Stat(
            "ed",
            "ED",
            INT,
            default=2,
            min=0,
            max=100,
            group="Defences",
            help="Energy Defence: subtracted from energy attacks' STUN and BODY.",
        ),
        Stat("stun", "STUN", INT, default=20, min=-100, max=500, group="Damage"),
        Stat("stun_max", "Maximum STUN", INT, default=20, min=1, max=500, group="Damage"),
        Stat("body", "BODY", INT, default=10, min=-100, max=200, group="Damage"),
        Stat("body_max", "Maximum BODY", INT, default=10, min=1, max=200, group="Damage"),
        Stat("end", "END", INT, default=20, min=-100, max=500, group="Damage"),
        Stat("end_max", "Maximum END", INT, default=20, min=0, max=500, group="Damage"),
    ),
    capped=(("stun", "stun_max"), ("body", "body_max"), ("end", "end_max")),
)

SUMMARY = ("spd", "dex", "stun", "body", "end")
