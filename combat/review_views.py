"""The combat log review: timeline with filters, per-character summary, charts."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaigns.selectors import gm_membership_or_404, membership_or_404
from combat import charts, replay, review, selectors, services, sharing, stories, tasks
from combat.exports import ExportImportError, import_encounter, read_export
from combat.forms import ShareForm
from combat.models import Encounter, ExportJob, ShareLink
from combat.rules.core import RuleError


@login_required
def encounter_log(request, campaign_id, encounter_id):
    membership = membership_or_404(request.user, campaign_id)
    encounter = get_object_or_404(selectors.encounters_for(membership).select_related("campaign"), pk=encounter_id)
    if encounter.status == Encounter.Status.DRAFT:  # only GMs reach a draft; it has no log yet
        messages.info(request, "This encounter is a draft: it has a log once it starts.")
        return redirect(encounter)
    ended_for_gm = membership.is_gm and encounter.status == Encounter.Status.ENDED
    running_for_gm = membership.is_gm and encounter.status == Encounter.Status.ACTIVE
    return _review(
        request,
        encounter,
        membership.is_gm,
        membership=membership,
        campaign=membership.campaign,
        can_reveal=ended_for_gm,
        can_share=ended_for_gm,
        share_links=sharing.live_links(encounter) if ended_for_gm else [],
        can_watch=running_for_gm,
        watch_links=sharing.live_links(encounter, ShareLink.Kind.WATCH) if running_for_gm else [],
        exports=_my_exports(encounter, request.user),
        formats=ExportJob.Format.choices,
    )


def shared_review(request, token):
    """A share link: the finished encounter's review as players see it, for anyone holding the link."""
    encounter = sharing.shared(token)
    if encounter is None:
        raise Http404("No such page.")
    response = _review(request, encounter, False, players_only=True, shared=True)
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"  # the token is the key: never send it on
    return response


def _review(request, encounter, is_gm: bool, players_only: bool = False, **extra):
    """The review page (or, for htmx, its replay or timeline alone) for the GM or as players see it."""
    moment = replay.build(
        encounter, is_gm, request.GET.get("at"), players_only=players_only, entry=request.GET.get("entry")
    )
    if request.htmx and _target(request) == "replay":  # a step of the replay: that alone, no review
        response = render(request, "combat/log.html#replay", {"encounter": encounter, "replay": moment})
        if moment is not None:  # the address bar names the moment shown by its seq, however it was asked for
            response["HX-Push-Url"] = f"{request.path}?at={moment.moment.seq}"
        return response
    reader = None if is_gm or players_only else request.user.pk  # a player's own hidden rolls are theirs to read
    data = review.build(encounter, is_gm, players_only=players_only, reader=reader)
    fighter = request.GET.get("fighter", "")
    kind = request.GET.get("kind", "")
    fighter = fighter if fighter in data.fighters else ""
    kind = kind if kind in data.kinds else ""
    context = {
        "encounter": encounter,
        "review": data,
        "timeline": review.grouped(review.filtered(data, fighter, kind), data.fighters, data.table),
        "replay": moment,
        "fighter": fighter,
        "kind": kind,
        "fighters": sorted(data.fighters.items(), key=lambda kv: kv[1]),
        "kinds": [(k, k.replace("_", " ")) for k in data.kinds],
        "face_charts": charts.dice_faces(data.faces),
        "damage_chart": charts.damage_per_round(data.damage_by_round, data.table.damage_unit),
        "complexity_chart": charts.success_by_complexity(data.by_complexity),
        "stories": stories.build(encounter, data, moment.numbers if moment else {}),
        **extra,
    }
    if request.htmx and request.GET.get("part") == "timeline":
        return render(request, "combat/log.html#timeline", context)
    return render(request, "combat/log.html", context)


@login_required
@require_POST
def share_create(request, campaign_id, encounter_id):
    membership = gm_membership_or_404(request.user, campaign_id)
    encounter = get_object_or_404(Encounter, pk=encounter_id, campaign=membership.campaign)
    form = ShareForm(request.POST)
    try:
        if not form.is_valid():
            raise RuleError(" ".join(form.errors.get("expires", [])) or "That share link could not be made.")
        sharing.share_review(encounter, request.user, form.expires_at(request.user))
    except RuleError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "A share link is ready: anyone with it can read this review, as players see it.")
    return redirect(reverse("encounter_log", args=[campaign_id, encounter_id]) + "#share-h")


@login_required
@require_POST
def share_revoke(request, campaign_id, encounter_id, link_id):
    membership = gm_membership_or_404(request.user, campaign_id)
    encounter = get_object_or_404(Encounter, pk=encounter_id, campaign=membership.campaign)
    if not 0 < link_id < 2**63 or not encounter.share_links.filter(pk=link_id, kind=ShareLink.Kind.REVIEW).exists():
        raise Http404("No such link.")  # a watch link is revoked from its own card (watch_views)
    if sharing.revoke(encounter, link_id):
        messages.success(request, "That link no longer opens the review.")
    else:
        messages.error(request, "That link was already revoked or has expired.")
    return redirect(reverse("encounter_log", args=[campaign_id, encounter_id]) + "#share-h")


