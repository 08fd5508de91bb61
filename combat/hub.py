"""One channel-layer subscription per audience group per process, and the frames it carries written to the sockets
of this process (Zulip's per-process event queues are the model).

Without it every socket joins its audience's group itself, and a table fragment is one channel-layer message per
socket: the in-memory layer deep-copies it for each and walks every channel on every receive, Redis sends each one.
Here the first local socket of an audience makes the process join that group once, on a channel of its own
(`layer.new_channel()`), with one reader task; the last one to leave discards it. A `table.fragment` then arrives
once per process and is written to each local socket of the group: the audience's table, and for a PC's owner
their own controls after it (the `own` dict, keyed by user id: never another player's). Sockets without an
`own_key` (spectators) get the table only.

Only the audience groups (`enc-<id>-gm`, `enc-<id>-players`) come through here. A socket leaves the hub's group when
it changes audience or closes, so a fragment the reader hands out afterwards does not reach it. Anything else sent
to an audience group (the GMs' `presence.changed`) is rare and is passed on to each local socket's own channel, to
be handled there in order with its other messages. The user groups (notices, membership orders) and the watch-link
groups (revocation) stay on Channels' per-socket path: they carry a few messages, to a few sockets.

Slow sockets: daphne's ASGI send never waits for the client. It hands the frame to Twisted, which buffers what the
kernel will not take yet, so one socket that does not read never delays the others, but its buffer would grow
without bound. Before each write the hub reads that socket's backlog (bytes Twisted holds for it) and, past
settings.WS_MAX_BACKLOG, drops the connection: the page's hx-ws reconnects and its snapshot brings it up to date.
Reading the backlog reaches into daphne (its send is `partial(server.handle_reply, protocol)`, behind Channels'
session wrapper) and Twisted (the transport's buffers); when the send is not of that shape the socket is written
with the plain ASGI send and is never dropped.

The hub writes to a socket beside its consumer, not through its queue. On connecting, the frames that come before
the consumer has accepted the socket and sent its snapshot are held and follow it (`Local.open`), as they did when
they queued behind it. On a later resync or audience move, a snapshot read just before an action may reach the
phone just after that action's frame: the table page drops a fragment older than the one it shows
(static/js/table.js, by data-version), as it does for an htmx answer overtaken by a frame.

The writes leave in Twisted's turn of the event loop, so the hub yields every WRITE_BATCH sockets: the first
phones' frames are on the wire before the last ones are handed over.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

WRITE_BATCH = 8  # sockets written between yields to the event loop (which then puts their frames on the wire)
# Channel layers forget a group membership after a day (group_expiry); a page may stay open longer than that.
REJOIN_EVERY_S = 3600
RETRY_AFTER_S = 1.0  # a receive that failed (Redis restarting) is tried again after this
FRAGMENT = "table.fragment"


class Local:
    """One local socket in a hub group: how to write to it, who it is, and how much it has not read yet."""

    def __init__(self, send: Callable[[dict], Awaitable[Any]], channel_name: str, own_key: str | None):
        self.send, self.channel_name, self.own_key = send, channel_name, own_key
        self.transport = daphne_transport(send)
        # Past this many unsent bytes (settings.WS_MAX_BACKLOG, 1 MiB unless set) the socket is dropped. A table
        # frame is a few KiB to a few tens of KiB, so that is dozens of actions a phone has not read, besides what
        # the kernel buffers: it is not keeping up, and a snapshot on reconnect is cheaper than its backlog.
        self.max_backlog: int = settings.WS_MAX_BACKLOG
        self.dropped = False
        # Frames that came between joining a group and the consumer's first snapshot (None once it is open): the
        # socket is not accepted before that, and the snapshot goes first, as when every frame queued behind it.
        self.held: list[str] | None = []

    async def open(self) -> None:
        """The consumer has accepted the socket and sent its snapshot: the frames held meanwhile follow, in order."""
        held, self.held = self.held or [], None
        for frame in held:
            await self.write(frame)

    def backlog(self) -> int:
        """Bytes written to this socket that Twisted still holds (0 when the send is not daphne's)."""
        t = self.transport
        if t is None:
            return 0
        try:
            return len(t.dataBuffer) - t.offset + t._tempDataLen
        except Exception:  # not the Twisted we know: never drop on a guess
            return 0

    async def write(self, frame: str) -> None:
        if self.held is not None:
            self.held.append(frame)
            return
        if self.dropped:
            return  # until daphne tells its consumer, which leaves the group
        if self.backlog() > self.max_backlog:
            log.warning("dropping a websocket %s bytes behind; it resyncs on reconnect", self.backlog())
            self.dropped = True
            self.transport.abortConnection()  # daphne then tells the consumer it disconnected
            return
        await self.send({"type": "websocket.send", "text": frame})


def daphne_transport(send) -> Any:
    """The Twisted transport behind daphne's ASGI send, or None when `send` is not of the shape daphne 4 gives.

    Channels' session middleware wraps the send (InstanceSessionWrapper.send, which passes a websocket message on
    to its `real_send`): the transport is looked for behind it."""
    for _ in range(4):  # wrappers within wrappers, not for ever
        inner = getattr(getattr(send, "__self__", None), "real_send", None)
        if inner is None:
            break
        send = inner
    if not isinstance(send, functools.partial) or getattr(send.func, "__name__", "") != "handle_reply":
        return None
    protocol = send.args[0] if send.args else None
    transport = getattr(protocol, "transport", None)
    wanted = ("dataBuffer", "offset", "_tempDataLen", "abortConnection")
    if transport is None or not all(hasattr(transport, name) for name in wanted):
        return None
    return transport


class Subscription:
    """The process's membership of one group: its channel, its reader, its local sockets (in joining order)."""

    def __init__(self, group: str):
        self.group = group
        self.channel = ""
        self.sockets: dict[Local, None] = {}
        self.ready: asyncio.Future | None = None  # the group_add (and the tasks' start)
        self.tasks: list[asyncio.Task] = []  # the reader, and the one that joins again every REJOIN_EVERY_S


class Hub:
    def __init__(self, layer):
        self.layer = layer
        self.subscriptions: dict[str, Subscription] = {}

    async def join(self, group: str, socket: Local) -> None:
        """Add the socket to the group; returns once the process is in the group (nothing sent later is missed)."""
        sub = self.subscriptions.get(group)
        if sub is None:
            sub = self.subscriptions[group] = Subscription(group)
            sub.ready = asyncio.ensure_future(self._subscribe(sub))
        sub.sockets[socket] = None
        assert sub.ready is not None
        try:
            await asyncio.shield(sub.ready)
        except BaseException:
            sub.sockets.pop(socket, None)
            raise

    async def leave(self, group: str, socket: Local) -> None:
        sub = self.subscriptions.get(group)
        if sub is None or socket not in sub.sockets:
            return
        del sub.sockets[socket]
        if sub.sockets:
            return
        del self.subscriptions[group]  # a socket joining from now on subscribes afresh, on a new channel
        assert sub.ready is not None
        try:
            await asyncio.shield(sub.ready)
        except Exception:
            return  # it never joined the group
        for task in sub.tasks:
            task.cancel()
        await self.layer.group_discard(group, sub.channel)

    async def _subscribe(self, sub: Subscription) -> None:
        try:
            sub.channel = await self.layer.new_channel()
            await self.layer.group_add(sub.group, sub.channel)
        except BaseException:
            if self.subscriptions.get(sub.group) is sub:
                del self.subscriptions[sub.group]
            raise
        sub.tasks = [asyncio.ensure_future(self._read(sub)), asyncio.ensure_future(self._rejoin(sub))]

    async def _rejoin(self, sub: Subscription) -> None:
        while True:
            await asyncio.sleep(REJOIN_EVERY_S)
            try:
                await self.layer.group_add(sub.group, sub.channel)
            except Exception:
                log.warning("channel layer unavailable; %s is joined again later", sub.group, exc_info=True)

    async def _read(self, sub: Subscription) -> None:
        while True:
            try:
                message = await self.layer.receive(sub.channel)
            except Exception:
                log.warning("channel layer unavailable for %s; trying again", sub.group, exc_info=True)
                await asyncio.sleep(RETRY_AFTER_S)
                continue
            try:
                if message.get("type") == FRAGMENT:
                    await self._fan_out(sub, message)
                else:
                    for socket in list(sub.sockets):
                        await self.layer.send(socket.channel_name, message)
            except Exception:
                log.exception("could not hand a %s message to the sockets of %s", message.get("type"), sub.group)

    async def _fan_out(self, sub: Subscription, message: dict) -> None:
        """Each socket of the group gets the table, then its owner's own controls; one frame per distinct owner."""
        html, own = message["html"], message.get("own") or {}
        frames = {"": html}
        for i, socket in enumerate(list(sub.sockets)):
            if socket not in sub.sockets:
                continue  # it left the group (closed, or moved to another audience) while others were written
            key = socket.own_key if socket.own_key in own else ""
            frame = frames.get(key)
            if frame is None:
                frame = frames[key] = html + own[key]
            try:
                await socket.write(frame)
            except Exception:  # one broken socket does not keep the frame from the others
                log.warning("could not write a table frame to a websocket of %s", sub.group, exc_info=True)
            if i % WRITE_BATCH == WRITE_BATCH - 1:
                await asyncio.sleep(0)


class LeavesAudienceOnEnd:
    """For a consumer whose socket joins an audience through the hub: however the consumer ends (closed, or a crash
    with its channel layer gone), its socket leaves the hub group (`leave_audience`)."""

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)  # type: ignore[misc]
        finally:
            await leave_audience(self)


async def leave_audience(consumer) -> None:
    """The consumer's socket leaves the hub group of its `audience` (if it is in one): on closing, on moving, and
    whenever its consumer ends, a crash too (a socket left behind would keep the process in the group for ever)."""
    audience, consumer.audience = getattr(consumer, "audience", None), None
    if audience is None:
        return
    try:
        await hub_for(consumer.channel_layer).leave(audience, consumer.local)
    except Exception:  # the channel layer is down: the group forgets the process's channel when it expires
        log.warning("could not leave %s", audience, exc_info=True)


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, Hub]] = weakref.WeakKeyDictionary()


def hub_for(layer) -> Hub:
    """This process's hub for `layer` (one per event loop: a reader task belongs to its loop)."""
    per_loop = _hubs.setdefault(asyncio.get_running_loop(), {})
    hub = per_loop.get(id(layer))
    if hub is None or hub.layer is not layer:
        hub = per_loop[id(layer)] = Hub(layer)
    return hub
