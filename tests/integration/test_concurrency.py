"""Phones acting at the same moment, on real PostgreSQL row locks: through the services, and through HTTP on two
daphne processes sharing the database and Redis."""

import html
import re
import threading

import pytest
from django.db import connection

from campaigns.models import Character, Membership
from combat import services
from combat.models import EncounterEvent
from tests.conftest import PASSWORD, make_user
from tests.integration import procs

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _race(calls):
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(i, fn):
        try:
            barrier.wait()
            results[i] = fn()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return results


@pytest.fixture
def table(campaign, gm, npc):
    # The enemy at 10 of 20 Health Levels: ten +1 and ten -1 in any order never meet a full or an empty track, where
    # a change that would do nothing is refused.
    npc.stats = {"health": 10, "health_max": 20}
    npc.save()
    players = [make_user(f"p{i}") for i in range(4)]
    pcs = []
    for i, user in enumerate(players):
        Membership.objects.create(campaign=campaign, user=user)
        pcs.append(Character.objects.create(campaign=campaign, name=f"PC {i}", owner=user, system="burn_bryte"))
    encounter = services.start_encounter(
        services.create_encounter(campaign, gm, name="Rush", model="burn_bryte", pcs=pcs, enemies=[(npc, 1)]), gm
    )
    services.submit(encounter.pk, gm, "declare", {"enemy": f"npc{npc.pk}-1", "target": f"pc{pcs[0].pk}"}, "d")
    services.submit(encounter.pk, gm, "start_players", {}, "s")
    return encounter, players, pcs


