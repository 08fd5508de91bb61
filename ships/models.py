from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse

from combat.rules.sw5e import disabled, gear
from combat.rules.sw5e import ship as sw5e
from combat.rules.sw5e.stats import STATIONS

MAX_WEAPONS = 12
WEAPON_NAME_MAX = 60  # the SW5e engine keeps weapon names this long


class Ship(models.Model):
    class Side(models.TextChoices):
        PARTY = "pc", "Party ship"
        NPC = "npc", "NPC ship (players never see its page or numbers)"

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="ships")
    name = models.CharField(max_length=80)
    side = models.CharField(
        max_length=3,
        choices=Side.choices,
        default=Side.PARTY,
        help_text="An NPC ship is the GM's: hidden from the players' ship list and pages.",
    )
    notes = models.TextField(blank=True, max_length=4000)

    # Burn Bryte
    livability_rating = models.PositiveSmallIntegerField(
        "Livability Rating", default=3, help_text="Caps the party's Advantages and each crew member's Nova points."
    )
    mi_health = models.PositiveSmallIntegerField("Magical Intelligence Health Levels", default=3)
    mi_health_max = models.PositiveSmallIntegerField("Maximum MI Health Levels", default=3)

    # SW5e
    size = models.CharField(max_length=12, choices=sw5e.SIZE_CHOICES, default="medium")
    tier = models.PositiveSmallIntegerField(default=0, help_text="0 to 5; sets the power die size.")
    hull = models.PositiveIntegerField("hull points", default=30)
    hull_max = models.PositiveIntegerField("maximum hull points", default=30)
    shields = models.PositiveIntegerField("shield points", default=20)
    shields_max = models.PositiveIntegerField("maximum shield points", default=20)
    hull_dice = models.PositiveSmallIntegerField("hull dice remaining", default=5)
    shield_dice = models.PositiveSmallIntegerField("shield dice remaining", default=5)
    shield_type = models.CharField(max_length=12, choices=sw5e.SHIELD_CHOICES, default="directional")
    reactor = models.CharField(max_length=12, choices=sw5e.REACTOR_CHOICES, default="fuel_cell")
    coupling = models.CharField("power coupling", max_length=14, choices=sw5e.COUPLING_CHOICES, default="direct")
    power_central = models.PositiveSmallIntegerField("power dice in central store", default=0)
    power_communications = models.PositiveSmallIntegerField("power dice for communications", default=0)
    power_engines = models.PositiveSmallIntegerField("power dice for engines", default=0)
    power_shields = models.PositiveSmallIntegerField("power dice for shields", default=0)
    power_sensors = models.PositiveSmallIntegerField("power dice for sensors", default=0)
    power_weapons = models.PositiveSmallIntegerField("power dice for weapons", default=0)
    weapons = models.CharField(
        max_length=400,
        blank=True,
        help_text="Names separated by commas, each with its attack bonus and damage in brackets to have Fire roll "
        'them, e.g. "laser cannons (+5 2d6+2), ion cannon"; in combat each fires once a round.',
    )
    con_mod = models.SmallIntegerField(
        "Constitution modifier",
        default=0,
        help_text="Before size: the size's Con adjustment (rules notes: Tiny −4, Small −2, Large +2, Huge +4, "
        "Gargantuan +6 to the score, so half that to the modifier) is added. Counted in hull points and added to "
        "each hull die a Patch rolls.",
    )
    dex_mod = models.SmallIntegerField(
        "Dexterity modifier",
        default=0,
        help_text="Before size: the size's Dex adjustment (rules notes: Tiny +4, Small +2, Large −2, Huge −4, "
        "Gargantuan −6 to the score, so half that to the modifier) is added. Counted in AC, capped by armour.",
    )
    str_mod = models.SmallIntegerField(
        "Strength modifier",
        default=0,
        help_text="Added to each shield die when shield points are worked out (the rules notes adjust no size's "
        "Strength).",
    )
    armour = models.CharField(
        max_length=12,
        choices=gear.ARMOUR_CHOICES,
        default="none",
        help_text="AC 10 + Dex modifier, capped by the armour; its damage reduction applies to attack-roll hits "
        "(minimum 1 damage).",
    )
    ac_override = models.PositiveSmallIntegerField(
        "AC (GM override)",
        null=True,
        blank=True,
        help_text="Leave blank to use 10 + the Dexterity modifier with the size's adjustment, capped by the armour. "
        'The notes\' "(+ tier bonus)" gives no numbers, so it is not included: type the AC here to count it.',
    )
    points_from_size = models.BooleanField(
        "work out maximum hull and shield points",
        default=False,
        help_text="From size, tier, Constitution and Strength (each with the size's adjustment) and the shield type "
        "(first die at its maximum, the rest averaged). Off: the maximums typed here are the GM's override.",
    )
    initiative_mod = models.SmallIntegerField(
        "initiative modifier",
        default=0,
        help_text="Added when the server rolls this ship's initiative (a ship with no PC aboard).",
    )

    # SW5e system damage and destruction saves, written back after a fight and read when the ship joins the next.
    system_damage = models.PositiveSmallIntegerField(
        "system damage level",
        default=0,
        help_text="0 to 5. Finishing maintenance lowers it by 1; level 4 halves the hull and shield maximums.",
    )
    used = models.BooleanField(
        default=False, help_text='System damage level 5 made the ship "used" for good: its value is halved.'
    )
    saves_made = models.PositiveSmallIntegerField("successful destruction saves", default=0)
    saves_failed = models.PositiveSmallIntegerField("failed destruction saves", default=0)
    stable = models.BooleanField(
        default=False, help_text="At 0 hull points: stabilised, so it makes no destruction saves."
    )
    recovered_after = models.PositiveSmallIntegerField(
        "hours a stable ship took to regain 1 hull point",
        null=True,
        blank=True,
        help_text="Rolled by the server (1d4) when the GM lets time pass; cleared when it next drops to 0 hull points.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.CheckConstraint(condition=models.Q(tier__lte=5), name="ship_tier_0_to_5"),
            models.CheckConstraint(condition=models.Q(hull__lte=models.F("hull_max")), name="hull_within_max"),
            models.CheckConstraint(condition=models.Q(shields__lte=models.F("shields_max")), name="shields_within_max"),
            models.CheckConstraint(
                condition=models.Q(mi_health__lte=models.F("mi_health_max")), name="mi_health_within_max"
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("ship", args=[self.campaign_id, self.pk])

    @property
    def is_npc(self) -> bool:
        return self.side == self.Side.NPC

    def weapon_list(self) -> list[str]:
        """The weapons' names, as typed, without blanks."""
        return [" ".join(name.split()) for name in (self.weapons or "").split(",") if name.strip()]

    # Derived SW5e figures
    @property
    def hull_die(self):
        return sw5e.hull_die(self.size)

    @property
    def hull_dice_max(self):
        return sw5e.hull_dice_total(self.size, self.tier) if self.tier <= 5 else 0

    @property
    def power_die_label(self):
        return sw5e.power_die_label(self.tier) if self.tier <= 5 else "?"

    @property
    def derived_hull_max(self) -> int | None:
        """Hull points from size, tier and Constitution (None while the size or tier are out of range)."""
        if self.size not in sw5e.SIZES or self.tier is None or self.tier > 5:
            return None
        return gear.hull_points(self.size, self.tier, self.con_modifier)

    @property
    def derived_shields_max(self) -> int | None:
        if self.derived_hull_max is None or self.shield_type not in sw5e.SHIELD_TYPES:
            return None
        return gear.shield_points(self.size, self.tier, self.str_modifier, self.shield_type)

    @property
    def system_damage_effects(self) -> tuple[str, ...]:
        return disabled.effects(self.system_damage or 0)

    @property
    def derived_ac(self) -> int:
        return gear.armour_class(self.armour if self.armour in gear.ARMOUR else "none", self.dex_modifier)

    # The modifiers with the size's adjustment (ship.py SIZE_ADJUSTMENTS): what the rules and the fight use.
    @property
    def con_modifier(self) -> int:
        return sw5e.sized_modifier(self.size, "con", self.con_mod or 0)

    @property
    def dex_modifier(self) -> int:
        return sw5e.sized_modifier(self.size, "dex", self.dex_mod or 0)

    @property
    def str_modifier(self) -> int:
        return sw5e.sized_modifier(self.size, "str", self.str_mod or 0)

    @property
    def armour_class(self) -> int:
        """The GM's AC when typed, else the armour's."""
        return self.ac_override if self.ac_override is not None else self.derived_ac

    @property
    def damage_reduction(self) -> int:
        return gear.damage_reduction(self.armour) if self.armour in gear.ARMOUR else 0

    def weapon_entries(self) -> list[tuple[str, str]]:
        """[(name, stats as "+5 2d6+2" or "")] of the weapons."""
        out = []
        for entry in self.weapon_list():
            name, stats = gear.parse_weapon(entry)
            out.append((name, stats.spec if stats else ""))
        return out

    def stored_power(self) -> dict[str, int]:
        return {store: getattr(self, f"power_{store}") or 0 for store in sw5e.STORES}

    def power_stores(self):
        """[(store, stored, capacity)] for the stores this coupling has."""
        stored = self.stored_power()
        return [
            (store, stored[store], sw5e.store_capacity(self.coupling, store))
            for store in sw5e.STORES
            if sw5e.store_capacity(self.coupling, store) or stored[store]
        ]

    def clean(self):
        super().clean()
        errors = {}
        if self.tier is not None and self.tier > 5:
            errors["tier"] = "Tier goes from 0 to 5."
        if self.livability_rating is not None and not 1 <= self.livability_rating <= 10:
            errors["livability_rating"] = "Livability Rating goes from 1 to 10."
        if self.mi_health_max is not None and self.mi_health_max > 20:
            errors["mi_health_max"] = "Maximum MI Health Levels cannot be above 20."
        for current, maximum, label in (
            ("hull", "hull_max", "Hull points"),
            ("shields", "shields_max", "Shield points"),
            ("mi_health", "mi_health_max", "MI Health Levels"),
        ):
            cur, top = getattr(self, current), getattr(self, maximum)
            if cur is not None and top is not None and cur > top:
                errors[current] = f"{label} cannot be above the maximum ({top})."
        if self.size in sw5e.SIZES and self.tier is not None and self.tier <= 5:
            for field, label in (("hull_dice", "Hull dice"), ("shield_dice", "Shield dice")):
                count = getattr(self, field)
                if count is not None and count > self.hull_dice_max:
                    errors[field] = (
                        f"{label} cannot be above {self.hull_dice_max} for a tier {self.tier} {self.size} ship."
                    )
        if self.coupling in sw5e.COUPLING_CAPACITY:
            for store, sentence in sw5e.stored_dice_errors(self.coupling, self.stored_power()).items():
                errors[f"power_{store}"] = sentence[0].upper() + sentence[1:]
        for field, label in (
            ("con_mod", "The Constitution modifier"),
            ("initiative_mod", "The initiative modifier"),
            ("dex_mod", "The Dexterity modifier"),
            ("str_mod", "The Strength modifier"),
        ):
            value = getattr(self, field)
            if value is not None and not -10 <= value <= 20:
                errors[field] = f"{label} goes from -10 to 20."
        weapons = self.weapon_list()
        if len(weapons) > MAX_WEAPONS:
            errors["weapons"] = f"List at most {MAX_WEAPONS} weapons."
        elif any(len(name) > WEAPON_NAME_MAX for name in weapons):
            errors["weapons"] = f"Each weapon's name can be at most {WEAPON_NAME_MAX} characters long."
        elif any(gear.weapon_error(entry) for entry in weapons):
            errors["weapons"] = next(gear.weapon_error(entry) for entry in weapons if gear.weapon_error(entry))
        elif len({name.casefold() for name, _ in self.weapon_entries()}) < len(weapons):
            errors["weapons"] = 'Name each weapon once (two of a kind: "laser cannon 1, laser cannon 2").'
        if self.system_damage is not None and self.system_damage > 5:
            errors["system_damage"] = "System damage goes from 0 to 5 (level 6 destroys the ship)."
        for field, label in (("saves_made", "Successful"), ("saves_failed", "Failed")):
            count = getattr(self, field)
            if count is not None and count > 2:
                errors[field] = f"{label} destruction saves go from 0 to 2 (the third ends the count)."
        if self.hull and (self.stable or self.saves_made or self.saves_failed):
            errors["stable"] = "Destruction saves and stable are for a ship at 0 hull points."
        if self.ac_override is not None and self.ac_override > 40:
            errors["ac_override"] = "AC goes from 0 to 40."
        if errors:
            raise ValidationError(errors)


class CrewAssignment(models.Model):
    ship = models.ForeignKey(Ship, on_delete=models.CASCADE, related_name="crew")
    character = models.ForeignKey("campaigns.Character", on_delete=models.CASCADE, related_name="crew_posts")
    station = models.CharField(max_length=12, choices=STATIONS)

    class Meta:
        ordering = ["station", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["ship", "character"],
                name="one_station_per_character_per_ship",
                violation_error_message="That character already has a station on this ship.",
            ),
            models.UniqueConstraint(
                fields=["ship"],
                condition=models.Q(station="pilot"),
                name="one_pilot_per_ship",
                violation_error_message="This ship already has a pilot at the helm.",
            ),
        ]

    def __str__(self):
        return f"{self.character} — {self.get_station_display()} on {self.ship}"

    def clean(self):
        super().clean()
        if self.ship_id and self.character_id and self.ship.campaign_id != self.character.campaign_id:
            raise ValidationError({"character": "That character is not in this ship's campaign."})
        if self.station == "pilot" and self.ship_id:
            others = CrewAssignment.objects.filter(ship_id=self.ship_id, station="pilot").exclude(pk=self.pk)
            if others.exists():
                raise ValidationError({"station": "This ship already has a pilot at the helm."})
