"""Draft encounters (saved from the builder, started or deleted later by the GM) and ending an encounter through
its confirmation page."""

import html
import re

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from campaigns.models import Character
from combat import services, store
from combat.models import Combatant, Encounter, EncounterEvent

pytestmark = pytest.mark.django_db

ALREADY_STARTED = "This encounter has already started."
ONLY_DRAFTS = "Only a draft can be deleted; a played encounter keeps its log."


def url(name, encounter):
    return reverse(name, args=[encounter.campaign_id, encounter.pk])


def logged_in(user, **kwargs) -> Client:
    """A client of its own: several people at once (the `client` fixture is shared by gm_client and
    player_client)."""
    c = Client(**kwargs)
    c.force_login(user)
    return c


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def frozen(encounter) -> tuple:
    """Everything about an encounter a refused request must leave alone."""
    row = Encounter.objects.filter(pk=encounter.pk).values().first()
    return (
        row,
        list(EncounterEvent.objects.filter(encounter_id=encounter.pk).values()),
        list(Combatant.objects.filter(encounter_id=encounter.pk).values()),
        list(Character.objects.order_by("pk").values("pk", "stats")),
    )


@pytest.fixture
def draft(campaign, gm, pc, other_pc, npc):
    return services.create_encounter(
        campaign,
        gm,
        name="Relay ambush",
        model="burn_bryte",
        pcs=[pc, other_pc],
        enemies=[(npc, 2)],
        hidden={npc.pk},
        settings={"surprise": "pcs", "entered_dice": True, "change_cost": 2},
    )


@pytest.fixture
def running(campaign, gm, pc, npc):
    encounter = services.create_encounter(campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)])
    return services.start_encounter(encounter, gm)


# --- saving a draft --------------------------------------------------------------------------------------------


def test_the_builder_offers_save_as_draft_beside_start(gm_client, campaign, pc, npc):
    page = gm_client.get(reverse("encounter_create", args=[campaign.pk])).content.decode()
    form = re.search(r'<form method="post" class="card".*?</form>', page, re.S).group(0)
    assert re.search(r'<button type="submit"[^>]*class="primary"[^>]*>Start the encounter</button>', form)
    assert re.search(r'<button type="submit" name="draft"[^>]*>Save as draft</button>', form)


def test_gm_saves_a_draft_and_sees_it_with_its_combatants_and_settings(gm_client, campaign, pc, other_pc, npc):
    response = gm_client.post(
        reverse("encounter_create", args=[campaign.pk]),
        {
            "name": "Relay ambush",
            "model": "burn_bryte",
            "pcs": [pc.pk, other_pc.pk],
            f"npc_{npc.pk}": 2,
            "hidden": [npc.pk],
            "setting_change_cost": "2",
            "setting_failure_default": "consequence",
            "setting_surprise": "pcs",
            "setting_nova_at_cap": "hold",
            "setting_range_check": "refuse",
            "setting_grid_distance": "chebyshev",
            "setting_extra_move": "speed",
            "setting_entered_dice": "on",
            "draft": "1",
        },
    )
    encounter = Encounter.objects.get()
    assert response.status_code == 302 and response["Location"] == encounter.get_absolute_url()
    assert encounter.status == Encounter.Status.DRAFT
    assert encounter.started_at is None and encounter.state == {} and encounter.version == 0
    assert not EncounterEvent.objects.exists()
    assert encounter.combatants.count() == 4

    page = gm_client.get(encounter.get_absolute_url()).content.decode()
    assert "<h1>Relay ambush</h1>" in page and "Burn Bryte" in page and ">Draft<" in page
    assert "/ws/campaigns/" not in page  # not the live table
    roster = re.search(r'<ul class="roster">.*?</ul>', page, re.S).group(0)
    rows = re.findall(r"<li>(.*?)</li>", roster, re.S)
    assert len(rows) == 4
    by_name = {re.search(r"<strong>(.*?)</strong>", r).group(1): r for r in rows}
    assert set(by_name) == {"Luwe", "Furo", "Nivick 1", "Nivick 2"}
    assert "Player character" in by_name["Luwe"] and "unseen" not in by_name["Luwe"]
    assert "Enemy" in by_name["Nivick 1"] and "unseen" in by_name["Nivick 1"] and "unseen" in by_name["Nivick 2"]
    settings = dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", page))
    assert settings == {
        "Collapse points to change a declared enemy action": "2",
        "Players may enter the faces of physical dice": "yes",
        "One-tap choice after a failed roll": "A failure consequence",
        "Surprise in round 1": "PCs catch all enemies unaware",
        "An unseen combatant is revealed when it attacks": "no",
        "PCs at 0 Health Levels may spend Nova points": "no",
        "All five Nova boxes ticked at the Nova point cap": "The boxes stay ticked; the point comes once there is room",
        "Damage is typed on each attack instead of worked out from the weapon": "no",
        "A Draining attack costs its 1 unblockable damage even when it misses": "no",
        "A dark ship gives no room: no new Advantages or Nova points while it is dark": "no",
        "An attack beyond its reach": "Refused, with the distance",
        "Counting squares on the grid": "A diagonal step counts 1",
        "Squares a successful move roll adds": "Up to speed again",
    }
    assert f'action="{url("encounter_start", encounter)}"' in page and "Start the encounter</button>" in page
    assert f'action="{url("encounter_delete", encounter)}"' in page and "Delete this draft</button>" in page


