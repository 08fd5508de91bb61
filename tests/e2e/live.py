"""Fixtures for the live-table browser test: a real daphne (HTTP + websockets) in a subprocess.

pytest-django's live server is WSGI-only and cannot carry the table's websocket, so this starts Fray the way
`make run` serves it (as tests/test_serving.py does): its own FRAY_VAR_DIR with a SQLite database copied from
one that migrate and load_demo set up once per run (plus one NPC the GM keeps unseen), and no DATABASE_URL /
REDIS_URL, so the channel layer is in memory.
"""

import os
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import closing
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO_PASSWORD = "fray-demo-table"
# An extra Burn Bryte NPC for the GM to bring in unseen: its name and actions must never reach a player.
LURKER = "SECRET Lurker"
ADD_LURKER = f"""
from campaigns.models import Campaign, Character
campaign = Campaign.objects.get(name="The Drift Between Stars")
Character.objects.get_or_create(campaign=campaign, name={LURKER!r},
                                defaults=dict(system="burn_bryte", kind=Character.Kind.NPC, stats={{}}))
"""


# The environment each running daphne_server was started with, by its base URL: to run manage.py on its database.
SERVER_ENV: dict[str, dict] = {}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_env(var):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    env.update(FRAY_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="config.settings", DEBUG="false")
    return env


def _manage(env, *args):
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="session")
def demo_var(tmp_path_factory):
    """A var folder set up once per run as `make run` sets it up (migrate, collectstatic, load_demo) plus the
    lurker: each module's daphne starts from a copy of its database and shares its collected static files."""
    var = tmp_path_factory.mktemp("fray-demo")
    env = _server_env(var)
    _manage(env, "migrate", "--noinput", "-v0")
    _manage(env, "collectstatic", "--noinput", "-v0")
    _manage(env, "load_demo")
    _manage(env, "shell", "-c", ADD_LURKER)
    return var


@pytest.fixture(scope="module")
def daphne_server(demo_var, tmp_path_factory, request):
    """Base URL of a daphne serving the demo campaign; stopped after the module. A test module may set
    SERVER_SETUP: Python that `manage.py shell` runs after the demo loads (more encounters, say)."""
    var = tmp_path_factory.mktemp("fray-var")
    # SQLite's backup API copies the demo database whole, whatever its write-ahead log still holds.
    with (
        closing(sqlite3.connect(demo_var / "fray.sqlite3")) as source,
        closing(sqlite3.connect(var / "fray.sqlite3")) as copy,
    ):
        source.backup(copy)
    (var / "staticfiles").symlink_to(demo_var / "staticfiles", target_is_directory=True)
    env = _server_env(var)
    if setup := getattr(request.module, "SERVER_SETUP", ""):
        _manage(env, "shell", "-c", setup)
    port = _free_port()
    log = open(var / "daphne.log", "w")
    daphne = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(base + "/accounts/login/", timeout=2):
                break
        except urllib.error.HTTPError:
            break
        except OSError:
            if daphne.poll() is not None or time.monotonic() > deadline:
                daphne.kill()
                log.close()
                pytest.fail(f"daphne did not start:\n{(var / 'daphne.log').read_text()}")
            time.sleep(0.1)
    SERVER_ENV[base] = env
    try:
        yield base
    finally:
        SERVER_ENV.pop(base, None)
        daphne.terminate()
        try:
            daphne.wait(timeout=10)
        except subprocess.TimeoutExpired:
            daphne.kill()
        log.close()


DEMO_CAMPAIGN = "The Drift Between Stars"


def log_in(page, base, username, campaign=DEMO_CAMPAIGN):
    """Log a demo account in on `page` and open the demo campaign."""
    from playwright.sync_api import expect

    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
    page.get_by_role("link", name=campaign).click()
    expect(page.get_by_role("heading", name=campaign, level=1)).to_be_visible()


def fits(page):
    """The page does not scroll sideways (a phone at 360 px)."""
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"{page.url} scrolls sideways at {width[1]} px: scrollWidth {width[0]}"


def phone_opener(phone):
    """(open, errors): `open(who)` gives a new phone page whose JavaScript errors land in `errors`, named."""
    errors: list[str] = []

    def open_phone(who):
        page = phone()
        page.on("pageerror", lambda exc: errors.append(f"{who}: {exc}"))
        return page

    return open_phone, errors


def start_built_encounter(gm):
    """The GM presses Start on a filled-in builder: the table opens live. Returns its URL."""
    import re

    from playwright.sync_api import expect

    gm.get_by_role("button", name="Start the encounter").click()
    expect(gm).to_have_url(re.compile(r"/campaigns/\d+/encounters/\d+/$"))
    watch_live(gm)
    return gm.url


