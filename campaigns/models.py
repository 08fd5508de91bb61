import secrets
import zoneinfo
from datetime import timedelta
from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone

from combat.models import validate_combat_model
from combat.rules import registry
from combat.rules.stats import OVERRIDES

# Join codes avoid letters and digits that look alike on a phone keyboard (0/O, 1/I/L).
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8  # 31^8 ≈ 8.5e11 codes; joining needs a login and wrong codes are throttled


def _timezone_choices():
    return [(name, name) for name in sorted(zoneinfo.available_timezones())]


DEFAULT_REMINDER_OFFSETS = "24,1"
MAX_REMINDER_OFFSETS = 4
MAX_REMINDER_MINUTES = 7 * 24 * 60


def parse_reminder_offsets(value: str) -> list[int]:
    """'24, 1' -> [1440, 60]: minutes before the start, largest first. Raises ValidationError with a sentence."""
    minutes = set()
    for part in (value or "").split(","):
        part = part.strip().lower().removesuffix("h").strip()
        if not part:
            continue
        try:
            hours = Decimal(part)
        except InvalidOperation:
            raise ValidationError(
                f"“{part}” is not a number of hours. Write hours separated by commas, such as 24, 1."
            ) from None
        if not hours.is_finite() or hours <= 0:
            raise ValidationError("Each reminder must be a positive number of hours before the session.")
        # Bounded before multiplying: "1e999999" hours would overflow the decimal context (a server error).
        if hours > Decimal(MAX_REMINDER_MINUTES) / 60:
            raise ValidationError("A reminder can be at most 168 hours (one week) before the session.")
        exact = hours * 60
        if exact != exact.to_integral_value() or exact < 1:
            raise ValidationError(
                f"{part} hours is not a whole number of minutes; use, for example, 0.5 for 30 minutes."
            )
        minutes.add(int(exact))
    if len(minutes) > MAX_REMINDER_OFFSETS:
        raise ValidationError(f"Choose at most {MAX_REMINDER_OFFSETS} reminders.")
    return sorted(minutes, reverse=True)


