from datetime import timedelta

from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.text import slugify

from combat.rules import registry
from combat.rules.core import as_players_know, from_json


def validate_combat_model(value: str) -> None:
    """A key of the rules registry. Checked here rather than with field choices, so registering a model needs no
    migration."""
    if value not in registry.MODELS:
        raise ValidationError("Choose one of the combat models Fray plays.", code="invalid_choice")


class Encounter(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        ACTIVE = "active", "Active"
        ENDED = "ended", "Ended"

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="encounters")
    name = models.CharField(max_length=120)
    model = models.CharField("combat model", max_length=20, validators=[validate_combat_model])
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.DRAFT)
    settings = models.JSONField(default=dict, blank=True)
    setup = models.JSONField(
        default=dict, blank=True, help_text="What the model's encounter builder chose beyond combatants and settings."
    )
    ship = models.ForeignKey("ships.Ship", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    session = models.ForeignKey(
        "campaigns.GameSession",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="encounters",
        help_text="The game session it was played in.",
    )
    initial = models.JSONField(default=dict, blank=True, help_text="The state the log replays from.")
    state = models.JSONField(default=dict, blank=True, help_text="Snapshot after the last event.")
    version = models.PositiveIntegerField(default=0, help_text="Sequence number of the last event.")
    players_version = models.PositiveIntegerField(
        default=0,
        help_text="How many log entries players may read: their version of the table, which entries hidden "
        "from them never move.",
    )
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    log_revealed = models.BooleanField(
        default=False, help_text="After the encounter, players may read the whole log, GM-only entries included."
    )

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("encounter", args=[self.campaign_id, self.pk])

    @cached_property
    def act_url(self) -> str:
        """Where every action form posts; worked out once per render (a fragment holds dozens of forms)."""
        return reverse("encounter_act", args=[self.campaign_id, self.pk])

    @property
    def combat_model(self):
        return registry.get(self.model)

    @property
    def outcome(self) -> str:
        """How it went, in a word or two, as the GM knows it."""
        return self.outcome_for(gm=True)

    def outcome_for(self, gm: bool) -> str:
        """How it went, in a word or two, for lists and the archive; players judge by the combatants they know of,
        so an enemy they have not seen does not show in it."""
        if self.status == self.Status.DRAFT:
            return "Not started"
        spec = registry.get(self.model)
        if not self.state:
            return self.get_status_display()
        state = from_json(spec.engine.State, self.state)
        verdict = spec.engine.outcome(state if gm else as_players_know(state))
        if self.status == self.Status.ACTIVE:
            return "In progress" + (f" ({verdict.lower()})" if verdict else "")
        return verdict or "Ended"


class Combatant(models.Model):
    class Side(models.TextChoices):
        PC = "pc", "Player character"
        ENEMY = "enemy", "Enemy"

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="combatants")
    key = models.CharField(max_length=40, help_text="The combatant's id inside the rules state.")
    name = models.CharField(max_length=90)
    side = models.CharField(max_length=5, choices=Side.choices)
    character = models.ForeignKey(
        "campaigns.Character", null=True, blank=True, on_delete=models.SET_NULL, related_name="combatants"
    )
    owner = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    hidden = models.BooleanField(default=False, help_text="The other side is not aware of this combatant.")

    class Meta:
        ordering = ["side", "pk"]
        constraints = [models.UniqueConstraint(fields=["encounter", "key"], name="one_key_per_combatant")]

    def __str__(self):
        return self.name


