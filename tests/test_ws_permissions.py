"""Who may open which websocket: every route of config/routing.py for anonymous, non-member, player, other player
and GM, against an active, a draft and an ended encounter, through the whole ASGI stack (origin check,
session auth, routing), as tests/combat/test_consumers.py does; then paths no route serves, and origins.

4401: not signed in. 4404: not a member, or nothing this member may see (the same answer for an encounter
that does not exist, or a path that leads nowhere, so nothing leaks). 4403: a page of another origin. The notice
socket (ws/notices/) is every signed-in user's own: it opens for anyone signed in, whatever the encounter, and
carries only what is sent to that user (tests/campaigns/test_notices.py checks what). A watch link's socket
(ws/watch/<token>/) opens for anyone holding the link, signed in or not, while its encounter runs, with the players'
table alone (tests/combat/test_spectators.py checks the rest).
A new route without rows here fails `test_every_route_is_in_the_matrix`.
"""

from __future__ import annotations

import json
import logging
import secrets

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.test import Client
from django.urls import URLPattern

from combat import services
from combat.models import Encounter, ShareLink
from tests.ws_socket import Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("asgi_loaded")]

ORIGIN = (b"origin", b"http://127.0.0.1:8000")
HOST = (b"host", b"127.0.0.1:8000")
WAIT = 3

ACCEPT = "accept"
ROLES = ("anonymous", "outsider", "player", "other_player", "gm")
STATES = ("active", "draft", "ended")

TABLE = "ws/campaigns/<int:campaign_id>/encounters/<int:encounter_id>/"
NOTICES = "ws/notices/"  # every signed-in user's own notices, whatever encounter the page is about
WATCH = "ws/watch/<str:token>/"  # a watch link of the encounter: its holder, whoever they are
EVERYONE_SIGNED_IN = {"anonymous": 4401, "outsider": ACCEPT, "player": ACCEPT, "other_player": ACCEPT, "gm": ACCEPT}

# route: {state: {role: expected}}; "player" has a character in the encounter, "other_player" only watches.
MATRIX = {
    TABLE: {
        "active": {"anonymous": 4401, "outsider": 4404, "player": ACCEPT, "other_player": ACCEPT, "gm": ACCEPT},
        "draft": {"anonymous": 4401, "outsider": 4404, "player": 4404, "other_player": 4404, "gm": ACCEPT},
        "ended": {"anonymous": 4401, "outsider": 4404, "player": ACCEPT, "other_player": ACCEPT, "gm": ACCEPT},
    },
    NOTICES: dict.fromkeys(STATES, EVERYONE_SIGNED_IN),
    WATCH: {
        "active": dict.fromkeys(ROLES, ACCEPT),
        "draft": dict.fromkeys(ROLES, 4404),
        "ended": dict.fromkeys(ROLES, 4404),
    },
}


def path_for(route: str, encounter: Encounter, *, campaign_id: int | None = None) -> str:
    campaign_id = campaign_id or encounter.campaign_id
    return {
        TABLE: f"/ws/campaigns/{campaign_id}/encounters/{encounter.pk}/",
        NOTICES: "/ws/notices/",
        WATCH: f"/ws/watch/watch-{encounter.pk}/",  # made with each encounter (see `encounters`)
    }[route]


def test_every_route_is_in_the_matrix():
    from config.routing import websocket_urlpatterns

    routes = set()
    for pattern in websocket_urlpatterns:
        assert isinstance(pattern, URLPattern), "nested websocket routers need rows of their own"
        routes.add(str(pattern.pattern))
    assert routes == set(MATRIX)
    for route, by_state in MATRIX.items():
        assert set(by_state) == set(STATES), route
        for expected in by_state.values():
            assert set(expected) == set(ROLES), route


@pytest.fixture(autouse=True)
async def _close_worker_connections():
    yield
    await sync_to_async(connections.close_all)()


@pytest.fixture
def encounters(campaign, gm, pc, npc):
    """An active, a draft and an ended encounter of the campaign; the player's PC fights in each."""
    made = {}
    for state in STATES:
        encounter = services.create_encounter(
            campaign, gm, name=f"Fight ({state})", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]
        )
        if state != "draft":
            services.start_encounter(encounter, gm)
        if state == "ended":
            assert services.submit(encounter.pk, gm, "end_encounter", {}, "end").ok
        made[state] = Encounter.objects.get(pk=encounter.pk)
        ShareLink.objects.create(encounter=encounter, token=f"watch-{encounter.pk}", kind="watch", created_by=gm)
        assert made[state].status == state
    return made