def format_reminder_offsets(minutes: list[int]) -> str:
    """[1440, 60, 30] -> '24,1,0.5' (the canonical stored form)."""
    return ",".join(format(Decimal(m) / 60, "f").rstrip("0").rstrip(".") if m % 60 else str(m // 60) for m in minutes)


def validate_reminder_offsets(value):
    parse_reminder_offsets(value)


class User(AbstractUser):
    timezone = models.CharField(max_length=64, default="UTC")

    def clean(self):
        super().clean()
        if self.timezone not in zoneinfo.available_timezones():
            raise ValidationError({"timezone": "Choose a time zone from the list, such as Europe/Paris."})

    def __str__(self):
        return self.get_full_name() or self.username


class Campaign(models.Model):
    class EnemyHealth(models.TextChoices):
        NONE = "none", "Hidden"
        DESCRIPTOR = "descriptor", "Described (unhurt, hurt, down)"
        EXACT = "exact", "Exact Health Levels"

    name = models.CharField(max_length=120)
    description = models.TextField(blank=True, max_length=4000)
    combat_model = models.CharField("default combat model", max_length=20, validators=[validate_combat_model])
    gm_notes = models.TextField("GM notes", blank=True, max_length=20000)
    enemy_health_visibility = models.CharField(
        "players see enemy health", max_length=12, choices=EnemyHealth.choices, default=EnemyHealth.DESCRIPTOR
    )
    reminder_offsets = models.CharField(
        "session reminders",
        max_length=40,
        blank=True,
        default=DEFAULT_REMINDER_OFFSETS,
        validators=[validate_reminder_offsets],
        help_text="Hours before each session, separated by commas, such as 24, 1. Leave empty for no reminders.",
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="campaigns")

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("campaign", args=[self.pk])

    @property
    def combat_model_name(self):
        return registry.get(self.combat_model).name


class Membership(models.Model):
    class Role(models.TextChoices):
        GM = "gm", "GM"
        PLAYER = "player", "Player"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PLAYER)
    joined_at = models.DateTimeField(auto_now_add=True)
    reminders_opt_out = models.BooleanField(
        "no session reminders", default=False, help_text="This member gets no reminders before sessions."
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user")]
        ordering = ["role", "joined_at", "pk"]

    def __str__(self):
        return f"{self.user} ({self.get_role_display()}) in {self.campaign}"

    @property
    def is_gm(self):
        return self.role == self.Role.GM


def new_invite_token():
    return secrets.token_urlsafe(32)  # 256 bits


def new_join_code():
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


class InviteQuerySet(models.QuerySet):
    def usable(self):
        return self.filter(revoked_at__isnull=True, expires_at__gt=timezone.now())


class Invite(models.Model):
    EXPIRY_CHOICES = ((1, "1 day"), (7, "7 days"), (30, "30 days"))

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invites")
    token = models.CharField(max_length=64, unique=True, default=new_invite_token)
    code = models.CharField(max_length=JOIN_CODE_LENGTH, unique=True, default=new_join_code)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    uses = models.PositiveIntegerField(default=0)
    # Members removed while this invite was out: it no longer lets them back in (services.bar_from_current_invites).
    barred_users = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="+")

    objects = InviteQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"Invite {self.code} to {self.campaign}"

    @property
    def is_usable(self):
        return self.revoked_at is None and self.expires_at > timezone.now()

    @staticmethod
    def expiry_from_now(days: int):
        return timezone.now() + timedelta(days=days)

    @property
    def code_display(self):
        return f"{self.code[:4]}-{self.code[4:]}"


class Character(models.Model):
    class Kind(models.TextChoices):
        PC = "pc", "Player character"
        NPC = "npc", "NPC / enemy"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="characters")
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=3, choices=Kind.choices, default=Kind.PC)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="characters",
        help_text="The player who plays this PC. NPCs belong to the GMs and have no owner.",
    )
    system = models.CharField("combat model", max_length=20, validators=[validate_combat_model])
    stats = models.JSONField(default=dict, blank=True)
    notes = models.TextField(blank=True, max_length=4000)
    gm_notes = models.TextField("GM notes", blank=True, max_length=4000)
    is_template = models.BooleanField(
        "encounter template", default=False, help_text="An NPC kind the encounter builder can add several of."
    )
    quantity = models.PositiveSmallIntegerField(default=1, help_text="How many the encounter builder adds by default.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["kind", "name", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind="npc") | models.Q(is_template=False), name="only_npcs_are_templates"
            ),
            models.CheckConstraint(condition=models.Q(quantity__gte=1, quantity__lte=50), name="quantity_1_to_50"),
        ]

    def __str__(self):
        if self.is_template and self.quantity > 1:
            return f"{self.name} ×{self.quantity}"
        return self.name

    def get_absolute_url(self):
        return reverse("character", args=[self.campaign_id, self.pk])

    @property
    def model(self):
        return registry.get(self.system)

    @property
    def is_pc(self):
        return self.kind == self.Kind.PC

    def full_stats(self):
        """Stored stats over the schema's defaults, so a stat added later still has a value (and the GM's
        overrides of derived stats under `OVERRIDES`, if any)."""
        return {**self.model.stats.defaults(), **(self.stats or {})}

    def derived_stats(self):
        """Each stat worked out from the sheet, with the GM's override if there is one (combat.rules.stats)."""
        return self.model.stats.derived(self.full_stats())

    def summary(self):
        return self.model.stats.summary(self.full_stats(), self.model.summary)

    def clean(self):
        super().clean()
        errors = {}
        if self.kind == self.Kind.NPC and self.owner_id:
            errors["owner"] = "NPCs belong to the GMs; leave the player empty."
        if self.kind == self.Kind.PC and self.is_template:
            errors["is_template"] = "Only NPCs can be encounter templates."
        if self.quantity is not None and not 1 <= self.quantity <= 50:
            errors["quantity"] = "Quantity must be between 1 and 50."
        if self.system in registry.MODELS:
            _, stat_errors = self.model.stats.validate(self.stats or {})
            overrides = (self.stats or {}).get(OVERRIDES, {})
            if isinstance(overrides, dict):
                stat_errors.update(self.model.stats.clean_overrides(overrides)[1])
            else:
                stat_errors[OVERRIDES] = "The GM's overrides must be stats and their values."
            if stat_errors:
                errors["stats"] = " ".join(stat_errors.values())
        if errors:
            raise ValidationError(errors)


