"""Fray served the way `make run` serves it: daphne with the ASGI app, static files through whitenoise."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    var = tmp_path_factory.mktemp("var")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(FRAY_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="config.settings", DEBUG="false")
    manage = [sys.executable, str(ROOT / "manage.py")]
    for args in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"], ["load_demo"]):
        subprocess.run(manage + args, env=env, check=True, cwd=ROOT, capture_output=True)
    port = _free_port()
    daphne = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            _get(base + "/accounts/login/")
            break
        except OSError:
            time.sleep(0.2)
    yield base
    daphne.terminate()
    daphne.wait(timeout=10)


def test_daphne_serves_the_login_page(served):
    status, _, body = _get(served + "/accounts/login/")
    assert status == 200 and b"Log in" in body


def test_static_files_are_hashed_compressed_and_cached_for_long(served):
    _, _, body = _get(served + "/accounts/login/")
    page = body.decode()
    start = page.index("/static/vendor/htmx/htmx.min.")
    path = page[start : page.index('"', start)]
    assert path != "/static/vendor/htmx/htmx.min.js"  # content-hashed name
    request = urllib.request.Request(served + path, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.status == 200
        assert response.headers["Content-Encoding"] == "gzip"
        assert "max-age=315360000" in response.headers["Cache-Control"]


def test_campaign_pages_need_a_login(served):
    status, _, body = _get(served + "/campaigns/1/")
    assert status == 200 and b"Log in" in body  # redirected to the login page


def test_our_scripts_are_served_without_their_comments_and_still_work(served):
    """A phone loads Fray's scripts minified (config/storage.py); the vendored htmx exactly as shipped."""
    _, _, body = _get(served + "/accounts/login/")
    page = body.decode()

    def script(source):
        folder, name = source.rsplit("/", 1)
        start = page.index(f"/static/{folder}/{name.removesuffix('.js')}.")
        return _get(served + page[start : page.index('"', start)])[2]

    assert script("vendor/htmx/htmx.min.js") == (ROOT / "static/vendor/htmx/htmx.min.js").read_bytes()
    written = (ROOT / "static/js/copy-field.js").read_text()
    shipped = script("js/copy-field.js").decode()
    assert written.startswith("// Read-only fields to copy") and "Read-only fields" not in shipped
    assert len(shipped) < 0.7 * len(written)
    assert 'field.classList.contains("copy")' in shipped and "field.select()" in shipped  # the code is all there
