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
- **What the full path costs over bare Channels**: one HTTP request through Django (session, user, membership,
  the locked write, commit) and the render of the players' fragments (the table, its log read in the words
  stored with each entry, and each PC owner's controls), all before the first frame leaves; the GM's table is
  rendered after the players' frames are written. The fan-out itself is cheaper than the baseline's, since
  Fray's consumer forwards a table frame without Channels' per-message database clean-up (a worker-thread trip
  per socket). So the ratio falls as N grows. With the in-memory layer every socket's frame is queued in one
  turn of the event loop and none is written before all are, so the first socket waits nearly as long as the
  last; with Redis they arrive one by one.
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
    from bench import fanout, page_weight, render, replay_and_export
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
