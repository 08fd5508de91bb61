"""Action to every client: from a GM's HTTP action to the LAST of N websocket clients holding the new table.

The full path: Fray under daphne (in a subprocess, DEBUG=false). The GM POSTs an `adjust_health` action to
encounter_act (session cookie, CSRF token, HX-Request) while N player sockets are connected to
/ws/campaigns/<c>/encounters/<e>/ with the Origin of the server; the N sockets are spread round-robin over
the demo's three players; every socket gets one frame per action (the players' table followed by its owner's
own controls). The time is from just before the POST is written until the last socket has received the
table fragment with the new data-version.

Baselines, measured in the same run with the same client and the same N:
- bare Channels (bench/bare_channels.py under daphne, the same channel layer): an HTTP GET that does ONE
  group_send of the same bytes (the players' table fragment captured from the full path) to the N sockets;
- the floor: a raw `websockets` server (bench/ws_floor.py), one `broadcast` of the same bytes.

Both channel layers: in memory (one daphne) and Redis (REDIS_URL: database 9, or BENCH_REDIS_URL).

The goal rows (issue 21) put the full path's last socket against the floor: within 2x at N=200 and 3x at N=50
(p50), each with the time until the FIRST socket had its table, so whether the first phone's frame leaves before
the last one is rendered or copied shows as the first socket's share of the last's time. The goal rows against
bare Channels stay as context.
"""

from __future__ import annotations

import asyncio
import math
import os
import re
import sys
import time
import urllib.parse
import uuid
from pathlib import Path

SIZES = (10, 50, 200)
ACTIONS = 30  # measured actions per N
WARMUP = 3  # actions per N before measuring
ROUND_TIMEOUT_S = 30
BUDGET_S = 240  # the whole fan-out benchmark; what is left when it runs out is reported as skipped
CONNECT_CONCURRENCY = 20
# A spare database number. Each run empties the layer's keys there before and after each server, so two runs at
# once on one Redis (each encounter is number 1) empty each other's groups: give one another database.
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/9")
PLAYERS = ("ana", "ben", "cleo")
FLOOR_GOALS = ((200, 2.0), (50, 3.0))  # issue 21: the full path within these multiples of the floor (p50)
VERSION = re.compile(r'data-version="(\d+)"')


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (with 30 samples, p99 is the slowest)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def summary(values: list[float]) -> tuple[float, float, float]:
    return percentile(values, 50), percentile(values, 95), percentile(values, 99)