def test_two_phones_claiming_at_once_are_serialised(table):
    encounter, players, pcs = table
    assert connection.vendor == "postgresql"
    results = _race(
        [
            (lambda u=u, c=c: services.submit(encounter.pk, u, "claim_turn", {"actor": f"pc{c.pk}"}, f"claim-{c.pk}"))
            for u, c in zip(players, pcs, strict=True)
        ]
    )
    winners = [r for r in results if r.ok]
    losers = [r for r in results if not r.ok]
    assert len(winners) == 1
    assert all(r.error.endswith("is still taking their turn.") for r in losers)
    seqs = list(EncounterEvent.objects.filter(encounter=encounter).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


def test_a_double_tap_from_several_connections_acts_once(table):
    encounter, players, pcs = table
    results = _race(
        [
            (lambda: services.submit(encounter.pk, players[1], "claim_turn", {"actor": f"pc{pcs[1].pk}"}, "same-key"))
            for _ in range(5)
        ]
    )
    assert all(r.ok for r in results)
    assert EncounterEvent.objects.filter(encounter=encounter, kind="turn_started").count() == 1


# --- through HTTP, on two daphne processes --------------------------------------------------------------------

NOTICE = re.compile(r'<p id="enc-\d+-notice"[^>]*class="notice( error-box)?"[^>]*>(.*?)</p>', re.S)


@pytest.fixture(scope="module")
def replicas(tmp_path_factory, django_db_setup):
    """Two daphne processes on the test database and one private redis-server (their channel layer and cache)."""
    assert connection.vendor == "postgresql", "run with DATABASE_URL (make test-integration)"
    tmp_path = tmp_path_factory.mktemp("replicas")
    redis_server = procs.RedisServer(tmp_path / "redis").start()
    env = procs.app_env(tmp_path / "var", tmp_path / "media", redis_server.url)
    servers = []
    try:
        servers = [procs.start_daphne(name, env, tmp_path) for name in ("A", "B")]
        for server in servers:
            procs.wait_ready(server)
        yield servers
    finally:
        for server in servers:
            procs.stop(server.proc)
        redis_server.stop()


def _answer(response) -> tuple[bool, str]:
    """(taken, the table's sentence) from the htmx answer to an action; anything but a 200 fails the test."""
    assert response.status == 200, (response.status, response.text[:2000])
    match = NOTICE.search(response.text)
    assert match, response.text[:2000]
    return not match.group(1), html.unescape(match.group(2))


def test_a_busy_table_on_two_replicas_loses_no_action_and_keys_are_each_users_own(replicas, table, gm):
    """A GM, a co-GM and three players post at once, each post to one of two daphne processes. The GMs send the
    same ten keys with the same actions (both GMs' are taken: a key is its sender's) and repeat some of their own
    (taken once); the players race to claim the turn (one wins) with one key string, each double-tapping, and try
    a GM's action under the GM's key (refused on its merits, a key shared with the GM lets nothing through)."""
    encounter, players, pcs = table
    players = players[:3]
    co_gm = make_user("cora")
    Membership.objects.create(campaign=encounter.campaign, user=co_gm, role=Membership.Role.GM)
    procs.real_passwords(gm, co_gm, *players)
    encounter.refresh_from_db()
    v0 = encounter.version
    enemy = next(c.key for c in encounter.combatants.all() if c.side == "enemy")

    browsers = {}
    for i, user in enumerate([gm, co_gm, *players]):
        browsers[user.pk] = procs.Browser()
        browsers[user.pk].login(replicas[i % 2].base, user.username, PASSWORD)

    def health(i):
        return {"command": "adjust_health", "target": enemy, "change": "-1" if i % 2 else "1", "key": f"hp-{i}"}

    posts = []  # (user, form)
    for user in (gm, co_gm):
        posts += [(user, health(i)) for i in range(10)]
    posts += [(gm, health(i)) for i in range(5)] + [(co_gm, health(i)) for i in range(5, 10)]  # double taps
    for user, pc in zip(players, pcs, strict=False):
        posts += [(user, {"command": "claim_turn", "actor": f"pc{pc.pk}", "key": "claim"})] * 2
        posts.append((user, health(0)))

    barrier = threading.Barrier(len(posts))
    answers: list = [None] * len(posts)

    def send(i, user, form):
        server = replicas[i % 2]  # every other post to the other process
        barrier.wait(timeout=procs.WAIT)
        browser = browsers[user.pk]
        # As Browser.post, with room to wait behind the others for the encounter's lock on a busy machine.
        headers = {"X-CSRFToken": browser.cookie("csrftoken"), "HX-Request": "true"}
        answers[i] = _answer(
            browser.request(server.base + procs.act_url(encounter), form, headers, timeout=2 * procs.WAIT)
        )

    threads = [threading.Thread(target=send, args=(i, user, form)) for i, (user, form) in enumerate(posts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=3 * procs.WAIT)
    assert not any(thread.is_alive() for thread in threads)
    assert None not in answers, "a post got no answer"

    by_kind: dict = {}
    for (user, form), (taken, sentence) in zip(posts, answers, strict=True):
        by_kind.setdefault((user.pk in (gm.pk, co_gm.pk), form["command"]), []).append((user, taken, sentence))
    assert all(taken for _, taken, _ in by_kind[(True, "adjust_health")])  # the GMs': every one, repeats too
    assert by_kind[(False, "adjust_health")] == [(u, False, "Only the GM can do that.") for u in players]
    claims = by_kind[(False, "claim_turn")]
    winners = {user.pk for user, taken, _ in claims if taken}
    assert len(winners) == 1, claims  # and both of the winner's taps answered as taken
    assert [taken for user, taken, _ in claims if user.pk in winners] == [True, True]
    assert all(sentence.endswith("is still taking their turn.") for user, taken, sentence in claims if not taken)

    # Nothing lost, nothing twice: 10 + 10 health changes and one turn, in one gapless run of seqs.
    encounter.refresh_from_db()
    events = list(EncounterEvent.objects.filter(encounter=encounter, seq__gt=v0).order_by("seq"))
    assert encounter.version == v0 + 21 == v0 + len(events)
    assert list(
        EncounterEvent.objects.filter(encounter=encounter).order_by("seq").values_list("seq", flat=True)
    ) == list(range(1, encounter.version + 1))
    for user in (gm, co_gm):
        for i in range(10):
            assert [
                e.kind
                for e in events
                if e.actor_id == user.pk and e.idempotency_key.startswith(services.sender_key(user, f"hp-{i}:"))
            ] == ["health_adjusted"]
    assert [(e.kind, e.actor_id) for e in events if e.kind == "turn_started"] == [("turn_started", winners.pop())]
    logs = replicas[0].log_text() + replicas[1].log_text()
    assert "Traceback" not in logs and "Exception" not in logs, logs
