"""Who may reach what: every campaign URL, by GET and by POST, for anonymous, non-member, removed member, player,
other player, demoted GM and GM.

A non-member (and a removed member) gets 404 everywhere (the campaign's existence does not leak). A refusal is
never counted as success: a service's refusal sentence is its own outcome, and nothing refused changes the
database. A new URL without a row here fails `test_every_url_is_in_the_matrix`.
"""

import pytest
from django.contrib.messages import constants, get_messages
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from campaigns.models import Campaign, Character, Membership
from ships.models import CrewAssignment, Ship
from tests.test_fuzz import snapshot

pytestmark = pytest.mark.django_db

OK = "ok"  # 200, or a 302 back into the app, with no error sentence: it was done (or shown)
LOGIN = "login"  # redirected to log in
NOT_FOUND = 404
FORM_ERROR = 400  # a form's answer to what it cannot take: the form again with a sentence
NOT_ALLOWED = 405  # a method the URL does not take
SENTENCE = "sentence"  # answered (200 or a redirect) with an error sentence: the service refused, nothing changed

# "removed" played in the campaign until the GM removed them; "demoted" was a second GM, made a player again.
ROLES = ("anonymous", "outsider", "removed", "player", "other_player", "demoted", "gm")


def gm_only(gm=OK) -> dict:
    """Only a GM of the campaign: every other member, present or past, gets the 404 of a missing page."""
    return {
        "anonymous": LOGIN,
        "outsider": NOT_FOUND,
        "removed": NOT_FOUND,
        "player": NOT_FOUND,
        "other_player": NOT_FOUND,
        "demoted": NOT_FOUND,
        "gm": gm,
    }


def members(*, player=OK, others=OK, gm=OK) -> dict:
    """Every member; `others` is what a player who does not own the subject character gets (the demoted GM is
    such a player now). A removed member is an outsider again."""
    return {
        "anonymous": LOGIN,
        "outsider": NOT_FOUND,
        "removed": NOT_FOUND,
        "player": player,
        "other_player": others,
        "demoted": others,
        "gm": gm,
    }


def logged_in(outcome) -> dict:
    """The same for everyone logged in, member or not (a method the URL never takes: 405 says nothing about the
    campaign)."""
    return {"anonymous": LOGIN, **dict.fromkeys(ROLES[1:], outcome)}


POST_ONLY = logged_in(NOT_ALLOWED)  # a GET of a button's URL
GET_ONLY = logged_in(NOT_ALLOWED)

