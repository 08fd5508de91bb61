"""Load the demo campaign: a GM, three players, characters for all four combat models, a party ship and an NPC ship.

Idempotent: run it again and nothing is duplicated or overwritten.
"""

from django.core.management.base import BaseCommand
from django.db import transaction

from campaigns import services
from campaigns.models import Campaign, Character, Membership, User
from combat import services as combat_services
from combat.models import Encounter
from combat.rules import registry
from combat.rules.stats import OVERRIDES
from ships.models import CrewAssignment, Ship

DEMO_PASSWORD = "fray-demo-table"
GM = ("gm", "Gemma (GM)")
PLAYERS = (("ana", "Ana"), ("ben", "Ben"), ("cleo", "Cleo"))
CAMPAIGN = "The Drift Between Stars"
DEMO_ENCOUNTER = "Ambush at the derelict relay"


def _stats(system, overrides=None, **values):
    """A clean sheet; `overrides` are the GM's values for derived stats (see combat.rules.stats)."""
    schema = registry.get(system).stats
    clean, errors = schema.validate({**schema.defaults(), **values})
    clean_overrides, override_errors = schema.clean_overrides(overrides or {})
    assert not errors and not override_errors, (errors, override_errors)
    return {**clean, OVERRIDES: clean_overrides} if clean_overrides else clean


def _burn_bryte(**skills):
    return _stats("burn_bryte", **{f"skill_{k}": v for k, v in skills.items()})


# (name, owner username or None, system, stats, template quantity)
CHARACTERS = [
    ("Luwe", "ana", "burn_bryte", _burn_bryte(ranged=8, perception=10, stealth=6, athletics=6), 0),
    ("Ballallanava", "ben", "burn_bryte", _burn_bryte(melee=10, power=8, presence=6), 0),
    ("Furo", "cleo", "burn_bryte", _burn_bryte(computers=12, engineering=10, knowledge=8), 0),
    ("Nivick", None, "burn_bryte", _stats("burn_bryte", health=1, health_max=1, skill_ranged=6), 4),
    (
        "Tess Varro",
        "ana",
        "sw5e",
        _stats("sw5e", initiative_mod=3, station="pilot", bonus_action=True, bonus_action_for="evade"),
        0,
    ),
    ("Oru Dax", "ben", "sw5e", _stats("sw5e", initiative_mod=1, station="gunner"), 0),
    ("Mek-7", "cleo", "sw5e", _stats("sw5e", initiative_mod=2, station="mechanic"), 0),
    ("Captain Vrask", None, "sw5e", _stats("sw5e", initiative_mod=1, station="pilot"), 0),
    (
        "Kestrel",
        "ana",
        "hero",
        _stats(
            "hero",
            spd=4,
            dex=23,
            con=18,
            rec=8,
            ocv=8,
            dcv=8,
            stun=40,
            stun_max=40,
            body=12,
            body_max=12,
            end=40,
            end_max=40,
        ),
        0,
    ),
    (
        "Bulwark",
        "ben",
        "hero",
        _stats(
            "hero",
            spd=3,
            dex=14,
            con=25,
            rec=12,
            ocv=6,
            dcv=5,
            stun=60,
            stun_max=60,
            body=15,
            body_max=15,
            end=50,
            end_max=50,
        ),
        0,
    ),
    (
        "Viper Agent",
        None,
        "hero",
        _stats(
            "hero",
            spd=4,
            dex=15,
            con=13,
            rec=5,
            ocv=5,
            dcv=5,
            stun=25,
            stun_max=25,
            body=10,
            body_max=10,
            end=26,
            end_max=26,
        ),
        3,
    ),
    (
        "Rosa Okafor",
        "cleo",
        "expanse",
        _stats(
            "expanse",
            dexterity=3,
            accuracy=3,
            constitution=2,
            fighting=1,
            perception=2,
            strength=1,
            armour="light",
            focuses="Dexterity (Initiative), Accuracy (Pistols)",
            fortune=18,
            fortune_max=18,
            level=2,
            speed=12,
            weapons="Pistol",
            overrides={"defense": 13},  # the GM's: derived would be 12 (light armour); the demo fights know 13
        ),
        0,
    ),
    (
        "Marcus Bell",
        "ana",
        "expanse",
        _stats(
            "expanse",
            dexterity=1,
            accuracy=2,
            constitution=3,
            fighting=3,
            strength=3,
            armour="medium",
            fortune=15,
            fortune_max=15,
            level=2,
            speed=9,
            weapons="Pistol, Heavy melee weapon",
            overrides={"defense": 11},  # the GM's: derived would be 9 (medium armour); the demo fights know 11
        ),
        0,
    ),
    (
        "OPA Thug",
        None,
        "expanse",
        _stats(
            "expanse",
            dexterity=1,
            fighting=2,
            accuracy=1,
            constitution=1,
            fortune=0,
            fortune_max=0,
            weapons="Pistol, Light melee weapon",
        ),
        4,
    ),
    (
        "Protogen Sniper",
        None,
        "expanse",
        _stats(
            "expanse",
            dexterity=2,
            accuracy=3,
            perception=2,
            constitution=1,
            fortune=4,
            fortune_max=4,
            focuses="Accuracy (Rifles)",
            weapons="Rifle",
        ),
        0,
    ),
]


