from django.contrib import admin

from combat.models import Combatant, Encounter, EncounterEvent


class CombatantInline(admin.TabularInline):
    model = Combatant
    extra = 0


@admin.register(Encounter)
class EncounterAdmin(admin.ModelAdmin):
    list_display = ("name", "campaign", "model", "status", "version", "created_at")
    list_filter = ("model", "status")
    inlines = [CombatantInline]


@admin.register(Combatant)
class CombatantAdmin(admin.ModelAdmin):
    list_display = ("name", "encounter", "side", "key", "owner")


@admin.register(EncounterEvent)
class EncounterEventAdmin(admin.ModelAdmin):
    """Read-only: the log is append-only."""

    list_display = ("encounter", "seq", "kind", "audience", "actor", "created_at")
    list_filter = ("kind", "audience")

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