# name: (the method its links and forms use, {method: {role: expected}}). The subject character "pc" belongs to
# "player"; every URL is tried with GET and POST (no view here takes anything else).
MATRIX = {
    "campaign": ("get", {"get": members(), "post": members()}),
    "campaign_edit": ("get", {"get": gm_only(), "post": gm_only(FORM_ERROR)}),
    "gm_notes": ("get", {"get": gm_only(), "post": gm_only(FORM_ERROR)}),  # a post without the box: refused
    "invite_regenerate": ("post", {"get": POST_ONLY, "post": gm_only()}),
    "invite_revoke": ("post", {"get": POST_ONLY, "post": gm_only()}),
    "member_role": ("post", {"get": POST_ONLY, "post": gm_only()}),
    "member_remove": ("post", {"get": POST_ONLY, "post": gm_only()}),
    "character_create": (
        "get",
        {"get": members(), "post": members(player=FORM_ERROR, others=FORM_ERROR, gm=FORM_ERROR)},
    ),
    "character": ("get", {"get": members(), "post": members()}),
    "character_edit": (
        "get",
        {"get": members(others=NOT_FOUND), "post": members(player=FORM_ERROR, others=NOT_FOUND, gm=FORM_ERROR)},
    ),
    "character_delete": ("post", {"get": POST_ONLY, "post": members(others=NOT_FOUND)}),
    "ship_create": ("get", {"get": gm_only(), "post": gm_only(FORM_ERROR)}),
    "ship": ("get", {"get": members(), "post": members()}),
    "ship_edit": ("get", {"get": gm_only(), "post": gm_only(FORM_ERROR)}),
    "ship_delete": ("post", {"get": POST_ONLY, "post": gm_only()}),
    "ship_recover": ("post", {"get": POST_ONLY, "post": gm_only(SENTENCE)}),  # the Lantern is not stable at 0 hull
    "crew_add": ("post", {"get": POST_ONLY, "post": members(others=FORM_ERROR)}),
    "crew_remove": ("post", {"get": POST_ONLY, "post": members(others=NOT_FOUND)}),
    "encounters": ("get", {"get": members(), "post": members()}),
    "encounter_create": ("get", {"get": gm_only(), "post": gm_only(FORM_ERROR)}),
    "encounter": ("get", {"get": members(), "post": members()}),
    # The player claims their PC's turn; another player may not act for it ("You can act only for your own
    # character."), and the GM may.
    "encounter_act": ("post", {"get": POST_ONLY, "post": members(others=SENTENCE)}),
    "encounter_start": ("post", {"get": POST_ONLY, "post": gm_only(SENTENCE)}),  # it runs already
    "encounter_delete": ("post", {"get": POST_ONLY, "post": gm_only(SENTENCE)}),  # only a draft can be deleted
    "encounter_end": ("get", {"get": gm_only(), "post": gm_only()}),  # the confirmation page, then the end
    "encounter_import": ("post", {"get": POST_ONLY, "post": gm_only()}),
    "archive": ("get", {"get": members(), "post": members()}),
    "session_recap_download": ("get", {"get": members(), "post": GET_ONLY}),  # the recap as players or GM see it
    "encounter_log": ("get", {"get": members(), "post": members()}),
    "encounter_log_reveal": ("post", {"get": POST_ONLY, "post": gm_only(SENTENCE)}),  # the fight runs still
    "export_start": ("post", {"get": POST_ONLY, "post": members()}),
    # The fight runs still ("Only a finished encounter's review can be shared"); the GM revokes a link.
    "share_create": ("post", {"get": POST_ONLY, "post": gm_only(SENTENCE)}),
    "share_revoke": ("post", {"get": POST_ONLY, "post": gm_only()}),
    "watch_create": ("post", {"get": POST_ONLY, "post": gm_only()}),  # the fight runs: a watch link is made
    "watch_revoke": ("post", {"get": POST_ONLY, "post": gm_only()}),
    # Only who asked for the export (the GM here) sees it; a finished export is not retried (a sentence).
    "export_status": ("get", {"get": gm_only(), "post": gm_only()}),
    "export_download": ("get", {"get": gm_only(), "post": gm_only()}),
    "export_retry": ("post", {"get": POST_ONLY, "post": gm_only(SENTENCE)}),
    "sessions": ("get", {"get": members(), "post": members()}),
    "session_create": ("get", {"get": gm_only(), "post": gm_only(FORM_ERROR)}),
    "session": ("get", {"get": members(), "post": members()}),
    "session_edit": ("get", {"get": gm_only(), "post": gm_only(FORM_ERROR)}),
    "session_cancel": ("post", {"get": gm_only(), "post": gm_only()}),  # GET: the page asking for a reason
    "session_done": ("post", {"get": POST_ONLY, "post": gm_only(SENTENCE)}),  # it has not begun yet
    "session_recap": ("post", {"get": POST_ONLY, "post": gm_only()}),  # a post without the box: empty notes
    "session_rsvp": ("post", {"get": POST_ONLY, "post": members()}),
    "session_ics": ("get", {"get": members(), "post": GET_ONLY}),
    "reminder_preference": ("post", {"get": POST_ONLY, "post": members()}),
}
# URLs outside any campaign: anyone logged in may use them, anonymous visitors log in first.
ACCOUNT_URLS = {
    "profile",
    "password_change",
    "password_change_done",
    "join_code",
    "campaign_create",
    "notifications",
    "calendar_rotate",
}
# calendar_feed: no login (calendar apps), the secret token is the key; tests/campaigns/test_calendar.py.
# password_reset*: for whoever forgot their password; tests/campaigns/test_password_reset.py.
# shared_review: no login (a friend without an account), the token is the key; tests/combat/test_share_links.py.
# watch, watch_overlay: the same for a running encounter's live table and its stream overlay;
# tests/combat/test_watch_links.py.
# service_worker: the browser fetches it again on its own, and it is only code; tests/test_admin_and_config.py.
PUBLIC_URLS = {
    "shared_review",
    "watch",
    "watch_overlay",
    "home",
    "signup",
    "login",
    "logout",
    "join_link",
    "healthz",
    "service_worker",
    "calendar_feed",
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
}


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
def world(campaign, pc, npc, gm, player, other_player, outsider):
    from datetime import timedelta

    from django.utils import timezone

    from campaigns import services as campaign_services
    from campaigns import sessions
    from combat import services as combat_services
    from combat.models import ExportJob, ShareLink
    from combat.tasks import run_export
    from tests.conftest import make_user

    ship = Ship.objects.create(campaign=campaign, name="Lantern")
    post = CrewAssignment.objects.create(ship=ship, character=pc, station="gunner")
    member = Membership.objects.get(campaign=campaign, user=player)
    # A player with a character of their own, removed by the GM; a second GM, made a player again.
    removed, demoted = make_user("rhea"), make_user("dora")
    Character.objects.create(campaign=campaign, name="Ori", owner=removed, system="burn_bryte")
    campaign_services.remove_member(campaign, Membership.objects.create(campaign=campaign, user=removed))
    campaign_services.set_role(
        campaign,
        Membership.objects.create(campaign=campaign, user=demoted, role=Membership.Role.GM),
        Membership.Role.PLAYER,
    )

    encounter = combat_services.create_encounter(
        campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc], enemies=[(npc, 2)]
    )
    combat_services.start_encounter(encounter, gm)
    # Phase 2, where the player may claim their PC's turn (encounter_act's POST).
    for n in (1, 2):
        assert combat_services.submit(
            encounter.pk, gm, "declare", {"enemy": f"npc{npc.pk}-{n}", "target": f"pc{pc.pk}"}, f"declare-{n}"
        ).ok
    assert combat_services.submit(encounter.pk, gm, "start_players", {}, "start").ok

    game = sessions.create_session(
        campaign, gm, title="Relay", starts_at=timezone.now() + timedelta(days=2), duration_minutes=180
    )
    export = ExportJob.objects.create(encounter=encounter, requested_by=gm, gm_view=True, format="md")
    share = ShareLink.objects.create(encounter=encounter, token="matrix-share", created_by=gm)
    watch = ShareLink.objects.create(encounter=encounter, token="matrix-watch", kind="watch", created_by=gm)
    run_export(export.pk)
    users = {
        "anonymous": None,
        "outsider": outsider,
        "removed": removed,
        "player": player,
        "other_player": other_player,
        "demoted": demoted,
        "gm": gm,
    }
    return {
        "campaign": campaign,
        "pc": pc,
        "ship": ship,
        "post": post,
        "member": member,
        "encounter": encounter,
        "export": export,
        "share": share,
        "watch": watch,
        "session": game,
        "users": users,
    }


