"""Spectators over a watch link (issue 20): "A spectator link for a live encounter: read-only, player audience,
updates live like a phone; the GM can revoke it. Spectators never see controls or GM-only facts and cannot send
anything but pings."

Real websocket communicators on the whole ASGI stack (origin check, routing), as tests/combat/test_consumers.py.
"""

from __future__ import annotations

from datetime import timedelta
from unittest.mock import patch

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from combat import sharing
from combat.models import ShareLink
from combat.rules.dice import ScriptedDice
from tests.combat.test_consumers import (  # noqa: F401  (fixtures)
    HOST,
    ORIGIN,
    QUIET,
    WAIT,
    _close_worker_connections,
    act,
    asgi_app,
    assert_no_gm_fact,
    frozen_clock,
    npc_key,
    pc_key,
    receive,
    receive_update,
    sockets,
    table,
)
from tests.ws_socket import Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("asgi_loaded")]


@pytest.fixture
async def spectators():
    """Open spectator sockets as a browser without an account does; each is closed (and checked) at the end."""
    opened: list[Socket] = []

    async def open_socket(token: str, *, origin=ORIGIN):
        headers = [HOST] + ([(b"origin", origin)] if origin else [])
        communicator = Socket(asgi_app(), f"/ws/watch/{token}/", headers=headers)
        opened.append(communicator)
        connected, code = await communicator.connect(timeout=WAIT)
        return communicator, connected, code

    yield open_socket
    for communicator in opened:
        if communicator.future.done():
            communicator.future.result()  # re-raises if the consumer crashed
        else:
            await communicator.disconnect(timeout=WAIT)


@pytest.fixture
def link(table, gm) -> ShareLink:
    return sharing.watch_link(table, gm)


def assert_spectators_frame(html: str, encounter) -> None:
    """The players' table, and nothing a spectator may not see: no controls of anyone, no GM-only fact."""
    assert html.lstrip().startswith(f'<section id="enc-{encounter.pk}-table"'), html[:200]
    assert f'id="enc-{encounter.pk}-me"' not in html and "Your turn" not in html and "Take my turn" not in html
    assert "<form" not in html and "<button" not in html
    assert_no_gm_fact(html, encounter, "none")


async def test_a_spectator_gets_the_players_table_at_once_without_any_controls(table, link, spectators):
    socket, connected, _ = await spectators(link.token)
    assert connected
    [html] = await receive(socket, 1)
    assert "Round 1 · Phase 1" in html and "Nivick" in html and "Luwe" in html
    assert_spectators_frame(html, table)


