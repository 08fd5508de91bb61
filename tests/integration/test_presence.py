"""The GM's connected-players strip across two daphne replicas on one PostgreSQL database and a Redis channel layer:
the GM's socket on replica B hears of a phone on replica A opening and closing, and a player with a page open on
each replica counts as connected until both are closed.

Run by `make test-integration` (the cluster of tests/integration/test_scale_out.py: a private redis-server, two
daphne replicas and a Celery worker on the test database).
"""

import pytest

from combat import presence
from combat.models import OpenSocket
from tests.combat.test_consumers import strip_lines
from tests.conftest import PASSWORD
from tests.integration import procs
from tests.integration.test_scale_out import cluster, fight  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_gm_on_one_replica_sees_a_phone_on_the_other_join_and_leave(cluster, fight, gm, player):  # noqa: F811
    a, b = cluster["A"], cluster["B"]
    gm_browser, player_browser = procs.Browser(), procs.Browser()
    gm_browser.login(b.base, gm.username, PASSWORD)
    player_browser.login(a.base, player.username, PASSWORD)
    path = procs.ws_path(fight)

    gm_socket = procs.Socket(b.ws_base, path, gm_browser, b.port)
    phones: list[procs.Socket] = []
    try:
        _, first = gm_socket.next_frame()
        assert strip_lines(first) == {"ana": False, "ben": False}

        phones.append(procs.Socket(a.ws_base, path, player_browser, a.port))  # her phone, on A
        _, first = phones[0].next_frame()
        assert "presence" not in first and "connected" not in first
        _, strip = gm_socket.next_frame(timeout=5)
        assert strip_lines(strip) == {"ana": True, "ben": False}

        phones.append(procs.Socket(b.ws_base, path, player_browser, b.port))  # her tablet, on B
        phones[1].next_frame()  # the snapshot is sent before the socket's row is written: wait for the row
        procs.wait_until(lambda: OpenSocket.objects.filter(user=player).count() == 2, message="B's row written")
        phones[0].close()  # the phone on A goes; the tablet on B keeps her at the table
        procs.wait_until(lambda: OpenSocket.objects.filter(user=player).count() == 1, message="A's row removed")
        assert {p.name: p.connected for p in presence.players(fight)} == {"ana": True, "ben": False}

        phones[1].close()
        _, strip = gm_socket.next_frame(timeout=5)
        assert strip_lines(strip) == {"ana": False, "ben": False}
    finally:
        for socket in (*phones, gm_socket):
            socket.close()
    logs = a.log_text() + b.log_text()
    assert "Traceback" not in logs and "Exception" not in logs, logs