class Clients:
    """N websocket clients in one asyncio loop, each counting the frames of the version being waited for."""

    def __init__(self, frames_per_socket: int):
        self.frames_per_socket = frames_per_socket
        self.sockets: list = []
        self.readers: list[asyncio.Task] = []
        self.target: int | None = None
        self.version = 0  # newest version seen outside a round (from the snapshots)
        self.snapshots = 0
        self.table_frame = ""
        self._reset()

    def _reset(self):
        self.tables = self.frames = 0
        self.first_table = self.last_table = self.last_frame = 0.0
        self.done = asyncio.Event()
        self.settled = asyncio.Event()
        self.snapshot_event = asyncio.Event()

    async def connect(self, uri: str, origin: str | None, cookies: list[str], count: int) -> None:
        from websockets.asyncio.client import connect

        semaphore = asyncio.Semaphore(CONNECT_CONCURRENCY)
        first = len(self.sockets)

        async def one(i):
            async with semaphore:
                headers = {"Cookie": cookies[i % len(cookies)]} if cookies else {}
                return await connect(
                    uri,
                    origin=origin,
                    additional_headers=headers,
                    compression=None,
                    ping_interval=None,
                    open_timeout=30,
                    max_size=2**22,
                )

        sockets = await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(first, count))), 120)
        for ws in sockets:
            self.sockets.append(ws)
            self.readers.append(asyncio.create_task(self._read(ws)))

    async def wait_snapshots(self, count: int) -> None:
        while self.snapshots < count:
            self.snapshot_event.clear()
            await asyncio.wait_for(self.snapshot_event.wait(), ROUND_TIMEOUT_S)

    async def _read(self, ws) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for message in ws:
                now = time.perf_counter()
                head = message[:300]
                match = VERSION.search(head)
                if match is None:
                    continue
                version = int(match.group(1))
                if version != self.target:
                    if self.target is None:  # the snapshot sent on connect
                        self.version = max(self.version, version)
                        self.snapshots += 1
                        if not self.table_frame and '-table"' in head:
                            self.table_frame = message
                        self.snapshot_event.set()
                    continue
                self.frames += 1
                if '-table"' in head:
                    self.tables += 1
                    if self.tables == 1:
                        self.first_table = now
                        self.table_frame = message
                    if self.tables == len(self.sockets):
                        self.last_table = now
                        self.done.set()
                if self.frames == len(self.sockets) * self.frames_per_socket:
                    self.last_frame = now
                    self.settled.set()
        except ConnectionClosed:
            pass

    async def round(self, version: int, trigger) -> tuple[float, float, float]:
        """Trigger one update to `version`; the time until the first and the last socket had the table, and
        until every socket had all its frames (the table and, on the full path, its owner's controls)."""
        self._reset()
        self.target = version
        start = time.perf_counter()
        response = asyncio.create_task(trigger(version))
        try:
            done = asyncio.create_task(self.done.wait())
            await asyncio.wait({done, response}, timeout=ROUND_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
            if response.done() and response.exception() is not None:
                done.cancel()
                raise response.exception()  # the trigger failed: say why rather than wait for frames
            await asyncio.wait_for(done, ROUND_TIMEOUT_S)
            await asyncio.wait_for(self.settled.wait(), ROUND_TIMEOUT_S)
            await asyncio.wait_for(response, ROUND_TIMEOUT_S)
        except TimeoutError:
            raise RuntimeError(
                f"round to version {version}: {self.tables}/{len(self.sockets)} tables, "
                f"{self.frames} frames after {ROUND_TIMEOUT_S} s (with Redis: is another run using {REDIS_URL}? "
                "BENCH_REDIS_URL names another database)"
            ) from None
        self.target = None
        self.version = version
        return self.first_table - start, self.last_table - start, self.last_frame - start

    async def close(self) -> None:
        await asyncio.wait_for(asyncio.gather(*(ws.close() for ws in self.sockets), return_exceptions=True), 60)
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)


async def _measure(clients: Clients, connect, trigger, next_version, deadline: float) -> dict[int, dict]:
    """For each N: connect up to N sockets, warm up, then time ACTIONS rounds (N left out past the deadline)."""
    results = {}
    for n in SIZES:
        if time.monotonic() > deadline:
            break
        await connect(n)
        samples, firsts, alls = [], [], []
        for i in range(WARMUP + ACTIONS):
            first, last, every = await clients.round(next_version(), trigger)
            if i >= WARMUP:
                samples.append(last * 1000)
                firsts.append(first * 1000)
                alls.append(every * 1000)
        results[n] = {"last": summary(samples), "first": summary(firsts), "all": summary(alls)}
    await clients.close()
    await asyncio.sleep(1)  # the server's disconnect handlers (group_discard) run before it is stopped
    return results


def gm_action(port: int, demo: dict, gm: dict[str, str]):
    """The trigger for one round: the GM's `adjust_health` on the demo's first PC (-1, +1, -1, ...: its health
    stays within bounds), an htmx POST to encounter_act on `port`; raises unless the answer is the new table."""
    from bench.live import cookie_header, http

    act = f"/campaigns/{demo['campaign']}/encounters/{demo['encounter']}/act/"
    change = [1]

    async def trigger(version: int) -> None:
        change[0] = -change[0]
        body = urllib.parse.urlencode(
            {
                "command": "adjust_health",
                "target": demo["pcs"][0],
                "change": change[0],
                "key": f"bench-{uuid.uuid4().hex}",
            }
        ).encode()
        headers = {
            "Cookie": cookie_header(gm),
            "X-CSRFToken": gm["csrftoken"],
            "HX-Request": "true",
            "Content-Type": "application/x-www-form-urlencoded",
        }
        status, html = await http(port, "POST", act, headers, body)
        if status != 200 or f'data-version="{version}"'.encode() not in html or b"error-box" in html:
            raise RuntimeError(f"action to version {version} failed: {status} {html[:500]!r}")

    return trigger