class Command(BaseCommand):
    help = "Load the demo campaign (safe to run again)."

    @transaction.atomic
    def handle(self, *args, **options):
        users = {}
        for username, name in (GM, *PLAYERS):
            user, created = User.objects.get_or_create(username=username, defaults={"first_name": name})
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            users[username] = user

        campaign = Campaign.objects.filter(name=CAMPAIGN, created_by=users["gm"]).first()
        if campaign is None:
            campaign = services.create_campaign(
                users["gm"],
                name=CAMPAIGN,
                combat_model="burn_bryte",
                description="A demo campaign: one crew, four ways to fight.",
            )
            campaign.gm_notes = "The Nivick ambush waits at the derelict relay. (Only GMs see this.)"
            campaign.save(update_fields=["gm_notes"])
        for username, _ in PLAYERS:
            Membership.objects.get_or_create(campaign=campaign, user=users[username])

        for name, owner, system, stats, quantity in CHARACTERS:
            Character.objects.get_or_create(
                campaign=campaign,
                name=name,
                defaults={
                    "owner": users.get(owner),
                    "system": system,
                    "stats": stats,
                    "kind": Character.Kind.PC if owner else Character.Kind.NPC,
                    "is_template": bool(quantity),
                    "quantity": max(quantity, 1),
                },
            )

        ship, _ = Ship.objects.get_or_create(
            campaign=campaign,
            name="Wayward Lantern",
            defaults=dict(
                livability_rating=4,
                mi_health=3,
                mi_health_max=3,
                size="medium",
                tier=1,
                hull=45,
                hull_max=45,
                shields=30,
                shields_max=30,
                hull_dice=6,
                shield_dice=6,
                shield_type="directional",
                reactor="power_core",
                coupling="hub_and_spoke",
                power_central=1,
                power_engines=1,
                weapons="laser cannons, ion cannon",
                con_mod=1,
            ),
        )
        # The SW5e enemy: an NPC ship, so its page and numbers are the GM's alone.
        talon, _ = Ship.objects.get_or_create(
            campaign=campaign,
            name="Red Talon",
            defaults=dict(
                side=Ship.Side.NPC,
                livability_rating=2,
                mi_health=2,
                mi_health_max=2,
                size="small",
                tier=2,
                hull=28,
                hull_max=28,
                shields=24,
                shields_max=24,
                hull_dice=5,
                shield_dice=5,
                shield_type="quick_charge",
                reactor="fuel_cell",
                coupling="direct",
                power_central=2,
                weapons="twin blasters",
                initiative_mod=2,
            ),
        )
        for crewed, name, station in (
            (ship, "Tess Varro", "pilot"),
            (ship, "Oru Dax", "gunner"),
            (ship, "Mek-7", "mechanic"),
            (talon, "Captain Vrask", "pilot"),
        ):
            character = Character.objects.get(campaign=campaign, name=name)
            if station == "pilot" and crewed.crew.filter(station="pilot").exclude(character=character).exists():
                continue  # someone else has taken the helm since: keep their post
            CrewAssignment.objects.get_or_create(ship=crewed, character=character, defaults={"station": station})

        self._demo_encounter(campaign, users["gm"], ship)
        self.stdout.write(self.style.SUCCESS(f"Demo campaign “{campaign.name}” is ready."))
        self.stdout.write(f"  GM:      gm / {DEMO_PASSWORD}")
        for username, _ in PLAYERS:
            self.stdout.write(f"  Player:  {username} / {DEMO_PASSWORD}")

    def _demo_encounter(self, campaign, gm, ship):
        """A Burn Bryte fight ready to play: the three PCs against two Nivicks, aboard the Wayward Lantern."""
        if Encounter.objects.filter(campaign=campaign, name=DEMO_ENCOUNTER).exists():
            return
        pcs = list(Character.objects.filter(campaign=campaign, system="burn_bryte", kind=Character.Kind.PC))
        nivick = Character.objects.get(campaign=campaign, name="Nivick")
        encounter = combat_services.create_encounter(
            campaign, gm, name=DEMO_ENCOUNTER, model="burn_bryte", pcs=pcs, enemies=[(nivick, 2)], ship=ship
        )
        combat_services.start_encounter(encounter, gm)