class EncounterEvent(models.Model):
    """Append-only: rows are never updated or deleted. Undo appends an `undone` event. The wording is written
    with the row, once: the log as it read when it happened."""

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    batch = models.PositiveIntegerField(help_text="Seq of the first event the same command produced.")
    kind = models.CharField(max_length=40)
    payload = models.JSONField()
    audience = models.CharField(max_length=8, default="public")
    actor = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    idempotency_key = models.CharField(max_length=80)
    created_at = models.DateTimeField(auto_now_add=True)
    # The entry in words, written with the event against the state it was applied to (rules.core.wording), so
    # the live table's log is read, not replayed. players_text "": players see no entry for this event.
    # `wording`: the rules.core.WORDING the words were written under. Words of another (NULL: not worded, as
    # rows written before these columns or imported) are not shown: the log view words the log by replaying it.
    gm_text = models.TextField(null=True, blank=True)  # noqa: DJ001 NULL (not worded) differs from "" (no entry)
    players_text = models.TextField(null=True, blank=True)  # noqa: DJ001
    wording = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["encounter", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["encounter", "seq"], name="one_event_per_seq"),
            models.UniqueConstraint(fields=["encounter", "idempotency_key"], name="one_event_per_key"),
        ]

    def __str__(self):
        return f"{self.encounter} #{self.seq} {self.kind}"


class LogCheckpoint(models.Model):
    """The state after every live event up to `seq`, so a render replays only the log's tail, however long the
    log grows. A cache derived from the log, never a source: services write one as the log passes each
    hundredth event, and an undo that reaches back to `seq` or before deletes it (that state has changed)."""

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="checkpoints")
    seq = models.PositiveIntegerField()
    state = models.JSONField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["encounter", "seq"], name="one_checkpoint_per_seq")]

    def __str__(self):
        return f"{self.encounter} after #{self.seq}"


class ExportJob(models.Model):
    """One export of an encounter's log, made by a Celery task and stored through Django's storage API."""

    class Format(models.TextChoices):
        JSON = "json", "JSON (complete, re-importable)"
        CSV = "csv", "CSV (one row per event)"
        MARKDOWN = "md", "Markdown (for a group chat)"
        HTML = "html", "Printable page"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="exports")
    requested_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    gm_view = models.BooleanField(help_text="Made with everything the GM sees; otherwise what this player may see.")
    format = models.CharField(max_length=4, choices=Format.choices)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    file = models.FileField(upload_to="exports/", blank=True)
    events = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=300, blank=True, help_text="Why it failed, in a sentence for its reader.")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # "Try again" starts a new attempt; each task message names the attempt it runs, so a late one changes nothing.
    attempt = models.PositiveIntegerField(default=1)
    # Queued, started, or still writing at this time: an export that has not progressed for EXPORT_STALE_AFTER
    # seconds is failed (combat.tasks.fail_stalled).
    progressed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.get_format_display()} export of {self.encounter}"

    @property
    def filename(self):
        return f"{slugify(self.encounter.name) or 'encounter'}-{self.encounter_id}.{self.format}"


class OpenSocket(models.Model):
    """One open websocket of the live table, whichever process holds it: the GM's connected-players strip
    (combat.presence) counts these rows. A row is added when the socket is accepted and removed when it closes; a
    process that dies cannot remove its rows, so an open socket refreshes `seen_at` on its heartbeat and a row not
    seen lately counts as gone."""

    channel_name = models.CharField(max_length=100, unique=True)
    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    opened_at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"{self.user} on {self.encounter}"


class ShareLink(models.Model):
    """A read-only link to an encounter for people without an account: the review of a finished encounter, as
    players see it, or (a watch link) the live table of a running one, as players see it. The token is the only key
    (unguessable); the GM revokes it, and it ends at `expires_at` if set. Anyone outside the link's life gets a 404,
    as for a token never made."""

    class Kind(models.TextChoices):
        REVIEW = "review", "Review"
        WATCH = "watch", "Watch"

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="share_links")
    token = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.REVIEW)
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.encounter} shared by {self.created_by}"

    @property
    def last_day(self):
        """The last moment the link works, for "Works until the end of <day>": a link given a last day ends at the
        midnight after it, which the date alone would show as the next day."""
        return None if self.expires_at is None else self.expires_at - timedelta(microseconds=1)

    @property
    def live(self) -> bool:
        now = timezone.now()
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)
