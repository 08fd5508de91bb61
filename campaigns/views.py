"""Thin views: check membership, validate input, call a service, render. One view serves page and partial."""

import segno
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import Resolver404, resolve, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from campaigns import selectors, services, sessions
from campaigns.forms import (
    CampaignForm,
    CharacterForm,
    GMNotesForm,
    InviteForm,
    JoinCodeForm,
    LoginForm,
    PasswordResetRequestForm,
    ProfileForm,
    RoleForm,
    SignupForm,
)
from campaigns.models import Character, Membership
from campaigns.throttle import JOIN_CODES, PASSWORD_RESETS, client_address, too_many
from combat.selectors import encounters_for
from ships.selectors import ships_for


def _safe_next(request, fallback="home"):
    target = request.POST.get("next") or request.GET.get("next")
    # A path on this site only: redirect() would take a bare word such as "home" for a view name (and fail).
    if (
        target
        and target.startswith("/")
        and url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure())
    ):
        return target
    return reverse(fallback)


def home(request):
    if not request.user.is_authenticated:
        return render(request, "campaigns/landing.html")
    memberships = selectors.memberships_for(request.user)
    return render(request, "campaigns/home.html", {"memberships": memberships})


def signup(request):
    if request.user.is_authenticated:
        return redirect(_safe_next(request))
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return _join_invite_in_next(request) or redirect(_safe_next(request))
    return render(
        request,
        "registration/signup.html",
        {"form": form, "next": request.GET.get("next", "")},
        status=400 if form.errors else 200,
    )


class BadRequestOnErrors:
    """Django's form views answer 200 with the errors; Fray's form views answer 400, as for any refused input."""

    def form_invalid(self, form) -> HttpResponse:
        return self.render_to_response(self.get_context_data(form=form), status=400)


class LoginView(BadRequestOnErrors, auth_views.LoginView):
    authentication_form = LoginForm
    redirect_authenticated_user = True

    def form_valid(self, form) -> HttpResponse:
        response = super().form_valid(form)
        return _join_invite_in_next(self.request) or response


def _join_invite_in_next(request) -> HttpResponse | None:
    """After a sign-up or log-in that came from an invite link (`next` is /join/<token>/): the person asked to
    join when they chose to sign up or log in there, so they join now and land in the campaign. None when `next`
    is no invite link; an invite that cannot be used goes back to its page, which says why."""
    target = _safe_next(request)
    try:
        match = resolve(target)
    except Resolver404:
        return None
    if match.url_name != "join_link":
        return None
    try:
        invite = services.find_invite(token=match.kwargs["token"])
        _membership, created = services.join_campaign(request.user, invite)
    except services.ServiceError:
        return redirect(target)
    if created:
        messages.success(request, f"Welcome to {invite.campaign.name}! Make your character next.")
    else:
        messages.info(request, f"You are already in {invite.campaign.name}.")
    return redirect(invite.campaign)


class PasswordChangeView(BadRequestOnErrors, auth_views.PasswordChangeView):
    pass


class PasswordResetView(BadRequestOnErrors, auth_views.PasswordResetView):
    """Asks for an e-mail address; the worker mails a link if an account has it. The answer is the same page
    either way, and requests are throttled per address asked for and per client."""

    form_class = PasswordResetRequestForm

    def form_valid(self, form) -> HttpResponse:
        keys = {"email": form.cleaned_data["email"].strip().lower(), "client": client_address(self.request)}
        minutes = PASSWORD_RESETS.minutes_left(**keys)
        if minutes:
            form.add_error("email", too_many("reset requests", minutes))
            return self.render_to_response(self.get_context_data(form=form), status=429)
        PASSWORD_RESETS.hit(**keys)
        return super().form_valid(form)


class PasswordResetConfirmView(BadRequestOnErrors, auth_views.PasswordResetConfirmView):
    pass


@login_required
def profile(request):
    form = ProfileForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Profile saved.")
        return redirect("profile")
    feed = sessions.calendar_feed_for(request.user)
    calendar_url = request.build_absolute_uri(reverse("calendar_feed", args=[feed.token]))
    return render(
        request,
        "registration/profile.html",
        {"form": form, "calendar_url": calendar_url},
        status=400 if form.errors else 200,
    )


@login_required
def campaign_create(request):
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = services.create_campaign(request.user, **form.cleaned_data)
        return redirect(campaign)
    return render(
        request, "campaigns/campaign_form.html", {"form": form, "creating": True}, status=400 if form.errors else 200
    )