def _target(request) -> str:
    """The id of the element an htmx request swaps ("section#replay" in htmx 4's header)."""
    return (request.headers.get("HX-Target") or "").rpartition("#")[2]


@login_required
@require_POST
def encounter_log_reveal(request, campaign_id, encounter_id):
    membership = gm_membership_or_404(request.user, campaign_id)
    encounter = get_object_or_404(Encounter, pk=encounter_id, campaign=membership.campaign)
    try:
        services.reveal_log(encounter, request.POST.get("reveal") == "1")
    except RuleError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            "Players now see the whole log."
            if encounter.log_revealed
            else "GM-only entries are hidden from players again.",
        )
    return redirect("encounter_log", campaign_id, encounter_id)


# --- exports --------------------------------------------------------------------------------------------------


def _my_exports(encounter, user) -> list[ExportJob]:
    """The last five exports `user` asked for of `encounter`, those that stopped progressing marked failed."""
    jobs = list(encounter.exports.filter(requested_by=user)[:5])
    tasks.fail_stalled(jobs)
    return jobs


@login_required
@require_POST
def export_start(request, campaign_id, encounter_id):
    membership = membership_or_404(request.user, campaign_id)
    encounter = get_object_or_404(selectors.encounters_for(membership), pk=encounter_id)
    if encounter.status == Encounter.Status.DRAFT:
        messages.error(request, "A draft has no log to export yet; start the encounter first.")
        return redirect(encounter)
    fmt = request.POST.get("format", "")
    if fmt not in ExportJob.Format.values:
        messages.error(request, "Choose JSON, CSV, Markdown or the printable page.")
        return redirect("encounter_log", campaign_id, encounter_id)
    job = tasks.request_export(encounter, request.user, gm_view=membership.is_gm, fmt=fmt)
    if request.htmx:
        return render(request, "combat/log.html#export-status", {"job": job, "campaign": membership.campaign})
    return redirect("encounter_log", campaign_id, encounter_id)


def _job_or_404(request, campaign_id, job_id):
    """An export the user asked for, in a campaign they are still a member of: (membership, job)."""
    membership = membership_or_404(request.user, campaign_id)
    job = get_object_or_404(
        ExportJob.objects.select_related("encounter"),
        pk=job_id,
        encounter__campaign=membership.campaign,
        requested_by=request.user,
    )
    return membership, job


@login_required
def export_status(request, campaign_id, job_id):
    _, job = _job_or_404(request, campaign_id, job_id)
    tasks.fail_stalled([job])
    return render(request, "combat/log.html#export-status", {"job": job, "campaign": job.encounter.campaign})


@login_required
@require_POST
def export_retry(request, campaign_id, job_id):
    """ "Try again" on a failed export: a new attempt of the same job, made with what the member may see now. A late
    delivery of the old attempt's task changes nothing (combat/tasks.py)."""
    membership, job = _job_or_404(request, campaign_id, job_id)
    retried = tasks.retry_export(job, gm_view=membership.is_gm)
    if request.htmx:  # the row as it is now: queued again, or (a second tap) whatever the first tap started
        return render(request, "combat/log.html#export-status", {"job": job, "campaign": membership.campaign})
    if not retried:
        messages.error(request, "Only a failed export can be tried again; this one has not failed.")
    return redirect("encounter_log", campaign_id, job.encounter_id)


@login_required
def export_download(request, campaign_id, job_id):
    _, job = _job_or_404(request, campaign_id, job_id)
    if job.status != job.Status.DONE or not job.file:
        raise Http404("This export is not ready.")
    content_types = {"json": "application/json", "csv": "text/csv", "md": "text/markdown", "html": "text/html"}
    return FileResponse(
        job.file.open("rb"),
        as_attachment=True,
        filename=job.filename,
        content_type=f"{content_types[job.format]}; charset=utf-8",
    )


@login_required
@require_POST
def encounter_import(request, campaign_id):
    """A GM re-creates an encounter from a complete JSON export; it replays to the exported state or is refused
    with a sentence next to the file field (400), and nothing is kept."""
    membership = gm_membership_or_404(request.user, campaign_id)
    upload = request.FILES.get("file")
    try:
        if upload is None:
            raise ExportImportError("Choose a JSON export file to import.")
        encounter = import_encounter(membership.campaign, request.user, read_export(upload))
    except ExportImportError as exc:
        return render(
            request,
            "combat/encounter_list.html",
            {
                "membership": membership,
                "campaign": membership.campaign,
                "encounters": selectors.encounters_for(membership),
                "import_error": str(exc),
            },
            status=400,
        )
    messages.success(request, f"Imported “{encounter.name}”; it replays to the exported state.")
    return redirect("encounter_log", campaign_id, encounter.pk)
