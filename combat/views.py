"""Encounter pages. One view serves the full page and, for htmx requests, the fragments."""

import hashlib
import json
import secrets

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import escape
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from campaigns.models import GameSession
from campaigns.selectors import gm_membership_or_404, membership_or_404
from combat import fragments, history, presence, selectors, services, store, tables, watch_views
from combat.forms import EncounterForm
from combat.models import Encounter
from combat.rules.core import RuleError

MAX_FIELD = 2000


def _encounter_or_404(membership, encounter_id) -> Encounter:
    return get_object_or_404(selectors.encounters_for(membership).select_related("campaign"), pk=encounter_id)


@login_required
def encounter_list(request, campaign_id):
    membership = membership_or_404(request.user, campaign_id)
    return render(
        request,
        "combat/encounter_list.html",
        {
            "membership": membership,
            "campaign": membership.campaign,
            "encounters": selectors.encounters_for(membership),
        },
    )


@login_required
def encounter_create(request, campaign_id):
    membership = gm_membership_or_404(request.user, campaign_id)
    campaign = membership.campaign
    # Changing the model select asks for the form again with ?model=… (htmx), unbound: no errors shown yet.
    form = EncounterForm(
        request.POST or None,
        campaign=campaign,
        initial={"name": f"Encounter {campaign.encounters.count() + 1}", "model": request.GET.get("model", "")},
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        encounter = services.create_encounter(
            campaign,
            request.user,
            name=data["name"],
            model=data["model"],
            pcs=list(data["pcs"]),
            enemies=data["enemies"],
            ship=data.get("ship"),
            settings=data["settings"],
            hidden=set(data["hidden"]),
            session=data["session"],
            setup=data["setup"],
        )
        if "draft" not in request.POST:
            services.start_encounter(encounter, request.user)
        return redirect(encounter)
    status = 400 if request.method == "POST" else 200
    return render(request, "combat/encounter_form.html", {"form": form, "campaign": campaign}, status=status)


@login_required
def encounter_detail(request, campaign_id, encounter_id):
    membership = membership_or_404(request.user, campaign_id)
    encounter = _encounter_or_404(membership, encounter_id)
    if encounter.status == Encounter.Status.DRAFT:  # only GMs reach a draft (encounters_for)
        return render(
            request,
            "combat/draft.html",
            {
                "membership": membership,
                "campaign": membership.campaign,
                "encounter": encounter,
                "combatants": encounter.combatants.select_related("character", "owner"),
                "settings": _setting_labels(encounter),
            },
        )
    state = store.load_state(encounter)
    # With the request, the fragments' forms carry their CSRF tokens: they work as plain forms without htmx.
    html = fragments.Renderer(encounter, state, request=request).for_viewer(membership)
    if request.htmx:
        return HttpResponse(html)
    return render(
        request,
        "combat/encounter.html",
        {
            "membership": membership,
            "campaign": membership.campaign,
            "encounter": encounter,
            "fragments": html,
            "presence": presence.players(encounter) if membership.is_gm else None,
            "watch_links": watch_views.watch_links(encounter) if membership.is_gm else [],
        },
    )


@login_required
@require_POST
def encounter_act(request, campaign_id, encounter_id):
    """Run one command. htmx gets the viewer's fresh fragments (and a sentence if refused); a plain form is
    redirected back to the page with the sentence as a message."""
    membership = membership_or_404(request.user, campaign_id)
    # A repeated field (a group of checkboxes) arrives as one comma-separated value. NUL characters dropped:
    # PostgreSQL refuses them in text and JSON (Django's form fields refuse them too).
    data = {
        k: ",".join(v)[:MAX_FIELD].replace("\x00", "")
        for k, v in request.POST.lists()
        if k not in ("csrfmiddlewaretoken",)
    }
    command = data.pop("command", "")
    key = _action_key(data.pop("key", ""), command, data)
    fragments.forget()
    try:  # submit finds the encounter (in this campaign, as this member may see it) as it locks it
        result = services.submit(
            encounter_id,
            request.user,
            command,
            data,
            key,
            from_form=True,
            membership=membership,
            campaign_id=campaign_id,
        )
    except services.NoSuchEncounter:
        raise Http404("No such encounter.") from None
    render = fragments.take_kept(encounter_id)  # what the broadcast just rendered, if it ran
    if not request.htmx:
        if not result.ok:
            messages.error(request, result.error)
        return redirect("encounter", campaign_id, encounter_id)
    if render is None:  # refused: nothing changed, nothing was broadcast
        encounter = _encounter_or_404(membership, encounter_id)
        render = fragments.Renderer(encounter, store.load_state(encounter))
    html = render.for_viewer(membership)
    notice = result.error if not result.ok else ""
    html += (
        f'<p id="enc-{encounter_id}-notice" hx-swap-oob="true" class="notice{" error-box" if notice else ""}" '
        f'role="alert">{escape(notice)}</p>'
    )
    return HttpResponse(html, status=200)


def _setting_labels(encounter) -> list[tuple[str, str]]:
    """(setting, chosen value) in words, for the draft page."""
    out = []
    for spec in encounter.combat_model.settings:
        value = encounter.settings.get(spec.key, spec.default)
        word = next((label for v, label in spec.choices if str(v) == str(value)), None)
        out.append(
            (
                spec.label,
                word if word is not None else ("yes" if value is True else "no" if value is False else str(value)),
            )
        )
    return out


@login_required
@require_POST
def encounter_start(request, campaign_id, encounter_id):
    membership = gm_membership_or_404(request.user, campaign_id)
    encounter = _encounter_or_404(membership, encounter_id)
    try:
        services.start_encounter(encounter, request.user)
    except RuleError as exc:
        messages.error(request, str(exc))
    return redirect(encounter)


@login_required
@require_POST
def encounter_delete(request, campaign_id, encounter_id):
    """A draft that was never played can go; a started encounter's log is kept for ever."""
    membership = gm_membership_or_404(request.user, campaign_id)
    encounter = _encounter_or_404(membership, encounter_id)
    try:
        services.delete_draft(encounter)
    except RuleError as exc:
        messages.error(request, str(exc))
        return redirect(encounter)
    messages.success(request, f"The draft “{encounter.name}” is deleted.")
    return redirect("encounters", campaign_id)


@login_required
def encounter_end(request, campaign_id, encounter_id):
    """Ending asks once more on a page of its own (a stray tap on a phone must not end the fight), and works
    without JavaScript."""
    membership = gm_membership_or_404(request.user, campaign_id)
    encounter = _encounter_or_404(membership, encounter_id)
    if encounter.status != Encounter.Status.ACTIVE:
        return redirect(encounter)
    if request.method == "POST":
        # Keyed as the table's actions are (a double tap ends once); NUL dropped, as PostgreSQL refuses it.
        form_key = request.POST.get("key", "")[:MAX_FIELD].replace("\x00", "").strip()
        key = _action_key(form_key or f"{encounter.pk}-{encounter.version}-end", services.END, {})
        result = services.submit(encounter.pk, request.user, services.END, {}, key)
        if not result.ok:
            messages.error(request, result.error)
            return redirect(encounter)
        return redirect("encounter_log", campaign_id, encounter.pk)
    return render(
        request,
        "combat/end_confirm.html",
        {
            "membership": membership,
            "campaign": membership.campaign,
            "encounter": encounter,
            "persists": tables.get(encounter.model).PERSISTS,
            "form_key": f"{encounter.pk}-{encounter.version}-end-{secrets.token_urlsafe(9)}",
        },
    )


def _action_key(form_key: str, command: str, data: dict) -> str:
    """The form's key (encounter, version, control) plus a digest of what was sent. A double tap of the same
    form acts once; two different actions sent from the same version (two GMs at once, or one GM's second
    declaration before the table refreshed) are both kept."""
    form_key = form_key.strip()
    if not form_key:
        return ""
    digest = hashlib.sha256(json.dumps([command, sorted(data.items())]).encode()).hexdigest()[:16]
    return f"{form_key[:44]}:{digest}"


@login_required
def archive(request, campaign_id):
    """The campaign's history (combat.history): every fight by game session, newest first, with its outcome, the
    player characters' totals, dice luck and each session's recap. A draft is not a fight yet (it has no log): it
    stays on the GM's encounter list."""
    membership = membership_or_404(request.user, campaign_id)
    return render(
        request,
        "combat/archive.html",
        {"membership": membership, "campaign": membership.campaign, "history": history.build(membership)},
    )


@login_required
@require_GET
def session_recap_download(request, campaign_id, session_id):
    """A session's recap as a Markdown file (combat.history), for this member: a player's names no enemy they never
    saw and shows no number that is the GM's to know."""
    membership = membership_or_404(request.user, campaign_id)
    session = get_object_or_404(GameSession, pk=session_id, campaign=membership.campaign)
    response = HttpResponse(history.session_recap(membership, session), content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="recap-{slugify(session.title) or session.pk}.md"'
    return response
