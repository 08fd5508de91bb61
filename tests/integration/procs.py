"""Real processes for the scale-out and fault tests: a private redis-server, daphne replicas, Celery workers,
a browser-like HTTP client (real login form, CSRF) and a websocket client running in a thread of its own.

Every server is a subprocess on a free port of 127.0.0.1, pointed at the pytest-django test database (so the test
creates rows and reads results) and at a PRIVATE redis-server (never the shared one on 6379, which these tests may
not stop or flush). Every wait is bounded; every process is stopped by whoever started it, in a finally block.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import redis
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection
from redis.backoff import NoBackoff
from redis.retry import Retry

from tests.conftest import PASSWORD

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30  # seconds for a server to come up
WAIT = 30  # seconds: the bound of every other wait


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url() -> str:
    """The pytest-django test database, where a transactional test commits its rows."""
    s = connection.settings_dict
    auth = quote(s["USER"] or "", safe="") + (f":{quote(s['PASSWORD'], safe='')}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def wait_until(predicate, timeout: float = WAIT, interval: float = 0.05, message="condition"):
    """Poll `predicate` until it is true; `message` (a string, or a callable for logs read at failure time)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{message() if callable(message) else message} not reached within {timeout} s")
        time.sleep(interval)


def stop(proc: subprocess.Popen | None, sig=signal.SIGTERM, timeout: float = 15) -> None:
    """Stop one process we started, by its own pid; kill it if it does not go in time."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


# --- a private redis-server ---------------------------------------------------------------------------------

class RedisServer:
    """`redis-server` on a port of its own, no persistence; can be killed and restarted on the same port."""

    def __init__(self, workdir: Path):
        assert shutil.which("redis-server"), "redis-server is not installed"
        self.port = free_port()
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2, socket_connect_timeout=2,
                           retry=Retry(NoBackoff(), 0))  # a refused connection answers at once

    def ping(self) -> bool:
        try:
            with self.client() as c:
                return bool(c.ping())
        except redis.RedisError:
            return False

    def start(self) -> RedisServer:
        assert self.proc is None or self.proc.poll() is not None, "already running"
        log = open(self.workdir / "redis.log", "ab")
        try:
            self.proc = subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--daemonize", "no", "--dir", str(self.workdir)],
                stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir,
            )
        finally:
            log.close()
        try:
            wait_until(lambda: self.ping() or self.proc.poll() is not None, START_TIMEOUT, message="redis-server up")
            assert self.proc.poll() is None, (self.workdir / "redis.log").read_text()
        except BaseException:
            stop(self.proc, signal.SIGKILL)
            raise
        return self

    def kill(self) -> None:
        """SIGKILL: the server vanishes as in a crash, connections reset, nothing saved."""
        stop(self.proc, signal.SIGKILL)
        assert not self.ping()

    def stop(self) -> None:
        stop(self.proc)


# --- environment and servers ---------------------------------------------------------------------------------

def app_env(var: Path, media: Path, redis_url: str, **extra: str) -> dict[str, str]:
    """The environment of a Fray process against the test database and a private Redis.

    FRAY_VAR_DIR is a folder of the test's own whose staticfiles/ is the manifest the test session collected
    (templates need it); MEDIA_ROOT is shared by every process of the test, as a deployment must share it."""
    var.mkdir(parents=True, exist_ok=True)
    static = var / "staticfiles"
    if not static.exists():
        static.symlink_to(Path(settings.STATIC_ROOT), target_is_directory=True)
    skip = ("DATABASE_URL", "REDIS_URL", "EMAIL_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "MEDIA_ROOT", "FRAY_VAR_DIR",
            "CELERY_TASK_ALWAYS_EAGER", "CELERY_BROKER_VISIBILITY_TIMEOUT", "EXPORT_STALE_AFTER", "DEBUG")
    env = {k: v for k, v in os.environ.items() if k not in skip}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=database_url(),
        REDIS_URL=redis_url,
        FRAY_VAR_DIR=str(var),
        MEDIA_ROOT=str(media),
        EMAIL_URL="consolemail://",
        CELERY_TASK_ALWAYS_EAGER="false",
        DEBUG="false",
        PYTHONUNBUFFERED="1",
        LOG_LEVEL="WARNING",
    )
    env.update(extra)
    return env


@dataclass
class Daphne:
    name: str
    port: int
    proc: subprocess.Popen
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def start_daphne(name: str, env: dict[str, str], logdir: Path) -> Daphne:
    """Start daphne (do not wait); see wait_ready. Its PostgreSQL connections are named `fray-<name>`
    (pg_stat_activity.application_name)."""
    port = free_port()
    if env.get("DATABASE_URL", "").startswith("postgres"):
        env = {**env, "DATABASE_URL": f"{env['DATABASE_URL']}?application_name=fray-{name}"}
    log = logdir / f"daphne-{name}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
        )
    return Daphne(name, port, proc, log)


def wait_ready(server: Daphne) -> Daphne:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            with urllib.request.urlopen(server.base + "/healthz", timeout=2):
                return server
        except urllib.error.HTTPError:
            return server  # it answers
        except OSError:
            assert server.proc.poll() is None, f"daphne {server.name} exited:\n{server.log_text()}"
            assert time.monotonic() < deadline, f"daphne {server.name} not up in time:\n{server.log_text()}"
            time.sleep(0.1)


@dataclass
class Worker:
    proc: subprocess.Popen
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def start_worker(env: dict[str, str], log: Path) -> Worker:
    """`celery worker --pool=solo` on the default queue of the private Redis; returns once it is ready."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "-n", f"w{free_port()}@%h",
             "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "INFO"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    worker = Worker(proc, log)
    deadline = time.monotonic() + START_TIMEOUT
    while b" ready." not in log.read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc)
            raise AssertionError(f"the worker did not start:\n{worker.log_text()}")
        time.sleep(0.1)
    return worker


