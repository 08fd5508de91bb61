"""Who may reach what: every campaign URL for anonymous, non-member, player, other player and GM.

A non-member gets 404 everywhere (the campaign's existence does not leak). A new URL without a row here
fails `test_every_url_is_in_the_matrix`.
"""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from campaigns.models import Campaign, Membership
from ships.models import CrewAssignment, Ship

pytestmark = pytest.mark.django_db

OK = "ok"  # 200, or a 302 back into the app for a valid POST
LOGIN = "login"  # redirected to log in
NOT_FOUND = 404
REFUSED = 400  # a member asking for something not theirs on a form: a sentence, nothing changes

ROLES = ("anonymous", "outsider", "player", "other_player", "gm")

# name: (method, {role: expected}) — the subject character "pc" belongs to "player".
MATRIX = {
    "campaign": ("get", {"player": OK, "other_player": OK, "gm": OK}),
    "campaign_edit": ("get", {"gm": OK}),
    "gm_notes": ("get", {"gm": OK}),
    "invite_regenerate": ("post", {"gm": OK}),
    "invite_revoke": ("post", {"gm": OK}),
    "member_role": ("post", {"gm": OK}),
    "member_remove": ("post", {"gm": OK}),
    "character_create": ("get", {"player": OK, "other_player": OK, "gm": OK}),
    "character": ("get", {"player": OK, "other_player": OK, "gm": OK}),
    "character_edit": ("get", {"player": OK, "gm": OK}),
    "character_delete": ("post", {"player": OK, "gm": OK}),
    "ship_create": ("get", {"gm": OK}),
    "ship": ("get", {"player": OK, "other_player": OK, "gm": OK}),
    "ship_edit": ("get", {"gm": OK}),
    "ship_delete": ("post", {"gm": OK}),
    "crew_add": ("post", {"player": OK, "other_player": REFUSED, "gm": OK}),
    "crew_remove": ("post", {"player": OK, "gm": OK}),
    "encounters": ("get", {"player": OK, "other_player": OK, "gm": OK}),
    "encounter_create": ("get", {"gm": OK}),
    "encounter": ("get", {"player": OK, "other_player": OK, "gm": OK}),
    "encounter_act": ("post", {"player": OK, "other_player": OK, "gm": OK}),
    "encounter_start": ("post", {"gm": OK}),  # the world's encounter runs already: a sentence, nothing changes
    "encounter_delete": ("post", {"gm": OK}),  # refused with a sentence: only a draft can be deleted
    "encounter_end": ("get", {"gm": OK}),  # the confirmation page; its POST ends (tests/combat/test_drafts_and_end.py)
    "encounter_import": ("post", {"gm": OK}),
    "archive": ("get", {"player": OK, "other_player": OK, "gm": OK}),
    "encounter_log": ("get", {"player": OK, "other_player": OK, "gm": OK}),
    "encounter_log_reveal": ("post", {"gm": OK}),
    "export_start": ("post", {"player": OK, "other_player": OK, "gm": OK}),
    "export_status": ("get", {"gm": OK}),  # only who asked for it: the GM here
    "export_download": ("get", {"gm": OK}),
    "export_retry": ("post", {"gm": OK}),  # only who asked for it; a finished export: a sentence, nothing changes
    "sessions": ("get", {"player": OK, "other_player": OK, "gm": OK}),
    "session_create": ("get", {"gm": OK}),
    "session": ("get", {"player": OK, "other_player": OK, "gm": OK}),
    "session_edit": ("get", {"gm": OK}),
    "session_cancel": ("post", {"gm": OK}),
    "session_done": ("post", {"gm": OK}),
    "session_rsvp": ("post", {"player": OK, "other_player": OK, "gm": OK}),
    "session_ics": ("get", {"player": OK, "other_player": OK, "gm": OK}),
    "reminder_preference": ("post", {"player": OK, "other_player": OK, "gm": OK}),
}
# URLs outside any campaign: anyone logged in may use them, anonymous visitors log in first.
ACCOUNT_URLS = {"profile", "password_change", "password_change_done", "join_code", "campaign_create",
                "notifications", "calendar_rotate"}
# calendar_feed: no login (calendar apps), the secret token is the key; tests/campaigns/test_calendar.py.
# password_reset*: for whoever forgot their password; tests/campaigns/test_password_reset.py.
PUBLIC_URLS = {"home", "signup", "login", "logout", "join_link", "healthz", "calendar_feed",
               "password_reset", "password_reset_done", "password_reset_confirm", "password_reset_complete"}


def _app_url_names():
    names = set()

    def walk(patterns):
        for p in patterns:
            if isinstance(p, URLResolver):
                if p.app_name != "admin":
                    walk(p.url_patterns)
            elif isinstance(p, URLPattern) and p.name:
                names.add(p.name)

    walk(get_resolver().url_patterns)
    return names


