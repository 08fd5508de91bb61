from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from campaigns.models import Campaign, Character, Invite, Membership, User


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


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ("name", "campaign", "kind", "system", "owner", "is_template", "quantity")
    list_filter = ("kind", "system", "is_template")
    search_fields = ("name",)