@pytest.mark.parametrize("why", ["unknown", "revoked", "expired", "review", "ended", "too long"])
async def test_a_bad_token_is_refused_with_4404(table, gm, link, spectators, why):
    token = link.token

    @sync_to_async
    def spoil():
        nonlocal token
        if why == "unknown":
            token = "no-such-token"
        elif why == "revoked":
            assert sharing.revoke(table, link.pk)
        elif why == "expired":
            ShareLink.objects.filter(pk=link.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
        elif why == "review":  # a review link's token never opens the live table
            ShareLink.objects.filter(pk=link.pk).update(kind=ShareLink.Kind.REVIEW)
        elif why == "ended":
            from combat import services

            assert services.submit(table.pk, gm, "end_encounter", {}, "end").ok
        else:
            token = "x" * 65

    await spoil()
    _, connected, code = await spectators(token)
    assert not connected and code == 4404


async def test_a_gm_action_reaches_the_spectator_live_with_no_gm_fact(table, gm, player, pc, npc, link, spectators):
    socket, _, _ = await spectators(link.token)
    await receive(socket, 1)
    await act(gm, table, "declare", {"enemy": npc_key(npc), "target": pc_key(pc), "text": "lunges"}, "k1")
    [html] = await receive(socket, 1)
    assert "Nivick declares: lunges against Luwe." in html
    assert_spectators_frame(html, table)
    # A player's turn: the players' frame carries Luwe's own controls for Luwe's phone, never for the spectator.
    await act(gm, table, "start_players", {}, "k2")
    await act(player, table, "claim_turn", {"actor": pc_key(pc)}, "k3")
    roll = {"actor": pc_key(pc), "skill": "Ranged", "intent": "attack", "target": npc_key(npc), "damage": 1}
    await act(player, table, "skill_roll", roll, "k4", dice=ScriptedDice([1, 2]))
    frames = await receive(socket, 3)
    assert "the roll succeeds" in frames[-1]
    for html in frames:
        assert_spectators_frame(html, table)
    # The GM's Collapse spending is hidden from players: the spectator gets no frame at all.
    await act(gm, table, "spend_collapse", {"enemy": npc_key(npc), "points": 1, "note": "SECRET frenzy"}, "k5")
    assert await socket.receive_nothing(timeout=QUIET)


async def test_the_phone_and_the_spectator_get_the_same_table(table, gm, player, pc, npc, link, spectators, sockets):
    phone, _, _ = await sockets(player, table)
    await receive(phone, 1)
    watcher, _, _ = await spectators(link.token)
    await receive(watcher, 1)
    await act(gm, table, "declare", {"enemy": npc_key(npc), "target": pc_key(pc), "text": "lunges"}, "k1")
    players_table, mine = await receive_update(phone, table.pk)
    [watched] = await receive(watcher, 1)
    assert mine and watched.strip() == players_table.strip()


async def test_a_ping_gets_a_pong(table, link, spectators):
    socket, _, _ = await spectators(link.token)
    await receive(socket, 1)
    for _ in range(3):
        await socket.send_to(text_data="ping")
        assert await receive(socket, 1) == ["pong"]


@pytest.mark.parametrize("frame", [{"text_data": "hello"}, {"text_data": '{"command": "undo"}'}, {"bytes_data": b"x"}])
async def test_any_frame_but_a_ping_closes_the_socket_with_4400(table, link, spectators, frame):
    socket, _, _ = await spectators(link.token)
    await receive(socket, 1)
    await socket.send_to(**frame)
    assert await socket.receive_output(timeout=WAIT) == {"type": "websocket.close", "code": 4400}


async def test_a_socket_flooding_pings_is_closed_after_a_few_pongs(table, link, spectators, frozen_clock):
    from combat.consumers import PING_BURST

    socket, _, _ = await spectators(link.token)
    await receive(socket, 1)
    for _ in range(50):
        await socket.send_to(text_data="ping")
    answered = 0
    while (output := await socket.receive_output(timeout=WAIT))["type"] == "websocket.send":
        answered += 1
    assert output == {"type": "websocket.close", "code": 4429} and answered == PING_BURST


async def test_a_link_past_its_end_date_closes_its_open_socket_at_the_next_ping(table, gm, spectators):
    from tests.clock import Clock

    clock = Clock(timezone.now())
    with patch("django.utils.timezone.now", new=clock):
        link = await sync_to_async(sharing.watch_link)(table, gm, expires_at=clock.now + timedelta(hours=2))
        socket, connected, _ = await spectators(link.token)
        assert connected
        await receive(socket, 1)
        await socket.send_to(text_data="ping")
        assert await socket.receive_output(timeout=WAIT) == {"type": "websocket.send", "text": "pong"}
        clock.advance(hours=2)  # an overlay left open past the link's last moment
        await socket.send_to(text_data="ping")
        assert await socket.receive_output(timeout=WAIT) == {"type": "websocket.close", "code": 4404}
        _, connected, code = await spectators(link.token)  # and it opens nothing again
        assert not connected and code == 4404


async def test_revoking_the_link_closes_every_spectator_of_it_at_once_and_no_other(table, gm, link, spectators):
    other = await sync_to_async(sharing.watch_link)(table, gm)
    first, _, _ = await spectators(link.token)
    second, _, _ = await spectators(link.token)
    kept, _, _ = await spectators(other.token)
    for socket in (first, second, kept):
        await receive(socket, 1)
    assert await sync_to_async(sharing.revoke)(table, link.pk)
    for socket in (first, second):
        assert await socket.receive_output(timeout=WAIT) == {"type": "websocket.close", "code": 4404}
    assert await kept.receive_nothing(timeout=QUIET)
    _, connected, code = await spectators(link.token)  # and it opens nothing again
    assert not connected and code == 4404


async def test_a_foreign_or_missing_origin_is_refused(table, link, spectators):
    for origin in (b"http://evil.example.com", None):
        _, connected, _ = await spectators(link.token, origin=origin)
        assert not connected