# --- a browser: cookies, the real login form, CSRF ------------------------------------------------------------

def real_passwords(*users, password: str = PASSWORD) -> None:
    """Servers check passwords with Django's default hasher; the test process hashes with MD5 for speed."""
    hasher = PBKDF2PasswordHasher()
    encoded = hasher.encode(password, hasher.salt())
    for user in users:
        user.password = encoded
        user.save(update_fields=["password"])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


@dataclass
class Response:
    status: int
    headers: dict
    body: bytes
    seconds: float

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


@dataclass
class Browser:
    """One person's cookies. Cookies are per host, not per port: logged in on one replica, known on every one."""

    jar: http.cookiejar.CookieJar = field(default_factory=http.cookiejar.CookieJar)

    def __post_init__(self):
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                                  urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect)

    def request(self, url: str, data: dict | None = None, headers: dict | None = None,
                timeout: float = WAIT) -> Response:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(url, data=body, headers=headers or {})
        start = time.monotonic()
        try:
            with self.opener.open(req, timeout=timeout) as r:
                return Response(r.status, dict(r.headers), r.read(), time.monotonic() - start)
        except urllib.error.HTTPError as exc:
            return Response(exc.code, dict(exc.headers), exc.read(), time.monotonic() - start)

    def cookie(self, name: str) -> str:
        return next((c.value for c in self.jar if c.name == name), "")

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def login(self, base: str, username: str, password: str) -> None:
        page = self.request(base + "/accounts/login/")
        assert page.status == 200, page.status
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        done = self.request(base + "/accounts/login/",
                            {"csrfmiddlewaretoken": token, "username": username, "password": password})
        assert done.status == 302, f"login refused ({done.status}):\n{done.text[:2000]}"
        assert self.cookie("sessionid")

    def post(self, url: str, data: dict, htmx: bool = True) -> Response:
        headers = {"X-CSRFToken": self.cookie("csrftoken")}
        if htmx:
            headers["HX-Request"] = "true"
        return self.request(url, data, headers)


