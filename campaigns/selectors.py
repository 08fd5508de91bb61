"""Read access to campaigns: who is a member, what a member may see and change.

Every campaign URL goes through `membership_or_404`, so a non-member learns nothing, not even that
the campaign exists.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from campaigns.models import Campaign, Character, GameSession, Membership, Rsvp


def memberships_for(user):
    return Membership.objects.filter(user=user).select_related("campaign").order_by("campaign__name", "pk")


def membership_or_404(user, campaign_id) -> Membership:
    if not user.is_authenticated:
        raise Http404("No such campaign.")
    try:
        return Membership.objects.select_related("campaign").get(campaign_id=campaign_id, user=user)
    except (Membership.DoesNotExist, ValueError, OverflowError):  # OverflowError: an id too large for SQLite
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


# Game sessions ---------------------------------------------------------------------------------------------


def session_or_404(membership: Membership, session_id):
    return get_object_or_404(
        GameSession.objects.select_related("campaign"), pk=session_id, campaign=membership.campaign
    )


def campaign_sessions(campaign: Campaign):
    return GameSession.objects.filter(campaign=campaign).select_related("campaign").prefetch_related("rsvps")


def split_sessions(sessions, now=None):
    """(upcoming or running scheduled sessions, soonest first; the rest, latest first)."""
    now = now or timezone.now()
    upcoming, past = [], []
    for s in sessions:
        (upcoming if s.is_scheduled and s.ends_at > now else past).append(s)
    return upcoming, sorted(past, key=lambda s: s.starts_at, reverse=True)


def next_session(campaign: Campaign):
    """The scheduled session running now or coming next, or None."""
    now = timezone.now()
    candidates = campaign_sessions(campaign).filter(
        status=GameSession.Status.SCHEDULED, starts_at__gt=now - timedelta(days=1)
    )
    return next((s for s in candidates if s.ends_at > now), None)


@dataclass
class RsvpBoard:
    """Who answered what, for everyone in the campaign to see."""

    mine: str | None
    groups: list  # [(answer, label, [users])] in Going, Maybe, No order
    waiting: list  # members without an answer

    @property
    def going_count(self):
        return len(self.groups[0][2])


def rsvp_board(session, members, me) -> RsvpBoard:
    """`members`: the campaign's Memberships with their users; RSVPs of people who left are not shown."""
    answers = {r.user_id: r.answer for r in session.rsvps.all()}
    groups = [(value, label, []) for value, label in Rsvp.Answer.choices]
    by_answer = {value: users for value, _, users in groups}
    waiting = []
    for m in members:
        (by_answer[answers[m.user_id]] if m.user_id in answers else waiting).append(m.user)
    return RsvpBoard(mine=answers.get(me.pk), groups=groups, waiting=waiting)


def campaign_members(campaign: Campaign):
    return list(campaign.memberships.select_related("user").order_by("user__username"))


def unread_notifications(user) -> int:
    if not getattr(user, "is_authenticated", False):
        return 0
    return user.notifications.filter(read_at__isnull=True).count()


def feed_sessions(user, now=None):
    """Sessions for a user's calendar feed: all their campaigns', from 90 days ago on, cancelled ones included."""
    now = now or timezone.now()
    return (
        GameSession.objects.filter(campaign__memberships__user=user, starts_at__gte=now - timedelta(days=90))
        .select_related("campaign")
        .order_by("starts_at", "pk")
    )
