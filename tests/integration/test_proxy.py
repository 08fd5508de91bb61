"""The reverse proxy: HAProxy, run from config/haproxy.cfg (the file docker-compose.yml mounts), terminating TLS in
front of two daphne replicas that run as compose runs them (production settings, --proxy-headers).

Phones on a replica that dies reconnect through the proxy to the other and are sent the current table; actions
posted through the proxy before, during and after the failover are all committed and shown on every phone. Django
sees HTTPS and the real client address: a login lockout is keyed on the address the proxy saw, never on an
X-Forwarded-For the client sent.

Run by `make test-integration` (which installs Debian's haproxy package when missing). The replicas use the
pytest-django test database and a private redis-server, as in test_scale_out.py.
"""

import concurrent.futures
import secrets
import signal
import subprocess
import time
import urllib.error

import pytest
import yaml
from axes.models import AccessAttempt
from django.db import connection

from combat import services
from combat.models import Encounter, EncounterEvent
from tests.conftest import PASSWORD
from tests.integration import procs

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

COMPOSE = yaml.safe_load((procs.ROOT / "docker-compose.yml").read_text())


def compose_daphne_flags() -> tuple[str, ...]:
    """The flags compose's web gives daphne (--proxy-headers), less the address and port: the test picks its own."""
    script = COMPOSE["services"]["web"]["command"][-1]
    argv = next(line.split() for line in script.splitlines() if line.strip().startswith("exec daphne"))
    assert argv[-1] == "config.asgi:application", argv
    flags, rest = [], iter(argv[2:-1])
    for arg in rest:
        if arg in ("-b", "-p"):
            next(rest)
        else:
            flags.append(arg)
    return tuple(flags)


DAPHNE_FLAGS = compose_daphne_flags()
ALLOWED_HOSTS = "localhost,127.0.0.1"
FAILURE_LIMIT = 3  # failed logins before a lockout (AXES_FAILURE_LIMIT)


@pytest.fixture
def stack(tmp_path, django_db_setup):
    """A private redis-server, replicas A and B on production settings, and HAProxy in front of both, holding
    both up. Stopped (whatever is left of it) at the end."""
    assert connection.vendor == "postgresql", "run with DATABASE_URL (make test-integration)"
    procs.haproxy_binary()  # before anything starts: a missing HAProxy fails with the sentence saying how to install it
    redis_server = procs.RedisServer(tmp_path / "redis").start()
    env = procs.app_env(
        tmp_path / "var",
        tmp_path / "media",
        redis_server.url,
        DJANGO_SETTINGS_MODULE="config.settings_production",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS=ALLOWED_HOSTS,
        AXES_FAILURE_LIMIT=str(FAILURE_LIMIT),
    )
    servers, proxy = [], None
    try:
        servers = [procs.start_daphne(name, env, tmp_path, DAPHNE_FLAGS) for name in ("A", "B")]
        proxy = procs.start_proxy(servers, tmp_path / "proxy", ALLOWED_HOSTS)
        # Up once the proxy's health checks pass on both: /healthz answered 200 under production settings. The bound:
        # daphne starting, then two checks in a row passing.
        procs.wait_until(
            lambda: any(s.proc.poll() is not None for s in servers) or proxy.replicas_up() == 2,
            procs.START_TIMEOUT + procs.WAIT,
            message=lambda: (
                f"both replicas up behind the proxy (it says {proxy.replicas_up()}):\n"
                f"{proxy.log_text()}\n{servers[0].log_text()}\n{servers[1].log_text()}"
            ),
        )
        for server in servers:
            assert server.proc.poll() is None, f"daphne {server.name} exited:\n{server.log_text()}"
        yield {"proxy": proxy, "A": servers[0], "B": servers[1]}
    finally:
        if proxy:
            procs.stop(proxy.proc)
        for server in servers:
            procs.stop(server.proc)
        redis_server.stop()


@pytest.fixture
def fight(campaign, gm, player, other_player, pc, other_pc, npc):
    """A running Burn Bryte encounter in Phase 1 with the enemy's action declared; everyone logs in for real.
    Luwe is at 10 of 20 Health Levels, so the GM's changes below neither fill nor empty them (a change that would do
    nothing is refused)."""
    pc.stats = {"health": 10, "health_max": 20}
    pc.save()
    encounter = services.start_encounter(
        services.create_encounter(
            campaign, gm, name="Relay", model="burn_bryte", pcs=[pc, other_pc], enemies=[(npc, 1)]
        ),
        gm,
    )
    assert services.submit(
        encounter.pk, gm, "declare", {"enemy": f"npc{npc.pk}-1", "target": f"pc{pc.pk}"}, "declare"
    ).ok
    procs.real_passwords(gm, player, other_player)
    encounter.refresh_from_db()
    return encounter


