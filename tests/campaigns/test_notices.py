"""Live notices outside the encounter (campaigns.notices): who is told what, over which socket, and what is kept.

The sockets are opened through the whole ASGI stack (origin check, session auth, routing) with a browser's Origin,
Host and session cookie, as tests/combat/test_consumers.py does; who may open the notice socket at all is in the
matrix of tests/test_ws_permissions.py.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.test import Client
from django.urls import reverse

from campaigns import reminders, sessions
from campaigns.models import Character, Membership, Notification
from combat import services
from combat.models import Encounter
from tests.clock import clock  # noqa: F401  (fixture)
from tests.combat.test_expanse_table import begin, marcus, rosa, thug  # noqa: F401  (fixtures)
from tests.ws_socket import Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("asgi_loaded")]

HOST = (b"host", b"127.0.0.1:8000")
ORIGIN = (b"origin", b"http://127.0.0.1:8000")
WAIT = 3  # seconds for a frame that must come
QUIET = 0.3  # seconds of silence that show nothing more is coming
NOTICES = "/ws/notices/"


def unread_badge(html: str) -> str | None:
    """The bell's unread count in a frame or page, None when it shows none."""
    found = re.search(r'data-testid="unread-count" aria-hidden="true">(\d+)<', html)
    return found.group(1) if found else None


@pytest.fixture(autouse=True)
async def _close_worker_connections():
    yield
    await sync_to_async(connections.close_all)()


@pytest.fixture
async def sockets():
    """Open websockets the way a browser does; every one is disconnected at the end."""
    opened: list[Socket] = []

    async def open_socket(user, path=NOTICES):
        from config.asgi import application

        client = Client()
        await sync_to_async(client.force_login)(user)
        cookie = (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())
        communicator = Socket(application, path, headers=[HOST, ORIGIN, cookie])
        opened.append(communicator)
        connected, code = await communicator.connect(timeout=WAIT)
        assert connected, code
        return communicator

    yield open_socket
    for communicator in opened:
        await communicator.disconnect(timeout=WAIT)


async def bell_on_connect(socket) -> str:
    html = await socket.receive_from(timeout=WAIT)
    assert 'id="notif-link"' in html and 'hx-swap-oob="true"' in html
    return html


def table_path(encounter: Encounter) -> str:
    return f"/ws/campaigns/{encounter.campaign_id}/encounters/{encounter.pk}/"


@sync_to_async
def draft(campaign, gm, pcs, npc, *, hidden=()) -> Encounter:
    return services.create_encounter(
        campaign, gm, name="Ambush at the relay", model="burn_bryte", pcs=pcs, enemies=[(npc, 1)], hidden=hidden
    )


@sync_to_async
def start(encounter, gm) -> Encounter:
    return services.start_encounter(encounter, gm)


async def act(user, encounter, name, data):
    result = await sync_to_async(services.submit)(encounter.pk, user, name, data, name)
    assert result.ok, result.error


# --- the socket -----------------------------------------------------------------------------------------------------


async def test_the_socket_sends_the_bell_as_it_is_on_every_connect(sockets, player, campaign):
    await sync_to_async(Notification.objects.create)(user=player, campaign=campaign, text="Drift: news")
    socket = await sockets(player)
    assert unread_badge(await bell_on_connect(socket)) == "1"
    assert await socket.receive_nothing(timeout=QUIET)


async def test_a_page_never_speaks_on_the_notice_socket(sockets, player):
    socket = await sockets(player)
    await bell_on_connect(socket)
    await socket.send_to(text_data="hello")
    assert (await socket.receive_output(timeout=WAIT)) == {"type": "websocket.close", "code": 4400}


