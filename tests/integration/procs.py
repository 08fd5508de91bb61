"""Real processes for the scale-out, fault and proxy tests: a private redis-server, daphne replicas, Celery workers,
HAProxy in front of replicas, a browser-like HTTP client (real login form, CSRF) and a websocket client running in a
thread of its own.

Every server is a subprocess on a free port of 127.0.0.1, pointed at the pytest-django test database (so the test
creates rows and reads results) and at a PRIVATE redis-server (never the shared one on 6379, which these tests may
not stop or flush). Every wait is bounded; every process is stopped by whoever started it, in a finally block.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import http.client
import http.cookiejar
import ipaddress
import os
import queue
import re
import shutil
import signal
import socket
import ssl
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
        return redis.Redis(
            host="127.0.0.1", port=self.port, socket_timeout=2, socket_connect_timeout=2, retry=Retry(NoBackoff(), 0)
        )  # a refused connection answers at once

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
                [
                    "redis-server",
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--daemonize",
                    "no",
                    "--dir",
                    str(self.workdir),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
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
    skip = (
        "DATABASE_URL",
        "REDIS_URL",
        "EMAIL_URL",
        "DJANGO_ALLOW_ASYNC_UNSAFE",
        "MEDIA_ROOT",
        "FRAY_VAR_DIR",
        "CELERY_TASK_ALWAYS_EAGER",
        "CELERY_BROKER_VISIBILITY_TIMEOUT",
        "EXPORT_STALE_AFTER",
        "DEBUG",
    )
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


def start_daphne(name: str, env: dict[str, str], logdir: Path, flags: tuple[str, ...] = ()) -> Daphne:
    """Start daphne (do not wait); see wait_ready. Its PostgreSQL connections are named `fray-<name>`
    (pg_stat_activity.application_name). `flags` go to daphne before the application (e.g. --proxy-headers)."""
    port = free_port()
    if env.get("DATABASE_URL", "").startswith("postgres"):
        env = {**env, "DATABASE_URL": f"{env['DATABASE_URL']}?application_name=fray-{name}"}
    log = logdir / f"daphne-{name}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", *flags, "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
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
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool=solo",
                "-n",
                f"w{free_port()}@%h",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-l",
                "INFO",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
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


class _FromHTTPHandler(urllib.request.HTTPHandler):
    """Plain HTTP connections that leave from a chosen local address (127.0.0.2: another client to the server)."""

    def __init__(self, source: str):
        super().__init__()
        self.source = source

    def http_open(self, req):
        return self.do_open(functools.partial(http.client.HTTPConnection, source_address=(self.source, 0)), req)


class _FromHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, source: str, context: ssl.SSLContext | None):
        super().__init__(context=context)
        self.source = source

    def https_open(self, req):
        return self.do_open(
            functools.partial(http.client.HTTPSConnection, source_address=(self.source, 0)), req, context=self._context
        )


@dataclass
class Browser:
    """One person's cookies. Cookies are per host, not per port: logged in on one replica, known on every one.

    `context` is the TLS context for https:// URLs (one trusting the test's own certificate); `source` a local
    address its connections leave from (any 127.x.y.z: each is a different client address to the server)."""

    jar: http.cookiejar.CookieJar = field(default_factory=http.cookiejar.CookieJar)
    context: ssl.SSLContext | None = None
    source: str | None = None

    def __post_init__(self):
        handlers = [urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect]
        if self.source:
            handlers += [_FromHTTPHandler(self.source), _FromHTTPSHandler(self.source, self.context)]
        elif self.context:
            handlers.append(urllib.request.HTTPSHandler(context=self.context))
        self.opener = urllib.request.build_opener(*handlers)

    def request(
        self, url: str, data: dict | None = None, headers: dict | None = None, timeout: float = WAIT
    ) -> Response:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        headers = dict(headers or {})
        if body is not None:  # as a browser does on every POST (Django checks it against the host over HTTPS)
            parts = urllib.parse.urlsplit(url)
            headers.setdefault("Origin", f"{parts.scheme}://{parts.netloc}")
        req = urllib.request.Request(url, data=body, headers=headers)
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

    def login_attempt(self, base: str, username: str, password: str, headers: dict | None = None) -> Response:
        """The login page, then its form posted: 302 when logged in."""
        page = self.request(base + "/accounts/login/", headers=headers)
        assert page.status == 200, page.status
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        return self.request(
            base + "/accounts/login/",
            {"csrfmiddlewaretoken": token, "username": username, "password": password},
            headers,
        )

    def login(self, base: str, username: str, password: str) -> None:
        done = self.login_attempt(base, username, password)
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

    `closed` is set with (code, monotonic time) when the server ends the connection. `origin` is the page's origin
    (default http://127.0.0.1:<origin_port>); `context` the TLS context of a wss:// URL."""

    def __init__(
        self,
        server_ws_base: str,
        path: str,
        browser: Browser,
        origin_port: int,
        *,
        origin: str | None = None,
        context: ssl.SSLContext | None = None,
    ):
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
        self._origin = origin or f"http://127.0.0.1:{origin_port}"
        self._tls = {"ssl": context} if context else {}
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
                async with connect(
                    self.url,
                    origin=self._origin,
                    additional_headers=self._headers,
                    proxy=None,
                    open_timeout=WAIT,
                    close_timeout=2,
                    ping_interval=None,
                    **self._tls,
                ) as ws:
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
                    raise AssertionError(
                        f"socket closed ({self.close_info}, {self.error!r}) before version {version}"
                    ) from None
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


# --- HAProxy in front of replicas ----------------------------------------------------------------------------

