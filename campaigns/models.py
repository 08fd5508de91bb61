import secrets
import zoneinfo
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone

from combat.rules import registry

# Join codes avoid letters and digits that look alike on a phone keyboard (0/O, 1/I/L).
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8  # 31^8 ≈ 8.5e11 codes; joining also needs a login and failures are rate-limited


def _timezone_choices():
    return [(name, name) for name in sorted(zoneinfo.available_timezones())]


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
    combat_model = models.CharField("default combat model", max_length=20, choices=registry.CHOICES)
    gm_notes = models.TextField("GM notes", blank=True, max_length=20000)
    enemy_health_visibility = models.CharField(
        "players see enemy health", max_length=12, choices=EnemyHealth.choices, default=EnemyHealth.DESCRIPTOR
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
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="characters",
        help_text="The player who plays this PC. NPCs belong to the GMs and have no owner.",
    )
    system = models.CharField("combat model", max_length=20, choices=registry.CHOICES)
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

    @property
    def model(self):
        return registry.get(self.system)

    @property
    def is_pc(self):
        return self.kind == self.Kind.PC

    def full_stats(self):
        """Stored stats over the schema's defaults, so a stat added later still has a value."""
        return {**self.model.stats.defaults(), **(self.stats or {})}

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
            if stat_errors:
                errors["stats"] = " ".join(stat_errors.values())
        if errors:
            raise ValidationError(errors)

    def get_absolute_url(self):
        return reverse("character", args=[self.campaign_id, self.pk])