@login_required
def campaign_detail(request, campaign_id):
    membership = selectors.membership_or_404(request.user, campaign_id)
    campaign = membership.campaign
    characters = list(selectors.visible_characters(membership))
    context = {
        "membership": membership,
        "campaign": campaign,
        "my_characters": [c for c in characters if c.owner_id == request.user.id and c.is_pc],
        "party": [c for c in characters if c.is_pc and c.owner_id != request.user.id],
        "pcs": [c for c in characters if c.is_pc],
        "npcs": [c for c in characters if not c.is_pc],
        "ships": ships_for(campaign, membership),
        "encounters": encounters_for(membership).filter(status__in=["active", "draft"])[:5],
        "next_session": selectors.next_session(campaign),
    }
    if context["next_session"]:
        context["next_session_board"] = selectors.rsvp_board(
            context["next_session"], selectors.campaign_members(campaign), request.user
        )
    if membership.is_gm:
        invite = selectors.usable_invite(campaign)
        members = list(campaign.memberships.select_related("user"))
        context.update(
            members=members,
            gm_count=sum(m.is_gm for m in members),
            invite=invite,
            invite_form=InviteForm(),
            notes_form=GMNotesForm(instance=campaign),
        )
        if invite:
            link = request.build_absolute_uri(reverse("join_link", args=[invite.token]))
            context["invite_link"] = link
            context["invite_qr"] = segno.make(link, error="m").svg_inline(
                scale=4, dark="#000", light="#fff", title="QR code of the invite link"
            )
    return render(request, "campaigns/campaign_detail.html", context)


@login_required
def campaign_edit(request, campaign_id):
    membership = selectors.gm_membership_or_404(request.user, campaign_id)
    form = CampaignForm(request.POST or None, instance=membership.campaign)
    if request.method == "POST" and form.is_valid():
        form.save()
        if "reminder_offsets" in form.changed_data:
            sessions.sync_campaign_reminders(membership.campaign)
        messages.success(request, "Campaign saved.")
        return redirect(membership.campaign)
    return render(
        request,
        "campaigns/campaign_form.html",
        {"form": form, "campaign": membership.campaign},
        status=400 if form.errors else 200,
    )


