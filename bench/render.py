"""Rendering the live table's fragments per audience, for an encounter with 4 and with 40 combatants.

Each audience's fragments from a fresh `Renderer` (so each includes reading the log), as broadcast() and the
pages use them: for_gm() (the table as the GM sees it and the GM's controls), for_players() (the table every
player sees) and me() (one player's own controls); and the whole broadcast set (one Renderer: GM, players,
and me() for every PC's owner). Time: median of several runs; SQL: queries counted on one run. Both
encounters have logs of about the same length (whole rounds, ~120 events), so only the combatants differ.
The 40-combatant encounter is the baseline's ×10 on both sides: 2 PCs + 2 enemies, 20 PCs + 20 enemies.

A long log: the broadcast set for 4 combatants after 10,000 events, its newest entries read in the words
stored with them, against the same after 120 events; then the same long log without stored words (as a log
written before entries were worded), replayed from its newest checkpoint (services writes one every
CHECKPOINT_EVERY entries); and without checkpoints either, so the whole log is read and replayed.
"""

from __future__ import annotations

import statistics
import time

RUNS = 15
EVENTS = 120
LONG = 10_000
SIZES = ((2, 2), (20, 20))  # (PCs, enemies): 4 and 40 combatants


def median_ms(fn, runs=RUNS) -> float:
    fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def queries(fn) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        fn()
    return len(captured)


def _built(events: int, pcs: int, enemies: int, tag: str):
    """A long encounter (bench.setup), its state, its PCs' owners, and one broadcast's renders of it: one
    Renderer for the GM's, the players' and every owner's fragments."""
    from bench.setup import long_encounter
    from combat import fragments, store
    from combat.models import Encounter

    built = long_encounter(events, pcs=pcs, enemies=enemies, tag=tag)
    encounter = Encounter.objects.select_related("campaign").get(pk=built.pk)
    state = store.load_state(encounter)
    owners = sorted({f.owner for f in state.pcs() if f.owner})

    def broadcast_set():
        render = fragments.Renderer(encounter, state)
        render.for_gm()
        render.for_players()
        for user_id in owners:
            render.me(user_id)

    return encounter, state, owners, broadcast_set


def measure(pcs: int, enemies: int) -> dict:
    from combat import fragments

    encounter, state, owners, broadcast_set = _built(EVENTS, pcs, enemies, f"render{pcs + enemies}")
    cases = {
        "for_gm()": lambda: fragments.Renderer(encounter, state).for_gm(),
        "for_players()": lambda: fragments.Renderer(encounter, state).for_players(),
        "me()": lambda: fragments.Renderer(encounter, state).me(owners[0]),
        "broadcast set": broadcast_set,
    }
    out = {"events": encounter.events.count(), "owners": len(owners)}
    for name, fn in cases.items():
        out[name] = (median_ms(fn), queries(fn), len(_html(fn, encounter, state, owners, name)))
    return out


def _html(fn, encounter, state, owners, name) -> str:
    from combat import fragments

    render = fragments.Renderer(encounter, state)
    if name == "for_gm()":
        return render.for_gm()
    if name == "for_players()":
        return render.for_players()
    if name == "me()":
        return render.me(owners[0])
    return render.for_gm() + render.for_players() + "".join(render.me(u) for u in owners)


def measure_long() -> dict:
    encounter, _, _, broadcast_set = _built(LONG, 2, 2, "render-long")
    out = {"events": encounter.events.count(), "worded": (median_ms(broadcast_set), queries(broadcast_set))}
    encounter.events.update(gm_text=None, players_text=None, wording=None)  # as before entries were worded
    out["checkpointed"] = (median_ms(broadcast_set), queries(broadcast_set))
    encounter.checkpoints.all().delete()
    out["whole"] = (median_ms(broadcast_set, runs=3), queries(broadcast_set))
    return out


def run(lines: list[str]) -> None:
    small, large = (measure(p, e) for p, e in SIZES)
    long = measure_long()
    for name in ("for_gm()", "for_players()", "me()", "broadcast set"):
        (t_small, q_small, b_small), (t_large, q_large, b_large) = small[name], large[name]
        what = name if name != "broadcast set" else f"broadcast set (GM + players + {large['owners']} × me())"
        base = "" if name != "broadcast set" else f", {small['owners']} × me()"
        lines.append(
            f"| render {what}, 40 combatants ({SIZES[1][0]} PCs + {SIZES[1][1]} enemies, {large['events']} log "
            f"events) | {t_large:,.2f} ms, {q_large} SQL queries, {b_large / 1024:,.1f} KiB | 4 combatants "
            f"({small['events']} log events{base}): {t_small:,.2f} ms, {q_small} SQL queries, "
            f"{b_small / 1024:,.1f} KiB | {t_large / t_small:.1f}× time, "
            + (f"same queries ({q_large})" if q_large == q_small else f"{q_large / max(q_small, 1):.1f}× queries")
            + " |"
        )
    (t_small, q_small, _), (t_worded, q_worded) = small["broadcast set"], long["worded"]
    (t_long, q_long), (t_whole, q_whole) = long["checkpointed"], long["whole"]
    lines.append(
        f"| render broadcast set, 4 combatants, {long['events']:,} log events (the newest entries read in their "
        f"stored words) | {t_worded:,.2f} ms, {q_worded} SQL queries | {small['events']} log events: "
        f"{t_small:,.2f} ms, {q_small} SQL queries | {t_worded / t_small:.1f}× time |"
    )
    lines.append(
        f"| … the same {long['events']:,} events without stored words (replayed from the newest checkpoint) | "
        f"{t_long:,.2f} ms, {q_long} SQL queries | in their stored words: {t_worded:,.2f} ms | "
        f"{t_long / t_worded:.1f}× time |"
    )
    lines.append(
        f"| … without stored words or checkpoints (the whole log read and replayed) | "
        f"{t_whole:,.2f} ms, {q_whole} SQL queries | in their stored words: {t_worded:,.2f} ms | "
        f"{t_whole / t_worded:.0f}× time |"
    )
