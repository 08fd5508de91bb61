"""The per-process hub (combat.hub): one channel-layer subscription per audience group, frames to local sockets.

The sockets here are stand-ins that record what their ASGI send was given; the layer is Channels' in-memory one,
wrapped to count the messages it hands out. What a real phone gets over the whole stack is in test_consumers.py,
test_spectators.py and tests/integration/test_fanout.py (two daphne processes, a client that never reads).
"""

from __future__ import annotations

import asyncio
import functools
import socket

import pytest
from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings

from combat import hub as hub_module
from combat.broadcast import fragment_message, players_group
from combat.consumers import TableConsumer
from combat.hub import Hub, Local, daphne_transport, hub_for
from tests.combat.test_consumers import table  # noqa: F401  (a fixture)
from tests.ws_socket import Socket

PLAYERS, GMS = "enc-1-players", "enc-1-gm"
WAIT = 2


class CountingLayer(InMemoryChannelLayer):
    """The in-memory layer, counting every message a receive() hands out (one per channel it reached)."""

    def __init__(self):
        super().__init__()
        self.received = 0

    async def receive(self, channel):
        message = await super().receive(channel)
        self.received += 1
        return message


class Phone:
    """A local socket: its ASGI send keeps the frames; `event` is set at each one."""

    def __init__(self, own_key: str | None, name: str = "x"):
        self.frames: list[str] = []
        self.event = asyncio.Event()
        self.local = Local(self.send, f"specific.inmemory!{name}", own_key)
        self.local.held = None  # open: its consumer has sent the snapshot

    async def send(self, message: dict) -> None:
        assert message["type"] == "websocket.send"
        self.frames.append(message["text"])
        self.event.set()

    async def next(self) -> str:
        await asyncio.wait_for(self.event.wait(), WAIT)
        self.event.clear()
        return self.frames[-1]


async def settle(layer: CountingLayer, expected: int) -> None:
    """Until the hub's readers have taken `expected` messages from the layer and written their frames."""
    for _ in range(200):
        if layer.received >= expected:
            break
        await asyncio.sleep(0.005)
    for _ in range(20):  # the reader's writes and yields after the receive
        await asyncio.sleep(0)


@pytest.fixture
def layer():
    return CountingLayer()


@pytest.mark.parametrize("count", [1, 40])
async def test_one_layer_message_per_audience_whatever_the_number_of_sockets(layer, count):
    hub = Hub(layer)
    phones = [Phone(own_key=str(i % 3)) for i in range(count)]
    for phone in phones:
        await hub.join(PLAYERS, phone.local)
    assert len(layer.groups[PLAYERS]) == 1  # the process is in the group once

    await layer.group_send(PLAYERS, fragment_message("<table v2>", 2))
    await settle(layer, 1)

    assert layer.received == 1
    assert [phone.frames for phone in phones] == [["<table v2>"]] * count


async def test_each_owner_gets_the_table_and_only_their_own_controls(layer):
    hub = Hub(layer)
    ana, ben, cleo, spectator = Phone("1"), Phone("2"), Phone("3"), Phone(None)
    for phone in (ana, ben, cleo, spectator):
        await hub.join(PLAYERS, phone.local)

    await layer.group_send(PLAYERS, fragment_message("<table>", 5, {"1": "<ana's controls>", "2": "<ben's controls>"}))

    assert await ana.next() == "<table><ana's controls>"
    assert await ben.next() == "<table><ben's controls>"
    assert await cleo.next() == "<table>"  # a player without a PC in the fight: the table alone
    assert await spectator.next() == "<table>"  # a watch link: never anyone's controls


async def test_a_socket_moving_audience_gets_the_new_audiences_frames_only(layer):
    hub = Hub(layer)
    mover, player = Phone("1"), Phone("2")
    await hub.join(PLAYERS, mover.local)
    await hub.join(PLAYERS, player.local)

    await hub.join(GMS, mover.local)  # made a GM: the new audience first, then it leaves the old
    await hub.leave(PLAYERS, mover.local)
    await layer.group_send(PLAYERS, fragment_message("<players' table>", 3, {"1": "<controls>"}))
    await layer.group_send(GMS, fragment_message("<GM's table>", 3))
    await settle(layer, 2)

    assert mover.frames == ["<GM's table>"]
    assert player.frames == ["<players' table>"]


