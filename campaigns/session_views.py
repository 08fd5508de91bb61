"""Game sessions, RSVPs, reminder preference, notifications and calendars. Thin views, as in views.py."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from campaigns import ics, selectors, sessions
from campaigns.errors import ServiceError
from campaigns.models import CalendarFeed
from campaigns.session_forms import CancelSessionForm, RecapForm, RsvpForm, SessionForm


def _back(request, fallback: str) -> str:
    target = request.POST.get("next")
    # A path on this site only: redirect() would take a bare word such as "home" for a view name (and fail).
    if (
        target
        and target.startswith("/")
        and url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure())
    ):
        return target
    return fallback


def _board(session, membership, members=None):
    return selectors.rsvp_board(session, members or selectors.campaign_members(session.campaign), membership.user)


@login_required
def session_list(request, campaign_id):
    membership = selectors.membership_or_404(request.user, campaign_id)
    campaign = membership.campaign
    members = selectors.campaign_members(campaign)
    upcoming, past = selectors.split_sessions(selectors.campaign_sessions(campaign))
    return render(
        request,
        "campaigns/session_list.html",
        {
            "campaign": campaign,
            "membership": membership,
            "upcoming": [(s, selectors.rsvp_board(s, members, request.user)) for s in upcoming],
            "past": past[:30],
        },
    )


@login_required
def session_detail(request, campaign_id, session_id, recap_form=None):
    membership = selectors.membership_or_404(request.user, campaign_id)
    session = selectors.session_or_404(membership, session_id)
    if recap_form is None and membership.is_gm:
        recap_form = RecapForm(initial={"recap": session.recap})
    return render(
        request,
        "campaigns/session_detail.html",
        {
            "campaign": membership.campaign,
            "membership": membership,
            "s": session,
            "board": _board(session, membership),
            "recap_form": recap_form,
        },
        status=400 if recap_form is not None and recap_form.errors else 200,
    )


@login_required
@require_POST
def session_recap(request, campaign_id, session_id):
    """The GM saves the session's recap notes; a form error shows the session page again with its sentence."""
    membership = selectors.gm_membership_or_404(request.user, campaign_id)
    session = selectors.session_or_404(membership, session_id)
    form = RecapForm(request.POST)
    if not form.is_valid():
        return session_detail(request, campaign_id, session_id, recap_form=form)
    sessions.set_recap(session, form.cleaned_data["recap"])
    messages.success(request, "Recap notes saved.")
    return redirect(session)


@login_required
def session_create(request, campaign_id):
    membership = selectors.gm_membership_or_404(request.user, campaign_id)
    form = SessionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        session = sessions.create_session(membership.campaign, request.user, **form.session_data())
        messages.success(request, f"{session.title} is on the calendar. Everyone will be reminded.")
        return redirect(session)
    return render(
        request,
        "campaigns/session_form.html",
        {"form": form, "campaign": membership.campaign, "membership": membership},
        status=400 if form.errors else 200,
    )


@login_required
def session_edit(request, campaign_id, session_id):
    membership = selectors.gm_membership_or_404(request.user, campaign_id)
    session = selectors.session_or_404(membership, session_id)
    if not session.is_scheduled:
        messages.error(request, f"This session is {session.get_status_display().lower()}; it can no longer be changed.")
        return redirect(session)
    form = SessionForm(request.POST or None, instance=session)
    if request.method == "POST" and form.is_valid():
        try:
            session = sessions.update_session(session, by=request.user, **form.session_data())
        except ServiceError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"{session.title} saved.")
        return redirect(session)
    return render(
        request,
        "campaigns/session_form.html",
        {"form": form, "campaign": membership.campaign, "membership": membership, "s": session},
        status=400 if form.errors else 200,
    )