def full_path(var: Path, demo: dict, layer_env: dict[str, str], cookies: dict, deadline: float) -> tuple[dict, str]:
    from bench.live import Server, cookie_header, login

    with Server.daphne(var, "config.asgi:application", layer_env, name="fray") as server:
        if not cookies:
            cookies.update({name: login(server.base, name) for name in ("gm", *PLAYERS)})
        gm = cookies["gm"]
        uri = f"ws://127.0.0.1:{server.port}/ws/campaigns/{demo['campaign']}/encounters/{demo['encounter']}/"
        origin = server.base
        player_cookies = [cookie_header(cookies[p]) for p in PLAYERS]
        clients = Clients(frames_per_socket=1)
        trigger = gm_action(server.port, demo, gm)

        async def connect(n):
            await clients.connect(uri, origin, player_cookies, n)
            await clients.wait_snapshots(n)

        def next_version():
            return clients.version + 1

        results = asyncio.run(_measure(clients, connect, trigger, next_version, deadline))
    payload = VERSION.sub('data-version="__V__"', clients.table_frame, count=1)
    return results, payload


def bare_channels(var: Path, payload_file: Path, layer_env: dict[str, str], deadline: float) -> dict:
    from bench.live import Server, http

    env = {**layer_env, "BENCH_PAYLOAD": str(payload_file)}
    with Server.daphne(var, "bench.bare_channels:application", env, name="bare") as server:
        return _baseline(server.port, f"ws://127.0.0.1:{server.port}/ws/bare/", 204, http, deadline)


def floor(var: Path, payload_file: Path, deadline: float) -> dict:
    from bench.live import Server, free_port, http

    port = free_port()
    with Server(var, [sys.executable, "-m", "bench.ws_floor", str(port), str(payload_file)], port, name="floor"):
        return _baseline(port, f"ws://127.0.0.1:{port}/", 200, http, deadline)


def _baseline(port: int, uri: str, ok: int, http, deadline: float) -> dict:
    clients = Clients(frames_per_socket=1)
    counter = [0]

    async def connect(n):
        await clients.connect(uri, None, [], n)

    async def trigger(version):
        status, _ = await http(port, "GET", f"/send?v={version}")
        if status != ok:
            raise RuntimeError(f"trigger answered {status}")

    def next_version():
        counter[0] += 1
        return counter[0]

    return asyncio.run(_measure(clients, connect, trigger, next_version, deadline))