def test_every_url_is_in_the_matrix():
    assert _app_url_names() == set(MATRIX) | ACCOUNT_URLS | PUBLIC_URLS


@pytest.fixture
def world(campaign, pc, npc, gm, player):
    ship = Ship.objects.create(campaign=campaign, name="Lantern")
    post = CrewAssignment.objects.create(ship=ship, character=pc, station="gunner")
    member = Membership.objects.get(campaign=campaign, user=player)
    from combat import services as combat_services

    encounter = combat_services.create_encounter(campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc],
                                                 enemies=[(npc, 2)])
    combat_services.start_encounter(encounter, gm)
    from datetime import timedelta

    from django.utils import timezone

    from campaigns import sessions

    game = sessions.create_session(campaign, gm, title="Relay", starts_at=timezone.now() + timedelta(days=2),
                                   duration_minutes=180)
    from combat.models import ExportJob
    from combat.tasks import run_export

    export = ExportJob.objects.create(encounter=encounter, requested_by=gm, gm_view=True, format="md")
    run_export(export.pk)
    return {"campaign": campaign, "pc": pc, "ship": ship, "post": post, "member": member, "encounter": encounter,
            "export": export,
            "session": game}


def _url_and_data(name, w):
    c = w["campaign"].pk
    args = {
        "campaign": [c], "campaign_edit": [c], "gm_notes": [c], "invite_regenerate": [c], "invite_revoke": [c],
        "member_role": [c, w["member"].pk], "member_remove": [c, w["member"].pk],
        "character_create": [c], "character": [c, w["pc"].pk], "character_edit": [c, w["pc"].pk],
        "character_delete": [c, w["pc"].pk], "ship_create": [c], "ship": [c, w["ship"].pk],
        "ship_edit": [c, w["ship"].pk], "ship_delete": [c, w["ship"].pk], "crew_add": [c, w["ship"].pk],
        "crew_remove": [c, w["ship"].pk, w["post"].pk],
        "encounters": [c], "encounter_create": [c], "encounter": [c, w["encounter"].pk],
        "encounter_act": [c, w["encounter"].pk], "encounter_start": [c, w["encounter"].pk],
        "encounter_delete": [c, w["encounter"].pk], "encounter_end": [c, w["encounter"].pk],
        "encounter_import": [c], "archive": [c], "encounter_log": [c, w["encounter"].pk], "encounter_log_reveal": [c, w["encounter"].pk],
        "export_start": [c, w["encounter"].pk], "export_status": [c, w["export"].pk],
        "export_download": [c, w["export"].pk], "export_retry": [c, w["export"].pk],
        "sessions": [c], "session_create": [c], "session": [c, w["session"].pk], "session_edit": [c, w["session"].pk],
        "session_cancel": [c, w["session"].pk], "session_done": [c, w["session"].pk],
        "session_rsvp": [c, w["session"].pk], "session_ics": [c, w["session"].pk], "reminder_preference": [c],
    }[name]
    data = {
        "invite_regenerate": {"days": 7}, "member_role": {"role": "gm"},
        "crew_add": {"character": w["pc"].pk, "station": "operator"},
        "encounter_act": {"command": "end_turn", "key": "k", "actor": "pc1"},
        "export_start": {"format": "csv"},
        "session_rsvp": {"answer": "going"}, "reminder_preference": {"reminders": "off"},
        "session_cancel": {"reason": "Ill."},
    }.get(name, {})
    if name == "encounter_import":  # the GM's own export of the encounter: imported (no file is a 400 sentence)
        import io

        from django.core.files.uploadedfile import SimpleUploadedFile

        from combat.exports import write_json
        from combat.models import Encounter

        out = io.StringIO()
        write_json(Encounter.objects.get(pk=w["encounter"].pk), True, out)
        data = {"file": SimpleUploadedFile("export.json", out.getvalue().encode(), content_type="application/json")}
    return reverse(name, args=args), data


def _login(client, role, request):
    if role != "anonymous":
        client.force_login(request.getfixturevalue({"outsider": "outsider"}.get(role, role)))