@login_required
def session_cancel(request, campaign_id, session_id):
    """GET asks for confirmation (and an optional message to the group); POST cancels."""
    membership = selectors.gm_membership_or_404(request.user, campaign_id)
    session = selectors.session_or_404(membership, session_id)
    form = CancelSessionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            sessions.cancel_session(session, request.user, form.cleaned_data["reason"])
        except ServiceError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"{session.title} is cancelled. Everyone will be told within a minute.")
        return redirect(session)
    return render(
        request,
        "campaigns/session_cancel.html",
        {"form": form, "campaign": membership.campaign, "membership": membership, "s": session},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def session_done(request, campaign_id, session_id):
    membership = selectors.gm_membership_or_404(request.user, campaign_id)
    session = selectors.session_or_404(membership, session_id)
    try:
        sessions.mark_done(session)
    except ServiceError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{session.title} is marked done.")
    return redirect(session)


@login_required
@require_POST
def session_rsvp(request, campaign_id, session_id):
    """Any member answers for themself: the answer is always the signed-in user's own."""
    membership = selectors.membership_or_404(request.user, campaign_id)
    session = selectors.session_or_404(membership, session_id)
    form = RsvpForm(request.POST)
    error = ""
    if not form.is_valid():
        error = form.errors["answer"][0]
    else:
        try:
            sessions.set_rsvp(session, request.user, form.cleaned_data["answer"])
        except ServiceError as exc:
            error = str(exc)
    if request.htmx:
        context = {
            "s": session,
            "board": _board(session, membership),
            "rsvp_error": error,
            "campaign": membership.campaign,
            "membership": membership,
            "next": request.POST.get("next", ""),
        }
        return render(request, "campaigns/session_parts.html#rsvp", context, status=400 if error else 200)
    if error:
        messages.error(request, error)
    return redirect(_back(request, session.get_absolute_url()))


@login_required
@require_POST
def reminder_preference(request, campaign_id):
    """A member turns session reminders on or off for themself in this campaign."""
    membership = selectors.membership_or_404(request.user, campaign_id)
    choice = request.POST.get("reminders")
    if choice not in ("on", "off"):
        if request.htmx:
            return HttpResponse("Choose whether reminders are on or off.", status=400)
        messages.error(request, "Choose whether reminders are on or off.")
        return redirect(_back(request, membership.campaign.get_absolute_url()))
    membership = sessions.set_reminders_opt_out(membership, opt_out=choice == "off")
    if request.htmx:
        return render(
            request,
            "campaigns/session_parts.html#reminders",
            {"membership": membership, "campaign": membership.campaign, "next": request.POST.get("next", "")},
        )
    messages.success(request, "Reminders are on." if choice == "on" else "Reminders are off for this campaign.")
    return redirect(_back(request, membership.campaign.get_absolute_url()))


def _ics_response(body: str, filename: str | None = None) -> HttpResponse:
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    if filename:
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, max-age=300"
    response["X-Robots-Tag"] = "noindex"
    return response


@login_required
@require_GET
def session_ics(request, campaign_id, session_id):
    membership = selectors.membership_or_404(request.user, campaign_id)
    session = selectors.session_or_404(membership, session_id)
    return _ics_response(ics.calendar([session]), filename=f"fray-session-{session.pk}.ics")


@require_GET
def calendar_feed(request, token):
    """The user's sessions for calendar apps. No login (apps cannot log in): the 256-bit token is the key."""
    feed = CalendarFeed.objects.select_related("user").filter(token=token).first()
    if feed is None or not feed.user.is_active:
        raise Http404("No such calendar.")
    return _ics_response(ics.calendar(selectors.feed_sessions(feed.user), name="Fray sessions"))


@login_required
@require_POST
def calendar_rotate(request):
    sessions.rotate_calendar_token(request.user)
    messages.success(
        request, "New calendar address made. The old one no longer works: subscribe again with the new one."
    )
    return redirect(reverse("profile") + "#calendar")


@login_required
def notifications(request):
    """The latest notifications. Opening the page marks the ones shown as read."""
    items = list(request.user.notifications.select_related("campaign")[:50])
    unread = {n.pk for n in items if n.read_at is None}
    if unread:
        sessions.mark_read(request.user, unread)
    return render(request, "campaigns/notifications.html", {"items": items, "unread": unread, "now": timezone.now()})