def test_the_start_button_of_the_builder_still_starts_at_once(gm_client, campaign, pc, npc):
    gm_client.post(
        reverse("encounter_create", args=[campaign.pk]),
        {
            "name": "Now",
            "model": "burn_bryte",
            "pcs": [pc.pk],
            f"npc_{npc.pk}": 1,
            "setting_change_cost": "1",
            "setting_failure_default": "collapse",
            "setting_surprise": "none",
            "setting_nova_at_cap": "hold",
            "setting_range_check": "refuse",
            "setting_grid_distance": "chebyshev",
            "setting_extra_move": "speed",
        },
    )
    assert Encounter.objects.get().status == Encounter.Status.ACTIVE


def test_the_encounter_list_marks_drafts_for_the_gm_only(campaign, gm, player, draft, running):
    listing = reverse("encounters", args=[campaign.pk])
    page = logged_in(gm).get(listing).content.decode()
    cards = {
        re.search(r"<strong>(.*?)</strong>", c).group(1): c
        for c in re.findall(r'<li class="card">.*?</li>', page, re.S)
    }
    assert set(cards) == {"Relay ambush", "Ambush"}
    assert ">Draft<" in cards["Relay ambush"] and "Not started" in cards["Relay ambush"]
    assert ">Draft<" not in cards["Ambush"]
    assert draft.get_absolute_url() in cards["Relay ambush"]
    page = logged_in(player).get(listing).content.decode()
    assert "Relay ambush" not in page and "Ambush" in page and ">Draft<" not in page


# --- who may reach a draft --------------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["player", "other_player", "outsider"])
def test_only_the_gm_reaches_a_draft_and_its_buttons(request, draft, who):
    c = logged_in(request.getfixturevalue(who))
    before = frozen(draft)
    assert c.get(draft.get_absolute_url()).status_code == 404
    for name in ("encounter_start", "encounter_delete", "encounter_end"):
        assert c.post(url(name, draft)).status_code == 404, name
    assert c.get(url("encounter_end", draft)).status_code == 404
    assert frozen(draft) == before


@pytest.mark.parametrize("who", ["player", "outsider"])
def test_only_the_gm_reaches_start_delete_and_end_of_a_running_encounter(request, running, who):
    c = logged_in(request.getfixturevalue(who))
    before = frozen(running)
    for name in ("encounter_start", "encounter_delete", "encounter_end"):
        assert c.post(url(name, running)).status_code == 404, name
    assert c.get(url("encounter_end", running)).status_code == 404
    assert frozen(running) == before


