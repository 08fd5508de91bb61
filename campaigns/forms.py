import logging
import zoneinfo

import kombu.exceptions
from django import forms
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm
from django.contrib.humanize.templatetags.humanize import apnumber
from django.db.models.fields import BLANK_CHOICE_DASH
from django.utils.html import format_html, format_html_join

from campaigns.models import (
    Campaign,
    Character,
    Invite,
    Membership,
    User,
    format_reminder_offsets,
    parse_reminder_offsets,
)
from campaigns.services import normalise_code
from combat.rules import registry
from combat.rules.stats import BOOL, CHOICE, INT, OVERRIDES, TAGS, TEXT, Stat, StatSchema

logger = logging.getLogger(__name__)

MARKDOWN_HELP = "Markdown works: *emphasis*, **bold**, lists (- item) and links ([text](https://…))."
TIMEZONE_CHOICES = [(name, name) for name in sorted(zoneinfo.available_timezones())]
TIMEZONE_ERRORS = {
    "required": "Choose your time zone, such as Europe/Paris.",
    "invalid_choice": "“%(value)s” is not a time zone Fray knows. Choose yours from the list, such as Europe/Paris.",
}


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="Optional: for invites and session reminders.")
    timezone = forms.ChoiceField(
        label="Time zone",
        choices=TIMEZONE_CHOICES,
        initial="UTC",
        error_messages=TIMEZONE_ERRORS,
        help_text="Session times are shown in it. Filled in from your browser; change it if it is wrong.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:  # a fresh page: static/js/timezone.js puts the browser's zone in (never over a choice)
            self.fields["timezone"].widget.attrs["data-browser-timezone"] = ""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email", "timezone")


class LoginForm(AuthenticationForm):
    """Django's login form, refusing a username longer than any account can have before it is looked up."""

    def clean_username(self):
        username = self.cleaned_data.get("username") or ""
        limit = User._meta.get_field("username").max_length
        if len(username) > limit:
            raise forms.ValidationError(f"Usernames are at most {limit} characters.")
        return username


def axes_username(request, credentials):
    """The username django-axes records a failed login under, cut to what an account's username can hold."""
    source = credentials if credentials is not None else getattr(request, "POST", {})
    username = source.get("username") or ""
    return str(username)[: User._meta.get_field("username").max_length]


class PasswordResetRequestForm(PasswordResetForm):
    """Django's reset form, but the worker looks the address up and sends the mail (campaigns.tasks): the web
    process does the same for every address, so neither its answer nor its timing tells whether one has an account."""

    def save(self, **kwargs) -> None:
        from campaigns.tasks import send_password_reset

        try:
            send_password_reset.delay(self.cleaned_data["email"])
        except kombu.exceptions.OperationalError:
            # The broker is down: the page still answers as always (no e-mail goes out) instead of a 500.
            logger.exception("Could not queue a password reset e-mail")


class ProfileForm(forms.ModelForm):
    timezone = forms.ChoiceField(label="Time zone", choices=TIMEZONE_CHOICES, error_messages=TIMEZONE_ERRORS)

    class Meta:
        model = User
        fields = ("first_name", "email", "timezone")
        labels = {"first_name": "Display name"}


def _combat_models() -> list[tuple[str, str]]:
    """The registered combat models, read when a form is built (the model fields have no choices, so registering a
    model needs no migration), after the blank choice a model field's choices came with."""
    return [*BLANK_CHOICE_DASH, *registry.choices()]


class CampaignForm(forms.ModelForm):
    combat_model = forms.ChoiceField(label="Default combat model", choices=_combat_models)

    class Meta:
        model = Campaign
        fields = ("name", "description", "combat_model", "enemy_health_visibility", "reminder_offsets")
        widgets = {
            "description": forms.Textarea(attrs={"rows": 3}),
            "reminder_offsets": forms.TextInput(attrs={"inputmode": "decimal", "placeholder": "24, 1"}),
        }
        help_texts = {"description": MARKDOWN_HELP}

    def clean_reminder_offsets(self):
        """'1, 24h, 24' is stored as '24,1': largest first, no repeats."""
        return format_reminder_offsets(parse_reminder_offsets(self.cleaned_data.get("reminder_offsets", "")))


class GMNotesForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = ("gm_notes",)
        widgets = {"gm_notes": forms.Textarea(attrs={"rows": 6})}
        help_texts = {"gm_notes": MARKDOWN_HELP}

    def clean(self):
        # A post without the box at all (a stray or crafted request) must not read as "clear my notes".
        if self.is_bound and "gm_notes" not in self.data:
            raise forms.ValidationError("Nothing to save: the notes box was not sent. Nothing was changed.")
        return super().clean()


class InviteForm(forms.Form):
    days = forms.TypedChoiceField(
        label="Link valid for",
        choices=Invite.EXPIRY_CHOICES,
        coerce=int,
        initial=7,
        error_messages={"invalid_choice": "Choose how long the invite stays valid: 1, 7 or 30 days."},
    )


class JoinCodeForm(forms.Form):
    code = forms.CharField(
        label="Join code",
        max_length=20,
        widget=forms.TextInput(
            attrs={
                "autocapitalize": "characters",
                "autocomplete": "off",
                "spellcheck": "false",
                "placeholder": "ABCD-2345",
                "inputmode": "text",
            }
        ),
    )

    def __init__(self, *args, refusal: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.refusal = refusal  # set while the throttle refuses every code: the sentence that says so

    def clean_code(self):
        if self.refusal:
            raise forms.ValidationError(self.refusal)
        code = normalise_code(self.cleaned_data["code"])
        if len(code) != 8:
            raise forms.ValidationError("A join code has 8 letters and digits, like ABCD-2345.")
        return code


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Membership.Role.choices)


STAT_PREFIX = "s_"
OVERRIDE_PREFIX = "o_"  # the GM's override of a derived stat


def _number_input(stat: Stat) -> forms.NumberInput:
    attrs: dict[str, object] = {"inputmode": "numeric"}
    if stat.min is not None:
        attrs["min"] = stat.min
    if stat.max is not None:
        attrs["max"] = stat.max
    return forms.NumberInput(attrs=attrs)


def _override_field(stat: Stat) -> forms.CharField:
    """The GM's box for a derived stat: empty lets the sheet work it out."""
    help_text = f"Leave empty to work it out from the sheet: {stat.help}"
    return forms.CharField(
        label=f"{stat.label} set by the GM", required=False, widget=_number_input(stat), help_text=help_text
    )


def _stat_field(stat):
    if stat.kind == INT:
        return forms.CharField(label=stat.label, required=False, widget=_number_input(stat), help_text=stat.help)
    if stat.kind == CHOICE:
        return forms.ChoiceField(
            label=stat.label, required=False, choices=[(str(v), lbl) for v, lbl in stat.choices], help_text=stat.help
        )
    if stat.kind == BOOL:
        return forms.BooleanField(label=stat.label, required=False, help_text=stat.help)
    if stat.kind == TAGS:
        return forms.CharField(label=stat.label, required=False, max_length=1000, help_text=stat.help)
    if stat.kind == TEXT:
        suggestions = tuple(label for _, label in stat.choices)
        widget = SuggestInput(suggestions, attrs={"maxlength": stat.max or 60, "autocomplete": "off"})
        return forms.CharField(label=stat.label, required=False, widget=widget, help_text=stat.help)
    raise ValueError(stat.kind)


class SuggestInput(forms.TextInput):
    """A text box that suggests `suggestions` as the player types (an HTML datalist); any other text is allowed."""

    def __init__(self, suggestions: tuple[str, ...] = (), attrs=None):
        super().__init__(attrs)
        self.suggestions = suggestions

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        if self.suggestions:
            context["widget"]["attrs"]["list"] = f"{context['widget']['attrs'].get('id', name)}-suggestions"
        return context

    def render(self, name, value, attrs=None, renderer=None):
        html = super().render(name, value, attrs, renderer)
        if not self.suggestions:
            return html
        list_id = f"{(attrs or {}).get('id', name)}-suggestions"
        options = format_html_join("", '<option value="{}"></option>', ((s,) for s in self.suggestions))
        return format_html('{}<datalist id="{}">{}</datalist>', html, list_id, options)


class CharacterForm(forms.ModelForm):
    """A character with the stats of its combat model. The stat fields come from the rules core's schema."""

    system = forms.ChoiceField(label="Combat model", choices=_combat_models)

    class Meta:
        model = Character
        fields = ("name", "system", "kind", "owner", "is_template", "quantity", "notes", "gm_notes")
        widgets = {"notes": forms.Textarea(attrs={"rows": 3}), "gm_notes": forms.Textarea(attrs={"rows": 3})}
        labels = {"owner": "Player"}

    def __init__(self, *args, membership: Membership, system: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["system"].error_messages["invalid_choice"] = (
            f"Choose one of the {apnumber(len(registry.MODELS))} combat models."
        )
        self.membership = membership
        campaign = membership.campaign
        chosen = system or self.data.get("system") or self.instance.system or campaign.combat_model
        if chosen not in registry.MODELS:
            chosen = campaign.combat_model
        self.schema: StatSchema = registry.get(chosen).stats
        self.fields["system"].initial = chosen
        if membership.is_gm:
            players = User.objects.filter(memberships__campaign=campaign).order_by("username")
            self.fields["owner"].queryset = players
            self.fields["owner"].required = False
        else:
            # A player makes and edits only their own PCs.
            for name in ("kind", "owner", "is_template", "quantity", "gm_notes"):
                del self.fields[name]
        existing = self.instance.full_stats() if self.instance.pk and self.instance.system == chosen else None
        values = existing or self.schema.defaults()
        self.derived = self.schema.derived(values)  # as last saved: shown beside the typed stats
        self.kept_overrides = dict(values.get(OVERRIDES) or {})  # what a player's save keeps
        if membership.is_gm:  # only the GM overrides a derived stat
            for item in self.derived:
                field = _override_field(self.schema.get(item.key))
                field.initial = item.value if item.overridden else ""
                self.fields[OVERRIDE_PREFIX + item.key] = field
        for stat in self.schema.typed:
            field = _stat_field(stat)
            value = values.get(stat.key, stat.default)
            field.initial = ", ".join(value) if stat.kind == TAGS else value
            if stat.kind == TEXT and stat.choices:  # a suggestion stored by its key shows as its label
                field.initial = dict(stat.choices).get(value, value)
            self.fields[STAT_PREFIX + stat.key] = field

    def stat_groups(self):
        """[(group title, [bound fields], [derived values])] in schema order, for the template: a derived stat
        shows how the saved sheet works it out, and for the GM its override box among the fields."""
        groups: dict[str, tuple[list, list]] = {}
        derived = {item.key: item for item in self.derived}
        for stat in self.schema.stats:
            fields, shown = groups.setdefault(stat.group or "Stats", ([], []))
            if stat.key in derived:
                shown.append(derived[stat.key])
                if OVERRIDE_PREFIX + stat.key in self.fields:
                    fields.append(self[OVERRIDE_PREFIX + stat.key])
            else:
                fields.append(self[STAT_PREFIX + stat.key])
        return [(title, fields, shown) for title, (fields, shown) in groups.items()]

    def main_fields(self):
        return [self[name] for name in self.fields if not name.startswith((STAT_PREFIX, OVERRIDE_PREFIX))]

    def clean(self):
        cleaned = super().clean()
        raw = {}
        for stat in self.schema.typed:
            name = STAT_PREFIX + stat.key
            if stat.kind == BOOL:
                raw[stat.key] = bool(cleaned.get(name))
            elif name in self.data:
                raw[stat.key] = self.data.get(name)
        stats, errors = self.schema.validate(raw)
        for key, sentence in errors.items():
            self.add_error(STAT_PREFIX + key, sentence)
        overrides = self.kept_overrides
        if self.membership.is_gm:
            raw_overrides = {item.key: self.data.get(OVERRIDE_PREFIX + item.key) for item in self.derived}
            overrides, override_errors = self.schema.clean_overrides(raw_overrides)
            for key, sentence in override_errors.items():
                self.add_error(OVERRIDE_PREFIX + key, sentence)
            errors = {**errors, **override_errors}
        self.cleaned_stats = ({**stats, OVERRIDES: overrides} if overrides else stats) if not errors else None
        return cleaned

    def save(self, commit=True):
        character = super().save(commit=False)
        character.campaign = self.membership.campaign
        character.stats = self.cleaned_stats
        if not self.membership.is_gm:
            character.kind = Character.Kind.PC
            character.owner = self.membership.user
            character.is_template = False
            character.quantity = 1
        if commit:
            character.save()
        return character

    def _post_clean(self):
        # Stats are assigned in save(); validate the instance with them so model rules see the real values.
        # Stat errors are already on their fields; model validation then checks valid defaults instead.
        stats = getattr(self, "cleaned_stats", None)
        self.instance.stats = stats if stats is not None else self.schema.defaults()
        if not self.membership.is_gm:
            self.instance.kind = Character.Kind.PC
            self.instance.owner = self.membership.user
        self.instance.campaign = self.membership.campaign
        super()._post_clean()