def test_every_page_opens_one_socket_and_the_encounter_page_only_its_table(campaign, gm, player, pc, npc):
    """The notice socket on an ordinary page; the encounter page's table socket carries its notices instead."""
    fight = services.start_encounter(
        services.create_encounter(campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm
    )
    campaign_page = _page_of(player, reverse("campaign", args=[campaign.pk]))
    assert campaign_page.count("hx-ws:connect=") == 1 and 'hx-ws:connect="/ws/notices/"' in campaign_page
    assert 'id="notices"' in campaign_page and campaign_page.count("hx-ws.min") == 1
    table_page = _page_of(player, reverse("encounter", args=[campaign.pk, fight.pk]))
    assert table_page.count("hx-ws:connect=") == 1 and f'hx-ws:connect="{table_path(fight)}"' in table_page
    assert 'id="notices"' in table_page and table_page.count("hx-ws.min") == 1
    login_page = Client().get(reverse("login")).content.decode()
    assert "hx-ws" not in login_page and 'id="notices"' not in login_page


# --- an encounter starts --------------------------------------------------------------------------------------------


async def test_members_learn_live_that_an_encounter_started_and_the_gm_and_outsiders_do_not(
    sockets, campaign, gm, player, other_player, outsider, pc, npc
):
    fight = await draft(campaign, gm, [pc], npc)
    mine, theirs, gms, stranger = [await sockets(user) for user in (player, other_player, gm, outsider)]
    for socket in (mine, theirs, gms, stranger):
        await bell_on_connect(socket)

    await start(fight, gm)

    url = reverse("encounter", args=[campaign.pk, fight.pk])
    for socket in (mine, theirs):  # both players: the one in the fight and the one who only watches
        html = await socket.receive_from(timeout=WAIT)
        assert "Drift: Ambush at the relay has started." in html
        assert f'<a href="{url}">Join</a>' in html
        assert '<div id="notices" hx-swap-oob="beforeend">' in html
        assert unread_badge(html) == "1"  # the bell, counted with the new notification
        assert "data-browser-notify" not in html  # news, not a turn
    for socket in (mine, theirs, gms, stranger):
        assert await socket.receive_nothing(timeout=QUIET)
    rows = await sync_to_async(list)(Notification.objects.values_list("user__username", "text", "url"))
    assert sorted(rows) == [
        ("ana", "Drift: Ambush at the relay has started.", url),
        ("ben", "Drift: Ambush at the relay has started.", url),
    ]


async def test_a_draft_and_an_unseen_enemy_reach_no_player(sockets, campaign, gm, player, pc, npc):
    npc.name = "SECRET sniper"
    await sync_to_async(npc.save)()
    socket = await sockets(player)
    await bell_on_connect(socket)

    fight = await draft(campaign, gm, [pc], npc, hidden=[npc.pk])
    assert await socket.receive_nothing(timeout=QUIET)  # a draft: nothing at all
    assert not await sync_to_async(Notification.objects.exists)()

    await start(fight, gm)
    html = await socket.receive_from(timeout=WAIT)
    assert "has started" in html and "SECRET" not in html and "sniper" not in html
    assert await socket.receive_nothing(timeout=QUIET)


async def test_the_table_socket_of_an_encounter_page_carries_notices_of_another(sockets, campaign, gm, player, pc, npc):
    running = await start(await draft(campaign, gm, [pc], npc), gm)
    table = await sockets(player, table_path(running))
    await table.receive_from(timeout=WAIT)  # the table

    await start(await draft(campaign, gm, [pc], npc), gm)
    html = await table.receive_from(timeout=WAIT)
    assert "has started" in html and unread_badge(html) == "2"  # both starts, neither read yet
    assert await table.receive_nothing(timeout=QUIET)


async def test_a_channel_layer_that_is_down_loses_no_notification(monkeypatch, campaign, gm, pc, npc, player):
    class Down:
        async def group_send(self, group, message):
            raise ConnectionError("the channel layer is down")

    monkeypatch.setattr("campaigns.live.get_channel_layer", lambda: Down())
    monkeypatch.setattr("combat.broadcast.get_channel_layer", lambda: Down())
    fight = await start(await draft(campaign, gm, [pc], npc), gm)
    assert (await sync_to_async(Encounter.objects.get)(pk=fight.pk)).status == Encounter.Status.ACTIVE
    page = await sync_to_async(_page_of)(player, reverse("campaign", args=[campaign.pk]))
    assert unread_badge(page) == "1"  # the next page shows it


def _page_of(user, url) -> str:
    client = Client()
    client.force_login(user)
    return client.get(url).content.decode()


# --- your turn ------------------------------------------------------------------------------------------------------


async def test_your_turn_reaches_the_players_other_pages_but_not_that_encounters_own(
    sockets, campaign, gm, player, other_player, pc, npc
):
    other_pc = await sync_to_async(Character.objects.create)(
        campaign=campaign, name="Furo", owner=other_player, system="burn_bryte"
    )
    fight = await start(await draft(campaign, gm, [pc, other_pc], npc), gm)
    elsewhere, theirs = await sockets(player), await sockets(other_player)
    table = await sockets(player, table_path(fight))
    for socket in (elsewhere, theirs):
        await bell_on_connect(socket)
    await table.receive_from(timeout=WAIT)
    me, url = f"pc{pc.pk}", reverse("encounter", args=[campaign.pk, fight.pk])

    await act(gm, fight, "declare", {"enemy": f"npc{npc.pk}-1", "target": me, "text": "fires"})
    await table.receive_from(timeout=WAIT)
    assert await elsewhere.receive_nothing(timeout=QUIET)  # nobody's turn yet

    await act(gm, fight, "start_players", {})  # the players' phase: each may take a turn
    for socket in (elsewhere, theirs):
        html = await socket.receive_from(timeout=WAIT)
        assert "You may act now in Ambush at the relay." in html and f'<a href="{url}">Open</a>' in html
        assert 'data-browser-notify="You may act now in Ambush at the relay."' in html
        assert 'id="notif-link"' not in html  # no row, so no new count
    assert "Take my turn" in await table.receive_from(timeout=WAIT)  # the table; no notice of its own fight
    assert await table.receive_nothing(timeout=QUIET)

    await act(other_player, fight, "claim_turn", {"actor": f"pc{other_pc.pk}"})  # Furo's turn: not Luwe's
    await table.receive_from(timeout=WAIT)
    for socket in (elsewhere, theirs, table):  # Furo's player did it, so is not told
        assert await socket.receive_nothing(timeout=QUIET)
    texts = await sync_to_async(list)(Notification.objects.values_list("text", flat=True))
    assert all(text.endswith("has started.") for text in texts)  # turns are never kept


def test_your_turn_when_the_gm_gives_it_and_nobody_elses(sent, gm, player, other_player, rosa, marcus, thug):
    """The Expanse: the GM rolls initiative and moves on; the turn that begins is Rosa's, so only her player hears."""
    encounter = services.start_encounter(
        services.create_encounter(
            rosa.campaign, gm, name="Tycho dock", model="expanse", pcs=[rosa, marcus], enemies=[(thug, 2)]
        ),
        gm,
    )
    sent.clear()  # the news that it started
    begin(encounter, gm, rosa, marcus, thug)
    url = reverse("encounter", args=[encounter.campaign_id, encounter.pk])
    [(group, message)] = sent
    assert group == f"user-{player.pk}" and message["turn_of"] == encounter.pk
    assert "Your turn in Tycho dock." in message["html"] and f'<a href="{url}">Open</a>' in message["html"]


# --- sessions -------------------------------------------------------------------------------------------------------


@pytest.fixture
def sent(monkeypatch):
    """What campaigns.live sends, as (group, message), in order."""
    sent: list[tuple[str, dict]] = []

    class Recorder:
        async def group_send(self, group, message):
            sent.append((group, message))

    monkeypatch.setattr("campaigns.live.get_channel_layer", lambda: Recorder())
    return sent


def test_a_planned_session_is_news_for_every_other_member_in_their_own_time(sent, campaign, gm, player, clock):
    player.timezone = "Europe/Paris"
    player.save()
    session = sessions.create_session(
        campaign, gm, title="The relay", starts_at=datetime(2026, 1, 16, 19, 0, tzinfo=UTC), duration_minutes=180
    )
    rows = {n.user.username: n for n in Notification.objects.select_related("user")}
    assert set(rows) == {"ana", "ben"}  # not the GM who planned it
    assert rows["ana"].text == "Drift: The relay is planned for Friday 16 January, 20:00 CET."
    assert rows["ana"].url == session.get_absolute_url()
    frames = dict(sent)
    assert set(frames) == {f"user-{player.pk}", f"user-{rows['ben'].user_id}"}
    html = frames[f"user-{player.pk}"]["html"]
    assert "The relay is planned for Friday 16 January, 20:00 CET." in html and ">Open</a>" in html
    assert unread_badge(html) == "1"


def test_a_moved_session_is_news_and_a_retitled_one_is_not(sent, campaign, gm, player, clock):
    session = sessions.create_session(
        campaign, gm, title="The relay", starts_at=datetime(2026, 1, 16, 19, 0, tzinfo=UTC), duration_minutes=180
    )
    Notification.objects.all().delete()
    sent.clear()
    fields = {"title": "The relay, part 1", "starts_at": session.starts_at, "duration_minutes": 180}
    sessions.update_session(session, by=gm, **fields)
    assert not Notification.objects.exists() and not sent

    sessions.update_session(session, by=gm, **{**fields, "starts_at": datetime(2026, 1, 17, 19, 0, tzinfo=UTC)})
    texts = sorted(Notification.objects.values_list("user__username", "text"))
    assert texts == [
        ("ana", "Drift: The relay, part 1 was moved to Saturday 17 January, 19:00 UTC."),
        ("ben", "Drift: The relay, part 1 was moved to Saturday 17 January, 19:00 UTC."),
    ]
    assert len(sent) == 2 and all("was moved to" in message["html"] for _, message in sent)


def test_a_member_who_left_hears_nothing_more(sent, campaign, gm, player, clock):
    Membership.objects.filter(user=player).delete()
    sent.clear()
    sessions.create_session(
        campaign, gm, title="The relay", starts_at=datetime(2026, 1, 16, 19, 0, tzinfo=UTC), duration_minutes=180
    )
    assert not Notification.objects.filter(user=player).exists()
    assert f"user-{player.pk}" not in dict(sent)


def test_a_reminder_the_sweep_delivers_reaches_the_members_pages_with_the_bell(sent, campaign, gm, player, clock):
    session = sessions.create_session(
        campaign, gm, title="The relay", starts_at=datetime(2026, 1, 16, 19, 0, tzinfo=UTC), duration_minutes=180
    )
    sent.clear()
    clock.set(session.starts_at - timedelta(hours=24))
    assert reminders.send_due_reminders() == {"sent": 3}
    html = dict(sent)[f"user-{player.pk}"]["html"]
    assert "Drift: The relay starts" in html and f'<a href="{session.get_absolute_url()}">Open</a>' in html
    assert unread_badge(html) == "2"  # the planning news, then this reminder
