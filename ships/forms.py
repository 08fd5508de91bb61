from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from campaigns.models import Character
from combat.rules.sw5e.stats import STATIONS
from ships.models import Ship

NUMBER = {"inputmode": "numeric", "min": 0}
SIGNED = ("con_mod", "initiative_mod", "dex_mod", "str_mod")
# The sheet's counts: whole numbers that cannot be negative.
COUNTS = (
    "livability_rating",
    "mi_health",
    "mi_health_max",
    "tier",
    "hull",
    "hull_max",
    "shields",
    "shields_max",
    "hull_dice",
    "shield_dice",
    "power_central",
    "power_communications",
    "power_engines",
    "power_shields",
    "power_sensors",
    "power_weapons",
    "system_damage",
    "saves_made",
    "saves_failed",
)


class ShipForm(forms.ModelForm):
    class Meta:
        model = Ship
        fields = (
            "name",
            "side",
            "notes",
            "livability_rating",
            "mi_health",
            "mi_health_max",
            "size",
            "tier",
            "hull",
            "hull_max",
            "shields",
            "shields_max",
            "hull_dice",
            "shield_dice",
            "shield_type",
            "reactor",
            "coupling",
            "power_central",
            "power_communications",
            "power_engines",
            "power_shields",
            "power_sensors",
            "power_weapons",
            "weapons",
            "con_mod",
            "initiative_mod",
            "points_from_size",
            "str_mod",
            "dex_mod",
            "armour",
            "ac_override",
            "system_damage",
            "used",
            "saves_made",
            "saves_failed",
            "stable",
        )
        widgets = {
            "notes": forms.Textarea(attrs={"rows": 3}),
            **{name: forms.NumberInput(attrs=NUMBER) for name in COUNTS},
            # Signed numbers: a phone's numeric keypad has no minus sign.
            **{name: forms.NumberInput(attrs={"min": -10, "max": 20}) for name in SIGNED},
        }
        error_messages = {
            name: {"min_value": "This cannot be negative.", "invalid": "Enter a whole number."} for name in COUNTS
        }
        error_messages.update(
            {
                name: {
                    "min_value": "Choose from -10 to 20.",
                    "max_value": "Choose from -10 to 20.",
                    "invalid": "Enter a whole number.",
                }
                for name in SIGNED
            }
        )
        error_messages["side"] = {"invalid_choice": "Choose a party ship or an NPC ship."}

    # Added after the first ships were made: a form that leaves them out (or blank) keeps what the ship has.
    KEEP_WHEN_BLANK = ("side",) + SIGNED + ("armour", "system_damage", "saves_made", "saves_failed")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.KEEP_WHEN_BLANK:
            self.fields[name].required = False
        if self.instance.pk is None:  # a new ship's maximums come from its size unless the GM types them
            self.fields["points_from_size"].initial = True
        for name in SIGNED:  # the engine's range, whatever the database's is
            self.fields[name].validators = [MinValueValidator(-10), MaxValueValidator(20)]

    def _keep(self, name):
        value = self.cleaned_data.get(name)
        return getattr(self.instance, name) if value in (None, "") else value

    def clean_side(self):
        return self._keep("side")

    def clean_con_mod(self):
        return self._keep("con_mod")

    def clean_initiative_mod(self):
        return self._keep("initiative_mod")

    def clean_dex_mod(self):
        return self._keep("dex_mod")

    def clean_str_mod(self):
        return self._keep("str_mod")

    def clean_armour(self):
        return self._keep("armour")

    def clean_system_damage(self):
        return self._keep("system_damage")

    def clean_saves_made(self):
        return self._keep("saves_made")

    def clean_saves_failed(self):
        return self._keep("saves_failed")

    def clean(self):
        """With "work out" on, the maximums come from size, tier and modifiers; a new ship starts at them."""
        cleaned = super().clean()
        if not cleaned.get("points_from_size"):
            return cleaned
        probe = Ship(
            size=cleaned.get("size"),
            tier=cleaned.get("tier"),
            con_mod=cleaned.get("con_mod"),
            str_mod=cleaned.get("str_mod"),
            shield_type=cleaned.get("shield_type"),
        )
        for current, maximum, derived in (
            ("hull", "hull_max", probe.derived_hull_max),
            ("shields", "shields_max", probe.derived_shields_max),
        ):
            if derived is None:
                continue
            cleaned[maximum] = derived
            if self.instance.pk is None or cleaned.get(current) is None or cleaned[current] > derived:
                cleaned[current] = derived
        return cleaned

    GROUPS = (
        ("Ship", ("name", "side", "notes")),
        ("Burn Bryte", ("livability_rating", "mi_health", "mi_health_max")),
        (
            "SW5e hull and shields",
            (
                "size",
                "tier",
                "hull",
                "hull_max",
                "shields",
                "shields_max",
                "hull_dice",
                "shield_dice",
                "shield_type",
                "points_from_size",
                "con_mod",
                "str_mod",
            ),
        ),
        ("SW5e armour", ("armour", "dex_mod", "ac_override")),
        (
            "SW5e power",
            (
                "reactor",
                "coupling",
                "power_central",
                "power_communications",
                "power_engines",
                "power_shields",
                "power_sensors",
                "power_weapons",
            ),
        ),
        ("SW5e combat", ("weapons", "initiative_mod")),
        ("SW5e system damage", ("system_damage", "used", "saves_made", "saves_failed", "stable")),
    )

    def groups(self):
        return [(title, [self[name] for name in names]) for title, names in self.GROUPS]


class CrewForm(forms.Form):
    character = forms.ModelChoiceField(
        queryset=Character.objects.none(), error_messages={"invalid_choice": "Choose one of the campaign's characters."}
    )
    station = forms.ChoiceField(choices=STATIONS, error_messages={"invalid_choice": "Choose a station from the list."})

    def __init__(self, *args, characters, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"].queryset = characters
