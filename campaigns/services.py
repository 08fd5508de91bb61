"""The only writers of campaign data. Views validate input and call these."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.errors import ServiceError
from campaigns.models import Campaign, Character, Invite, Membership
from campaigns.selectors import gm_count


@transaction.atomic
def create_campaign(
    user, *, name, description="", combat_model, enemy_health_visibility=None, reminder_offsets=None
) -> Campaign:
    campaign = Campaign(name=name, description=description, combat_model=combat_model, created_by=user)
    if enemy_health_visibility:
        campaign.enemy_health_visibility = enemy_health_visibility
    if reminder_offsets is not None:
        campaign.reminder_offsets = reminder_offsets
    campaign.full_clean()
    campaign.save()
    Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.GM)
    return campaign


@transaction.atomic
def regenerate_invite(campaign: Campaign, by, days: int) -> Invite:
    """Revoke every usable invite of the campaign and make a fresh link and code."""
    now = timezone.now()
    campaign.invites.filter(revoked_at__isnull=True).update(revoked_at=now)
    for _ in range(5):  # a join code collision is astronomically rare; retry rather than fail
        try:
            with transaction.atomic():
                return Invite.objects.create(campaign=campaign, created_by=by, expires_at=Invite.expiry_from_now(days))
        except IntegrityError:
            continue
    raise ServiceError("Could not make a new invite; please try again.")


def revoke_invites(campaign: Campaign) -> int:
    return campaign.invites.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())


def normalise_code(raw: str) -> str:
    return "".join(ch for ch in (raw or "").upper() if ch.isalnum())


def find_invite(*, token=None, code=None) -> Invite:
    """The invite for a link token or a typed code, or a ServiceError saying why it cannot be used."""
    if token is not None:
        invite = Invite.objects.select_related("campaign").filter(token=token).first()
    else:
        invite = Invite.objects.select_related("campaign").filter(code=normalise_code(code)).first()
    if invite is None:
        raise ServiceError("That invite is not valid. Check the code or ask your GM for a new link.")
    if invite.revoked_at is not None:
        raise ServiceError("That invite was withdrawn by the GM. Ask them for a new link.")
    if invite.expires_at <= timezone.now():
        raise ServiceError("That invite has expired. Ask your GM for a new link.")
    return invite


def check_may_join(user, invite: Invite) -> None:
    """A member removed while this invite was out cannot come back with it (a fresh invite lets them in)."""
    if invite.barred_users.filter(pk=user.pk).exists():
        raise ServiceError(
            "The GM removed you from this campaign after this invite was made. "
            "Ask them for a new one if you should be back."
        )


def bar_from_current_invites(campaign: Campaign, user) -> None:
    """On removal: no link or code out at that moment lets `user` back in; invites made later still do."""
    for invite in campaign.invites.usable():
        invite.barred_users.add(user)


@transaction.atomic
def join_campaign(user, invite: Invite) -> tuple[Membership, bool]:
    """Make `user` a player of the invite's campaign. Returns (membership, created); members stay as they are."""
    invite = Invite.objects.select_for_update().get(pk=invite.pk)
    if not invite.is_usable:
        raise ServiceError("That invite can no longer be used. Ask your GM for a new link.")
    check_may_join(user, invite)
    membership, created = Membership.objects.get_or_create(
        campaign_id=invite.campaign_id, user=user, defaults={"role": Membership.Role.PLAYER}
    )
    if created:
        Invite.objects.filter(pk=invite.pk).update(uses=invite.uses + 1)
        from campaigns.sessions import sync_campaign_reminders
        from campaigns.tasks import notify_gms_of_new_player

        sync_campaign_reminders(membership.campaign)  # reminders for the sessions ahead

        # robust: with the broker down the join still stands (logged, no e-mail) instead of answering 500.
        transaction.on_commit(lambda: notify_gms_of_new_player.delay(membership.pk), robust=True)
    return membership, created


@transaction.atomic
def set_role(campaign: Campaign, member: Membership, role: str) -> Membership:
    member = Membership.objects.select_for_update().get(pk=member.pk, campaign=campaign)
    if role not in Membership.Role.values:
        raise ServiceError("Choose GM or player.")
    if member.role == Membership.Role.GM and role != Membership.Role.GM and gm_count(campaign) <= 1:
        raise ServiceError("A campaign needs at least one GM. Make someone else GM first.")
    member.role = role
    member.save(update_fields=["role"])  # after commit, campaigns.live moves their open sockets to the new audience
    return member


@transaction.atomic
def remove_member(campaign: Campaign, member: Membership) -> None:
    member = Membership.objects.select_for_update().get(pk=member.pk, campaign=campaign)
    if member.is_gm and gm_count(campaign) <= 1:
        raise ServiceError("A campaign needs at least one GM. Make someone else GM first.")
    # Their PCs stay in the campaign (the story keeps them) but no longer have a player.
    Character.objects.filter(campaign=campaign, owner=member.user).update(owner=None)
    member.delete()  # after commit, campaigns.live closes their open sockets of the campaign
    bar_from_current_invites(campaign, member.user)
    from campaigns.sessions import forget_member_reminders

    forget_member_reminders(campaign, member.user)


def save_character(character: Character) -> Character:
    character.full_clean()
    character.save()
    return character
