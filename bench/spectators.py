"""1,000 spectators: from a GM's action to the LAST of 1,000 watch-link sockets holding the new table, on two
daphne processes joined by the Redis channel layer; and what each idle socket costs a server in memory.

Servers: two daphne processes serving Fray (DEBUG=false) with the Redis channel layer (the spare database the
fan-out benchmark uses), both on the one SQLite database of the prepared FRAY_VAR_DIR. SQLite carries it in
write-ahead-log mode (Fray's settings): the spectators' snapshots are reads, which never wait for the GM's write,
and only process A writes; the row says whether either server logged an error. A watch link to the demo
encounter is made through combat.sharing in that database (bench.live.watch_link).

Clients: SOCKETS spectator sockets in one asyncio process (the `websockets` client, Origin of the process they
connect to), half straight to each process's port at /ws/watch/<token>/. Each gets the players' table on connect
and then one frame per action.

Latency: the GM's `adjust_health` is POSTed to process A (as in bench/fanout.py), so its frame reaches process
B's sockets through Redis. Timed from just before the POST until the last of the sockets has the table with the
new data-version (and until the first had it, for contrast). WARMUP actions, then ACTIONS measured, fewer if the
budget runs out (the row says how many).

Memory: each server's VmRSS (/proc/<pid>/status) once WARM_SOCKETS sockets are connected to it (so imports,
templates and the worker threads are already paid for), and again once it holds its share of SOCKETS and its
RSS has settled (no action in between); the growth divided by the sockets added. Only the servers are measured:
the client's own memory per socket is not counted.

Baseline in the same run: bench/ws_floor.py (raw `websockets`, one process) holding the same 1,000 sockets,
one `broadcast` of the same bytes (the table frame the spectators received) per HTTP trigger; its RSS per idle
socket measured the same way (WARM_SOCKETS, then all 1,000).

The client holds 1,000 sockets and each server 500: the soft open-files limit is raised to the hard limit before
the servers start (they inherit it); the row names the limits.
"""

from __future__ import annotations

import asyncio
import resource
import sys
import time
import traceback
from pathlib import Path

from bench.fanout import REDIS_URL, VERSION, Clients, clear_channel_layer, gm_action, summary

SOCKETS = 1000
PROCESSES = 2
ACTIONS = 25  # measured actions
WARMUP = 3
WARM_SOCKETS = 10  # per server, connected before its memory baseline is read
BUDGET_S = 150  # the whole benchmark; what does not fit is reported as skipped
FLOOR_RESERVE_S = 30  # of the budget, kept for the baseline
LATENCY_GOAL_MS = 150  # p95, action -> last spectator
MEMORY_GOAL_KIB = 50  # per idle socket, per server
OPEN_FILES_NEEDED = SOCKETS + 256  # the client's sockets, its HTTP triggers, Python's own files


def open_files_limit() -> tuple[int, int]:
    """Raise this process's soft RLIMIT_NOFILE to the hard limit (servers started later inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, OPEN_FILES_NEEDED)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft, hard


async def settled_rss(pid: int) -> int:
    """The process's RSS in KiB once two readings a quarter second apart are within 64 KiB (at most 5 s)."""
    from bench.live import rss_kib

    last = rss_kib(pid)
    for _ in range(20):
        await asyncio.sleep(0.25)
        now = rss_kib(pid)
        if abs(now - last) <= 64:
            return now
        last = now
    return last