async def test_the_last_socket_leaving_takes_the_process_out_of_the_group(layer):
    hub = Hub(layer)
    first, second = Phone("1"), Phone("2")
    await hub.join(PLAYERS, first.local)
    await hub.join(PLAYERS, second.local)
    [channel] = layer.groups[PLAYERS]

    await hub.leave(PLAYERS, first.local)
    assert list(layer.groups[PLAYERS]) == [channel]  # one socket is still here
    await hub.leave(PLAYERS, second.local)

    assert PLAYERS not in layer.groups
    assert hub.subscriptions == {}
    await layer.group_send(PLAYERS, fragment_message("<table>", 2))
    await settle(layer, 1)
    assert layer.received == 0 and first.frames == second.frames == []

    # A socket coming back subscribes afresh and gets the next frame.
    await hub.join(PLAYERS, first.local)
    await layer.group_send(PLAYERS, fragment_message("<table v3>", 3))
    assert await first.next() == "<table v3>"


async def test_frames_before_the_consumer_opens_the_socket_are_held_and_follow_its_snapshot(layer):
    """A socket joins its group before it is accepted and sent its snapshot (nothing sent in between is missed);
    a frame arriving meanwhile must not be written before the accept, nor ahead of the snapshot."""
    hub, phone = Hub(layer), Phone("1")
    phone.local.held = []  # as a consumer's Local starts
    await hub.join(PLAYERS, phone.local)
    await layer.group_send(PLAYERS, fragment_message("<table v2>", 2, {"1": "<mine v2>"}))
    await layer.group_send(PLAYERS, fragment_message("<table v3>", 3))
    await settle(layer, 2)
    assert phone.frames == []

    await phone.send({"type": "websocket.send", "text": "<snapshot>"})  # the consumer's snapshot
    await phone.local.open()
    await layer.group_send(PLAYERS, fragment_message("<table v4>", 4))
    await settle(layer, 3)
    assert phone.frames == ["<snapshot>", "<table v2><mine v2>", "<table v3>", "<table v4>"]


async def test_sockets_joining_at_once_all_wait_for_the_one_subscription(layer):
    hub = Hub(layer)
    phones = [Phone(str(i)) for i in range(10)]
    await asyncio.gather(*(hub.join(PLAYERS, phone.local) for phone in phones))
    assert len(layer.groups[PLAYERS]) == 1
    await layer.group_send(PLAYERS, fragment_message("<table>", 2))
    await settle(layer, 1)
    assert all(phone.frames == ["<table>"] for phone in phones)


async def test_other_messages_to_an_audience_go_to_each_local_sockets_own_channel(layer):
    """The GMs' presence.changed is rare: each GM's socket handles it on its own channel, in order with the rest."""
    hub = Hub(layer)
    one, two = Phone(None, "one"), Phone(None, "two")
    await hub.join(GMS, one.local)
    await hub.join(GMS, two.local)

    await layer.group_send(GMS, {"type": "presence.changed", "group": GMS})

    for channel in ("specific.inmemory!one", "specific.inmemory!two"):
        message = await asyncio.wait_for(layer.receive(channel), WAIT)
        assert message == {"type": "presence.changed", "group": GMS}
    assert one.frames == two.frames == []


async def test_a_broken_socket_does_not_keep_the_frame_from_the_others(layer):
    hub = Hub(layer)
    broken, fine = Phone("1"), Phone("2")

    async def fails(message):
        raise OSError("gone")

    broken.local.send = fails
    await hub.join(PLAYERS, broken.local)
    await hub.join(PLAYERS, fine.local)
    await layer.group_send(PLAYERS, fragment_message("<table>", 2))
    assert await fine.next() == "<table>"