def _assert_the_gms_alone(response, role):
    """Anonymous is sent to log in, the GM gets through, everyone else gets the 404 of a missing page."""
    if role == "anonymous":
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    elif role == "gm":
        assert response.status_code in (200, 302)
        if response.status_code == 302:
            assert not response["Location"].startswith(reverse("login"))
    else:
        assert response.status_code == 404


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(MATRIX))
def test_matrix(client, world, request, name, role):
    method, allowed = MATRIX[name]
    _login(client, role, request)
    url, data = _url_and_data(name, world)
    if name == "crew_add":
        CrewAssignment.objects.all().delete()  # the PC may take a post only once per ship
    response = getattr(client, method)(url, data)
    if role == "anonymous":
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    elif allowed.get(role) == REFUSED:
        assert response.status_code == 400
        assert "Choose one of the campaign" in response.content.decode()
        assert not CrewAssignment.objects.exists()
    elif role in allowed:
        assert response.status_code in (200, 302), response.status_code
        if response.status_code == 302:
            assert not response["Location"].startswith(reverse("login"))
    else:
        assert response.status_code == 404


NPC_SHIP_URLS = ("ship", "ship_edit", "ship_delete", "crew_add", "crew_remove")


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", NPC_SHIP_URLS)
def test_an_npc_ship_is_the_gms_alone(client, world, request, name, role):
    """The same URLs as a party ship's, but for an NPC ship: players get the 404 of a missing ship."""
    Ship.objects.filter(pk=world["ship"].pk).update(side=Ship.Side.NPC)
    method = MATRIX[name][0]
    _login(client, role, request)
    url, data = _url_and_data(name, world)
    if name == "crew_add":
        CrewAssignment.objects.all().delete()
    before = (list(Ship.objects.values()), list(CrewAssignment.objects.values()))
    response = getattr(client, method)(url, data)
    _assert_the_gms_alone(response, role)
    if role not in ("anonymous", "gm"):
        assert (list(Ship.objects.values()), list(CrewAssignment.objects.values())) == before
    if role != "gm":
        page = client.get(reverse("campaign", args=[world["campaign"].pk])).content.decode()
        assert "Lantern" not in page  # not on their ship list either


ENCOUNTER_URLS = ("encounter", "encounter_act", "encounter_start", "encounter_delete", "encounter_end",
                  "encounter_log", "encounter_log_reveal", "export_start")


def test_every_encounter_url_is_tried_on_a_draft():
    uses_encounter = {name for name in MATRIX if "encounter" in name or name == "export_start"} - {
        "encounters", "encounter_create", "encounter_import"}
    assert uses_encounter == set(ENCOUNTER_URLS)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", ENCOUNTER_URLS)
def test_a_draft_is_the_gms_alone(client, world, request, gm, pc, npc, name, role):
    """The same URLs as a running encounter's, but for a draft: players get the 404 of a missing encounter."""
    from combat import services as combat_services
    from combat.models import Encounter, EncounterEvent

    draft = combat_services.create_encounter(world["campaign"], gm, name="Secret plan", model="burn_bryte",
                                             pcs=[pc], enemies=[(npc, 1)])
    method = MATRIX[name][0]
    _login(client, role, request)
    url, data = _url_and_data(name, {**world, "encounter": draft})
    before = (list(Encounter.objects.values()), list(EncounterEvent.objects.values()))
    response = getattr(client, method)(url, data)
    _assert_the_gms_alone(response, role)
    if role not in ("anonymous", "gm"):
        assert "Secret plan" not in response.content.decode()
    if role != "gm":
        assert (list(Encounter.objects.values()), list(EncounterEvent.objects.values())) == before


@pytest.mark.parametrize("role", ["outsider", "player"])
def test_unknown_ids_are_404_not_500(client, world, request, role):
    _login(client, role, request)
    c = world["campaign"].pk
    for url in (f"/campaigns/{c + 999}/", f"/campaigns/{c}/characters/999999/", f"/campaigns/{c}/ships/999999/",
                f"/campaigns/{c}/ships/{world['ship'].pk}/crew/999999/remove/", "/join/not-a-token/",
                f"/campaigns/{c}/sessions/999999/", f"/campaigns/{c}/sessions/999999/session.ics",
                "/calendar/not-a-token.ics"):
        response = client.post(url) if url.endswith("remove/") else client.get(url)
        assert response.status_code == 404, url


def test_outsider_cannot_tell_existing_from_missing_campaigns(client, world, outsider):
    client.force_login(outsider)
    real = client.get(reverse("campaign", args=[world["campaign"].pk]))
    fake = client.get(reverse("campaign", args=[world["campaign"].pk + 1000]))
    assert real.status_code == fake.status_code == 404
    assert world["campaign"].name not in real.content.decode()


def test_character_of_one_campaign_is_not_reachable_through_another(client, world, player):
    from campaigns import services

    own = services.create_campaign(player, name="Ana's", combat_model="hero")
    client.force_login(player)
    pc = world["pc"]
    assert client.get(reverse("character", args=[own.pk, pc.pk])).status_code == 404
    assert client.get(reverse("ship", args=[own.pk, world["ship"].pk])).status_code == 404
    assert Campaign.objects.count() == 2
