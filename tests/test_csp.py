"""Content-Security-Policy and cookie flags.

Every response carries the policy (no inline script, style or handler is allowed anywhere), no template has
inline code the policy would block, and under the production settings the session and CSRF cookies are
Secure, HttpOnly and SameSite=Lax. The browser side (no violation on real pages, the websocket allowed by
connect-src 'self') is tests/e2e/test_csp.py.
"""

import json
import os
import re
import secrets
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.templatetags.static import static
from django.urls import reverse
from django.utils.csp import CSP, build_policy

from campaigns import services, sessions
from combat import services as combat_services
from combat.models import ShareLink
from tests.test_permissions import MATRIX, _app_url_names, _url_and_data, world  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"

EXPECTED = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "object-src": [CSP.NONE],
}


def test_the_policy_is_the_one_we_mean():
    assert settings.SECURE_CSP == EXPECTED
    policy = build_policy(settings.SECURE_CSP)
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy and "nonce-" not in policy
    middleware = settings.MIDDLEWARE
    assert "django.middleware.csp.ContentSecurityPolicyMiddleware" in middleware
    # Before WhiteNoise, so static files get it too, and before anything that may answer early (axes).
    assert middleware.index("django.middleware.csp.ContentSecurityPolicyMiddleware") < middleware.index(
        "whitenoise.middleware.WhiteNoiseMiddleware"
    )


# --- the rendered pages -----------------------------------------------------------------------------------------


