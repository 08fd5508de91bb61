from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from campaigns.models import Character
from campaigns.selectors import membership_or_404
from combat.rules.core import RuleError
from combat.rules.dice import Dice
from ships.forms import CrewForm, ShipForm
from ships.models import CrewAssignment, Ship
from ships.recovery import recover
from ships.selectors import can_change_crew, can_manage_ship, ships_for


def _ship_or_404(membership, ship_id):
    """A ship the member may see: a player asking for an NPC ship gets the same 404 as for a missing one."""
    return get_object_or_404(ships_for(membership.campaign, membership), pk=ship_id)


def _crew_candidates(membership):
    qs = Character.objects.filter(campaign=membership.campaign)
    if not membership.is_gm:
        qs = qs.filter(kind=Character.Kind.PC, owner=membership.user)
    return qs


@login_required
def ship_create(request, campaign_id):
    membership = membership_or_404(request.user, campaign_id)
    if not can_manage_ship(membership):
        raise Http404("No such page.")
    form = ShipForm(request.POST or None, instance=Ship(campaign=membership.campaign))
    if request.method == "POST" and form.is_valid():
        ship = form.save()
        messages.success(request, f"{ship.name} is in the campaign's hangar.")
        return redirect(ship)
    return render(
        request,
        "ships/ship_form.html",
        {"form": form, "campaign": membership.campaign},
        status=400 if form.errors else 200,
    )


@login_required
def ship_edit(request, campaign_id, ship_id):
    membership = membership_or_404(request.user, campaign_id)
    if not can_manage_ship(membership):
        raise Http404("No such page.")
    ship = _ship_or_404(membership, ship_id)
    form = ShipForm(request.POST or None, instance=ship)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, f"{ship.name} saved.")
        return redirect(ship)
    return render(
        request,
        "ships/ship_form.html",
        {"form": form, "campaign": membership.campaign, "ship": ship},
        status=400 if form.errors else 200,
    )


@login_required
def ship_detail(request, campaign_id, ship_id):
    membership = membership_or_404(request.user, campaign_id)
    ship = _ship_or_404(membership, ship_id)
    form = CrewForm(characters=_crew_candidates(membership))
    return render(request, "ships/ship_detail.html", _detail_context(membership, ship, form))


def _detail_context(membership, ship, crew_form):
    return {
        "membership": membership,
        "campaign": membership.campaign,
        "ship": ship,
        "crew_form": crew_form,
        "can_manage": can_manage_ship(membership),
        "removable": {post.pk for post in ship.crew.all() if can_change_crew(membership, post.character)},
    }


@login_required
@require_POST
def ship_delete(request, campaign_id, ship_id):
    membership = membership_or_404(request.user, campaign_id)
    if not can_manage_ship(membership):
        raise Http404("No such page.")
    ship = _ship_or_404(membership, ship_id)
    ship.delete()
    messages.success(request, f"{ship.name} deleted.")
    return redirect(membership.campaign)


@login_required
@require_POST
def crew_add(request, campaign_id, ship_id):
    membership = membership_or_404(request.user, campaign_id)
    ship = _ship_or_404(membership, ship_id)
    form = CrewForm(request.POST, characters=_crew_candidates(membership))
    if form.is_valid():
        post = CrewAssignment(ship=ship, character=form.cleaned_data["character"], station=form.cleaned_data["station"])
        try:
            post.full_clean()
            with transaction.atomic():
                post.save()
        except IntegrityError:
            form.add_error("station", "This ship already has a pilot at the helm.")
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        else:
            messages.success(request, f"{post.character} takes the {post.get_station_display()} station.")
            return redirect(ship)
    ship = _ship_or_404(membership, ship_id)
    return render(request, "ships/ship_detail.html", _detail_context(membership, ship, form), status=400)


@login_required
@require_POST
def crew_remove(request, campaign_id, ship_id, post_id):
    membership = membership_or_404(request.user, campaign_id)
    ship = _ship_or_404(membership, ship_id)
    post = get_object_or_404(CrewAssignment.objects.select_related("character"), pk=post_id, ship=ship)
    if not can_change_crew(membership, post.character):
        raise Http404("No such page.")
    post.delete()
    messages.success(request, f"{post.character} left the {post.get_station_display()} station.")
    return redirect(ship)


@login_required
@require_POST
def ship_recover(request, campaign_id, ship_id):
    """The GM lets time pass for a stable ship at 0 hull points: the server rolls 1d4 hours and it regains 1 hull
    point (ships/recovery.py)."""
    membership = membership_or_404(request.user, campaign_id)
    if not can_manage_ship(membership):
        raise Http404("No such page.")
    ship = _ship_or_404(membership, ship_id)
    try:
        with transaction.atomic():
            hours = recover(Ship.objects.select_for_update().get(pk=ship.pk), Dice())
    except RuleError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{ship.name} regains 1 hull point after {hours} hour{'s' if hours != 1 else ''}.")
    return redirect(ship)