def _cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def open_socket(path, user=None, *, origin=ORIGIN, host=HOST, scope=None):
    """`scope`: more of the connection's scope (the server sets `scheme` "wss" for a TLS socket, `root_path`)."""
    from config.asgi import application

    headers = [host] + ([origin] if origin else [])
    if user is not None:
        headers.append((b"cookie", f"sessionid={await sync_to_async(_cookie)(user)}".encode()))
    communicator = Socket(application, path, headers=headers)
    communicator.scope.update(scope or {})
    connected, code = await communicator.connect(timeout=WAIT)
    return communicator, connected, code


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("route", sorted(MATRIX))
async def test_matrix(route, state, role, encounters, gm, player, other_player, outsider):
    encounter = encounters[state]
    user = {"anonymous": None, "outsider": outsider, "player": player, "other_player": other_player, "gm": gm}[role]
    expected = MATRIX[route][state][role]
    communicator, connected, code = await open_socket(path_for(route, encounter), user)
    try:
        if expected == ACCEPT and route == NOTICES:
            assert connected, (role, state, code)
            html = await communicator.receive_from(timeout=WAIT)  # the bell, as it is now; nothing of any encounter
            assert 'id="notif-link"' in html and "enc-" not in html and "SECRET" not in html
        elif expected == ACCEPT and route == WATCH:
            assert connected, (role, state, code)
            html = await communicator.receive_from(timeout=WAIT)  # the players' table, whoever holds the link
            assert f'id="enc-{encounter.pk}-table"' in html and f'id="enc-{encounter.pk}-gm"' not in html
            assert f'id="enc-{encounter.pk}-me"' not in html and "SECRET" not in html
        elif expected == ACCEPT:
            assert connected, (role, state, code)
            html = await communicator.receive_from(timeout=WAIT)  # the table, for this viewer
            assert f'id="enc-{encounter.pk}-table"' in html
            assert (f'id="enc-{encounter.pk}-gm"' in html) == (role == "gm")
            assert (f'id="enc-{encounter.pk}-presence"' in html) == (role == "gm")  # who is connected: GMs only
            assert "SECRET" not in html or role == "gm"
        else:
            assert not connected and code == expected, (role, state, connected, code)
    finally:
        if connected:
            await communicator.disconnect(timeout=WAIT)


async def test_another_campaigns_encounter_and_a_missing_one_are_refused_alike(
    encounters, campaign, player, gm, outsider
):
    route = TABLE
    from campaigns import services as campaign_services
    from campaigns.models import Character

    @sync_to_async
    def foreign_encounter():
        elsewhere = campaign_services.create_campaign(outsider, name="Elsewhere", combat_model="burn_bryte")
        theirs = Character.objects.create(campaign=elsewhere, name="Ixa", owner=outsider, system="burn_bryte")
        enemy = Character.objects.create(campaign=elsewhere, name="Warden", kind="npc", system="burn_bryte")
        encounter = services.create_encounter(
            elsewhere, outsider, name="Theirs", model="burn_bryte", pcs=[theirs], enemies=[(enemy, 1)]
        )
        services.start_encounter(encounter, outsider)
        return encounter

    theirs = await foreign_encounter()
    missing = Encounter(pk=theirs.pk + 1000, campaign_id=campaign.pk)
    huge = Encounter(pk=2**70, campaign_id=campaign.pk)  # too large for the id column
    for user in (player, gm):
        for path in (
            path_for(route, theirs, campaign_id=campaign.pk),  # through their own campaign's URL
            path_for(route, theirs),  # through the other campaign's, where they are not members
            path_for(route, missing),
            path_for(route, huge),
            path_for(route, huge, campaign_id=2**70),
        ):
            _, connected, code = await open_socket(path, user)
            assert not connected and code == 4404, (user, path, code)


@pytest.mark.parametrize("route", sorted(MATRIX))
@pytest.mark.parametrize("origin", [(b"origin", b"http://evil.example.com"), None])
async def test_a_foreign_or_missing_origin_is_refused_on_every_route(route, origin, encounters, gm):
    _, connected, _ = await open_socket(path_for(route, encounters["active"]), gm, origin=origin)
    assert not connected


# --- paths no route serves --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/ws/nowhere/", "/", "/ws/campaigns/1/encounters/x/", "/ws/campaigns/1/encounters/1/more/", "/ws/campaigns/1/"],
)
async def test_a_path_no_route_serves_is_closed_cleanly_and_logs_no_error(path, gm, caplog):
    with caplog.at_level(logging.DEBUG):
        communicator, connected, code = await open_socket(path, gm)
        assert not connected and code == 4404
        await communicator.wait(timeout=WAIT)  # the application ends on its own, without an exception
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_a_path_outside_the_root_path_a_client_claims_is_closed_cleanly(encounters, gm):
    """daphne takes root_path from a Daphne-Root-Path header, which any client may send."""
    path = path_for(TABLE, encounters["active"])
    communicator, connected, code = await open_socket(path, gm, scope={"root_path": "/elsewhere"})
    assert not connected and code == 4404
    await communicator.wait(timeout=WAIT)