def test_start_and_delete_take_only_a_post(gm, draft):
    c = logged_in(gm)
    before = frozen(draft)
    assert c.get(url("encounter_start", draft)).status_code == 405
    assert c.get(url("encounter_delete", draft)).status_code == 405
    assert frozen(draft) == before


# --- starting a draft -------------------------------------------------------------------------------------------


def test_gm_starts_the_draft_and_the_table_shows(gm, player, draft, pc):
    c = logged_in(gm)
    response = c.post(url("encounter_start", draft), follow=True)
    assert response.redirect_chain == [(draft.get_absolute_url(), 302)]
    page = response.content.decode()
    assert "Round 1" in page and 'hx-ws:connect="/ws/campaigns/' in page and "Delete this draft" not in page
    draft.refresh_from_db()
    assert draft.status == Encounter.Status.ACTIVE and draft.started_at is not None
    # The settings chosen for the draft hold: the PCs surprised the enemies, so round 1 starts with their turns.
    assert store.load_state(draft).phase == 2
    # Now the players see it too.
    assert "Luwe" in logged_in(player).get(draft.get_absolute_url()).content.decode()


def test_starting_twice_says_it_has_already_started(gm, draft):
    c = logged_in(gm)
    c.post(url("encounter_start", draft))
    draft.refresh_from_db()
    before = frozen(draft)
    response = c.post(url("encounter_start", draft), follow=True)
    assert response.status_code == 200
    assert ALREADY_STARTED in response.content.decode()
    assert frozen(draft) == before  # not restarted: same start time, state and log


# --- deleting a draft -------------------------------------------------------------------------------------------


def test_gm_deletes_a_draft(gm, draft, campaign, pc, npc):
    response = logged_in(gm).post(url("encounter_delete", draft), follow=True)
    assert response.redirect_chain == [(reverse("encounters", args=[campaign.pk]), 302)]
    page = response.content.decode()
    assert "The draft “Relay ambush” is deleted." in page
    assert "No encounters yet." in page
    assert not Encounter.objects.filter(pk=draft.pk).exists() and not Combatant.objects.exists()
    assert Character.objects.filter(pk__in=[pc.pk, npc.pk]).count() == 2  # the characters stay


def test_deleting_an_active_encounter_is_refused(gm, running, pc):
    services.submit(running.pk, gm, "adjust_health", {"target": f"pc{pc.pk}", "change": -1}, "hurt")
    before = frozen(running)
    response = logged_in(gm).post(url("encounter_delete", running), follow=True)
    assert response.redirect_chain == [(running.get_absolute_url(), 302)]
    assert ONLY_DRAFTS in response.content.decode()
    assert frozen(running) == before


def test_deleting_an_ended_encounter_is_refused(gm, running):
    services.submit(running.pk, gm, "end_encounter", {}, "end")
    before = frozen(running)
    response = logged_in(gm).post(url("encounter_delete", running))
    assert ONLY_DRAFTS in messages_of(response)
    assert frozen(running) == before


# --- ending through the confirmation page -----------------------------------------------------------------------


def test_the_table_links_to_the_end_page_instead_of_ending(gm, running):
    page = logged_in(gm).get(running.get_absolute_url()).content.decode()
    assert f'href="{url("encounter_end", running)}"' in page
    assert 'value="end_encounter"' not in page  # one tap on the table no longer ends the fight


def test_the_end_page_says_what_persists_and_ends_nothing_yet(gm, running):
    before = frozen(running)
    response = logged_in(gm).get(url("encounter_end", running))
    page = html.unescape(response.content.decode())
    assert response.status_code == 200
    assert "End “Ambush”?" in page
    assert "Health Levels, conditions, Nova points and Nova boxes go back to the characters' sheets" in page
    assert "Advantages and Collapse points end with the fight" in page
    assert re.search(r'<form method="post"[^>]*>.*?End the encounter</button>', page, re.S)
    assert f'href="{running.get_absolute_url()}"' in page  # a way back
    assert frozen(running) == before