HAPROXY_CFG = ROOT / "config" / "haproxy.cfg"
HAPROXY_MISSING = (
    "HAProxy is not installed: run `make haproxy` (as root it installs Debian's haproxy package), "
    "or install it with `sudo apt-get install haproxy`."
)


def haproxy_binary() -> str:
    """Debian's haproxy (in /usr/sbin, off some users' PATH); a failure with a sentence when it is missing."""
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
    assert found, HAPROXY_MISSING
    return found


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost: (HAProxy's PEM, certificate and key together; the certificate
    alone, for clients to trust)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    public = cert.public_bytes(serialization.Encoding.PEM)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (folder / "fray.pem").write_bytes(public + private)
    (folder / "cert.pem").write_bytes(public)
    return folder / "fray.pem", folder / "cert.pem"


def _swap(text: str, pattern: str, replacement: str) -> str:
    """Replace the one line of the proxy's config that `pattern` matches; fail if it is not there exactly once."""
    new, count = re.subn(pattern, replacement, text, flags=re.MULTILINE)
    assert count == 1, f"config/haproxy.cfg: expected one line matching {pattern!r}, found {count}"
    return new


def proxy_config(servers: list[Daphne], http_port: int, https_port: int, monitor_port: int, pem: Path) -> str:
    """config/haproxy.cfg with its "test swaps" lines swapped: listening on 127.0.0.1 ports of the test's own, the
    test's certificate, and the given replicas in place of the ones Docker's DNS names (the resolvers section,
    then unused, is left out). Everything else is the file compose runs."""
    text = HAPROXY_CFG.read_text()
    text = _swap(text, r"^(\s*)bind :80\b.*$", rf"\g<1>bind 127.0.0.1:{http_port}")
    text = _swap(
        text, r"^(\s*)bind :443 ssl crt \S+(.*?)\s*#.*$", rf"\g<1>bind 127.0.0.1:{https_port} ssl crt {pem}\g<2>"
    )
    text = _swap(text, r"^(\s*)bind :8404\b.*$", rf"\g<1>bind 127.0.0.1:{monitor_port}")
    text = _swap(
        text,
        r"^(\s*)server-template web .*$",
        "\n".join(rf"\g<1>server web-{s.name} 127.0.0.1:{s.port}" for s in servers),
    )
    return _swap(text, r"^resolvers docker\n(?:[ \t]+.*\n|\n)*?(?=\S)", "")


@dataclass
class Proxy:
    """HAProxy on 127.0.0.1: HTTPS at `base`/`ws_base`, plain HTTP at `http_base`, its monitor at `monitor`."""

    proc: subprocess.Popen
    http_port: int
    https_port: int
    monitor_port: int
    cert: Path
    log: Path

    @property
    def base(self) -> str:
        return f"https://127.0.0.1:{self.https_port}"

    @property
    def ws_base(self) -> str:
        return f"wss://127.0.0.1:{self.https_port}"

    @property
    def http_base(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def context(self) -> ssl.SSLContext:
        """A client TLS context that trusts the proxy's certificate (and checks it names 127.0.0.1)."""
        return ssl.create_default_context(cafile=str(self.cert))

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def replicas_up(self) -> int | None:
        """How many replicas the proxy's health checks hold up (its monitor's answer); None if it does not answer."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.monitor_port}/", timeout=2) as r:
                body = r.read().decode()
        except urllib.error.HTTPError as exc:
            body = exc.read().decode()
        except OSError:
            return None
        match = re.fullmatch(r"web replicas up: (\d+)\s*", body)
        assert match, f"unexpected monitor answer {body!r}"
        return int(match.group(1))

    def wait_replicas_up(self, count: int, timeout: float = WAIT) -> None:
        wait_until(
            lambda: self.proc.poll() is None and self.replicas_up() == count,
            timeout,
            message=lambda: (
                f"HAProxy holding {count} replica(s) up (it says {self.replicas_up()}; log:\n{self.log_text()})"
            ),
        )


def start_proxy(servers: list[Daphne], workdir: Path, allowed_hosts: str) -> Proxy:
    """HAProxy from config/haproxy.cfg in front of `servers`; returns once it answers on its monitor port.
    ALLOWED_HOSTS is its environment as in docker-compose.yml (its health checks send the first entry as Host)."""
    binary = haproxy_binary()
    pem, cert = self_signed_certificate(workdir / "certs")
    http_port, https_port, monitor_port = free_port(), free_port(), free_port()
    cfg = workdir / "haproxy.cfg"
    cfg.write_text(proxy_config(servers, http_port, https_port, monitor_port, pem))
    env = {"PATH": os.environ.get("PATH", ""), "ALLOWED_HOSTS": allowed_hosts}
    check = subprocess.run([binary, "-c", "-q", "-f", str(cfg)], env=env, capture_output=True, text=True, timeout=WAIT)
    assert check.returncode == 0, f"HAProxy refuses its configuration:\n{check.stdout}{check.stderr}"
    log = workdir / "haproxy.log"
    with open(log, "wb") as out:  # -db: stay in the foreground, as in its container
        proc = subprocess.Popen(
            [binary, "-db", "-f", str(cfg)], env=env, cwd=workdir, stdout=out, stderr=subprocess.STDOUT
        )
    proxy = Proxy(proc, http_port, https_port, monitor_port, cert, log)
    try:
        wait_until(
            lambda: proc.poll() is not None or proxy.replicas_up() is not None,
            START_TIMEOUT,
            message="HAProxy answering",
        )
        assert proc.poll() is None, f"HAProxy exited:\n{proxy.log_text()}"
    except BaseException:
        stop(proc, signal.SIGKILL)
        raise
    return proxy
