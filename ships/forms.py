from django import forms

from campaigns.models import Character
from combat.rules.sw5e.stats import STATIONS
from ships.models import Ship

NUMBER = {"inputmode": "numeric", "min": 0}


class ShipForm(forms.ModelForm):
    class Meta:
        model = Ship
        fields = (
            "name", "notes", "livability_rating", "mi_health", "mi_health_max",
            "size", "tier", "hull", "hull_max", "shields", "shields_max", "hull_dice", "shield_dice",
            "shield_type", "reactor", "coupling",
            "power_central", "power_communications", "power_engines", "power_shields", "power_sensors",
            "power_weapons",
        )
        widgets = {
            "notes": forms.Textarea(attrs={"rows": 3}),
            **{
                name: forms.NumberInput(attrs=NUMBER)
                for name in ("livability_rating", "mi_health", "mi_health_max", "tier", "hull", "hull_max",
                             "shields", "shields_max", "hull_dice", "shield_dice", "power_central",
                             "power_communications", "power_engines", "power_shields", "power_sensors",
                             "power_weapons")
            },
        }
        error_messages = {
            name: {"min_value": "This cannot be negative.", "invalid": "Enter a whole number."}
            for name in ("livability_rating", "mi_health", "mi_health_max", "tier", "hull", "hull_max", "shields",
                         "shields_max", "hull_dice", "shield_dice", "power_central", "power_communications",
                         "power_engines", "power_shields", "power_sensors", "power_weapons")
        }

    GROUPS = (
        ("Ship", ("name", "notes")),
        ("Burn Bryte", ("livability_rating", "mi_health", "mi_health_max")),
        ("SW5e hull and shields", ("size", "tier", "hull", "hull_max", "shields", "shields_max", "hull_dice",
                                   "shield_dice", "shield_type")),
        ("SW5e power", ("reactor", "coupling", "power_central", "power_communications", "power_engines",
                        "power_shields", "power_sensors", "power_weapons")),
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