def test_confirming_ends_the_encounter_writes_back_and_shows_the_log(gm, running, pc):
    services.submit(running.pk, gm, "adjust_health", {"target": f"pc{pc.pk}", "change": -2}, "hurt")
    c = logged_in(gm)
    response = c.post(url("encounter_end", running), {"key": f"{running.pk}-1-end"}, follow=True)
    assert response.redirect_chain == [(url("encounter_log", running), 302)]
    assert "The GM ended the encounter." in response.content.decode()
    running.refresh_from_db()
    assert running.status == Encounter.Status.ENDED and running.ended_at is not None
    assert list(running.events.values_list("kind", flat=True)) == ["health_adjusted", "encounter_ended"]
    pc.refresh_from_db()
    assert pc.stats["health"] == 1  # 3 − 2, back on the sheet


def test_confirming_without_a_key_still_ends_once(gm, running):
    c = logged_in(gm)
    assert c.post(url("encounter_end", running))["Location"] == url("encounter_log", running)
    running.refresh_from_db()
    assert running.status == Encounter.Status.ENDED
    assert list(running.events.values_list("kind", flat=True)) == ["encounter_ended"]


@pytest.mark.parametrize("method", ["get", "post"])
def test_the_end_url_of_an_ended_encounter_only_redirects(gm, running, pc, method):
    c = logged_in(gm)
    c.post(url("encounter_end", running))
    before = frozen(running)
    response = getattr(c, method)(url("encounter_end", running), {"key": "another"})
    assert response.status_code == 302 and response["Location"] == running.get_absolute_url()
    assert frozen(running) == before  # still one ending in the log, nothing written back twice


def test_the_end_url_of_a_draft_only_redirects(gm, draft):
    c = logged_in(gm)
    before = frozen(draft)
    for method in ("get", "post"):
        response = getattr(c, method)(url("encounter_end", draft))
        assert response.status_code == 302 and response["Location"] == draft.get_absolute_url()
    assert frozen(draft) == before


def test_a_drafts_log_sends_the_gm_to_the_draft_and_exports_nothing(gm, draft):
    from combat.models import ExportJob

    c = logged_in(gm)
    before = frozen(draft)
    response = c.get(url("encounter_log", draft))
    assert response.status_code == 302 and response["Location"] == draft.get_absolute_url()
    assert messages_of(response) == ["This encounter is a draft: it has a log once it starts."]
    response = c.post(url("export_start", draft), {"format": "json"})
    assert response.status_code == 302 and response["Location"] == draft.get_absolute_url()
    assert messages_of(response)[-1] == "A draft has no log to export yet; start the encounter first."
    assert not ExportJob.objects.filter(encounter=draft).exists() and frozen(draft) == before


# --- the forms work with CSRF checks on -------------------------------------------------------------------------


def _token_of_form(page: str, action: str) -> str:
    form = re.search(rf'<form method="post" action="{re.escape(action)}">(.*?)</form>', page, re.S)
    assert form, action
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.group(1)).group(1)


def test_draft_forms_carry_csrf_tokens(gm, draft):
    c = logged_in(gm, enforce_csrf_checks=True)
    page = c.get(draft.get_absolute_url()).content.decode()
    start, delete = url("encounter_start", draft), url("encounter_delete", draft)
    assert c.post(start).status_code == 403  # without the token: refused
    assert _token_of_form(page, delete)
    response = c.post(start, {"csrfmiddlewaretoken": _token_of_form(page, start)})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.status == Encounter.Status.ACTIVE


def test_end_confirmation_carries_a_csrf_token(gm, running):
    c = logged_in(gm, enforce_csrf_checks=True)
    end = url("encounter_end", running)
    page = c.get(end).content.decode()
    assert c.post(end).status_code == 403
    running.refresh_from_db()
    assert running.status == Encounter.Status.ACTIVE
    form = re.search(r'<form method="post" class="row">(.*?)</form>', page, re.S).group(1)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]+)"', form))
    response = c.post(end, fields)
    assert response.status_code == 302 and response["Location"] == url("encounter_log", running)
    running.refresh_from_db()
    assert running.status == Encounter.Status.ENDED