def _url_and_data(name, w):
    c = w["campaign"].pk
    args = {
        "campaign": [c],
        "campaign_edit": [c],
        "gm_notes": [c],
        "invite_regenerate": [c],
        "invite_revoke": [c],
        "member_role": [c, w["member"].pk],
        "member_remove": [c, w["member"].pk],
        "character_create": [c],
        "character": [c, w["pc"].pk],
        "character_edit": [c, w["pc"].pk],
        "character_delete": [c, w["pc"].pk],
        "ship_create": [c],
        "ship": [c, w["ship"].pk],
        "ship_edit": [c, w["ship"].pk],
        "ship_delete": [c, w["ship"].pk],
        "ship_recover": [c, w["ship"].pk],
        "crew_add": [c, w["ship"].pk],
        "crew_remove": [c, w["ship"].pk, w["post"].pk],
        "encounters": [c],
        "encounter_create": [c],
        "encounter": [c, w["encounter"].pk],
        "encounter_act": [c, w["encounter"].pk],
        "encounter_start": [c, w["encounter"].pk],
        "encounter_delete": [c, w["encounter"].pk],
        "encounter_end": [c, w["encounter"].pk],
        "encounter_import": [c],
        "archive": [c],
        "session_recap_download": [c, w["session"].pk],
        "encounter_log": [c, w["encounter"].pk],
        "encounter_log_reveal": [c, w["encounter"].pk],
        "export_start": [c, w["encounter"].pk],
        "share_create": [c, w["encounter"].pk],
        "share_revoke": [c, w["encounter"].pk, w["share"].pk],
        "watch_create": [c, w["encounter"].pk],
        "watch_revoke": [c, w["encounter"].pk, w["watch"].pk],
        "export_status": [c, w["export"].pk],
        "export_download": [c, w["export"].pk],
        "export_retry": [c, w["export"].pk],
        "sessions": [c],
        "session_create": [c],
        "session": [c, w["session"].pk],
        "session_edit": [c, w["session"].pk],
        "session_cancel": [c, w["session"].pk],
        "session_done": [c, w["session"].pk],
        "session_recap": [c, w["session"].pk],
        "session_rsvp": [c, w["session"].pk],
        "session_ics": [c, w["session"].pk],
        "reminder_preference": [c],
    }[name]
    data = {
        "invite_regenerate": {"days": 7},
        "member_role": {"role": "gm"},
        "crew_add": {"character": w["pc"].pk, "station": "operator"},
        "encounter_act": {"command": "claim_turn", "key": "claim", "actor": f"pc{w['pc'].pk}"},
        "export_start": {"format": "csv"},
        "session_rsvp": {"answer": "going"},
        "reminder_preference": {"reminders": "off"},
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


def _login(client, role, world):
    if role != "anonymous":
        client.force_login(world["users"][role])


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


def outcome(response) -> str | int:
    """What the person saw, in the matrix's words."""
    status = response.status_code
    if status == 302 and response["Location"].startswith(reverse("login")):
        return LOGIN
    if status >= 400:
        return status
    assert status in (200, 302), status
    refused = (not response.streaming and b'class="notice error-box"' in response.content) or any(
        m.level >= constants.ERROR for m in get_messages(response.wsgi_request)
    )
    return SENTENCE if refused else OK


def test_every_url_has_an_outcome_for_every_role_and_method():
    for name, (usual, expected) in MATRIX.items():
        assert set(expected) == {"get", "post"} and usual in expected, name
        for method, by_role in expected.items():
            assert tuple(by_role) == ROLES, (name, method)


def _try(client, world, name, role) -> list[str]:
    """One role's GET and POST of one URL: what differs from the matrix, or changed the database although it was
    refused or only read."""
    usual, expected = MATRIX[name]
    url, data = _url_and_data(name, world)
    client.logout()
    _login(client, role, world)
    wrong = []
    for method in ("get", "post"):
        before = snapshot()
        # The POST of a page's URL sends a field its form does not know: a bound form, not an empty one.
        response = getattr(client, method)(
            url, data if method == usual else ({"unknown": "x"} if method == "post" else {})
        )
        got = outcome(response)
        if got != expected[method][role]:
            wrong.append(f"{method.upper()} as {role}: {got}, expected {expected[method][role]}")
        elif (got != OK or method == "get") and snapshot() != before:
            wrong.append(f"{method.upper()} as {role}: {got}, yet the database changed")
        elif got == FORM_ERROR and name == "crew_add":
            assert "Choose one of the campaign" in response.content.decode()
        elif got == SENTENCE and name == "encounter_act":
            assert [str(m) for m in get_messages(response.wsgi_request)] == ["You can act only for your own character."]
    return wrong


@pytest.mark.parametrize("name", sorted(MATRIX))
def test_matrix(client, world, name):
    """Every URL, by GET and by POST, for every role: the expected outcome, and whatever is not done (refused,
    not found, not allowed, a login first) or only read (a GET) leaves every row of the app's tables as it was.
    Each role starts from the same data: its requests are rolled back before the next role's."""
    from django.db import transaction

    if name == "crew_add":
        CrewAssignment.objects.all().delete()  # the PC may take a post only once per ship
    wrong = []
    for role in ROLES:
        with transaction.atomic():
            wrong += _try(client, world, name, role)
            transaction.set_rollback(True)
    assert not wrong, f"{name}:\n" + "\n".join(wrong)


NPC_SHIP_URLS = ("ship", "ship_edit", "ship_delete", "ship_recover", "crew_add", "crew_remove")


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", NPC_SHIP_URLS)
def test_an_npc_ship_is_the_gms_alone(client, world, request, name, role):
    """The same URLs as a party ship's, but for an NPC ship: players get the 404 of a missing ship."""
    Ship.objects.filter(pk=world["ship"].pk).update(side=Ship.Side.NPC)
    method = MATRIX[name][0]
    _login(client, role, world)
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


ENCOUNTER_URLS = (
    "encounter",
    "encounter_act",
    "encounter_start",
    "encounter_delete",
    "encounter_end",
    "encounter_log",
    "encounter_log_reveal",
    "export_start",
)


def test_every_encounter_url_is_tried_on_a_draft():
    uses_encounter = {name for name in MATRIX if "encounter" in name or name == "export_start"} - {
        "encounters",
        "encounter_create",
        "encounter_import",
    }
    assert uses_encounter == set(ENCOUNTER_URLS)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", ENCOUNTER_URLS)
def test_a_draft_is_the_gms_alone(client, world, request, gm, pc, npc, name, role):
    """The same URLs as a running encounter's, but for a draft: players get the 404 of a missing encounter."""
    from combat import services as combat_services
    from combat.models import Encounter, EncounterEvent

    draft = combat_services.create_encounter(
        world["campaign"], gm, name="Secret plan", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]
    )
    method = MATRIX[name][0]
    _login(client, role, world)
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
    _login(client, role, world)
    c = world["campaign"].pk
    for url in (
        f"/campaigns/{c + 999}/",
        f"/campaigns/{c}/characters/999999/",
        f"/campaigns/{c}/ships/999999/",
        f"/campaigns/{c}/ships/{world['ship'].pk}/crew/999999/remove/",
        "/join/not-a-token/",
        f"/campaigns/{c}/sessions/999999/",
        f"/campaigns/{c}/sessions/999999/session.ics",
        "/calendar/not-a-token.ics",
        "/shared/not-a-token/",
        "/watch/not-a-token/",
        "/watch/not-a-token/overlay/",
    ):
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