async def _measure(targets: list[tuple[str, str | None, int]], snapshots: bool, trigger, deadline: float) -> dict:
    """Connect SOCKETS spread evenly over `targets` (uri, Origin, server pid), read each server's RSS with
    WARM_SOCKETS and with its share, then time rounds until ACTIONS are measured or the deadline passes."""
    clients = Clients(frames_per_socket=1)
    share = SOCKETS // len(targets)
    connecting = [0.0]  # seconds spent connecting (and waiting for the snapshots), not reading memory

    async def connect_all(per_server: int) -> None:
        started, total = time.monotonic(), len(clients.sockets)
        for uri, origin, _ in targets:
            total += per_server
            await clients.connect(uri, origin, [], total)
        if snapshots:
            await clients.wait_snapshots(total)
        connecting[0] += time.monotonic() - started

    try:
        await connect_all(WARM_SOCKETS)
        before = [await settled_rss(pid) for _, _, pid in targets]
        await connect_all(share - WARM_SOCKETS)
        after = [await settled_rss(pid) for _, _, pid in targets]
        lasts, firsts = [], []
        for i in range(WARMUP + ACTIONS):
            if time.monotonic() > deadline:
                break
            # The next version: after the snapshots' (Fray) or the last round's (the floor counts from 1).
            first, last, _ = await clients.round(clients.version + 1, trigger)
            if i >= WARMUP:
                lasts.append(last * 1000)
                firsts.append(first * 1000)
    finally:
        await clients.close()
        await asyncio.sleep(1)  # the servers' disconnect handlers (group_discard) run before they are stopped
    return {
        "last": summary(lasts) if lasts else None,
        "first": summary(firsts) if firsts else None,
        "actions": len(lasts),
        "kib_per_socket": [(a - b) / (share - WARM_SOCKETS) for a, b in zip(after, before, strict=True)],
        "growth_kib": [a - b for a, b in zip(after, before, strict=True)],
        "connect_s": connecting[0],
        "payload": VERSION.sub('data-version="__V__"', clients.table_frame, count=1),
    }


def spectators(var: Path, demo: dict, token: str, deadline: float) -> tuple[dict, list[str]]:
    """Fray: two daphne processes, SOCKETS // 2 spectators each; returns the measures and the servers' log errors."""
    from bench.live import Server, login

    env = {"REDIS_URL": REDIS_URL}
    clear_channel_layer(env)
    servers: list = []
    try:
        with (
            Server.daphne(var, "config.asgi:application", env, name="watch-a") as a,
            Server.daphne(var, "config.asgi:application", env, name="watch-b") as b,
        ):
            servers += [a, b]
            gm = login(a.base, "gm")
            targets = [(f"ws://127.0.0.1:{s.port}/ws/watch/{token}/", s.base, s.proc.pid) for s in servers]
            trigger = gm_action(a.port, demo, gm)
            result = asyncio.run(_measure(targets, True, trigger, deadline))
    except Exception:
        for server in servers:  # what the servers said, for the traceback that follows
            print(
                f"--- {server.log_path.name}:\n{server.log_path.read_text(errors='replace')[-3000:]}", file=sys.stderr
            )
        raise
    finally:
        clear_channel_layer(env)
    errors = [
        line.strip()
        for server in servers
        for line in server.log_path.read_text(errors="replace").splitlines()
        if "Traceback" in line or "locked" in line or "ERROR" in line
    ]
    return result, errors


def floor(var: Path, payload: str, deadline: float) -> dict:
    """The baseline: bench/ws_floor.py holding all SOCKETS in one process."""
    from bench.live import Server, free_port, http

    payload_file = var / "bench-watch-payload.html"
    payload_file.write_text(payload, encoding="utf-8")
    port = free_port()

    async def trigger(version):
        status, _ = await http(port, "GET", f"/send?v={version}")
        if status != 200:
            raise RuntimeError(f"trigger answered {status}")

    command = [sys.executable, "-m", "bench.ws_floor", str(port), str(payload_file)]
    with Server(var, command, port, name="watch-floor") as server:
        target = (f"ws://127.0.0.1:{port}/", None, server.proc.pid)
        return asyncio.run(_measure([target], False, trigger, deadline))


def journal_mode(var: Path) -> str:
    """The shared SQLite database's journal mode, as its file records it ("wal" once Fray has opened it)."""
    import sqlite3

    connection = sqlite3.connect(var / "fray.sqlite3")
    try:
        return connection.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        connection.close()


def _fmt(p: tuple[float, float, float]) -> str:
    return " / ".join(f"{v:,.1f}" for v in p) + " ms"


def _times(value: float, floor: float) -> str:
    return f"{value / floor:.1f}× the floor" if floor > 0 else "the floor grew by nothing measurable"


