"""`make bench`: run the benchmarks and write bench/RESULTS.md. Each result is a ratio to a baseline measured
in the same run, never a bare timing."""

import os
import shutil
import sys
import time
from pathlib import Path

from bench.setup import django_on_temp_db, git_revision, machine

NOTES = """
Notes on method (details in each module's docstring):

- **Fan-out** (bench/fanout.py): Fray under daphne in a subprocess (DEBUG=false, SQLite in a temp FRAY_VAR_DIR,
  the demo campaign). The GM's `adjust_health` action is an HTTP POST to encounter_act (session cookie, CSRF
  token, HX-Request); N player websockets (Origin of the server, spread over the demo's three players; each
  socket gets one frame: the players' table, then its owner's own controls) run in one asyncio process with the
  `websockets` client. Timed from just before the POST until the last socket has the table fragment with the
  new data-version. Baselines with the same client: bench/bare_channels.py (daphne, the same channel layer,
  one group_send of the same bytes per HTTP trigger) and bench/ws_floor.py (raw `websockets` broadcast).
  Percentiles are nearest-rank over the measured actions (after warm-up), so with 30 actions p99 is the slowest.
- **Goals against the floor** (issue 21): the full path's p50 to the last of N sockets over the raw `websockets`
  floor's at the same N (≤ 2× at N=200, ≤ 3× at N=50, both layers); each row also gives the p50 until the FIRST
  socket had the table and its share of the last's: near 100% means the first phone waited for the last.
- **Spectators** (bench/spectators.py): 1,000 sockets on one watch link (/ws/watch/<token>/, the link made through
  combat.sharing) to the demo encounter, 500 straight to each of two daphne processes on the Redis layer, both on
  the one SQLite database of the temp FRAY_VAR_DIR (WAL, as the row reads from the file: the snapshots are reads and
  never wait for the write; the row says whether either server logged an error). The GM's action is POSTed to one of
  them; timed until the last of the 1,000 has the new table (nearest-rank p50/p95/p99 over the measured actions).
  Memory: each daphne's VmRSS (/proc/<pid>/status) with 10 warm sockets and again with 500, settled and idle, the
  growth divided by the 490 sockets added; the client's own memory is not counted. Baseline in the same run:
  bench/ws_floor.py holding the same 1,000 sockets in one process, one broadcast of the same bytes, its RSS per
  socket measured the same way. The client raises its soft open-files limit to the hard one (the servers inherit
  it); the row names both. Own budget (150 s, 30 s of it kept for the baseline): actions that do not fit are left
  out and the row says how many were measured.
- **What the full path pays over the floor, and where** (the "where … go" rows): before the first frame, one
  HTTP request through Django (session, user, membership, the locked write, commit) and the render of the players'
  fragments (the table, its log read in the words stored with each entry, each PC owner's controls), then one
  channel-layer message per audience per process (combat/hub.py); from the first socket to the last, each
  socket's frame written through daphne (ASGI send, autobahn's framing, Twisted's write), dearer per socket than
  the raw `websockets` broadcast (the row says by how much). The time before the first frame is already several
  times the floor's whole broadcast at N=50 and N=200, so the issue's ≤ 3× / ≤ 2× goals cannot be met by the
  fan-out alone: the request, the commit and the render come first. The GM's table is rendered after the
  players' frames leave.
- **Rendering** (bench/render.py): per-audience fragments from a fresh Renderer (so each includes reading the
  log); time is the median of several runs; SQL queries counted on one run.
- **Phone page weight** (bench/page_weight.py): Debian's Chromium, phone profile, empty cache; encoded sizes
  from Playwright's `request.sizes()`; static files compressed by whitenoise; the HTML is deliberately not
  compressed (no GZipMiddleware: BREACH, the page carries a CSRF token).
- Client and servers share this machine's cores, and anything else running on it shows in the timings: compare
  ratios within one run, not timings across runs.
"""


def main():
    started = time.monotonic()
    load = os.getloadavg()[0]
    temp = django_on_temp_db()
    from bench import fanout, page_weight, render, replay_and_export, spectators
    from bench.live import prepare_demo

    lines = ["| benchmark | result | baseline (same run) | ratio |", "|---|---|---|---|"]
    try:
        for name, step in (("replay and export", replay_and_export.run), ("rendering", render.run)):
            t = time.monotonic()
            step(lines)
            print(f"{name}: {time.monotonic() - t:.0f} s", file=sys.stderr)
        var, demo = prepare_demo()
        try:
            t = time.monotonic()
            page_weight.run(lines, var, demo)
            print(f"phone page weight: {time.monotonic() - t:.0f} s", file=sys.stderr)
            t = time.monotonic()
            fanout.run(lines, var, demo)
            print(f"fan-out: {time.monotonic() - t:.0f} s", file=sys.stderr)
            t = time.monotonic()
            spectators.run(lines, var, demo)
            print(f"spectators: {time.monotonic() - t:.0f} s", file=sys.stderr)
        finally:
            shutil.rmtree(var, ignore_errors=True)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    text = (
        f"# Benchmark results\n\nMachine: {machine()}; load average {load:.1f} when the run started.\n"
        f"Revision: {git_revision()}. The whole run took {time.monotonic() - started:.0f} s.\n\n"
        + "\n".join(lines)
        + "\n"
        + NOTES
    )
    (Path(__file__).parent / "RESULTS.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