# --- origins: scheme, host and port ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "scope", "expected"),
    [
        (b"http://127.0.0.1:8000", {}, ACCEPT),  # the page's own origin
        (b"http://127.0.0.1:8001", {}, 4403),  # the same host, another port
        (b"http://127.0.0.1", {}, 4403),
        (b"https://127.0.0.1:8000", {}, 4403),  # a plain ws:// socket comes from an http:// page
        (b"https://127.0.0.1:8000", {"scheme": "wss"}, ACCEPT),
        (b"http://127.0.0.1:8000", {"scheme": "wss"}, 4403),
        (b"http://localhost:8000", {}, 4403),  # another host name of the same machine
        (b"null", {}, 4403),
    ],
)
async def test_only_the_pages_own_origin_may_open_the_table(origin, scope, expected, encounters, gm):
    communicator, connected, code = await open_socket(
        path_for(TABLE, encounters["active"]), gm, origin=(b"origin", origin), scope=scope
    )
    try:
        assert (ACCEPT if connected else code) == expected, (origin, scope, code)
    finally:
        if connected:
            await communicator.disconnect(timeout=WAIT)


async def test_a_host_outside_allowed_hosts_is_refused_even_from_its_own_origin(encounters, gm):
    _, connected, code = await open_socket(
        path_for(TABLE, encounters["active"]),
        gm,
        origin=(b"origin", b"http://evil.example.com:8000"),
        host=(b"host", b"evil.example.com:8000"),
    )
    assert not connected and code == 4403


@pytest.mark.parametrize(
    ("origin", "expected"),
    [
        (b"https://play.example.com", ACCEPT),  # listed
        (b"https://table.fray.example.org", ACCEPT),  # a subdomain of a listed *. entry
        (b"http://play.example.com", 4403),  # another scheme
        (b"https://play.example.com:8443", 4403),  # another port
    ],
)
async def test_an_origin_in_csrf_trusted_origins_may_open_the_table(origin, expected, encounters, gm, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example.com", "https://*.fray.example.org"]
    communicator, connected, code = await open_socket(
        path_for(TABLE, encounters["active"]), gm, origin=(b"origin", origin)
    )
    try:
        assert (ACCEPT if connected else code) == expected, (origin, code)
    finally:
        if connected:
            await communicator.disconnect(timeout=WAIT)


# The production settings in a process of their own (as tests/test_deploy.py runs them): a TLS proxy in front
# (X-Forwarded-Proto), one public host and one trusted origin. Without a session a socket the origin check lets
# through is refused by the table with 4401; one it stops gets 4403.
PRODUCTION_SOCKETS = """
import asyncio, json
from tests.ws_socket import Socket
from config.asgi import application

async def code(headers):
    communicator = Socket(application, "/ws/campaigns/1/encounters/1/", headers=headers)
    connected, code = await communicator.connect(timeout=10)
    return code

async def main():
    cases = json.loads(CASES)
    return [await code([(k.encode(), v.encode()) for k, v in headers]) for headers in cases]

print("CODES", json.dumps(asyncio.run(main())))
"""
PRODUCTION_CASES = [  # (headers, expected close code)
    ([("host", "fray.example.com"), ("x-forwarded-proto", "https"), ("origin", "https://fray.example.com")], 4401),
    ([("host", "fray.example.com"), ("x-forwarded-proto", "https"), ("origin", "https://fray.example.com:8443")], 4403),
    ([("host", "fray.example.com"), ("x-forwarded-proto", "https"), ("origin", "http://fray.example.com")], 4403),
    ([("host", "fray.example.com"), ("origin", "https://fray.example.com")], 4403),  # not through the TLS proxy
    ([("host", "fray.example.com"), ("x-forwarded-proto", "https")], 4403),  # no Origin at all
    ([("host", "fray.example.com"), ("x-forwarded-proto", "https"), ("origin", "https://play.example.com")], 4401),
    (
        [("host", "evil.example.com"), ("x-forwarded-proto", "https"), ("origin", "https://evil.example.com")],
        4403,
    ),  # a host not in ALLOWED_HOSTS
]


def test_production_settings_check_the_whole_origin(tmp_path):
    from tests.test_deploy import run_manage

    script = f"CASES = {json.dumps(json.dumps([headers for headers, _ in PRODUCTION_CASES]))}\n{PRODUCTION_SOCKETS}"
    result = run_manage(
        "shell",
        "-c",
        script,
        tmp_path=tmp_path,
        env_overrides={
            "SECRET_KEY": secrets.token_hex(32),
            "ALLOWED_HOSTS": "fray.example.com",
            "CSRF_TRUSTED_ORIGINS": "https://play.example.com",
            "DATABASE_URL": None,
            "REDIS_URL": None,
        },
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    codes = json.loads(next(line for line in result.stdout.splitlines() if line.startswith("CODES "))[6:])
    assert codes == [expected for _, expected in PRODUCTION_CASES], output