REVEAL = members(player=SENTENCE, others=SENTENCE)  # only a GM reveals; every other member is told so


@pytest.mark.parametrize("role", ROLES)
def test_only_a_gm_reveals_an_unseen_enemy_and_a_refusal_never_names_it(client, world, gm, role):
    """The reveal command through encounter_act, for every role: a GM reveals the unseen enemy; anyone else is
    refused (a sentence, a 404 or a login) without a change and without reading the enemy's name."""
    from combat import services as combat_services
    from combat.models import Encounter

    campaign = world["campaign"]
    lurker = Character.objects.create(campaign=campaign, name="SECRET Skulk", kind="npc", system="burn_bryte")
    encounter = combat_services.create_encounter(
        campaign,
        gm,
        name="Dark relay",
        model="burn_bryte",
        pcs=[world["pc"]],
        enemies=[(lurker, 1)],
        hidden={lurker.pk},
    )
    combat_services.start_encounter(encounter, gm)
    _login(client, role, world)
    before = snapshot()
    response = client.post(
        reverse("encounter_act", args=[campaign.pk, encounter.pk]),
        {"command": "reveal", "key": "reveal", "fighter": f"npc{lurker.pk}-1"},
    )
    got = outcome(response)
    assert got == REVEAL[role]
    if got == OK:
        state = Encounter.objects.get(pk=encounter.pk).state
        assert all(f"npc{lurker.pk}-1" in f["aware_of"] for f in state["fighters"] if f["side"] == "pc")
        return
    assert snapshot() == before
    told = " ".join(str(m) for m in get_messages(response.wsgi_request)) + response.content.decode()
    assert "Skulk" not in told


