"""Log replay and export benchmarks, each against a baseline measured in the same run.

Replay: rebuilding the state from 1,000 and 10,000 events, against loading the stored snapshot.
Export: streaming a 10,000-event log to CSV and JSON, against the naive way (build the whole list in
memory, then serialise it). Peak memory by tracemalloc; time by the best of several runs.
"""

from __future__ import annotations

import io
import json
import time
import tracemalloc


def best_of(fn, runs=5) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def peak_kib(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def run(lines: list[str]) -> None:
    from bench.setup import long_encounter
    from combat import exports
    from combat.models import EncounterEvent

    for size in (1_000, 10_000):
        encounter = long_encounter(size)
        lines.append(replay_line(encounter))

    # The exports read the last, 10,000-event log.
    n = encounter.events.count()

    def naive_json():
        events = [
            {"seq": s, "kind": k, "data": p}
            for s, k, p in EncounterEvent.objects.filter(encounter=encounter)
            .order_by("seq")
            .values_list("seq", "kind", "payload")
        ]
        json.dumps({"events": events})

    for fmt, writer in (("json", exports.write_json), ("csv", exports.write_csv)):

        def streamed(writer=writer):
            out = _Discard()
            writer(encounter, True, out)

        peak_stream = peak_kib(streamed)
        peak_naive = peak_kib(naive_json)
        t_stream = best_of(streamed, runs=2)
        lines.append(
            f"| export {n:,} events to {fmt.upper()} (streamed) | {t_stream * 1000:,.0f} ms, peak "
            f"{peak_stream:,.0f} KiB | naive in-memory JSON peak {peak_naive:,.0f} KiB "
            f"| {peak_stream / peak_naive:.2f}× memory |"
        )


def replay_line(encounter) -> str:
    """Rebuilding the encounter's state from its log, against loading its stored snapshot."""
    from combat import store
    from combat.rules import burn_bryte as bb
    from combat.rules.core import replay

    n = encounter.events.count()
    snapshot = best_of(lambda: store.load_state(type(encounter).objects.get(pk=encounter.pk)))
    rebuild = best_of(lambda: replay(bb.evolve, store.load_initial(encounter), store.load_log(encounter)), runs=3)
    assert replay(bb.evolve, store.load_initial(encounter), store.load_log(encounter)) == store.load_state(encounter)
    return (
        f"| replay {n:,} events | {rebuild * 1000:,.1f} ms | load snapshot {snapshot * 1000:,.2f} ms "
        f"| {rebuild / snapshot:,.0f}× |"
    )


class _Discard(io.TextIOBase):
    """A file that keeps nothing: what an export streams to storage does not stay in memory."""

    def write(self, s):
        return len(s)
