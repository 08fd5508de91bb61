"""Fan-out over two daphne processes on the Redis channel layer (combat.hub), with a phone that stops reading.

Each process is in an audience's group once, however many of its sockets follow that audience; every committed
action reaches every connected phone on both processes, each with its owner's controls only; and a socket that
never reads (a raw TCP client with a tiny receive window that stops after the handshake) is dropped by its
process once it is WS_MAX_BACKLOG behind (lowered here so a few dozen actions reach it), without delaying the
others. A phone that was dropped reconnects and its first frame is the current table.

Run by `make test-integration` (a private redis-server, the test database on PostgreSQL).
"""

from __future__ import annotations

import base64
import os
import socket
import struct

import pytest
from django.db import connection

from combat import services
from combat.broadcast import gm_group, players_group
from combat.models import Encounter, OpenSocket
from tests.conftest import PASSWORD
from tests.integration import procs

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

MAX_BACKLOG = 64 * 1024  # the processes' WS_MAX_BACKLOG here: a few dozen small tables
MAX_ACTIONS = 150  # the slow socket must have been dropped within these (its kernel buffers are tiny)
TCP_ESTABLISHED = 1


@pytest.fixture(scope="module")
def pair(tmp_path_factory, django_db_setup):
    assert connection.vendor == "postgresql", "run with DATABASE_URL (make test-integration)"
    tmp_path = tmp_path_factory.mktemp("fanout")
    redis_server = procs.RedisServer(tmp_path / "redis").start()
    env = procs.app_env(tmp_path / "var", tmp_path / "media", redis_server.url, WS_MAX_BACKLOG=str(MAX_BACKLOG))
    servers = []
    try:
        servers = [procs.start_daphne(name, env, tmp_path) for name in ("A", "B")]
        for server in servers:
            procs.wait_ready(server)
        yield {"A": servers[0], "B": servers[1], "redis": redis_server}
    finally:
        for server in servers:
            procs.stop(server.proc)
        redis_server.stop()


@pytest.fixture
def fight(campaign, gm, player, other_player, pc, npc):
    encounter = services.start_encounter(
        services.create_encounter(campaign, gm, name="Relay", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm
    )
    procs.real_passwords(gm, player, other_player)
    encounter.refresh_from_db()
    return encounter


class StalledPhone:
    """A websocket client that completes the handshake and never reads again, with a receive window of a few KiB
    and a small segment size, so the server's kernel holds little for it and the rest waits in daphne's buffer."""

    def __init__(self, server: procs.Daphne, path: str, browser: procs.Browser):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
        self.sock.settimeout(procs.WAIT)
        self.sock.connect(("127.0.0.1", server.port))
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: {server.base}\r\n"
            f"Cookie: {browser.cookie_header()}\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            head += self.sock.recv(1)
        assert head.startswith(b"HTTP/1.1 101"), head

    def established(self) -> bool:
        info = self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)
        return struct.unpack("B", info[:1])[0] == TCP_ESTABLISHED

    def close(self) -> None:
        self.sock.close()


def test_every_action_reaches_every_phone_on_both_processes_and_a_stalled_one_is_dropped(
    pair, fight, gm, player, other_player, pc
):
    a, b = pair["A"], pair["B"]
    browsers = {}
    for user in (gm, player, other_player):
        browsers[user.username] = procs.Browser()
        browsers[user.username].login(a.base, user.username, PASSWORD)
    path = procs.ws_path(fight)
    v = fight.version
    # Ana owns the PC (her frames carry her controls); Ben has no PC here (the table alone). Both processes.
    phones = {
        (name, server.name, i): procs.Socket(server.ws_base, path, browsers[name], server.port)
        for server in (a, b)
        for name in ("ana", "ben")
        for i in range(2)
    }
    gm_screen = procs.Socket(b.ws_base, path, browsers[gm.username], b.port)
    stalled = None
    try:
        for phone in phones.values():
            _, first = phone.next_frame()
            assert procs.versions(first)["table"] == v
        redis = pair["redis"].client()
        for group in (players_group(fight.pk), gm_group(fight.pk)):
            members = redis.zrange(f"asgi:group:{group}", 0, -1)
            # Eight phones, one GM's screen: each process that has a socket of the audience is in its group once.
            assert len(members) == (2 if group == players_group(fight.pk) else 1), (group, members)

        stalled = StalledPhone(a, path, browsers["ana"])
        change, actions, dropped_after = 1, 0, None
        while actions < MAX_ACTIONS and (dropped_after is None or actions < dropped_after + 3):
            change = -change  # the PC's health goes down one and back up
            server = (a, b)[actions % 2]
            response = browsers[gm.username].post(
                server.base + procs.act_url(fight),
                {"command": "adjust_health", "target": f"pc{pc.pk}", "change": change, "key": f"k{actions}"},
            )
            assert response.status == 200, response.text[:2000]
            actions += 1
            for (name, _, _), phone in phones.items():
                _, html = phone.next_frame(timeout=5)  # exactly the next version: nothing is lost or skipped
                assert procs.versions(html) == (
                    {"table": v + actions, "me": v + actions} if name == "ana" else {"table": v + actions}
                )
            gm_screen.wait_for_version("table", v + actions, timeout=5)
            if dropped_after is None and not stalled.established():
                dropped_after = actions
        assert dropped_after is not None, f"a client that never reads was still connected after {actions} actions"
        logs = a.log_text()
        assert "dropping a websocket" in logs, logs

        # The dropped phone reconnects (hx-ws does): its first frame is the table as it is now.
        again = procs.Socket(a.ws_base, path, browsers["ana"], a.port)
        try:
            _, first = again.next_frame()
            assert procs.versions(first) == {"table": v + actions, "me": v + actions}
        finally:
            again.close()
    finally:
        if stalled is not None:
            stalled.close()
        for phone in (*phones.values(), gm_screen):
            phone.close()
        # Every socket's closing is handled (its presence row removed) before the test's rows are flushed.
        procs.wait_until(lambda: not OpenSocket.objects.filter(encounter=fight).exists(), message="the rows removed")
    fight.refresh_from_db()
    assert fight.version == v + actions and fight.status == Encounter.Status.ACTIVE
    print(f"\nthe stalled socket was dropped after {dropped_after} actions")