ROLL_AS_LUWE = members(others=SENTENCE)  # the dice roller: a player rolls only for their own PC (and the GM for any)


@pytest.mark.parametrize("role", ROLES)
def test_a_free_roll_for_a_pc_is_its_players_or_the_gms(client, world, gm, npc, role):
    """The dice roller through encounter_act, for every role: Luwe's player and the GM may roll in Luwe's name
    (issue 19: "Players act only for their own characters"); another player is refused with a sentence and
    nothing is logged; anyone outside the campaign gets a 404 or a login."""
    from combat import services as combat_services
    from combat.models import EncounterEvent

    campaign = world["campaign"]
    encounter = combat_services.create_encounter(
        campaign, gm, name="Dice", model="burn_bryte", pcs=[world["pc"]], enemies=[(npc, 1)]
    )
    combat_services.start_encounter(encounter, gm)
    _login(client, role, world)
    before = snapshot()
    response = client.post(
        reverse("encounter_act", args=[campaign.pk, encounter.pk]),
        {"command": "roll", "key": "roll", "actor": f"pc{world['pc'].pk}", "notation": "2d6", "show": "self"},
    )
    got = outcome(response)
    assert got == ROLL_AS_LUWE[role]
    if got == OK:
        assert EncounterEvent.objects.filter(encounter=encounter, kind="dice_rolled").count() == 1
    else:
        assert snapshot() == before


