"""Serving for the live benchmarks: a prepared FRAY_VAR_DIR, ASGI servers in subprocesses, logins, raw HTTP.

Fray is served the way `make run` and tests/e2e/live.py serve it: daphne in a subprocess with its own
FRAY_VAR_DIR (a fresh SQLite database: migrate, collectstatic, load_demo) and DEBUG=false, so whitenoise
serves the hashed, compressed static files. Everything listens on, and talks to, 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

from bench.setup import ROOT

HOST = "127.0.0.1"
DEMO_PASSWORD = "fray-demo-table"
START_TIMEOUT_S = 30

# Printed as JSON by `manage.py shell` in the prepared var dir: the demo encounter and who plays in it.
DESCRIBE_DEMO = """
import json
from campaigns.models import Campaign
from combat.models import Encounter
from combat.store import load_state
enc = Encounter.objects.select_related("campaign").get(name="Ambush at the derelict relay")
state = load_state(enc)
print(json.dumps({"campaign": enc.campaign_id, "encounter": enc.pk,
                  "pcs": [f.id for f in state.pcs()], "enemies": [f.id for f in state.enemies()]}))
"""

# Printed by `manage.py shell`: the token of a new watch link (combat.sharing) to the demo encounter, made by its GM.
MAKE_WATCH_LINK = """
from campaigns.models import User
from combat import sharing
from combat.models import Encounter
print(sharing.watch_link(Encounter.objects.get(pk={encounter}), User.objects.get(username="gm")).token)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def base_env(var: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "FRAY_VAR_DIR")
    }
    env.update(FRAY_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="config.settings", DEBUG="false", PYTHONPATH=str(ROOT))
    env.update(extra)
    return env


def manage(var: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=base_env(var),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args[:1])} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def prepare_demo() -> tuple[Path, dict]:
    """A fresh var dir with the demo campaign and collected static files; returns it and the demo's ids."""
    var = Path(tempfile.mkdtemp(prefix="fray-bench-live-"))
    manage(var, "migrate", "--noinput", "-v0")
    manage(var, "collectstatic", "--noinput", "-v0")
    manage(var, "load_demo")
    demo = json.loads(manage(var, "shell", "-c", DESCRIBE_DEMO).strip().splitlines()[-1])
    return var, demo


def watch_link(var: Path, demo: dict) -> str:
    """A new watch link to the demo encounter (the spectators' /ws/watch/<token>/); returns its token."""
    return manage(var, "shell", "-c", MAKE_WATCH_LINK.format(encounter=int(demo["encounter"]))).strip().splitlines()[-1]


def rss_kib(pid: int) -> int:
    """A process's resident memory now (VmRSS in /proc/<pid>/status), in KiB."""
    with open(f"/proc/{pid}/status") as status:
        return int(next(line.split()[1] for line in status if line.startswith("VmRSS:")))


class Server:
    """An ASGI app under daphne (or any command) in a subprocess, stopped on exit."""

    def __init__(
        self, var: Path, command: list[str], port: int, env: dict[str, str] | None = None, name: str = "server"
    ):
        self.var, self.command, self.port = var, command, port
        self.env = base_env(var, **(env or {}))
        self.log_path = var / f"{name}-{port}.log"
        self.proc: subprocess.Popen | None = None

    @classmethod
    def daphne(cls, var: Path, app: str, env: dict[str, str] | None = None, name: str = "daphne") -> Server:
        port = free_port()
        return cls(var, [sys.executable, "-m", "daphne", "-b", HOST, "-p", str(port), app], port, env, name)

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"

    def __enter__(self) -> Server:
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.command, env=self.env, cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with socket.create_connection((HOST, self.port), timeout=1):
                    break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.__exit__(None, None, None)
                    raise RuntimeError(f"{self.command} did not start:\n{self.log_path.read_text()[-3000:]}") from None
                time.sleep(0.1)
        return self

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log.close()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def login(base: str, username: str, password: str = DEMO_PASSWORD) -> dict[str, str]:
    """Log in through the login form; returns the cookies (sessionid, csrftoken)."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _NoRedirect)
    opener.open(base + "/accounts/login/", timeout=10).read()
    token = next(c.value for c in jar if c.name == "csrftoken")
    body = urllib.parse.urlencode({"username": username, "password": password, "csrfmiddlewaretoken": token}).encode()
    try:
        opener.open(urllib.request.Request(base + "/accounts/login/", data=body), timeout=10).read()
    except urllib.error.HTTPError as exc:  # the 302 to the home page, not followed
        if exc.code != 302:
            raise
    cookies = {c.name: c.value for c in jar}
    if "sessionid" not in cookies:
        raise RuntimeError(f"could not log in as {username}")
    return cookies


def cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


async def http(
    port: int, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b"", timeout: float = 30
) -> tuple[int, bytes]:
    """One HTTP/1.1 request on a fresh connection (Connection: close): the status and the body."""

    async def go():
        reader, writer = await asyncio.open_connection(HOST, port)
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await writer.drain()
        raw = await reader.read()
        writer.close()
        head, _, rest = raw.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        if b"transfer-encoding: chunked" in head.lower():
            rest = _unchunk(rest)
        return status, rest

    return await asyncio.wait_for(go(), timeout)


def _unchunk(data: bytes) -> bytes:
    out, i = [], 0
    while True:
        j = data.index(b"\r\n", i)
        size = int(data[i:j].split(b";")[0], 16)
        if size == 0:
            return b"".join(out)
        out.append(data[j + 2 : j + 2 + size])
        i = j + 2 + size + 2


def redis_available(url: str) -> bool:
    parsed = urllib.parse.urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or HOST, parsed.port or 6379), timeout=2) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False