def clear_channel_layer(env: dict[str, str]) -> None:
    """Forget the Redis channel layer's groups and queues (its `asgi` keys in the bench's spare database).

    Each run's encounter is number 1 in a fresh database, so group members a stopped daphne left behind
    would otherwise still get every group_send of the next server and the next run."""
    url = env.get("REDIS_URL")
    if not url:
        return
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5)
    try:
        keys = list(client.scan_iter("asgi*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def _fmt(p: tuple[float, float, float]) -> str:
    return " / ".join(f"{v:,.1f}" for v in p) + " ms"


def run(lines: list[str], var: Path | None = None, demo: dict | None = None) -> None:
    from bench.live import prepare_demo, redis_available

    deadline = time.monotonic() + BUDGET_S
    if var is None or demo is None:
        var, demo = prepare_demo()
    layers = [("in-memory layer", {})]
    if redis_available(REDIS_URL):
        layers.append(("Redis layer", {"REDIS_URL": REDIS_URL}))
    else:
        lines.append(f"| fan-out with the Redis layer | skipped: no Redis at {REDIS_URL} | | |")
    cookies: dict = {}
    payload_file = var / "bench-payload.html"
    measured = {}
    for name, env in layers:
        started = time.monotonic()
        clear_channel_layer(env)
        full, payload = full_path(var, demo, env, cookies, deadline)
        if not payload_file.exists():
            payload_file.write_text(payload, encoding="utf-8")
        clear_channel_layer(env)
        bare = bare_channels(var, payload_file, env, deadline)
        clear_channel_layer(env)
        measured[name] = (full, bare)
        print(f"fan-out, {name}: {time.monotonic() - started:.0f} s", file=sys.stderr)
    started = time.monotonic()
    raw = floor(var, payload_file, deadline)
    print(f"fan-out, raw websockets: {time.monotonic() - started:.0f} s", file=sys.stderr)

    size = len(payload_file.read_text(encoding="utf-8").encode())
    what = f"p50 / p95 / p99 of {ACTIONS}"
    for name, (full, bare) in measured.items():
        for n in SIZES:
            if n not in full or n not in bare:
                lines.append(
                    f"| GM action → last of {n} player sockets, {name} | skipped: over the {BUDGET_S} s budget | | |"
                )
                continue
            f, b = full[n]["last"], bare[n]["last"]
            lines.append(
                f"| GM action → last of {n} player sockets has the new table, {name} ({what}; p50 "
                f"until the first socket had it {full[n]['first'][0]:,.1f} ms, until every socket also "
                f"had its own controls {full[n]['all'][0]:,.1f} ms) | {_fmt(f)} | bare Channels, one "
                f"group_send of the same {size:,} B: {_fmt(b)} | {f[0] / b[0]:.1f}× p50, "
                f"{f[1] / b[1]:.1f}× p95 |"
            )
    for name, (_, bare) in measured.items():
        for n in SIZES:
            if n in bare and n in raw:
                b, r = bare[n]["last"], raw[n]["last"]
                lines.append(
                    f"| bare Channels group_send → last of {n} sockets, {name} ({what}) | {_fmt(b)} "
                    f"| raw `websockets` broadcast (the floor): {_fmt(r)} | {b[0] / r[0]:.1f}× p50 |"
                )
    for name, (full, bare) in measured.items():
        if 50 in full and 50 in bare:
            ratio = full[50]["last"][0] / bare[50]["last"][0]
            verdict = "within" if ratio <= 2 else "over"
            lines.append(
                f"| **full path / bare Channels at N=50, {name}** (goal ≤ 2×) | {full[50]['last'][0]:,.1f} "
                f"ms p50 | {bare[50]['last'][0]:,.1f} ms p50 | **{ratio:.1f}×** ({verdict} the goal) |"
            )
    for name, (full, _) in measured.items():
        for n, goal in FLOOR_GOALS:
            lines.append(_floor_goal(name, n, goal, full, raw))
        if max(SIZES) in full and max(SIZES) in raw:
            lines.append(_where(name, max(SIZES), full, raw))


def _floor_goal(name: str, n: int, goal: float, full: dict, raw: dict) -> str:
    """The issue's goal row: the full path's last socket against the raw `websockets` floor at the same N, with
    the time the FIRST socket had its table (the first phone's frame should not wait for the last's)."""
    title = f"full path / raw `websockets` floor at N={n}, {name}"
    if n not in full or n not in raw:
        return f"| **{title}** (goal ≤ {goal:g}×) | skipped: over the {BUDGET_S} s budget | | |"
    last, first, r = full[n]["last"], full[n]["first"], raw[n]["last"]
    ratio = last[0] / r[0]
    verdict = "within" if ratio <= goal else "over"
    return (
        f"| **{title}** (goal ≤ {goal:g}×) | {last[0]:,.1f} ms p50, {last[1]:,.1f} ms p95 (the first socket had "
        f"it at {first[0]:,.1f} ms p50, {first[0] / last[0]:.0%} of the last's) | floor {r[0]:,.1f} ms p50, "
        f"{r[1]:,.1f} ms p95 | **{ratio:.1f}×** p50 ({verdict} the goal), {last[1] / r[1]:.1f}× p95; the time "
        f"before the first frame alone is {first[0] / r[0]:.1f}× the floor |"
    )


def _where(name: str, n: int, full: dict, raw: dict) -> str:
    """Where the full path's time to the last of N sockets goes: before the first frame (the HTTP action through
    Django, the locked write and commit, the players' render, the channel layer) and from the first socket to the
    last (each socket's frame written through daphne), against the floor's whole broadcast."""
    first, last, r = full[n]["first"][0], full[n]["last"][0], raw[n]["last"][0]
    per_socket = (last - first) / max(1, n - 1) * 1000
    return (
        f"| where the full path's {last:,.1f} ms to the last of {n} sockets go, {name} (p50s) | before the first "
        f"frame {first:,.1f} ms; first to last socket {last - first:,.1f} ms ({per_socket:,.0f} µs a socket) "
        f"| the floor's whole broadcast {r:,.1f} ms ({r / n * 1000:,.0f} µs a socket) | "
        f"{per_socket / (r / n * 1000):.1f}× a socket |"
    )