def compose_healthcheck(proxy: procs.Proxy) -> int:
    """docker-compose.yml's healthcheck for the proxy, run against this proxy (its monitor port in place of the
    container's 8404): its exit status."""
    test = COMPOSE["services"]["proxy"]["healthcheck"]["test"]
    assert test[0] == "CMD" and "8404" in " ".join(test), test
    argv = [arg.replace("8404", str(proxy.monitor_port)) for arg in test[1:]]
    return subprocess.run(argv, capture_output=True, timeout=procs.WAIT).returncode


def ws_connects(server: procs.Daphne) -> int:
    """Websockets this replica has accepted (daphne's access log)."""
    return server.log_text().count('"WSCONNECT ')


def change(n: int) -> int:
    """The n-th of the GM's Health Level changes: +1, -2, +3, -4, ...: from 10 of 20, never full and never 0."""
    return n if n % 2 else -n


def heal(pc, n: int) -> tuple[dict, str]:
    """The GM's form for the n-th change ("Luwe regains 1 Health Level", "Luwe loses 2 Health Levels", ...), and the
    sentence every table's log then shows."""
    form = {"command": "adjust_health", "target": f"pc{pc.pk}", "change": str(change(n)), "key": f"heal-{n}"}
    return form, f"{pc.name} {'regains' if n % 2 else 'loses'} {n} Health Level{'s' if n != 1 else ''}."


def post_until_answered(browser: procs.Browser, url: str, form: dict) -> int:
    """POST the form; when the proxy answers that the replica died under the request (502/503/504, or the connection
    drops), post the same form again, as a phone's second tap does: its key makes the action count once.
    Returns the number of posts it took."""
    deadline = time.monotonic() + procs.WAIT
    for attempt in range(1, 1000):
        try:
            response = browser.post(url, form)
        except (urllib.error.URLError, ConnectionError) as exc:
            response, failure = None, repr(exc)
        else:
            failure = f"{response.status}: {response.text[:2000]}"
            if response.status == 200:
                assert "notice error-box" not in response.text, f"refused: {response.text[:2000]}"
                return attempt
            assert response.status in (502, 503, 504), failure
        assert time.monotonic() < deadline, f"{form['key']} still not answered after {attempt} posts ({failure})"
        time.sleep(0.05)  # the next tap
    raise AssertionError("unreachable")


def test_phones_on_a_killed_replica_reconnect_through_the_proxy_and_no_action_is_lost(
    stack, fight, gm, player, other_player, pc
):
    proxy, a, b = stack["proxy"], stack["A"], stack["B"]
    context = proxy.context()
    origin = proxy.base
    url = proxy.base + procs.act_url(fight)
    path = procs.ws_path(fight)
    browsers = {}
    for user in (gm, player, other_player):  # logged in through the proxy, on whichever replica it picked
        browsers[user.username] = procs.Browser(context=context)
        browsers[user.username].login(proxy.base, user.username, PASSWORD)

    def phone(browser: procs.Browser) -> procs.Socket:
        return procs.Socket(proxy.ws_base, path, browser, proxy.https_port, origin=origin, context=context)

    # Six phones, two per person; each is sent the table at once. The proxy spreads them over both replicas.
    assert compose_healthcheck(proxy) == 0
    v0 = fight.version
    phones: list[procs.Socket] = []
    owner: dict[procs.Socket, procs.Browser] = {}
    try:
        for browser in browsers.values():
            for _ in range(2):
                phones.append(phone(browser))
                owner[phones[-1]] = browser
                _, first = phones[-1].next_frame()
                assert procs.versions(first)["table"] == v0
        on_a = ws_connects(a)
        assert on_a >= 1 and ws_connects(b) >= 1, (on_a, ws_connects(b))

        # The GM heals twelve times in a row, from another thread. After the third, replica A dies outright.
        actions = [heal(pc, amount) for amount in range(1, 13)]
        gm_browser = browsers[gm.username]
        posts: list[int] = []  # posts each heal took
        unnoticed = 0  # heals answered after A died but before the proxy's health checks noticed

        def gm_posts(batch):
            nonlocal unnoticed
            for form, _ in batch:
                started = time.monotonic()
                posts.append(post_until_answered(gm_browser, url, form))
                unnoticed += killed is not None and started > killed and proxy.replicas_up() == 2

        killed = None
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            during = pool.submit(gm_posts, actions[:8])
            procs.wait_until(lambda: len(posts) >= 3 or during.done(), message="the first three heals")
            killed = time.monotonic()
            procs.stop(a.proc, signal.SIGKILL)  # no clean-up, no goodbye to its sockets

            # A's phones are dropped, and reconnect through the same address; B's stay connected.
            procs.wait_until(
                lambda: sum(p.closed.is_set() for p in phones) >= on_a, message="A's phones noticing it died"
            )
            dropped = [p for p in phones if p.closed.is_set()]
            assert len(dropped) == on_a, (len(dropped), on_a)
            noticed = max(p.close_info[1] for p in dropped) - killed
            for old in dropped:
                before = Encounter.objects.get(pk=fight.pk).version
                new = phone(owner[old])
                phones[phones.index(old)] = new
                _, first = new.next_frame()  # the current table, as it stood when the phone came back
                after = Encounter.objects.get(pk=fight.pk).version
                assert before <= procs.versions(first)["table"] <= after, (before, procs.versions(first), after)
            during.result(timeout=procs.WAIT)
        assert ws_connects(b) >= len(phones)  # every phone now on B: three at first, and A's
        proxy.wait_replicas_up(1)  # its health checks took A out

        # After the failover: four more heals, through the proxy.
        gm_posts(actions[8:])
        final = v0 + len(actions)

        # Every heal was committed once, in order, and every phone's table shows each of them.
        events = EncounterEvent.objects.filter(encounter=fight, seq__gt=v0).order_by("seq")
        assert [(e.seq, e.kind, e.payload["data"]["change"]) for e in events] == [
            (v0 + n, "health_adjusted", change(n)) for n in range(1, len(actions) + 1)
        ]
        assert Encounter.objects.get(pk=fight.pk).version == final
        for p in phones:
            _, html = p.wait_for_version("table", final)
            missing = [sentence for _, sentence in actions if sentence not in html]
            assert not missing, f"a phone's table lacks {missing}"
        assert not [p for p in phones if p.closed.is_set()], "a phone on B was dropped"
    finally:
        for p in phones:
            p.close()

    # The proxy's own healthcheck (compose's) holds while one replica is up, and fails once none is.
    assert compose_healthcheck(proxy) == 0
    procs.stop(b.proc, signal.SIGKILL)
    proxy.wait_replicas_up(0)
    assert compose_healthcheck(proxy) != 0
    retried = sum(n > 1 for n in posts)
    print(
        f"\nfailover: {on_a} of {len(phones)} phones on A, dropped {noticed * 1000:.0f} ms after the kill and back "
        f"on B; {unnoticed} heals answered while the proxy still held A up, {retried} of {len(actions)} posted "
        f"again after a gateway error"
    )


