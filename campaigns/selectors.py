"""Read access to campaigns: who is a member, what a member may see and change.

Every campaign URL goes through `membership_or_404`, so a non-member learns nothing, not even that
the campaign exists.
"""

from django.http import Http404
from django.shortcuts import get_object_or_404

from campaigns.models import Campaign, Character, Membership


def memberships_for(user):
    return Membership.objects.filter(user=user).select_related("campaign").order_by("campaign__name", "pk")


def membership_or_404(user, campaign_id) -> Membership:
    if not user.is_authenticated:
        raise Http404("No such campaign.")
    try:
        return Membership.objects.select_related("campaign").get(campaign_id=campaign_id, user=user)
    except (Membership.DoesNotExist, ValueError):
        raise Http404("No such campaign.") from None


def gm_membership_or_404(user, campaign_id) -> Membership:
    """Members who are not GMs get a 404 too: GM pages are not theirs to know about."""
    membership = membership_or_404(user, campaign_id)
    if not membership.is_gm:
        raise Http404("No such page.")
    return membership


def visible_characters(membership: Membership):
    """Everything for GMs; players see PCs and the campaign's non-template NPCs they have met by name only."""
    qs = Character.objects.filter(campaign=membership.campaign).select_related("owner")
    if membership.is_gm:
        return qs
    return qs.filter(kind=Character.Kind.PC)


def character_or_404(membership: Membership, character_id) -> Character:
    return get_object_or_404(visible_characters(membership), pk=character_id)


def can_edit_character(membership: Membership, character: Character) -> bool:
    return membership.is_gm or (character.kind == Character.Kind.PC and character.owner_id == membership.user_id)


def can_see_character_details(membership: Membership, character: Character) -> bool:
    """Players see full sheets of their own characters; other PCs show their name, player and summary."""
    return can_edit_character(membership, character)


def gm_count(campaign: Campaign) -> int:
    return campaign.memberships.filter(role=Membership.Role.GM).count()


def usable_invite(campaign: Campaign):
    return campaign.invites.usable().first()