def act_url(encounter) -> str:
    return f"/campaigns/{encounter.campaign_id}/encounters/{encounter.pk}/act/"


def ws_path(encounter) -> str:
    return f"/ws/campaigns/{encounter.campaign_id}/encounters/{encounter.pk}/"


# --- a websocket client in a thread of its own ----------------------------------------------------------------

VERSION = re.compile(r'<section id="enc-(\d+)-(table|me|gm)"[^>]*data-version="(\d+)"')


def versions(html: str) -> dict[str, int]:
    """{"table": 3, "me": 3} for the fragments in one frame."""
    return {part: int(v) for _, part, v in VERSION.findall(html)}


class Socket:
    """A websocket to daphne, read continuously in a background thread; frames queue up with their arrival time.

    `closed` is set with (code, monotonic time) when the server ends the connection."""

    def __init__(self, server_ws_base: str, path: str, browser: Browser, origin_port: int):
        try:
            import websockets.asyncio.client  # noqa: F401
        except ImportError:  # a failure, not a skip: these tests must run in CI
            raise AssertionError("the `websockets` client library is missing (requirements.lock)") from None
        self.url = server_ws_base + path
        self.frames: queue.Queue[tuple[float, str]] = queue.Queue()
        self.opened = threading.Event()
        self.closed = threading.Event()
        self.close_info: tuple[int | None, float] | None = None
        self.error: BaseException | None = None
        self._headers = {"Cookie": browser.cookie_header()}
        self._origin = f"http://127.0.0.1:{origin_port}"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ws = None
        self._thread = threading.Thread(target=self._run, name=f"ws {path}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + WAIT
        while not (self.opened.is_set() or self.closed.is_set()):  # open, or refused
            assert time.monotonic() < deadline, f"websocket {self.url} neither opened nor failed in {WAIT} s"
            self.opened.wait(0.02)

    def _run(self):
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        async def main():
            self._loop = asyncio.get_running_loop()
            try:
                async with connect(self.url, origin=self._origin, additional_headers=self._headers, proxy=None,
                                   open_timeout=WAIT, close_timeout=2, ping_interval=None) as ws:
                    self._ws = ws
                    self.opened.set()
                    try:
                        async for message in ws:
                            self.frames.put((time.monotonic(), message))
                    except ConnectionClosed:
                        pass
                    self.close_info = (ws.close_code, time.monotonic())
            except BaseException as exc:  # noqa: BLE001  (reported to the test through .error)
                self.error = exc
                self.close_info = (None, time.monotonic())
            finally:
                self.closed.set()

        asyncio.run(main())

    def next_frame(self, timeout: float = WAIT) -> tuple[float, str]:
        return self.frames.get(timeout=timeout)

    def wait_for_version(self, part: str, version: int, timeout: float = WAIT) -> tuple[float, str]:
        """The first frame whose `part` fragment shows `version` (or later); earlier frames are dropped."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {part} fragment at version {version} within {timeout} s")
            try:
                at, html = self.frames.get(timeout=min(left, 0.5))
            except queue.Empty:
                if self.closed.is_set() and self.frames.empty():
                    raise AssertionError(f"socket closed ({self.close_info}, {self.error!r}) before version "
                                         f"{version}") from None
                continue
            if versions(html).get(part, -1) >= version:
                return at, html

    def send(self, text: str) -> None:
        assert self._loop and self._ws
        asyncio.run_coroutine_threadsafe(self._ws.send(text), self._loop).result(timeout=WAIT)

    def close(self) -> None:
        if self._loop and self._ws and not self.closed.is_set():
            try:
                asyncio.run_coroutine_threadsafe(self._ws.close(), self._loop).result(timeout=WAIT)
            except Exception:  # noqa: BLE001  (already gone)
                pass
        self._thread.join(timeout=WAIT)
