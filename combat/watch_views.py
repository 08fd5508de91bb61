"""Watch links (issue 20): the GM makes and revokes them on the live table (its "Let people watch live" fold) or the
log page; anyone holding one watches the live table as players see it, without an account, or puts its overlay page
(whose turn and health only, on a transparent background) over a stream. combat.spectators carries the updates."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaigns.selectors import gm_membership_or_404
from combat import fragments, sharing, store
from combat.forms import ShareForm
from combat.models import Encounter, ShareLink
from combat.rules.core import RuleError


def watch(request, token):
    """A watch link: the running encounter's table as players see it, live; nothing to press."""
    return _watch_page(request, token, "combat/watch.html")


def watch_overlay(request, token):
    """A watch link's stream overlay: the same players' table and socket, styled to show whose turn it is and each
    visible combatant's health only, in big type on a transparent background (an OBS browser source)."""
    return _watch_page(request, token, "combat/watch_overlay.html")


def _watch_page(request, token, template):
    link = sharing.watched(token)
    if link is None:
        raise Http404("No such page.")
    encounter = link.encounter
    html = fragments.for_players(encounter, store.load_state(encounter))
    context = {"encounter": encounter, "token": token, "fragments": html}
    response = render(request, template, context)
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"  # the token is the key: never send it on
    return response


@login_required
@require_POST
def watch_create(request, campaign_id, encounter_id):
    encounter = _gms_encounter(request, campaign_id, encounter_id)
    form = ShareForm(request.POST)
    try:
        if not form.is_valid():
            raise RuleError(" ".join(form.errors.get("expires", [])) or "That watch link could not be made.")
        sharing.watch_link(encounter, request.user, form.expires_at(request.user))
    except RuleError as exc:
        return _answer(request, encounter, str(exc), ok=False)
    return _answer(
        request, encounter, "A watch link is ready: anyone with it watches the table live, as players see it."
    )


@login_required
@require_POST
def watch_revoke(request, campaign_id, encounter_id, link_id):
    encounter = _gms_encounter(request, campaign_id, encounter_id)
    if not 0 < link_id < 2**63 or not encounter.share_links.filter(pk=link_id, kind=ShareLink.Kind.WATCH).exists():
        raise Http404("No such link.")
    if sharing.revoke(encounter, link_id):
        return _answer(request, encounter, "That watch link is closed: its spectators no longer see the table.")
    return _answer(request, encounter, "That link was already revoked.", ok=False)


def _gms_encounter(request, campaign_id, encounter_id) -> Encounter:
    membership = gm_membership_or_404(request.user, campaign_id)
    return get_object_or_404(Encounter, pk=encounter_id, campaign=membership.campaign)


def _answer(request, encounter, said: str, ok: bool = True):
    """htmx (the live table's fold): the links again with the sentence, the fight left as it is. A plain form: back
    to the page it was sent from (the live table's fold, or the log page's card), the sentence as a message."""
    back = "table" if request.POST.get("back") == "table" else "log"
    if request.htmx:
        context = {"encounter": encounter, "watch_links": watch_links(encounter), "back": back, "said": said, "ok": ok}
        return render(request, "combat/watch_links.html", context)
    (messages.success if ok else messages.error)(request, said)
    if back == "table":
        return redirect(reverse("encounter", args=[encounter.campaign_id, encounter.pk]) + "#watch-links")
    return redirect(reverse("encounter_log", args=[encounter.campaign_id, encounter.pk]) + "#watch-h")


def watch_links(encounter) -> list[ShareLink]:
    """The watch links that still work, newest first (none once the encounter is not running)."""
    if encounter.status != Encounter.Status.ACTIVE:
        return []
    return sharing.live_links(encounter, ShareLink.Kind.WATCH)