def test_through_the_proxy_django_sees_https_and_the_real_client_address(stack, gm):
    proxy = stack["proxy"]
    context = proxy.context()
    procs.real_passwords(gm)

    # Plain HTTP is sent to HTTPS by the proxy, whatever the client claims.
    plain = procs.Browser().request(proxy.http_base + "/accounts/login/?next=/", headers={"X-Forwarded-Proto": "https"})
    assert plain.status == 301 and plain.headers["location"].startswith("https://"), (plain.status, plain.headers)
    assert plain.headers["location"].endswith("/accounts/login/?next=/")
    # Over HTTPS Django knows the request is secure (HSTS, Secure cookies), from the proxy's X-Forwarded-Proto.
    browser = procs.Browser(context=context)
    page = browser.request(proxy.base + "/accounts/login/")
    assert page.status == 200 and "max-age=" in page.headers.get("strict-transport-security", ""), page.headers
    assert browser.cookie("csrftoken") and all(cookie.secure for cookie in browser.jar)

    # Client X (127.0.0.2) fails to log in as the GM until it is locked out, claiming to be elsewhere each time.
    x = procs.Browser(context=context, source="127.0.0.2")
    for n in range(1, FAILURE_LIMIT + 1):
        tried = x.login_attempt(
            proxy.base, gm.username, "not-the-password", headers={"X-Forwarded-For": f"198.51.100.{n}"}
        )
        if n < FAILURE_LIMIT:
            assert tried.status == 400 and "Please enter a correct" in tried.text, tried.text[:2000]
    assert tried.status == 429 and "Too many failed logins" in tried.text, tried.text[:2000]
    # A header naming another address does not lift it: X stays locked out, even with the right password.
    for forged in ("198.51.100.9", "127.0.0.3", "127.0.0.1"):
        again = x.login_attempt(proxy.base, gm.username, PASSWORD, headers={"X-Forwarded-For": forged})
        assert again.status == 429, (forged, again.status, again.text[:2000])

    # Client Y (127.0.0.3) is not locked out with X, even when it names X's address in the header.
    y = procs.Browser(context=context, source="127.0.0.3")
    done = y.login_attempt(proxy.base, gm.username, PASSWORD, headers={"X-Forwarded-For": "127.0.0.2"})
    assert done.status == 302 and y.cookie("sessionid"), (done.status, done.text[:2000])

    # django-axes recorded every failure under the address the proxy saw, never a forged one.
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"127.0.0.2"}