def run(lines: list[str], var: Path, demo: dict) -> None:
    from bench.live import redis_available, watch_link

    started = time.monotonic()
    title = f"GM action → last of {SOCKETS:,} spectator sockets (watch link), {PROCESSES} daphne processes, Redis layer"
    if not redis_available(REDIS_URL):
        lines.append(f"| {title} | skipped: no Redis at {REDIS_URL} | | |")
        return
    soft, hard = open_files_limit()
    if soft < OPEN_FILES_NEEDED:
        lines.append(
            f"| {title} | skipped: open-files limit {soft:,} (hard {hard:,}), {OPEN_FILES_NEEDED:,} needed | | |"
        )
        return
    try:
        fray, errors = spectators(var, demo, watch_link(var, demo), started + BUDGET_S - FLOOR_RESERVE_S)
        print(f"spectators, Fray: {time.monotonic() - started:.0f} s", file=sys.stderr)
        t = time.monotonic()
        raw = floor(var, fray["payload"], started + BUDGET_S)
        print(f"spectators, raw websockets: {time.monotonic() - t:.0f} s", file=sys.stderr)
    except Exception as exc:  # the other benchmarks' results are still written; the traceback is on stderr
        traceback.print_exc()
        lines.append(f"| {title} | failed: {str(exc)[:300]} | | |")
        return

    share = SOCKETS // PROCESSES
    size = len(fray["payload"].encode())
    logs = f"{len(errors)} error lines in the servers' logs, first: {errors[0][:120]}" if errors else "no errors logged"
    if fray["last"] is None or raw["last"] is None:
        lines.append(f"| {title} | skipped: over the {BUDGET_S} s budget ({fray['actions']} actions measured) | | |")
    else:
        f, r = fray["last"], raw["last"]
        context = "; ".join(
            (
                f"{share} sockets each, one SQLite database shared (journal mode {journal_mode(var)})",
                f"p50 / p95 / p99 of {fray['actions']}",
                f"p50 until the first socket had it {fray['first'][0]:,.1f} ms",
                f"{SOCKETS:,} sockets connected in {fray['connect_s']:.0f} s",
                logs.replace("|", "\\|"),
                f"open-files limit {soft:,}, hard {hard:,}",
            )
        )
        lines.append(
            f"| {title} ({context}) | {_fmt(f)} | raw `websockets` broadcast of the same {size:,} B to "
            f"{SOCKETS:,} sockets, one process (of {raw['actions']}): {_fmt(r)} | {f[0] / r[0]:.1f}× p50, "
            f"{f[1] / r[1]:.1f}× p95 |"
        )
        verdict = "within" if f[1] < LATENCY_GOAL_MS else "over"
        lines.append(
            f"| **GM action → last of {SOCKETS:,} spectators, p95** (goal < {LATENCY_GOAL_MS} ms) | {f[1]:,.1f} ms "
            f"| floor {r[1]:,.1f} ms | **{verdict} the goal** ({f[1] / r[1]:.1f}× the floor) |"
        )
    per, floor_per = fray["kib_per_socket"], raw["kib_per_socket"][0]
    worst = max(per)
    verdict = "within" if worst < MEMORY_GOAL_KIB else "over"
    growth = ", ".join(f"{g / 1024:,.1f} MiB" for g in fray["growth_kib"])
    lines.append(
        f"| **server memory per idle spectator socket** (goal < {MEMORY_GOAL_KIB} KiB; each daphne's RSS growth "
        f"from {WARM_SOCKETS} to {share} sockets: {growth}; the client's own memory not counted) | "
        + ", ".join(f"{k:,.1f}" for k in per)
        + f" KiB per socket | raw `websockets`, {WARM_SOCKETS} to {SOCKETS:,} sockets in one process: "
        f"{floor_per:,.1f} KiB per socket | **{verdict} the goal** ({_times(worst, floor_per)}) |"
    )


if __name__ == "__main__":  # this benchmark alone: `python -m bench.spectators`
    import shutil

    from bench.live import prepare_demo

    var, demo = prepare_demo()
    try:
        rows: list[str] = []
        run(rows, var, demo)
        print("\n".join(rows))
    finally:
        shutil.rmtree(var, ignore_errors=True)
