from django.db.models import Prefetch

from ships.models import CrewAssignment, Ship


def ships_for(campaign, membership=None):
    """The campaign's ships with their crews. Given a player's membership, only the party's ships: an NPC ship
    (its page, crew and numbers) is the GMs'."""
    crew = CrewAssignment.objects.select_related("character", "character__owner")
    ships = Ship.objects.filter(campaign=campaign).prefetch_related(Prefetch("crew", queryset=crew))
    if membership is not None and not membership.is_gm:
        ships = ships.exclude(side=Ship.Side.NPC)
    return ships


def can_manage_ship(membership) -> bool:
    return membership.is_gm


def can_change_crew(membership, character) -> bool:
    """GMs assign anyone; a player assigns or removes only their own PCs."""
    return membership.is_gm or (character.is_pc and character.owner_id == membership.user_id)
