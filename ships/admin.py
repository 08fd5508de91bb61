from django.contrib import admin

from ships.models import CrewAssignment, Ship


class CrewInline(admin.TabularInline):
    model = CrewAssignment
    extra = 0


@admin.register(Ship)
class ShipAdmin(admin.ModelAdmin):
    list_display = ("name", "campaign", "size", "tier", "hull", "shields", "livability_rating")
    inlines = [CrewInline]


@admin.register(CrewAssignment)
class CrewAssignmentAdmin(admin.ModelAdmin):
    list_display = ("ship", "character", "station")
