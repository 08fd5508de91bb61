"""Faults on the real services: Redis stopped mid-encounter, twenty phones in conflict, a worker killed mid-export.

Run by `make test-integration`. Servers run in subprocesses on the pytest-django test database and a PRIVATE
redis-server that these tests kill and restart (the shared Redis on 6379 is never touched).
"""

import json
import signal
import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from campaigns.models import Character, Invite, Membership
from combat import services, store
from combat.models import EncounterEvent, ExportJob
from combat.rules.core import replay, to_json
from tests.conftest import PASSWORD, make_user
from tests.integration import procs

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def private_redis(tmp_path):
    assert connection.vendor == "postgresql", "run with DATABASE_URL (make test-integration)"
    server = procs.RedisServer(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.stop()


# --- Redis stopped mid-encounter -----------------------------------------------------------------------------


@pytest.fixture
def fight(campaign, gm, player, pc, npc):
    encounter = services.start_encounter(
        services.create_encounter(campaign, gm, name="Blackout", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm
    )
    assert services.submit(
        encounter.pk, gm, "declare", {"enemy": f"npc{npc.pk}-1", "target": f"pc{pc.pk}"}, "declare"
    ).ok
    procs.real_passwords(gm, player)
    encounter.refresh_from_db()
    return encounter


def test_redis_stopped_mid_encounter_actions_still_commit_and_clients_resync(
    private_redis, fight, gm, player, pc, tmp_path
):
    env = procs.app_env(tmp_path / "var", tmp_path / "media", private_redis.url)
    server = procs.start_daphne("solo", env, tmp_path)
    sockets = []
    try:
        procs.wait_ready(server)
        gm_browser, player_browser = procs.Browser(), procs.Browser()
        gm_browser.login(server.base, gm.username, PASSWORD)
        player_browser.login(server.base, player.username, PASSWORD)
        v0 = fight.version
        phone = procs.Socket(server.ws_base, procs.ws_path(fight), player_browser, server.port)
        sockets.append(phone)
        _, first = phone.next_frame()
        assert procs.versions(first)["table"] == v0

        # Redis goes away.
        killed = time.monotonic()
        private_redis.kill()

        # The GM acts all the same: the action is committed, the page answers, no 500.
        down = gm_browser.post(server.base + procs.act_url(fight), {"command": "start_players", "key": "go"})
        assert down.status == 200, down.text[:3000]
        assert procs.versions(down.text)["gm"] == v0 + 1  # the GM's own page shows the new state
        assert down.seconds < 5, f"{down.seconds:.1f} s to answer with Redis down"
        fight.refresh_from_db()
        assert fight.version == v0 + 1
        assert EncounterEvent.objects.filter(encounter=fight, seq=v0 + 1, kind="phase_started").exists()
        plain = gm_browser.post(
            server.base + procs.act_url(fight), {"command": "start_players", "key": "again"}, htmx=False
        )
        assert plain.status == 302  # a plain form (a refusal here: already Phase 2) is redirected, as usual

        # Redis is the Celery broker too. Asking for an export is answered (no 500) and the job says it failed,
        # rather than waiting forever in "queued" for a worker that will never hear of it.
        export = gm_browser.post(
            server.base + f"/campaigns/{fight.campaign_id}/encounters/{fight.pk}/log/export/",
            {"format": "csv"},
            htmx=False,
        )
        assert export.status == 302, export.text[:3000]
        assert ExportJob.objects.get(encounter=fight).status == ExportJob.Status.FAILED
        log_page = gm_browser.request(server.base + f"/campaigns/{fight.campaign_id}/encounters/{fight.pk}/log/")
        assert log_page.status == 200 and "the export failed. The task queue could not be reached." in log_page.text
        assert ">Try again</button>" in log_page.text
        # A newcomer joining by code is let in (the GMs' "new player" e-mail is lost, and logged), not shown a 500.
        newcomer = make_user("newcomer")
        procs.real_passwords(newcomer)
        newcomer_browser = procs.Browser()
        newcomer_browser.login(server.base, newcomer.username, PASSWORD)
        code = Invite.objects.create(
            campaign=fight.campaign, created_by=gm, expires_at=timezone.now() + timedelta(days=1)
        ).code
        joined = newcomer_browser.post(server.base + "/join/", {"code": code}, htmx=False)
        assert joined.status == 302, joined.text[:3000]
        assert Membership.objects.filter(campaign=fight.campaign, user=newcomer).exists()

        # The phone's socket is dropped (daphne closes it when its channel layer fails), so the page's
        # reconnect loop starts; nothing newer than v0 reached it.
        assert phone.closed.wait(5), "the socket stayed open with its channel layer gone: it would never resync"
        dropped_after = phone.close_info[1] - killed
        while not phone.frames.empty():
            assert procs.versions(phone.frames.get_nowait()[1]).get("table", v0) == v0

        # A phone connecting while Redis is down is refused (not left open and deaf).
        during = procs.Socket(server.ws_base, procs.ws_path(fight), player_browser, server.port)
        sockets.append(during)
        assert during.closed.wait(5) and during.frames.empty()
        assert not during.opened.is_set(), "a socket opened without its groups would miss every update"

        # Redis returns on the same port (empty: groups and all); a reconnecting phone gets the current state.
        private_redis.start()
        again = procs.Socket(server.ws_base, procs.ws_path(fight), player_browser, server.port)
        sockets.append(again)
        _, html = again.next_frame(timeout=10)
        assert procs.versions(html) == {"table": v0 + 1, "me": v0 + 1}
        assert "Phase 2" in html

        # And live updates flow again, within a second.
        sent = time.monotonic()
        response = player_browser.post(
            server.base + procs.act_url(fight), {"command": "claim_turn", "actor": f"pc{pc.pk}", "key": "claim"}
        )
        assert response.status == 200, response.text[:3000]
        arrived, _ = again.wait_for_version("table", v0 + 2, timeout=5)
        assert arrived - sent < 1.0
    finally:
        for s in sockets:
            s.close()
        procs.stop(server.proc)
    requests = [line for line in server.log_text().splitlines() if '"POST ' in line or '"GET ' in line]
    assert requests and not [line for line in requests if '" 500 ' in line], requests
    print(
        f"\nRedis down: POST answered {down.status} in {down.seconds * 1000:.0f} ms (plain form "
        f"{plain.status} in {plain.seconds * 1000:.0f} ms); phone socket closed {phone.close_info[0]} "
        f"after {dropped_after:.2f} s; "
        f"connect while down refused ({during.error!r:.60})"
    )


# --- twenty phones in conflict -------------------------------------------------------------------------------


def _all_at_once(calls):
    """Each call in its own thread (so its own PostgreSQL connection), released together; exceptions returned."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(i, fn):
        try:
            barrier.wait(timeout=procs.WAIT)
            results[i] = fn()
        except BaseException as exc:  # noqa: BLE001  (asserted on below: there must be none)
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, fn), name=f"phone-{i}") for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=procs.WAIT)
        assert not t.is_alive(), f"{t.name} did not finish within {procs.WAIT} s"
    return results


def _check_race(encounter, results, before: int) -> list:
    """No exception; every refusal is a sentence; the committed events are exactly the winners' events."""
    assert not [r for r in results if isinstance(r, BaseException)], results
    refused = [r for r in results if not r.ok]
    assert all(r.error and r.error[0].isupper() and r.error.endswith(".") for r in refused), [r.error for r in refused]
    won = [seq for r in results if r.ok for seq in r.seqs]
    assert all(r.seqs and not r.duplicate for r in results if r.ok)  # distinct keys: nobody was a duplicate
    encounter.refresh_from_db()
    new = list(
        EncounterEvent.objects.filter(encounter=encounter, seq__gt=before).order_by("seq").values_list("seq", flat=True)
    )
    assert sorted(won) == new == list(range(before + 1, encounter.version + 1))  # none lost, none twice
    return refused


def _log_is_consistent(encounter):
    encounter.refresh_from_db()
    seqs = list(EncounterEvent.objects.filter(encounter=encounter).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, encounter.version + 1))  # no gap, no duplicate
    engine = store.engine_for(encounter)
    replayed = replay(engine.evolve, store.load_initial(encounter), store.load_log(encounter))
    assert to_json(replayed) == encounter.state  # the snapshot is the log's fold


def test_twenty_conflicting_submissions_lose_nothing_and_refuse_in_sentences(campaign, gm, npc):
    assert connection.vendor == "postgresql"
    players = [make_user(f"phone{i}") for i in range(20)]
    pcs = []
    for i, user in enumerate(players):
        Membership.objects.create(campaign=campaign, user=user)
        pcs.append(Character.objects.create(campaign=campaign, name=f"PC {i}", owner=user, system="burn_bryte"))
    encounter = services.start_encounter(
        services.create_encounter(campaign, gm, name="Crush", model="burn_bryte", pcs=pcs, enemies=[(npc, 2)]), gm
    )
    for n in (1, 2):
        assert services.submit(
            encounter.pk, gm, "declare", {"enemy": f"npc{npc.pk}-{n}", "target": f"pc{pcs[n].pk}"}, f"d{n}"
        ).ok
    assert services.submit(encounter.pk, gm, "start_players", {}, "s").ok
    encounter.refresh_from_db()

    # 1. Twenty players claim the turn at the same moment: one gets it.
    before = encounter.version
    results = _all_at_once(
        [
            (lambda u=u, c=c: services.submit(encounter.pk, u, "claim_turn", {"actor": f"pc{c.pk}"}, f"claim-{c.pk}"))
            for u, c in zip(players, pcs, strict=True)
        ]
    )
    refused = _check_race(encounter, results, before)
    assert len(refused) == 19 and encounter.version == before + 1
    assert all(r.error.endswith("is still taking their turn.") for r in refused)
    winner = next(i for i, r in enumerate(results) if r.ok)

    # 2. Mixed: the winner ends their turn while 18 others claim and the GM tries to start Phase 3. Whatever the
    # order PostgreSQL gives them, each lands whole or is refused with a sentence.
    before = encounter.version
    others = [i for i in range(20) if i != winner][:18]
    calls = [
        lambda: services.submit(encounter.pk, players[winner], "end_turn", {"actor": f"pc{pcs[winner].pk}"}, "end")
    ]
    calls += [
        (
            lambda i=i: services.submit(
                encounter.pk, players[i], "claim_turn", {"actor": f"pc{pcs[i].pk}"}, f"claim2-{i}"
            )
        )
        for i in others
    ]
    calls.append(lambda: services.submit(encounter.pk, gm, "start_enemies", {}, "phase3"))
    results = _all_at_once(calls)
    _check_race(encounter, results, before)
    assert results[0].ok  # only the winner could end the turn, and nothing could stop it
    assert sum(r.ok for r in results[1:]) <= 1  # at most one more turn, or Phase 3
    _log_is_consistent(encounter)

    # Into Phase 3, one step at a time.
    state = store.load_state(encounter)
    if state.turn:
        owner = next(u for u, c in zip(players, pcs, strict=True) if f"pc{c.pk}" == state.turn)
        assert services.submit(encounter.pk, owner, "end_turn", {"actor": state.turn}, "end2").ok
    encounter.refresh_from_db()
    if store.load_state(encounter).phase == 2:
        for left in store.load_state(encounter).pcs_left():  # their players are away: the GM skips them
            assert services.submit(encounter.pk, gm, "skip_turn", {"pc": left.id}, f"skip-{left.id}").ok
        assert services.submit(encounter.pk, gm, "start_enemies", {}, "phase3b").ok
    encounter.refresh_from_db()
    declaration = store.load_state(encounter).declarations[0].id

    # 3. Twenty taps from the GM's devices resolve the same declared attack at once: it hits once.
    before = encounter.version
    results = _all_at_once(
        [
            (
                lambda k=k: services.submit(
                    encounter.pk,
                    gm,
                    "resolve",
                    {"declaration": declaration, "outcome": "hit", "damage": 1},
                    f"resolve-{k}",
                )
            )
            for k in range(20)
        ]
    )
    refused = _check_race(encounter, results, before)
    assert len(refused) == 19 and encounter.version == before + 1
    assert {r.error for r in refused} == {"That action has already been resolved."}
    _log_is_consistent(encounter)


# --- a worker killed during an export ------------------------------------------------------------------------

STALE_AFTER = 3  # seconds without progress before an export's page fails it (settings: three minutes by default)


def _waiting_on_lock(table: str) -> bool:
    """Some other backend is blocked waiting for a lock on `table`."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = %s::regclass", [table])
        return cursor.fetchone()[0] > 0


def test_a_worker_killed_mid_export_fails_it_and_try_again_completes_it_once_on_a_new_worker(private_redis, tmp_path):
    """The broker keeps its realistic visibility timeout (minutes): the export's page does not wait for it. The
    job stops progressing, its page fails it with "Try again", a new worker runs the retry, and the dead worker's
    message, handed out again later, changes nothing."""
    from kombu import Connection

    from bench.setup import long_encounter
    from combat.tasks import STALLED, run_export
    from config.celery import app as celery_app

    encounter = long_encounter(2000)  # a real log, built with the rules core and bulk inserts
    total = EncounterEvent.objects.filter(encounter=encounter).count()
    assert total >= 2000 and total == encounter.version
    gm = encounter.created_by
    procs.real_passwords(gm)
    job = ExportJob.objects.create(encounter=encounter, requested_by=gm, gm_view=True, format="json")
    media = tmp_path / "media"
    env = procs.app_env(tmp_path / "var", media, private_redis.url, EXPORT_STALE_AFTER=str(STALE_AFTER))
    table = EncounterEvent._meta.db_table
    first = second = server = None
    try:
        first = procs.start_worker(env, tmp_path / "worker-1.log")
        # Hold the log's table so the export stops half-way, after the job is marked running: the moment to kill.
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f'LOCK TABLE "{table}" IN ACCESS EXCLUSIVE MODE')
            celery_app.conf.task_always_eager = False  # the autouse fixture turns it back on for the next test
            with celery_app.connection_for_write(private_redis.url) as broker:
                old_task = run_export.apply_async(args=[job.pk, job.attempt], connection=broker).id
            procs.wait_until(
                lambda: ExportJob.objects.get(pk=job.pk).status == ExportJob.Status.RUNNING,
                message=lambda: f"job running (worker log:\n{first.log_text()})",
            )
            procs.wait_until(lambda: _waiting_on_lock(table), message="the worker reading the log")
            procs.stop(first.proc, signal.SIGKILL)  # the machine dies: no clean-up, no ack, no requeue
            assert first.proc.returncode == -signal.SIGKILL
        # The lock is released; the dead worker's unacknowledged message waits in Redis for its visibility timeout.
        with private_redis.client() as r:
            assert r.hlen("unacked") == 1

        # Its page shows it failed once it has made no progress for STALE_AFTER seconds, with a "Try again" button.
        server = procs.start_daphne("exports", env, tmp_path)
        procs.wait_ready(server)
        browser = procs.Browser()
        browser.login(server.base, gm.username, PASSWORD)
        status_url = f"{server.base}/campaigns/{encounter.campaign_id}/exports/{job.pk}/"

        def failed_row() -> str:  # the row the page polls, once it shows the export failed
            page = browser.request(status_url).text
            return page if "the export failed." in page else ""

        row = procs.wait_until(failed_row, interval=0.25, message="the export shown failed")
        assert STALLED in row and ">Try again</button>" in row
        job.refresh_from_db()
        assert (job.status, job.attempt, job.error) == ("failed", 1, STALLED)
        with private_redis.client() as r:  # the broker has not handed the old message out again, nor lost it
            assert r.hlen("unacked") == 1 and r.llen("celery") == 0

        # "Try again" (POST, CSRF) queues a new attempt, which a new worker runs to the end.
        second = procs.start_worker(env, tmp_path / "worker-2.log")
        retry = browser.post(status_url + "retry/", {})
        assert retry.status == 200 and "queued…" in retry.text, retry.text[:2000]
        procs.wait_until(
            lambda: ExportJob.objects.get(pk=job.pk).status in ("done", "failed"),
            60,
            message=lambda: f"the retried export (worker log:\n{second.log_text()})",
        )
        job.refresh_from_db()
        assert (job.status, job.attempt) == ("done", 2), job.error
        assert "download" in browser.request(status_url).text
        download = browser.request(status_url + "download/")
        assert download.status == 200
        done = (job.file.name, job.events, job.finished_at)

        # Minutes later the broker hands the dead worker's message out again (here: its visibility timeout made to
        # pass now). The new worker takes it and leaves the newer run alone.
        with Connection(private_redis.url, transport_options={"visibility_timeout": 0}) as broker:
            broker.default_channel.qos.restore_visible(interval=1)
        procs.wait_until(
            lambda: f"run_export[{old_task}] succeeded" in second.log_text(),
            message=lambda: f"the old message run again (worker log:\n{second.log_text()})",
        )
        assert "'skipped'" in second.log_text().split(f"run_export[{old_task}] succeeded")[1].splitlines()[0]
        with private_redis.client() as r:  # acknowledged: nothing left to hand out
            procs.wait_until(lambda: r.hlen("unacked") == 0, message="the ack")
            assert r.llen("celery") == 0
    finally:
        for worker in (first, second):
            if worker:
                procs.stop(worker.proc)
        if server:
            procs.stop(server.proc)

    job.refresh_from_db()
    assert (job.status, job.attempt, job.file.name, job.events, job.finished_at) == ("done", 2, *done)
    files = list((media / "exports").iterdir())
    assert [f.name for f in files] == [job.file.name.split("/")[-1]]  # one file: nothing half-written left over
    exported = json.loads(files[0].read_text())
    assert json.loads(download.body) == exported
    seqs = [e["seq"] for e in exported["events"]]
    assert job.events == total == len(seqs) and seqs == list(range(1, total + 1))  # whole log, once each
    assert exported["final"] == encounter.state
    requests = [line for line in server.log_text().splitlines() if '"POST ' in line or '"GET ' in line]
    assert requests and not [line for line in requests if '" 500 ' in line], requests