class InlineCode(HTMLParser):
    """Collects everything in a page that a script-src/style-src 'self' policy would block."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "script" and not names.get("src"):
            self.found.append("inline <script>")
        if tag == "style":
            self.found.append("inline <style>")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
            if name == "style":
                self.found.append(f"<{tag} style=...>")
            if name.startswith(("hx-on", "data-hx-on")):  # htmx runs these through Function(): 'unsafe-eval'
                self.found.append(f"<{tag} {name}=...>")
            if value and value.strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}=javascript:...>")
            if value and name in ("hx-vals", "hx-headers") and value.lstrip().startswith("js:"):
                self.found.append(f"<{tag} {name}=js:...>")

    handle_startendtag = handle_starttag


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    return parser.found


def _extra_requests(world, gm):
    """(name, method, url, data, who) for the URLs outside the campaign matrix."""
    invite = services.regenerate_invite(world["campaign"], gm, 7)
    feed = sessions.calendar_feed_for(gm)
    fought = combat_services.start_encounter(
        combat_services.create_encounter(
            world["campaign"], gm, name="Done", model="burn_bryte", pcs=[world["pc"]], enemies=[]
        ),
        gm,
    )
    assert combat_services.submit(fought.pk, gm, "end_encounter", {}, "csp-end").ok
    ShareLink.objects.create(encounter=fought, token="csp-shared", created_by=gm)
    watched = combat_services.start_encounter(
        combat_services.create_encounter(
            world["campaign"], gm, name="Watched", model="burn_bryte", pcs=[world["pc"]], enemies=[]
        ),
        gm,
    )
    ShareLink.objects.create(encounter=watched, token="csp-watch", kind="watch", created_by=gm)
    return [
        ("shared_review", "get", reverse("shared_review", args=["csp-shared"]), {}, "anonymous"),
        ("watch", "get", reverse("watch", args=["csp-watch"]), {}, "anonymous"),
        ("watch_overlay", "get", reverse("watch_overlay", args=["csp-watch"]), {}, "anonymous"),
        # The GM's watch links fold answers a new link with itself (htmx).
        (
            "(partial) watch links",
            "post",
            reverse("watch_create", args=[watched.campaign_id, watched.pk]),
            {"back": "table"},
            "gm:htmx",
        ),
        ("home", "get", reverse("home"), {}, "anonymous"),
        ("home", "get", reverse("home"), {}, "gm"),
        ("signup", "get", reverse("signup"), {}, "anonymous"),
        ("login", "get", reverse("login"), {}, "anonymous"),
        ("logout", "post", reverse("logout"), {}, "gm"),
        ("join_link", "get", reverse("join_link", args=[invite.token]), {}, "outsider"),
        ("healthz", "get", reverse("healthz"), {}, "anonymous"),
        ("service_worker", "get", reverse("service_worker"), {}, "anonymous"),
        ("service_worker", "get", reverse("service_worker"), {}, "player"),
        ("calendar_feed", "get", reverse("calendar_feed", args=[feed.token]), {}, "anonymous"),
        ("profile", "get", reverse("profile"), {}, "gm"),
        ("password_change", "get", reverse("password_change"), {}, "gm"),
        ("password_change_done", "get", reverse("password_change_done"), {}, "gm"),
        ("join_code", "get", reverse("join_code"), {}, "outsider"),
        ("campaign_create", "get", reverse("campaign_create"), {}, "gm"),
        ("notifications", "get", reverse("notifications"), {}, "gm"),
        ("calendar_rotate", "post", reverse("calendar_rotate"), {}, "gm"),
        ("password_reset", "get", reverse("password_reset"), {}, "anonymous"),
        ("password_reset_done", "get", reverse("password_reset_done"), {}, "anonymous"),
        (
            "password_reset_confirm",
            "get",
            reverse("password_reset_confirm", args=["MQ", "not-a-token"]),
            {},
            "anonymous",
        ),
        ("password_reset_complete", "get", reverse("password_reset_complete"), {}, "anonymous"),
    ]


@pytest.mark.django_db
def test_every_url_sends_the_policy_and_no_page_has_inline_code(client, world, gm, player, outsider):
    policy = build_policy(EXPECTED)
    requests = [(name, MATRIX[name][0], *_url_and_data(name, world), "gm") for name in MATRIX]
    # The player's view of the same pages (their own sheet, their controls on the table).
    requests += [
        (name, "get", *_url_and_data(name, world), "player")
        for name, (method, allowed) in MATRIX.items()
        if method == "get" and "player" in allowed
    ]
    requests += _extra_requests(world, gm)
    # htmx partials, a static file, the admin, a 404 and a refused POST get it too.
    requests += [
        ("(partial) gm_notes", "get", reverse("gm_notes", args=[world["campaign"].pk]) + "?edit=1", {}, "gm:htmx"),
        (
            "(partial) character form",
            "get",
            reverse("character_create", args=[world["campaign"].pk]) + "?system=hero",
            {},
            "gm:htmx",
        ),
        ("(static)", "get", static("css/fray.css"), {}, "anonymous"),
        ("(admin)", "get", reverse("admin:login"), {}, "anonymous"),
        ("(404)", "get", "/no/such/page/", {}, "gm"),
        ("(bad form)", "post", reverse("campaign_create"), {"name": ""}, "gm"),
    ]
    covered = {name for name, *_ in requests if not name.startswith("(")}
    assert covered == _app_url_names(), "a new URL needs a row in this walk"
    requests.sort(key=lambda r: r[1] != "get")  # pages first, then the POSTs that delete what they show

    for name, method, url, data, who in requests:
        client.logout()
        role, _, flavour = who.partition(":")
        if role != "anonymous":
            client.force_login({"gm": gm, "player": player, "outsider": outsider}[role])
        headers = {"HX-Request": "true"} if flavour == "htmx" else {}
        response = getattr(client, method)(url, data, headers=headers)
        assert response.status_code < 500, (name, response.status_code)
        assert response.get("Content-Security-Policy") == policy, (name, url, response.status_code)
        if response.status_code in (200, 400) and response.get("Content-Type", "").startswith("text/html"):
            body = b"".join(response.streaming_content) if response.streaming else response.content
            assert not inline_code(body.decode()), (name, url, inline_code(body.decode()))
        if name == "export_download":
            # The printable export carries its own <style>: it only ever arrives as a download.
            assert response["Content-Disposition"].startswith("attachment;"), response["Content-Disposition"]


@pytest.mark.django_db
def test_the_axes_lockout_page_sends_the_policy_too(client, gm, settings):
    settings.AXES_FAILURE_LIMIT = 2
    for _ in range(3):
        response = client.post(reverse("login"), {"username": gm.username, "password": "wrong"})
    assert response.status_code == 429
    assert response["Content-Security-Policy"] == build_policy(EXPECTED)
    assert not inline_code(response.content.decode())


# --- the templates ---------------------------------------------------------------------------------------------

# A downloaded file, never a page of the app: the printable export is written to disk and served as an
# attachment (checked above), so its <style> runs only when opened locally, outside this origin's policy.
DOWNLOADS = {"combat/export_print.html"}

FORBIDDEN = {
    "inline <script>": re.compile(r"<script\b(?![^>]*\bsrc\s*=)[^>]*>", re.I),
    "inline event handler": re.compile(r"<[a-z][^>]*?\son[a-z]+\s*=", re.I | re.S),
    "style attribute": re.compile(r"<[a-z][^>]*?\sstyle\s*=", re.I | re.S),
    "inline <style>": re.compile(r"<style\b", re.I),
    "javascript: URL": re.compile(r"javascript:", re.I),
    "hx-on (needs unsafe-eval)": re.compile(r"\b(?:data-)?hx-on\b", re.I),
}


def _templates():
    found = sorted(TEMPLATES.rglob("*.html"))
    for app in ("campaigns", "combat", "ships"):
        found += sorted((ROOT / app).rglob("templates/**/*.html"))
    return found


def test_templates_are_found():
    names = {str(p.relative_to(TEMPLATES)) for p in _templates() if p.is_relative_to(TEMPLATES)}
    assert {"base.html", "campaigns/campaign_detail.html", "combat/burn_bryte/fragments.html"} <= names


@pytest.mark.parametrize("path", _templates(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_template_has_inline_code(path):
    text = path.read_text()
    relative = str(path.relative_to(TEMPLATES)) if path.is_relative_to(TEMPLATES) else str(path)
    problems = [
        label
        for label, pattern in FORBIDDEN.items()
        if pattern.search(text) and not (relative in DOWNLOADS and label == "inline <style>")
    ]
    assert not problems, f"{relative}: {problems}"


def test_the_scanners_catch_what_they_should():
    for bad in (
        "<script>alert(1)</script>",
        '<input onclick="this.select()">',
        '<p style="color:red">',
        '<a href="javascript:void(0)">',
        '<div hx-on:click="x()">',
        "<style>p{}</style>",
        '<input\n  class="copy"\n  onfocus="x()">',
    ):
        assert any(p.search(bad) for p in FORBIDDEN.values()), bad
        assert inline_code(bad), bad
    for good in (
        '<script src="/static/x.js" defer></script>',
        '<button aria-label="Turn reminders on">',
        '<input name="note" placeholder="on=1">',
        '<section data-version="3" class="me">',
    ):
        assert not inline_code(good), good


# --- cookies under the production settings ----------------------------------------------------------------------

COOKIE_PROBE = """
import json
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0, interactive=False)
from django.test import Client
from campaigns.models import User
User.objects.create_user(username="probe", password="a-Long-table-password-42")
client = Client(enforce_csrf_checks=True)
page = client.get("/accounts/login/", secure=True)
csrf = page.cookies["csrftoken"]
login = client.post("/accounts/login/", {"username": "probe", "password": "a-Long-table-password-42",
                    "csrfmiddlewaretoken": csrf.value}, secure=True,
                    headers={"Origin": "https://testserver", "Referer": "https://testserver/accounts/login/"})
