"""Log replay and export benchmarks, each against a baseline measured in the same run.

Replay: rebuilding the state from 1,000 and 10,000 events, against loading the stored snapshot.
A moment of the review's replay (combat.replay: the state from the newest checkpoint, the round's bounds, the
viewer's entries and the table drawn), in the middle of the 10,000-event log, against only replaying the log from
the start to that moment. The review page of a 500-event fight, server time of the whole GET (goal < 300 ms),
against the encounter's live page for the same viewer. The campaign's History page with 20 finished ~500-event
fights, server time of the whole GET for the GM and for a player (a later reader's, and the first reader's after the
fights ended, when each fight is replayed once into the cache), against the review page of one of those fights.
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
    lines.append(moment_line(encounter))
    lines.append(review_page_line(long_encounter(500, tag="review")))
    lines.extend(history_page_lines(history_campaign(20, 500)))

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


def moment_line(encounter) -> str:
    """One step of the replay, from checkpoints, against replaying the log from its start to the same moment."""
    from combat import replay, store
    from combat.rules import burn_bryte as bb
    from combat.rules.core import replay as replay_events

    at = encounter.version // 2 + 17  # between two checkpoints
    step = best_of(lambda: replay.build(encounter, True, str(at)), runs=5)
    from_start = best_of(
        lambda: replay_events(bb.evolve, store.load_initial(encounter), store.load_log(encounter, until=at)), runs=3
    )
    n = encounter.events.count()
    return (
        f"| replay step: the GM's table at entry {at:,} of {n:,} (checkpoint, round bounds, entries, render) "
        f"| {step * 1000:,.1f} ms | replaying from the start to it (state only) {from_start * 1000:,.1f} ms "
        f"| {step / from_start:.2f}× |"
    )


def review_page_line(encounter) -> str:
    """The review page (summary, charts, replay, timeline) of a ~500-event fight, the whole GET as the GM. Static
    files are not collected in this process: their URLs come from the plain storage (no manifest to read)."""
    from django.conf import settings
    from django.test import Client, override_settings

    plain = {**settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    with override_settings(STORAGES=plain):
        return _review_page_line(encounter, Client())


def _review_page_line(encounter, client) -> str:
    client.force_login(encounter.campaign.created_by)
    base = f"/campaigns/{encounter.campaign_id}/encounters/{encounter.pk}/"
    for path in (base, base + "log/"):
        assert client.get(path).status_code == 200, path
    review = best_of(lambda: client.get(base + "log/"), runs=5)
    table = best_of(lambda: client.get(base), runs=5)
    n = encounter.events.count()
    goal = "within" if review < 0.3 else "over"
    return (
        f"| review page of a {n:,}-event fight, server time (GM) | {review * 1000:,.0f} ms "
        f"({goal} the goal of < 300 ms) | the live table page {table * 1000:,.0f} ms | {review / table:.1f}× |"
    )


def history_campaign(fights: int, events: int):
    """A campaign with `fights` finished Burn Bryte fights of about `events` events each: one built by
    long_encounter, ended, then copied row for row (its combatants, log and checkpoints) into the same campaign."""
    from combat.models import Combatant, Encounter, EncounterEvent, LogCheckpoint

    first = long_encounter_ended(events)
    combatants = list(Combatant.objects.filter(encounter=first))
    log = list(EncounterEvent.objects.filter(encounter=first))
    checkpoints = list(LogCheckpoint.objects.filter(encounter=first))
    for n in range(2, fights + 1):
        copy = Encounter.objects.get(pk=first.pk)
        copy.pk, copy.name = None, f"Long fight {n}"
        copy.save()
        for rows in (combatants, log, checkpoints):
            for row in rows:
                row.pk, row.encounter = None, copy
            type(rows[0]).objects.bulk_create(rows, batch_size=1000)
    return first


def long_encounter_ended(events: int):
    from bench.setup import long_encounter
    from combat.models import Encounter

    encounter = long_encounter(events, tag="history")
    encounter.status = Encounter.Status.ENDED
    encounter.save(update_fields=["status"])
    return encounter


def history_page_lines(encounter) -> list[str]:
    """The History page of `encounter`'s campaign, the whole GET for its GM and for one of its players, against the
    review page of that one fight for the same viewer."""
    from django.conf import settings
    from django.core.cache import cache
    from django.test import Client, override_settings

    from campaigns.models import Membership

    plain = {**settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    player = Membership.objects.filter(campaign=encounter.campaign, role=Membership.Role.PLAYER).first().user
    fights = encounter.campaign.encounters.count()
    n = encounter.events.count()
    lines = []
    with override_settings(STORAGES=plain):
        for who, user in (("GM", encounter.campaign.created_by), ("player", player)):
            client = Client()
            client.force_login(user)
            page = f"/campaigns/{encounter.campaign_id}/archive/"
            review = f"/campaigns/{encounter.campaign_id}/encounters/{encounter.pk}/log/"
            for path in (page, review):
                assert client.get(path).status_code == 200, path
            cache.clear()  # the first reader after the fights ended: every fight replayed once
            first = best_of(lambda: client.get(page), runs=1)  # noqa: B023  (called at once)
            history = best_of(lambda: client.get(page), runs=3)  # noqa: B023  (called at once)
            one = best_of(lambda: client.get(review), runs=3)  # noqa: B023
            goal = "within" if history < 0.3 else "over"
            lines.append(
                f"| History page, {fights} finished fights of {n:,} events, server time ({who}) "
                f"| {history * 1000:,.0f} ms ({goal} 300 ms; the first reader after they ended {first * 1000:,.0f} ms) "
                f"| the review page of one of them {one * 1000:,.0f} ms "
                f"| {history / one:.1f}× |"
            )
    return lines


class _Discard(io.TextIOBase):
    """A file that keeps nothing: what an export streams to storage does not stay in memory."""

    def write(self, s):
        return len(s)
