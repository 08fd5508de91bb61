"""Forms for game sessions. Times are typed in the user's own time zone (the middleware activates it)."""

from datetime import timedelta

from django import forms
from django.utils import timezone

from campaigns.forms import MARKDOWN_HELP
from campaigns.models import GameSession, Rsvp

MAX_LENGTH_MINUTES = 24 * 60
MAX_YEARS_AHEAD = 10


class SessionForm(forms.Form):
    title = forms.CharField(max_length=120, widget=forms.TextInput(attrs={"placeholder": "Session 12: the relay"}))
    starts_at = forms.DateTimeField(
        label="Start",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        error_messages={"invalid": "Enter the start as a date and a time, such as 2026-03-14 19:30."},
    )
    length = forms.DecimalField(
        label="Expected length",
        max_digits=6,
        decimal_places=2,
        initial=3,
        widget=forms.NumberInput(attrs={"inputmode": "decimal", "step": "any"}),
        error_messages={"invalid": "Enter the expected length as a number, such as 3 or 2.5."},
    )
    length_unit = forms.ChoiceField(
        label="Length in", choices=(("hours", "hours"), ("minutes", "minutes")), initial="hours"
    )
    notes = forms.CharField(
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Everyone in the campaign sees these. " + MARKDOWN_HELP,
    )

    def __init__(self, *args, instance: GameSession | None = None, **kwargs):
        self.instance = instance
        if instance is not None and "initial" not in kwargs:
            hours, minutes = divmod(instance.duration_minutes, 60)
            kwargs["initial"] = {
                "title": instance.title,
                "starts_at": timezone.localtime(instance.starts_at),
                "length": hours if not minutes else instance.duration_minutes,
                "length_unit": "hours" if not minutes else "minutes",
                "notes": instance.notes,
            }
        super().__init__(*args, **kwargs)
        self.fields["starts_at"].help_text = f"In your time zone, {timezone.get_current_timezone_name()}."

    def clean_starts_at(self):
        starts_at = self.cleaned_data["starts_at"]
        moved = self.instance is None or starts_at != self.instance.starts_at
        if moved and starts_at <= timezone.now():
            raise forms.ValidationError("The start must be in the future.")
        # Compared as local dates (no conversion): near year 9999 the UTC value or the end would overflow.
        if moved and starts_at.date() > timezone.localdate() + timedelta(days=MAX_YEARS_AHEAD * 366):
            raise forms.ValidationError(f"The start must be within the next {MAX_YEARS_AHEAD} years.")
        return starts_at

    def clean(self):
        cleaned = super().clean()
        length, unit = cleaned.get("length"), cleaned.get("length_unit")
        if length is None or unit is None:
            return cleaned
        if length <= 0:
            self.add_error("length", "The expected length must be more than zero.")
            return cleaned
        minutes = length * 60 if unit == "hours" else length
        if minutes != minutes.to_integral_value():
            self.add_error("length", "Give the length in whole minutes, such as 2.5 hours or 150 minutes.")
        elif minutes > MAX_LENGTH_MINUTES:
            self.add_error("length", "A session can be at most 24 hours long.")
        else:
            cleaned["duration_minutes"] = int(minutes)
        return cleaned

    def session_data(self) -> dict:
        data = self.cleaned_data
        return {
            "title": data["title"],
            "starts_at": data["starts_at"],
            "duration_minutes": data["duration_minutes"],
            "notes": data["notes"],
        }


class RecapForm(forms.Form):
    recap = forms.CharField(
        label="Recap notes",
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 4, "placeholder": "Loot: 300 credits and the relay's key card."}),
        help_text="What happened and what was found, typed after play. Everyone in the campaign sees them at the "
        "end of the session's recap in the History. " + MARKDOWN_HELP,
    )


class CancelSessionForm(forms.Form):
    reason = forms.CharField(
        label="Message to the group",
        required=False,
        max_length=300,
        widget=forms.TextInput(attrs={"placeholder": "Half the table is ill; same time next week?"}),
        help_text="Optional. It goes out with the cancellation notice.",
    )


class RsvpForm(forms.Form):
    answer = forms.ChoiceField(
        choices=Rsvp.Answer.choices, error_messages={"invalid_choice": "Answer going, maybe or can't make it."}
    )