plain = Client().get("/accounts/login/")
out = {"status": [page.status_code, login.status_code, plain.status_code], "redirect": plain.get("Location", ""),
       "csp": page.get("Content-Security-Policy"), "hsts": page.get("Strict-Transport-Security"),
       "cookies": {}}
for name, morsel in [("csrftoken", csrf), ("sessionid", login.cookies["sessionid"])]:
    out["cookies"][name] = {"secure": bool(morsel["secure"]), "httponly": bool(morsel["httponly"]),
                            "samesite": morsel["samesite"], "header": morsel.OutputString()}
print(json.dumps(out))
"""


def test_production_cookies_are_secure_httponly_and_samesite_lax(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "DATABASE_URL", "REDIS_URL"}}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings_production",
        SECRET_KEY=secrets.token_hex(32),
        ALLOWED_HOSTS="testserver",
        DATABASE_URL=f"sqlite:///{tmp_path / 'probe.sqlite3'}",
        # the static manifest collected for this test session, so pages render as in production
        FRAY_VAR_DIR=str(Path(settings.STATIC_ROOT).parent),
    )
    done = subprocess.run(
        [sys.executable, "-c", COOKIE_PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["status"] == [200, 302, 301], out  # plain http is redirected to https
    assert out["redirect"].startswith("https://"), out
    assert out["csp"] == build_policy(EXPECTED) + "; upgrade-insecure-requests", out["csp"]
    assert out["hsts"].startswith("max-age=31536000"), out["hsts"]
    for name, cookie in out["cookies"].items():
        assert cookie["secure"] and cookie["httponly"] and cookie["samesite"] == "Lax", (name, cookie)
        header = cookie["header"]
        assert "; Secure" in header and "; HttpOnly" in header and "SameSite=Lax" in header, header