# The notices of campaigns.notices, as each role's notification list shows them ("notifications" reads only the
# viewer's own rows; the live frames carry the same rows, tests/campaigns/test_notices.py): a member other than the
# GM who did it is told of a started fight and a planned session; nobody of a draft or of an unseen enemy; someone
# who is not (or no longer) a member, of nothing.
TOLD = {
    "anonymous": LOGIN,
    "outsider": False,
    "removed": False,
    "player": True,
    "other_player": True,
    "demoted": True,
    "gm": False,
}


@pytest.mark.parametrize("role", ROLES)
def test_notices_reach_the_other_members_only_and_never_name_a_draft_or_an_unseen_enemy(client, world, gm, role):
    from combat import services as combat_services

    campaign = world["campaign"]
    lurker = Character.objects.create(campaign=campaign, name="SECRET Skulk", kind="npc", system="burn_bryte")
    combat_services.create_encounter(
        campaign, gm, name="Hidden plan", model="burn_bryte", pcs=[world["pc"]], enemies=[(lurker, 1)]
    )
    fight = combat_services.create_encounter(
        campaign,
        gm,
        name="Dark relay",
        model="burn_bryte",
        pcs=[world["pc"]],
        enemies=[(lurker, 1)],
        hidden={lurker.pk},
    )
    combat_services.start_encounter(fight, gm)
    _login(client, role, world)
    response = client.get(reverse("notifications"))
    if TOLD[role] == LOGIN:
        assert outcome(response) == LOGIN
        return
    page = response.content.decode()
    assert (f"{campaign.name}: Dark relay has started." in page) is TOLD[role]
    assert (f"{campaign.name}: Relay is planned for" in page) is TOLD[role]  # the world's session
    assert "Hidden plan" not in page and "Skulk" not in page and "SECRET" not in page


@pytest.mark.parametrize("role", ROLES)
def test_only_a_gm_s_encounter_page_shows_who_is_connected(client, world, role):
    """The connected-players strip (combat.presence) is on the GM's encounter page and on no other member's, even
    while players have the table open; whoever may not see the page gets no strip either."""
    from combat.models import OpenSocket

    encounter = world["encounter"]
    OpenSocket.objects.create(channel_name="specific.test!ana", encounter=encounter, user=world["users"]["player"])
    _login(client, role, world)
    response = client.get(reverse("encounter", args=[world["campaign"].pk, encounter.pk]))
    html = response.content.decode()
    strip = f'id="enc-{encounter.pk}-presence"'
    if role == "gm":
        assert response.status_code == 200 and strip in html and "Players at the table" in html
        assert "connected" in html
    else:
        assert strip not in html and "Players at the table" not in html and "connected" not in html


QUICK_EDIT = members(player=SENTENCE, others=SENTENCE)  # the GM's quick edits are GM commands: only a GM's count


@pytest.mark.parametrize("role", ROLES)
def test_only_a_gm_makes_a_quick_edit_from_the_table(client, world, gm, npc, role):
    """A quick edit on a GM's table row (a Health Level off a PC) through encounter_act, for every role: a GM's
    changes the combatant; anyone else is refused (a sentence, a 404 or a login) and nothing changes."""
    from combat import services as combat_services
    from combat.models import Encounter

    campaign, luwe = world["campaign"], f"pc{world['pc'].pk}"
    encounter = combat_services.create_encounter(
        campaign, gm, name="Quick relay", model="burn_bryte", pcs=[world["pc"]], enemies=[(npc, 1)]
    )
    combat_services.start_encounter(encounter, gm)
    _login(client, role, world)
    before = snapshot()
    response = client.post(
        reverse("encounter_act", args=[campaign.pk, encounter.pk]),
        {"command": "adjust_health", "key": "quick", "target": luwe, "change": "-1"},
    )
    got = outcome(response)
    assert got == QUICK_EDIT[role]
    if got == OK:
        state = Encounter.objects.get(pk=encounter.pk).state
        assert next(f["health"] for f in state["fighters"] if f["id"] == luwe) == 2
        return
    assert snapshot() == before
