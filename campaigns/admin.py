from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from campaigns.models import (
    CalendarFeed,
    Campaign,
    Character,
    GameSession,
    Invite,
    Membership,
    Notification,
    Reminder,
    Rsvp,
    User,
)


@admin.register(User)
class FrayUserAdmin(UserAdmin):
    fieldsets = UserAdmin.fieldsets + (("Fray", {"fields": ("timezone",)}),)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ("name", "combat_model", "created_by", "created_at")
    list_filter = ("combat_model",)
    search_fields = ("name",)
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("campaign", "user", "role", "joined_at")
    list_filter = ("role",)


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    list_display = ("campaign", "code", "expires_at", "revoked_at", "uses")
    readonly_fields = ("token",)
    raw_id_fields = ("barred_users",)


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ("name", "campaign", "kind", "system", "owner", "is_template", "quantity")
    list_filter = ("kind", "system", "is_template")
    search_fields = ("name",)


class RsvpInline(admin.TabularInline):
    model = Rsvp
    extra = 0


@admin.register(GameSession)
class GameSessionAdmin(admin.ModelAdmin):
    list_display = ("title", "campaign", "starts_at", "duration_minutes", "status")
    list_filter = ("status",)
    search_fields = ("title", "campaign__name")
    date_hierarchy = "starts_at"
    inlines = [RsvpInline]


@admin.register(Rsvp)
class RsvpAdmin(admin.ModelAdmin):
    list_display = ("session", "user", "answer", "updated_at")
    list_filter = ("answer",)


@admin.register(Reminder)
class ReminderAdmin(admin.ModelAdmin):
    """Mostly for looking: the sweep owns claimed_at, claim_token and sent_at."""

    list_display = ("session", "user", "kind", "send_at", "sent_at", "late", "skipped_reason", "attempts")
    list_filter = ("kind", "late")
    search_fields = ("session__title", "user__username")
    readonly_fields = ("claimed_at", "claim_token", "sent_at", "late", "attempts", "last_error", "created_at")


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("user", "text", "created_at", "read_at")
    search_fields = ("text", "user__username")
    raw_id_fields = ("reminder",)


@admin.register(CalendarFeed)
class CalendarFeedAdmin(admin.ModelAdmin):
    list_display = ("user", "created_at", "rotated_at")
    readonly_fields = ("token",)