async def test_a_failed_receive_is_tried_again_and_later_frames_still_arrive(layer, monkeypatch):
    """Redis restarting: the receive raises; the reader logs it and receives again, it does not die."""
    monkeypatch.setattr(hub_module, "RETRY_AFTER_S", 0.01)
    real, failures = layer.receive, [ConnectionError("Redis is restarting")]

    async def receive(channel):
        if failures:
            raise failures.pop()
        return await real(channel)

    monkeypatch.setattr(layer, "receive", receive)
    hub, phone = Hub(layer), Phone("1")
    await hub.join(PLAYERS, phone.local)
    await layer.group_send(PLAYERS, fragment_message("<table>", 2))
    assert await phone.next() == "<table>"
    assert failures == []


async def test_the_process_joins_its_groups_again_before_the_layer_would_forget_them(layer, monkeypatch):
    """Channel layers drop a group membership after group_expiry (a day); a table may stay open longer."""
    monkeypatch.setattr(hub_module, "REJOIN_EVERY_S", 0.02)
    assert hub_module.REJOIN_EVERY_S < layer.group_expiry
    hub = Hub(layer)
    await hub.join(PLAYERS, Phone("1").local)
    [(channel, joined_at)] = layer.groups[PLAYERS].items()
    await asyncio.sleep(0.1)
    assert layer.groups[PLAYERS][channel] > joined_at


# --- slow sockets: daphne's send, Twisted's buffer ---------------------------------------------------------


class Transport:
    """The parts of a Twisted TCP transport the hub reads: what it still holds to write, and abortConnection."""

    def __init__(self, pending: int):
        self.dataBuffer, self.offset = b"x" * pending, 0
        self._tempDataLen = 0
        self.aborted = 0

    def abortConnection(self):
        self.aborted += 1


class Protocol:
    def __init__(self, pending: int):
        self.transport = Transport(pending)


class DaphneServer:
    """daphne.server.Server's send: `partial(server.handle_reply, protocol)`, recording the messages."""

    def __init__(self):
        self.sent: list[tuple[Protocol, dict]] = []

    async def handle_reply(self, protocol, message):
        self.sent.append((protocol, message))


class Reactor:
    """Enough of a reactor for a Twisted TCP transport that is never run."""

    def addReader(self, reader): ...
    def removeReader(self, reader): ...
    def addWriter(self, writer): ...
    def removeWriter(self, writer): ...


@pytest.mark.django_db
async def test_the_real_daphne_send_leads_to_the_real_twisted_transport_and_its_backlog():
    """daphne's Server gives the application its send; through the middleware config.asgi puts in front of the
    consumers (the session's wraps the send), the hub finds the protocol's Twisted transport and reads what that
    transport holds. If daphne, Channels or Twisted change shape, this fails here."""
    from channels.auth import AuthMiddlewareStack
    from daphne.server import Server
    from twisted.internet import tcp

    ours, theirs = socket.socketpair()
    try:
        transport = tcp.Server(ours, object(), ("127.0.0.1", 1), None, 1, Reactor())
        protocol = type("Protocol", (), {})()
        protocol.transport = transport
        sends = []

        async def consumer(scope, receive, send):
            sends.append(send)

        server = Server(AuthMiddlewareStack(consumer), endpoints=["tcp:port=0:interface=127.0.0.1"])
        server.connections = {protocol: {}}
        server.create_application(protocol, {"type": "websocket", "path": "/ws/", "headers": []})
        for _ in range(50):
            if sends:
                break
            await asyncio.sleep(0.01)
        assert not isinstance(sends[0], functools.partial)  # wrapped by the session middleware, as in production

        local = Local(sends[0], "specific.inmemory!x", None)
        assert local.transport is transport and local.backlog() == 0
        transport.write(b"x" * 1000)  # not written yet: the reactor never runs here
        assert local.backlog() == 1000
    finally:
        ours.close()
        theirs.close()


