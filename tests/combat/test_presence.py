"""The GM's connected-players strip (combat.presence) over real websockets, as tests/combat/test_consumers.py opens
them: players' sockets opening and closing reach every GM socket as a strip, in words; no player's frame ever
carries it; a socket of a process that stopped stops counting once its row is not refreshed.

The channel layer is the in-memory one by default and channels_redis under `make test-integration` (the two
daphne processes: tests/integration/test_scale_out.py).
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from campaigns.models import Membership
from combat import presence
from combat.models import OpenSocket
from tests.clock import clock  # noqa: F401  (fixture)
from tests.combat.test_consumers import (  # noqa: F401  (fixtures)
    QUIET,
    _close_worker_connections,
    act,
    build_encounter,
    frozen_clock,
    npc_key,
    pc_key,
    receive,
    receive_strip,
    sockets,
    strip_lines,
    table,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("asgi_loaded")]


def no_strip(html: str, encounter) -> None:
    assert f"enc-{encounter.pk}-presence" not in html and "connected" not in html, html[:300]


async def test_a_phone_joining_and_leaving_updates_every_gm_strip_and_no_player_ever_gets_it(
    campaign, gm, player, other_player, pc, other_pc, npc, sockets
):
    encounter = await sync_to_async(build_encounter)(campaign, gm, [pc, other_pc], npc)
    gm_socket, _, _ = await sockets(gm, encounter)
    [first] = await receive(gm_socket, 1)
    assert f'<section id="enc-{encounter.pk}-presence"' in first  # the snapshot brings the strip along
    assert strip_lines(first) == {"ana": False, "ben": False}
    assert 'ana <span class="muted">(Luwe)</span>' in first  # each player with the character they play here

    phone, _, _ = await sockets(player, encounter)
    player_frames = await receive(phone, 1)
    assert strip_lines(await receive_strip(gm_socket, encounter.pk)) == {"ana": True, "ben": False}

    second_gm, _, _ = await sockets(gm, encounter)  # the GM's tablet: not a player, so listed nowhere
    [tablet_first] = await receive(second_gm, 1)
    assert strip_lines(tablet_first) == {"ana": True, "ben": False}
    assert await gm_socket.receive_nothing(timeout=QUIET)

    watcher, _, _ = await sockets(other_player, encounter)
    player_frames += await receive(watcher, 1)
    for socket in (gm_socket, second_gm):
        assert strip_lines(await receive_strip(socket, encounter.pk)) == {"ana": True, "ben": True}
    assert await phone.receive_nothing(timeout=QUIET)  # players hear nothing of each other's coming and going

    await act(gm, encounter, "declare", {"enemy": npc_key(npc), "target": pc_key(pc), "text": "lunges"}, "d")
    for socket in (phone, watcher):
        player_frames += await receive(socket, 1)
    for socket in (gm_socket, second_gm):
        await receive(socket, 1)  # the table only: nobody came or went

    second_tab, _, _ = await sockets(player, encounter)  # the same player twice counts once
    player_frames += await receive(second_tab, 1)
    await phone.disconnect()
    for socket in (gm_socket, second_gm, watcher, second_tab):
        assert await socket.receive_nothing(timeout=QUIET)

    await second_tab.disconnect()
    for socket in (gm_socket, second_gm):
        assert strip_lines(await receive_strip(socket, encounter.pk)) == {"ana": False, "ben": True}
    assert await watcher.receive_nothing(timeout=QUIET)
    for html in player_frames:
        no_strip(html, encounter)


async def test_a_player_made_gm_leaves_the_strip_and_sees_it(campaign, gm, other_player, pc, npc, sockets):
    encounter = await sync_to_async(build_encounter)(campaign, gm, [pc], npc)
    gm_socket, _, _ = await sockets(gm, encounter)
    await receive(gm_socket, 1)
    co_gm, _, _ = await sockets(other_player, encounter)
    no_strip((await receive(co_gm, 1))[0], encounter)
    assert strip_lines(await receive_strip(gm_socket, encounter.pk)) == {"ana": False, "ben": True}

    membership = await sync_to_async(Membership.objects.get)(campaign=campaign, user=other_player)
    membership.role = Membership.Role.GM
    await sync_to_async(membership.save)()
    [table_html] = await receive(co_gm, 1)  # the GM's table at once, strip and all
    assert strip_lines(table_html) == {"ana": False}
    assert strip_lines(await receive_strip(gm_socket, encounter.pk)) == {"ana": False}


def test_a_socket_not_seen_for_a_minute_no_longer_counts(table, player, other_player, clock):  # noqa: F811
    for name, user in (("specific.a!1", player), ("specific.b!1", other_player)):
        OpenSocket.objects.create(channel_name=name, encounter=table, user=user, opened_at=clock(), seen_at=clock())
    clock.advance(seconds=presence.GONE_AFTER - presence.SEEN_EVERY)
    presence.seen("specific.a!1", table.pk, player.pk)  # ana's socket answers its heartbeat; ben's process died
    clock.advance(seconds=presence.SEEN_EVERY + 1)
    assert {p.name: p.connected for p in presence.players(table)} == {"ana": True, "ben": False}
    assert strip_lines(presence.strip_html(table)) == {"ana": True, "ben": False}

    clock.advance(seconds=presence.GONE_AFTER)  # gone: the next socket to open clears the rows away
    presence.opened("specific.c!1", table.pk, player.pk)
    assert set(OpenSocket.objects.values_list("channel_name", flat=True)) == {"specific.c!1"}


async def test_the_heartbeat_refreshes_the_row_and_the_gm_strip_drops_a_dead_process_socket(
    table,
    gm,
    player,
    other_player,
    sockets,
    clock,  # noqa: F811
    frozen_clock,  # noqa: F811
):
    # Ben's phone is on a process that has since died: its row stays behind, unrefreshed.
    await sync_to_async(OpenSocket.objects.create)(
        channel_name="specific.dead!1", encounter=table, user=other_player, opened_at=clock(), seen_at=clock()
    )
    gm_socket, _, _ = await sockets(gm, table)
    phone, _, _ = await sockets(player, table)
    assert strip_lines((await receive(gm_socket, 1, then_quiet=False))[0]) == {"ana": False, "ben": True}
    assert strip_lines(await receive_strip(gm_socket, table.pk)) == {"ana": True, "ben": True}
    await receive(phone, 1)

    async def heartbeat(socket):
        await socket.send_to(text_data="ping")
        assert await socket.receive_from() == "pong"

    await heartbeat(phone)  # a ping soon after another writes nothing
    row = await sync_to_async(OpenSocket.objects.get)(user=player)
    assert row.seen_at == row.opened_at

    frozen_clock[0] += presence.SEEN_EVERY
    opened = clock.now
    clock.advance(seconds=presence.GONE_AFTER + 1)
    await heartbeat(phone)
    row = await sync_to_async(OpenSocket.objects.get)(user=player)
    assert row.seen_at == clock.now and row.opened_at == opened
    assert await gm_socket.receive_nothing(timeout=QUIET)

    await heartbeat(gm_socket)  # the GM's own heartbeat reads the strip again: Ben's row has expired
    assert strip_lines(await receive_strip(gm_socket, table.pk)) == {"ana": True, "ben": False}

    await sync_to_async(OpenSocket.objects.filter(user=player).delete)()  # as if expired and cleared away
    frozen_clock[0] += presence.SEEN_EVERY
    await heartbeat(gm_socket)
    assert strip_lines(await receive_strip(gm_socket, table.pk)) == {"ana": False, "ben": False}
    await heartbeat(phone)  # the phone is alive after all: its row comes back, and the GM hears of it
    assert await sync_to_async(OpenSocket.objects.filter(user=player).exists)()
    assert strip_lines(await receive_strip(gm_socket, table.pk)) == {"ana": True, "ben": False}