class GameSession(models.Model):
    """A planned evening of play. Times are stored in UTC; each member sees them in their own time zone."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        CANCELLED = "cancelled", "Cancelled"
        DONE = "done", "Done"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="game_sessions")
    title = models.CharField(max_length=120)
    starts_at = models.DateTimeField("start")
    duration_minutes = models.PositiveIntegerField("expected length in minutes", default=180)
    notes = models.TextField(blank=True, max_length=4000)
    # What happened, typed by the GM after play (loot, story): the end of the session's recap in the history.
    recap = models.TextField("recap notes", blank=True, max_length=4000)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    cancel_reason = models.CharField(max_length=300, blank=True)
    # Calendar clients replace an event whose SEQUENCE went up (RFC 5545 §3.8.7.4).
    sequence = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["starts_at", "pk"]
        indexes = [models.Index(fields=["campaign", "starts_at"], name="session_campaign_start")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(duration_minutes__gte=1, duration_minutes__lte=24 * 60),
                name="session_length_1_min_to_24_h",
            ),
        ]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("session", args=[self.campaign_id, self.pk])

    @property
    def ends_at(self):
        return self.starts_at + timedelta(minutes=self.duration_minutes)

    @property
    def is_scheduled(self):
        return self.status == self.Status.SCHEDULED

    @property
    def has_started(self):
        return self.starts_at <= timezone.now()

    @property
    def length_display(self):
        hours, minutes = divmod(self.duration_minutes, 60)
        if not hours:
            return f"{minutes} min"
        if not minutes:
            return f"{hours} h"
        return f"{hours} h {minutes} min"


class Rsvp(models.Model):
    class Answer(models.TextChoices):
        GOING = "going", "Going"
        MAYBE = "maybe", "Maybe"
        NO = "no", "Can't make it"

    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="rsvps")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rsvps")
    answer = models.CharField(max_length=5, choices=Answer.choices)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "user"], name="one_rsvp_per_member")]
        ordering = ["session", "user__username", "pk"]

    def __str__(self):
        return f"{self.user}: {self.get_answer_display()} for {self.session}"


class ReminderQuerySet(models.QuerySet):
    def pending(self):
        """Neither sent nor skipped: still owed to someone."""
        return self.filter(sent_at__isnull=True, skipped_reason="")


class Reminder(models.Model):
    """One message owed to one member: a reminder before a session, or the notice that it was cancelled.

    `send_due_reminders` delivers it exactly once (see campaigns/reminders.py): a sweep claims the row
    (claimed_at, claim_token), sends, then sets sent_at. A row is finished when sent_at is set or it was
    skipped (skipped_reason says why: cancelled, opted out, left the campaign...).
    """

    class Kind(models.TextChoices):
        REMINDER = "reminder", "Reminder"
        CANCELLATION = "cancellation", "Cancellation notice"

    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="reminders")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reminders")
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.REMINDER)
    offset_minutes = models.PositiveIntegerField(default=0, help_text="Minutes before the start; 0 for notices.")
    send_at = models.DateTimeField()
    claimed_at = models.DateTimeField(null=True, blank=True)
    claim_token = models.UUIDField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    retry_at = models.DateTimeField(null=True, blank=True, help_text="After a failed send: not before this.")
    sent_at = models.DateTimeField(null=True, blank=True)
    late = models.BooleanField(default=False, help_text="Sent more than 5 minutes after it was due.")
    skipped_reason = models.CharField(max_length=120, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ReminderQuerySet.as_manager()

    class Meta:
        ordering = ["send_at", "pk"]
        indexes = [
            models.Index(
                fields=["send_at"],
                name="reminder_pending_send_at",
                condition=models.Q(sent_at__isnull=True, skipped_reason=""),
            ),
        ]
        constraints = [
            # At most one pending message per member, session, kind and offset: recomputing never duplicates.
            models.UniqueConstraint(
                fields=["session", "user", "kind", "offset_minutes"],
                name="one_pending_reminder",
                condition=models.Q(sent_at__isnull=True, skipped_reason=""),
            ),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} for {self.user} about {self.session}"

    @property
    def state(self):
        if self.sent_at:
            return "sent late" if self.late else "sent"
        if self.skipped_reason:
            return f"skipped ({self.skipped_reason})"
        return "claimed" if self.claimed_at else "pending"


class Notification(models.Model):
    """An in-app message in the user's notification list (the badge in the top bar counts unread ones)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    campaign = models.ForeignKey(Campaign, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    text = models.CharField(max_length=500)
    url = models.CharField(max_length=300, blank=True)
    # The reminder it delivers: unique, so a reminder can never become two notifications.
    reminder = models.OneToOneField(
        Reminder, null=True, blank=True, on_delete=models.SET_NULL, related_name="notification"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["user", "read_at"], name="notification_user_unread")]

    def __str__(self):
        return self.text


def new_calendar_token():
    return secrets.token_urlsafe(32)  # 256 bits


class CalendarFeed(models.Model):
    """The secret address of a user's calendar feed. Rotating the token turns the old address off."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feed")
    token = models.CharField(max_length=64, unique=True, default=new_calendar_token)
    created_at = models.DateTimeField(auto_now_add=True)
    rotated_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"Calendar feed of {self.user}"