def join_table(page, base, username, encounter, url):
    """A player logs in on `page`, opens the encounter from the campaign and waits for the live table."""
    from playwright.sync_api import expect

    log_in(page, base, username)
    page.get_by_role("link", name=encounter).click()
    expect(page).to_have_url(url)
    watch_live(page)


def watch_live(page):
    """Mark the page (a reload would lose the mark, see `window.__noReload`) and wait for its socket.

    A click that navigates returns before the new page exists: wait for the table's badge first, or the mark
    could land on the page being left (or fail with "Execution context was destroyed")."""
    from playwright.sync_api import expect

    expect(page.locator("#live-status")).to_be_attached()
    page.evaluate("window.__noReload = true")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")


def shows_no_gm_secrets(page, who, secrets):
    """A player's page holds none of `secrets` (GM-only markers) and fits the phone."""
    html = page.content()
    for secret in secrets:
        assert secret not in html, f"{who}'s page {page.url} shows {secret!r}"
    fits(page)


def keeps_gm_secrets(page, who, secrets):
    """A player's live page holds none of `secrets`, fits the phone and has not reloaded."""
    shows_no_gm_secrets(page, who, secrets)
    assert page.evaluate("window.__noReload === true"), f"{who}'s page reloaded"


def reviews_keep_gm_secrets(gm, phones, encounter_url, encounter_name, secrets):
    """After play, the GM and every phone open the encounter's log (timeline, stories, highlights and charts), each
    phone every moment of its replay (as the scrubber's steps ask for them) and the campaign's History: no phone's
    page shows any of `secrets`. At least one of them must be on the GM's log, or the players' check would prove
    nothing."""
    import re

    from playwright.sync_api import expect

    campaign_url = re.match(r"(.*/campaigns/\d+/)", encounter_url).group(1)
    gm.goto(encounter_url)
    gm.get_by_role("link", name="log and charts").click()
    expect(gm.locator("#timeline li").first).to_be_visible()
    html = gm.content()
    assert [s for s in secrets if s in html], f"none of {secrets} is on the GM's log: nothing to keep from players"
    entries = moments(gm)  # the GM reads every entry: the log's seqs run 1..entries
    for who, page in phones.items():
        page.goto(encounter_url)
        page.get_by_role("link", name="log and charts").click()
        expect(page.locator("#timeline li").first).to_be_visible()
        shows_no_gm_secrets(page, who, secrets)
        replay_keeps_gm_secrets(page, who, secrets, entries)
        page.goto(campaign_url + "archive/")
        expect(page.get_by_role("link", name=encounter_name)).to_be_visible()
        shows_no_gm_secrets(page, who, secrets)


def moments(page) -> int:
    """How many moments the replay on `page` (the review page) has for its viewer."""
    return int(page.locator("#replay .moment .where").inner_text().rsplit(" of ", 1)[1])


def replay_keeps_gm_secrets(page, who, secrets, seqs):
    """No moment of the replay on `page` (the review page) shows any of `secrets`, asked for as the scrubber asks
    (htmx, the replay alone): each of the viewer's moments by its place (the slider's `?entry=`), and every seq of
    the log, 1..`seqs`, by its URL (`?at=`), the GM-only ones included (those show the moment before them)."""
    count = moments(page)
    path = page.url.split("?")[0].split("#")[0]
    htmx = {"HX-Request": "true", "HX-Target": "section#replay"}
    for n in range(1, count + 1):
        step = page.request.get(f"{path}?entry={n}", headers=htmx)
        body = step.text()
        assert step.ok and f"entry {n} of {count}" in body, f"{who}: moment {n} of {path} did not open"
        shown = [secret for secret in secrets if secret in body]
        assert not shown, f"{who}'s moment {n} of {path} shows {shown}"
    for seq in range(1, seqs + 1):
        step = page.request.get(f"{path}?at={seq}", headers=htmx)
        body = step.text()
        assert step.ok and f" of {count}" in body, f"{who}: seq {seq} of {path} did not open"
        shown = [secret for secret in secrets if secret in body]
        assert not shown, f"{who}'s view of seq {seq} of {path} shows {shown}"


def log_has(page, text):
    """The live log on `page` shows an entry with `text`: among the newest lines, or under "Earlier entries",
    which this opens if the entry is there (it stays open across live updates)."""
    from playwright.sync_api import expect

    entry = page.locator(".log li", has_text=text).first
    expect(entry).to_be_attached()
    if not entry.is_visible():
        page.locator(".log-earlier:not([open]) > summary").click()
    expect(entry).to_be_visible()


def pick_model(select, label):
    """Choose `label` in an htmx-driven select (the builder's or the sheet's combat model) once htmx has taken it
    over: its script is deferred, and a choice made before that changes nothing."""
    from playwright.sync_api import expect

    expect(select).to_have_attribute("data-htmx-powered", "true")
    select.select_option(label=label)
