from django.db.models import Prefetch

from ships.models import CrewAssignment, Ship


def ships_for(campaign):
    crew = CrewAssignment.objects.select_related("character", "character__owner")
    return Ship.objects.filter(campaign=campaign).prefetch_related(Prefetch("crew", queryset=crew))


def can_manage_ship(membership) -> bool:
    return membership.is_gm


def can_change_crew(membership, character) -> bool:
    """GMs assign anyone; a player assigns or removes only their own PCs."""
    return membership.is_gm or (character.is_pc and character.owner_id == membership.user_id)