@login_required
def gm_notes(request, campaign_id):
    """Inline edit: GET ?edit=1 gives the form, POST saves; htmx swaps the notes block, a plain browser reloads."""
    membership = selectors.gm_membership_or_404(request.user, campaign_id)
    campaign = membership.campaign
    form = GMNotesForm(request.POST or None, instance=campaign)
    editing = request.method == "GET" and request.GET.get("edit") == "1"
    if request.method == "POST":
        if form.is_valid():
            form.save()
            if not request.htmx:
                messages.success(request, "GM notes saved.")
                return redirect(campaign)
        else:
            editing = True
    if not request.htmx:
        return render(
            request,
            "campaigns/gm_notes_page.html",
            {"campaign": campaign, "notes_form": form, "editing": True, "membership": membership},
            status=400 if form.errors else 200,
        )
    return render(
        request,
        "campaigns/campaign_detail.html#gm-notes",
        {"campaign": campaign, "notes_form": form, "editing": editing, "membership": membership},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def invite_regenerate(request, campaign_id):
    membership = selectors.gm_membership_or_404(request.user, campaign_id)
    form = InviteForm(request.POST)
    if form.is_valid():
        services.regenerate_invite(membership.campaign, request.user, form.cleaned_data["days"])
        messages.success(request, "New invite ready. Older links and codes no longer work.")
    else:
        messages.error(request, form.errors["days"][0])
    return redirect(reverse("campaign", args=[campaign_id]) + "#invite")


@login_required
@require_POST
def invite_revoke(request, campaign_id):
    membership = selectors.gm_membership_or_404(request.user, campaign_id)
    services.revoke_invites(membership.campaign)
    messages.success(request, "Invite withdrawn. Nobody can join with it any more.")
    return redirect(reverse("campaign", args=[campaign_id]) + "#invite")


def join_link(request, token):
    """An invite link. Logged out, it says which campaign and which GM invite you (nothing else of the campaign)
    and offers to sign up or log in, either of which joins and lands you in the campaign."""
    try:
        invite = services.find_invite(token=token)
    except services.ServiceError as exc:
        if not request.user.is_authenticated:
            return render(request, "campaigns/join_invited.html", {"error": str(exc)}, status=404)
        return render(request, "campaigns/join.html", {"error": str(exc), "form": JoinCodeForm()}, status=404)
    if not request.user.is_authenticated:
        return render(
            request,
            "campaigns/join_invited.html",
            {"campaign_name": invite.campaign.name, "gm_name": str(invite.created_by), "next": request.path},
        )
    return _join(request, invite)


@login_required
def join_code(request):
    """Join by typing the code. Refused codes are counted per user and per client address: past the limit every
    code is refused (429) until the window ends, so guessing codes gets nowhere."""
    if request.method != "POST":
        return render(request, "campaigns/join.html", {"form": JoinCodeForm()})
    keys = {"user": request.user.pk, "client": client_address(request)}
    minutes = JOIN_CODES.minutes_left(**keys)
    form = JoinCodeForm(request.POST, refusal=too_many("wrong codes", minutes) if minutes else "")
    if form.is_valid():
        try:
            invite = services.find_invite(code=form.cleaned_data["code"])
        except services.ServiceError as exc:
            form.add_error("code", str(exc))
        else:
            return _join(request, invite, confirmed=True)
    if minutes:
        return render(request, "campaigns/join.html", {"form": form}, status=429)
    JOIN_CODES.hit(**keys)
    return render(request, "campaigns/join.html", {"form": form}, status=400)


def _join(request, invite, confirmed=False):
    existing = Membership.objects.filter(campaign=invite.campaign, user=request.user).first()
    if existing:
        messages.info(request, f"You are already in {invite.campaign.name}.")
        return redirect(invite.campaign)
    try:
        services.check_may_join(request.user, invite)
    except services.ServiceError as exc:
        return render(request, "campaigns/join.html", {"error": str(exc), "form": JoinCodeForm()}, status=400)
    if request.method == "POST" and (confirmed or request.POST.get("confirm") == "1"):
        try:
            services.join_campaign(request.user, invite)
        except services.ServiceError as exc:
            return render(request, "campaigns/join.html", {"error": str(exc), "form": JoinCodeForm()}, status=400)
        messages.success(request, f"Welcome to {invite.campaign.name}! Make your character next.")
        return redirect(invite.campaign)
    return render(request, "campaigns/join_confirm.html", {"invite": invite})


@login_required
@require_POST
def member_role(request, campaign_id, member_id):
    membership = selectors.gm_membership_or_404(request.user, campaign_id)
    member = get_object_or_404(Membership, pk=member_id, campaign=membership.campaign)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose GM or player.")
    else:
        try:
            member = services.set_role(membership.campaign, member, form.cleaned_data["role"])
            messages.success(request, f"{member.user} is now {'a GM' if member.is_gm else 'a player'}.")
        except services.ServiceError as exc:
            messages.error(request, str(exc))
    return redirect(reverse("campaign", args=[campaign_id]) + "#members")


@login_required
@require_POST
def member_remove(request, campaign_id, member_id):
    membership = selectors.gm_membership_or_404(request.user, campaign_id)
    member = get_object_or_404(Membership.objects.select_related("user"), pk=member_id, campaign=membership.campaign)
    try:
        services.remove_member(membership.campaign, member)
        messages.success(request, f"{member.user} left the campaign; their characters stay without a player.")
    except services.ServiceError as exc:
        messages.error(request, str(exc))
    return redirect(reverse("campaign", args=[campaign_id]) + "#members")


@login_required
def character_create(request, campaign_id):
    membership = selectors.membership_or_404(request.user, campaign_id)
    return _character_form(request, membership, Character(campaign=membership.campaign))


@login_required
def character_edit(request, campaign_id, character_id):
    membership = selectors.membership_or_404(request.user, campaign_id)
    character = selectors.character_or_404(membership, character_id)
    if not selectors.can_edit_character(membership, character):
        raise Http404("No such page.")
    return _character_form(request, membership, character)


def _character_form(request, membership, character):
    system = request.GET.get("system") if request.method == "GET" else None
    form = CharacterForm(request.POST or None, instance=character, membership=membership, system=system)
    if request.method == "POST" and form.is_valid():
        saved = form.save()
        messages.success(request, f"{saved.name} saved.")
        return redirect(saved)
    context = {"form": form, "campaign": membership.campaign, "membership": membership, "character": character}
    if request.htmx and request.method == "GET":
        # The combat model changed: swap in the stat fields of the chosen model.
        return render(request, "campaigns/character_form.html#stat-fields", context)
    return render(request, "campaigns/character_form.html", context, status=400 if request.method == "POST" else 200)


@login_required
def character_detail(request, campaign_id, character_id):
    membership = selectors.membership_or_404(request.user, campaign_id)
    character = selectors.character_or_404(membership, character_id)
    full = selectors.can_see_character_details(membership, character)
    context = {
        "membership": membership,
        "campaign": membership.campaign,
        "character": character,
        "full": full,
        "can_edit": selectors.can_edit_character(membership, character),
    }
    if full:
        schema = character.model.stats
        values = character.full_stats()
        derived = {item.key: item for item in character.derived_stats()}
        fight = schema.in_fight(values)  # "7 in a fight, with Medium armour +4": what armour and the like change
        groups: dict[str, list] = {}
        for stat in schema.stats:
            if stat.key in derived:  # "Defense 13 = 10 + Dexterity 3", or that the GM set it
                groups.setdefault(stat.group or "Stats", []).append(
                    (stat, derived[stat.key].value, derived[stat.key].note, fight.get(stat.key, ""))
                )
                continue
            value = values.get(stat.key, stat.default)
            if stat.choices:
                value = dict(stat.choices).get(value, value)
            groups.setdefault(stat.group or "Stats", []).append((stat, value, "", fight.get(stat.key, "")))
        context["stat_groups"] = list(groups.items())
    return render(request, "campaigns/character_detail.html", context)


@login_required
@require_POST
def character_delete(request, campaign_id, character_id):
    membership = selectors.membership_or_404(request.user, campaign_id)
    character = selectors.character_or_404(membership, character_id)
    if not selectors.can_edit_character(membership, character):
        raise Http404("No such page.")
    name = character.name
    character.delete()
    messages.success(request, f"{name} deleted.")
    return redirect(membership.campaign)
