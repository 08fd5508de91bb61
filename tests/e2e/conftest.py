"""Browser tests: Debian's Chromium driven by Playwright's sync API against a live Django server.

Run with `make test-e2e` (or `pytest tests/e2e -m e2e`). Playwright never downloads a browser here:
the tests launch /usr/bin/chromium (override with FRAY_CHROMIUM) and send traffic only to 127.0.0.1.
"""

import os

import pytest

# Every browser test may take the live daphne: a test module that imports it by name keeps working when an
# autofix drops that import as unused.
from tests.e2e.live import daphne_server, demo_var  # noqa: F401

CHROMIUM = os.environ.get("FRAY_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# A mid-range Android phone: 360 CSS px wide, 3x screen, touch.
PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
    "user_agent": (
        "Mozilla/5.0 (Linux; Android 14; Pixel 7a) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/156.0.0.0 Mobile Safari/537.36"
    ),
    "locale": "en-GB",
    "timezone_id": "UTC",
}

# Default timeout for Playwright actions and expect() assertions, in milliseconds.
TIMEOUT_MS = 10_000


@pytest.fixture(scope="session")
def live_server(request):
    """pytest-django's live server on 127.0.0.1, with static files served by WhiteNoise as in production.

    pytest-django's own fixture wraps the app in StaticFilesHandler, which looks files up through the
    staticfiles finders and so 404s on the hashed names (htmx.min.<hash>.js) that the manifest storage puts
    in every page. Passing requests straight through lets WhiteNoise serve the collected STATIC_ROOT,
    which tests/conftest.py fills by running collectstatic once per session.
    """
    from pytest_django.live_server_helper import LiveServer

    addr = request.config.getvalue("liveserver") or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS") or "127.0.0.1"
    server = LiveServer(addr, start=False)
    server.thread.static_handler = lambda app: app
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="package")
def browser():
    """Chromium for the tests in this folder; closed after them, so a plain `pytest` run goes on without it."""
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.skip(f"No Chromium at {CHROMIUM}: run `make browser` (never `playwright install`).")
    # Playwright's sync API keeps an asyncio event loop running in the main thread while it is started, so
    # Django's ORM (test code, fixtures, the transactional_db flush) would refuse to run there without this.
    # Set here rather than at import so a plain `pytest` run that merely collects this folder keeps Django's
    # async-safety check for every other test; restored when the browser closes.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


# Every page of every browser test reports Content-Security-Policy violations (the event fires on the document
# for blocked scripts, styles, handlers and connections); a test whose pages caused one fails. Screenshots pass
# caret="initial": Playwright hides the caret by setting each input's inline style, which leaves style="" behind,
# and htmx then copies that attribute onto the swapped-in input while settling, a (harmless) style-src report.
CSP_REPORTER = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.__frayCspViolation(`${e.effectiveDirective} blocked ${e.blockedURI || "inline code"}`
                            + ` (${e.sourceFile || document.URL}:${e.lineNumber})`);
}, true);
"""


@pytest.fixture
def csp_violations():
    """The Content-Security-Policy violations the pages of this test reported (filled by `phone`)."""
    return []


@pytest.fixture
def phone(browser, csp_violations):
    """Factory: phone() opens a new browser context (its own cookies: a separate phone) and gives its page.
    phone(bfcache=True) opens it in a Chromium of its own that keeps pages in its back-forward cache, as a phone's
    browser does: Playwright turns that cache off (--disable-back-forward-cache) unless told not to.

    No page may violate the Content-Security-Policy: checked when the test ends."""
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    contexts = []
    with_cache = []  # the Chromium with a back-forward cache, once a test asks for it

    def console(message):
        if message.type == "error" and "Content Security Policy" in message.text:
            csp_violations.append(f"console: {message.text}")

    def make(bfcache=False, **overrides):
        if bfcache and not with_cache:
            with_cache.append(
                browser.browser_type.launch(
                    executable_path=CHROMIUM,
                    headless=True,
                    args=CHROMIUM_ARGS,
                    ignore_default_args=["--disable-back-forward-cache"],
                )
            )
        context = (with_cache[0] if bfcache else browser).new_context(**{**PHONE, **overrides})
        context.set_default_timeout(TIMEOUT_MS)
        context.expose_function("__frayCspViolation", lambda text: csp_violations.append(text))
        context.add_init_script(CSP_REPORTER)
        context.on("console", console)
        # Only the live server on loopback: anything else is a bug in the page, and must not leave the machine.
        context.route(
            lambda url: not url.startswith("http://127.0.0.1"),
            lambda route: route.abort(),
        )
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()
    for other in with_cache:
        other.close()
    assert not csp_violations, f"Content-Security-Policy violations: {csp_violations}"