async def test_a_socket_too_far_behind_is_dropped_and_the_others_still_get_the_frame(layer):
    server = DaphneServer()
    slow, quick = Protocol(settings.WS_MAX_BACKLOG + 1), Protocol(0)
    hub = Hub(layer)
    slow_local = Local(functools.partial(server.handle_reply, slow), "specific.inmemory!slow", "1")
    quick_local = Local(functools.partial(server.handle_reply, quick), "specific.inmemory!quick", "2")
    await slow_local.open()
    await quick_local.open()
    assert daphne_transport(slow_local.send) is slow.transport
    await hub.join(PLAYERS, slow_local)
    await hub.join(PLAYERS, quick_local)

    await layer.group_send(PLAYERS, fragment_message("<table>", 2, {"2": "<mine>"}))
    await settle(layer, 1)

    assert slow.transport.aborted == 1  # daphne then tells its consumer, which leaves the group
    assert server.sent == [(quick, {"type": "websocket.send", "text": "<table><mine>"})]
    assert not quick.transport.aborted

    # Until its consumer has left, the dropped socket is skipped: no frame, no second abort.
    await layer.group_send(PLAYERS, fragment_message("<table v3>", 3))
    await settle(layer, 2)
    assert slow.transport.aborted == 1
    assert [protocol for protocol, _ in server.sent] == [quick, quick]


async def test_a_socket_within_the_bound_is_written(layer):
    server = DaphneServer()
    behind = Protocol(settings.WS_MAX_BACKLOG)  # at the bound, not past it
    hub = Hub(layer)
    local = Local(functools.partial(server.handle_reply, behind), "specific.inmemory!b", None)
    await local.open()
    await hub.join(PLAYERS, local)
    await layer.group_send(PLAYERS, fragment_message("<table>", 2))
    await settle(layer, 1)
    assert server.sent == [(behind, {"type": "websocket.send", "text": "<table>"})]
    assert not behind.transport.aborted


@pytest.mark.parametrize(
    "send",
    [
        pytest.param(lambda: Phone("1").send, id="not a partial"),
        pytest.param(lambda: functools.partial(DaphneServer().handle_reply, object()), id="a protocol w/o transport"),
        pytest.param(lambda: functools.partial(DaphneServer().handle_reply, Protocol(10**9).transport), id="odd shape"),
        pytest.param(lambda: functools.partial(lambda protocol, message: None, Protocol(10**9)), id="another func"),
    ],
)
def test_any_other_send_is_used_as_the_plain_asgi_send_and_never_dropped(send):
    local = Local(send(), "specific.inmemory!x", None)
    assert local.transport is None and local.backlog() == 0


# --- the consumers leave their hub group, however they end -----------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("asgi_loaded")
@pytest.mark.parametrize("ending", ["closed by the phone", "crashed"])
async def test_a_table_socket_leaves_its_audience_group_however_it_ends(table, player, monkeypatch, ending):
    from tests.combat.test_consumers import HOST, ORIGIN, WAIT, asgi_app, session_cookie, ws_path

    cookie = await sync_to_async(session_cookie)(player)
    phone = Socket(
        asgi_app(),
        ws_path(table.campaign_id, table.pk),
        headers=[HOST, (b"origin", ORIGIN), (b"cookie", f"sessionid={cookie}".encode())],
    )
    connected, _ = await phone.connect(timeout=WAIT)
    assert connected
    layer = get_channel_layer()
    hub = hub_for(layer)
    assert list(hub.subscriptions) == [players_group(table.pk)]
    assert await group_size(layer, players_group(table.pk)) == 1

    if ending == "crashed":

        async def crash(self, **kwargs):
            raise RuntimeError("the channel layer went away")

        monkeypatch.setattr(TableConsumer, "_follow_membership", crash)
        await phone.send_to(text_data="hello")
        with pytest.raises(RuntimeError):
            await phone.wait(WAIT)
    else:
        await phone.disconnect(timeout=WAIT)

    assert hub.subscriptions == {}
    assert await group_size(layer, players_group(table.pk)) == 0


async def group_size(layer, group: str) -> int:
    """How many channels the layer has in `group`: the in-memory layer's dict, or the Redis layer's sorted set (the
    integration run uses Redis)."""
    if isinstance(layer, InMemoryChannelLayer):
        return len(layer.groups.get(group, {}))
    return await layer.connection(layer.consistent_hash(group)).zcard(layer._group_key(group))
