"""HERO System characteristics used in combat."""

from collections.abc import Mapping
from typing import Any

from combat.rules.stats import INT, Derivation, Stat, StatSchema, whole


def initiative_dex(values: Mapping[str, Any]) -> Derivation:
    """The seed: "the one with the highest DEX acts first". Bonuses such as Lightning Reflexes are the GM's
    override."""
    dex = whole(values, "dex", 10)
    return Derivation(dex, f"DEX {dex}")


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
            help="DEX, unless the GM raises it for bonuses such as Lightning Reflexes; used only to order actions.",
            derive=initiative_dex,
        ),
        Stat("con", "CON", INT, default=10, min=0, max=100, group="Characteristics"),
        Stat("pre", "PRE", INT, default=10, min=0, max=200, group="Characteristics", help="Presence: 1d6 per 5 PRE."),
        Stat("ego", "EGO", INT, default=10, min=0, max=200, group="Characteristics"),
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
        Stat(
            "run",
            "RUN (m)",
            INT,
            default=12,
            min=0,
            max=500,
            group="Speed",
            help="Running per phase in metres; half of it or less is a half move.",
        ),
    ),
    capped=(("stun", "stun_max"), ("body", "body_max"), ("end", "end_max")),
)

SUMMARY = ("spd", "dex", "stun", "body", "end")
