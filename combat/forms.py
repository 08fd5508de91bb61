import zoneinfo
from datetime import datetime, time, timedelta

from django import forms
from django.utils import timezone

from campaigns.models import Character, GameSession
from combat import tables
from combat.rules import registry


class _IdChoices(forms.ModelMultipleChoiceField):
    """Refuses an id too large for any id column as an invalid choice. Django would send it to the database in
    an `__in` lookup, where SQLite cannot bind it (OverflowError: a server error)."""

    def _check_values(self, value):
        for pk in value:
            try:
                too_large = abs(int(str(pk))) >= 2**63
            except ValueError:
                continue  # not a number: Django's own check refuses it
            if too_large:
                raise forms.ValidationError(
                    self.error_messages["invalid_pk_value"], code="invalid_pk_value", params={"pk": pk}
                )
        return super()._check_values(value)


class EncounterForm(forms.Form):
    """The encounter builder: who fights, the ship, surprise and the model's settings."""

    name = forms.CharField(max_length=120)
    model = forms.ChoiceField(label="Combat model", choices=registry.choices)  # read per form: registered models
    session = forms.ModelChoiceField(
        queryset=GameSession.objects.none(),
        required=False,
        label="Game session",
        help_text="The evening this fight belongs to, for the archive.",
    )
    pcs = _IdChoices(label="Player characters", queryset=Character.objects.none(), widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        chosen = self.data.get("model") or self.initial.get("model") or campaign.combat_model
        if chosen not in registry.MODELS:
            chosen = campaign.combat_model if campaign.combat_model in registry.MODELS else next(iter(registry.MODELS))
        self.model_spec = registry.get(chosen)
        self.fields["model"].initial = chosen
        sessions = GameSession.objects.filter(campaign=campaign).exclude(status=GameSession.Status.CANCELLED)
        self.fields["session"].queryset = sessions
        now = timezone.now()
        tonight = sessions.filter(starts_at__gte=now - timedelta(hours=12), starts_at__lte=now + timedelta(hours=12))
        self.fields["session"].initial = tonight.values_list("pk", flat=True).first()
        pcs = Character.objects.filter(campaign=campaign, kind=Character.Kind.PC, system=chosen).select_related("owner")
        self.fields["pcs"].queryset = pcs
        self.fields["pcs"].initial = list(pcs.values_list("pk", flat=True))
        self.npcs = list(Character.objects.filter(campaign=campaign, kind=Character.Kind.NPC, system=chosen))
        for npc in self.npcs:
            self.fields[f"npc_{npc.pk}"] = forms.IntegerField(
                label=npc.name,
                min_value=0,
                max_value=50,
                required=False,
                initial=npc.quantity if npc.is_template else 0,
                error_messages={
                    "min_value": "Choose 0 to 50.",
                    "max_value": "Choose 0 to 50.",
                    "invalid": "Enter how many, as a number.",
                },
                widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": 0, "max": 50}),
            )
        hideable = [(c.pk, c.name) for c in [*pcs, *self.npcs]]
        self.fields["hidden"] = forms.TypedMultipleChoiceField(
            label="Unseen at the start (the other side is not aware of them)",
            choices=hideable,
            coerce=int,
            required=False,
            widget=forms.CheckboxSelectMultiple,
        )
        for setting in self.model_spec.settings:
            name = f"setting_{setting.key}"
            if setting.choices:
                self.fields[name] = forms.ChoiceField(
                    label=setting.label,
                    choices=[(str(v), label) for v, label in setting.choices],
                    initial=str(setting.default),
                    help_text=setting.help,
                )
            elif isinstance(setting.default, bool):
                self.fields[name] = forms.BooleanField(
                    label=setting.label, required=False, initial=setting.default, help_text=setting.help
                )
        self.table = tables.get(chosen)
        before = set(self.fields)
        self.table.build_form(self)
        self.table_field_names = [name for name in self.fields if name not in before]

    def table_fields(self):
        """The fields the chosen model's table adds (its ship or ships, say)."""
        return [self[name] for name in self.table_field_names]

    def npc_fields(self):
        return [self[f"npc_{npc.pk}"] for npc in self.npcs]

    def setting_fields(self):
        return [self[name] for name in self.fields if name.startswith("setting_")]

    def clean(self):
        cleaned = super().clean()
        cleaned["enemies"] = [
            (npc, cleaned.get(f"npc_{npc.pk}") or 0) for npc in self.npcs if (cleaned.get(f"npc_{npc.pk}") or 0) > 0
        ]
        if not cleaned["enemies"] and self.table.ENEMIES_REQUIRED:
            raise forms.ValidationError("Add at least one enemy.")
        cleaned["settings"] = {
            s.key: cleaned.get(f"setting_{s.key}") for s in self.model_spec.settings if f"setting_{s.key}" in cleaned
        }
        cleaned["setup"] = self.table.clean_form(self, cleaned)
        return cleaned


class ShareForm(forms.Form):
    """A share link's optional last day: it works to the end of that day in the GM's time zone."""

    expires = forms.DateField(
        required=False,
        label="Works until (optional)",
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"invalid": "Enter the last day as a date, such as 2026-12-31."},
    )

    def expires_at(self, user):
        day = self.cleaned_data.get("expires")
        if day is None:
            return None
        zone = zoneinfo.ZoneInfo(getattr(user, "timezone", "") or "UTC")
        return datetime.combine(day + timedelta(days=1), time.min, tzinfo=zone)
