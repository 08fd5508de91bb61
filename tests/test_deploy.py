"""Deployment artefacts: production settings, docker-compose.yml, the Dockerfile and requirements.lock."""

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
APP_SERVICES = ("web", "worker", "beat")
LONG_RUNNING = ("postgres", "redis", *APP_SERVICES, "proxy")  # every compose service runs until stopped
HAPROXY_CFG = ROOT / "config" / "haproxy.cfg"


def run_manage(*args, env_overrides, tmp_path):
    """`manage.py ARGS` in a fresh interpreter with production settings and a clean Fray environment."""
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS"}}
    env.update(DJANGO_SETTINGS_MODULE="config.settings_production", FRAY_VAR_DIR=str(tmp_path / "var"))
    for key, value in env_overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


# --- production settings -------------------------------------------------------------------------------------


def test_production_settings_pass_check_deploy(tmp_path):
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env_overrides={"SECRET_KEY": secrets.token_hex(32), "ALLOWED_HOSTS": "fray.example.com"},
        tmp_path=tmp_path,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "no issues" in output, output


@pytest.mark.parametrize(
    "secret_key",
    [
        pytest.param(None, id="unset"),
        pytest.param("too-short", id="short"),
        pytest.param("fray-embedded-development-key-not-for-production-use-0000", id="embedded-default"),
    ],
)
def test_production_settings_refuse_to_start_without_a_secret_key(tmp_path, secret_key):
    result = run_manage(
        "check",
        env_overrides={"SECRET_KEY": secret_key, "ALLOWED_HOSTS": "fray.example.com"},
        tmp_path=tmp_path,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    last_line = output.strip().splitlines()[-1]
    assert "ImproperlyConfigured" in last_line and "SECRET_KEY" in last_line, output


# --- docker-compose.yml ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def environment_of(service):
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, None) for item in env)
    return env


def test_compose_defines_every_service(compose):
    assert {"postgres", "redis", *APP_SERVICES} <= set(compose["services"])


def duration(text) -> float:
    """A compose duration ("30s", "1m30s", "500ms") in seconds."""
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", str(text))
    assert parts and "".join(n + u for n, u in parts) == str(text), f"not a compose duration: {text!r}"
    return sum(float(n) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}[u] for n, u in parts)


def healthcheck_command(service) -> str:
    """The healthcheck's test as one shell-like string, compose's $$ escape turned into the $ the shell sees."""
    test = service["healthcheck"]["test"]
    if isinstance(test, list):
        assert test[0] in {"CMD", "CMD-SHELL"}, test
        test = " ".join(test[1:])
    return test.replace("$$", "$")


@pytest.mark.parametrize("name", LONG_RUNNING)
def test_compose_service_has_a_healthcheck(compose, name):
    healthcheck = compose["services"][name].get("healthcheck")
    assert healthcheck and not healthcheck.get("disable"), name
    test = healthcheck.get("test")
    assert test and test != ["NONE"], name
    if isinstance(test, list):
        assert test[0] in {"CMD", "CMD-SHELL"} and len(test) > 1 and all(test[1:]), (name, test)
    assert duration(healthcheck["interval"]) > 0, name
    assert isinstance(healthcheck["retries"], int) and healthcheck["retries"] >= 1, name
    if "timeout" in healthcheck:
        assert duration(healthcheck["timeout"]) <= duration(healthcheck["interval"]), name


def test_compose_has_no_service_without_a_healthcheck(compose):
    assert set(compose["services"]) == set(LONG_RUNNING), "a new service needs a healthcheck (and LONG_RUNNING)"


def argv_of(service) -> list[str]:
    command = service["command"]
    return command if isinstance(command, list) else command.split()


def ping_options(service) -> dict:
    """The options of a `celery -A config inspect ping` healthcheck."""
    argv = healthcheck_command(service).split()
    assert argv[:5] == ["celery", "-A", "config", "inspect", "ping"], argv
    options = dict(zip(argv[5::2], argv[6::2], strict=True))
    return {
        "destination": options.get("--destination", options.get("-d")),
        "timeout": float(options.get("--timeout", options.get("-t", 1.0))),
    }


@pytest.mark.parametrize(("name", "node"), [("worker", "celery@$HOSTNAME"), ("beat", "celerybeat@$HOSTNAME")])
def test_compose_celery_healthchecks_ping_their_own_node(compose, name, node):
    """The worker answers as Celery's default node celery@<hostname>, beat (with remote control, Celery 5.7) as
    celerybeat@<hostname>; in a container the shell's $HOSTNAME is that hostname."""
    service = compose["services"][name]
    argv = argv_of(service)
    assert not any(arg in {"-n", "--hostname"} or arg.startswith(("-n=", "--hostname=")) for arg in argv), argv
    if name == "beat":
        assert "--enable-remote-control" in argv, "beat answers no ping without remote control"
    options = ping_options(service)
    assert options["destination"] == node
    # Celery waits --timeout for the reply; Docker must not kill the check before that.
    assert options["timeout"] < duration(service["healthcheck"]["timeout"]), (options, service["healthcheck"])


def test_compose_beat_answers_its_healthcheck(compose, tmp_path):
    """compose's beat command, run for real on the embedded filesystem broker (no Redis here), answers compose's
    healthcheck. (tests/test_embedded_worker.py does the same for the worker's healthcheck.)"""
    argv = argv_of(compose["services"]["beat"])
    schedule = argv.index("--schedule") + 1
    argv[schedule] = str(tmp_path / "celerybeat-schedule")
    assert argv[0] == "celery"
    bin_dir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "PYTHONPATH"}}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        FRAY_VAR_DIR=str(tmp_path / "var"),
        PYTHONPATH=str(ROOT),
        PATH=bin_dir + os.pathsep + env.get("PATH", ""),
        HOSTNAME=socket.gethostname(),
    )
    log = tmp_path / "beat.log"
    with open(log, "wb") as out:
        beat = subprocess.Popen(
            [sys.executable, "-m", "celery", *argv[1:]],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            process_group=0,
        )
    try:
        # Beat's control node is listening once it has bound its queue in the filesystem broker's pidbox table.
        table = tmp_path / "var" / "celery" / "control" / "celery.pidbox.exchange"
        deadline = time.monotonic() + 60
        while not (table.exists() and b"celerybeat@" in table.read_bytes()):
            assert beat.poll() is None, f"beat exited:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"beat's control node did not connect within 60 s:\n{log.read_text()}"
            time.sleep(0.1)
        check = subprocess.run(
            ["sh", "-c", healthcheck_command(compose["services"]["beat"])],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert check.returncode == 0, f"{check.stdout}{check.stderr}\nbeat:\n{log.read_text()}"
        assert f"celerybeat@{socket.gethostname()}: OK" in check.stdout and "pong" in check.stdout, check.stdout
    finally:
        beat.terminate()
        try:
            beat.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(beat.pid, signal.SIGKILL)
            beat.wait(timeout=20)


def test_compose_postgres_keeps_its_data_in_a_named_volume(compose):
    named = set(compose.get("volumes") or {})
    mounts = compose["services"]["postgres"].get("volumes") or []
    sources = [m.split(":", 1)[0] if isinstance(m, str) else m.get("source") for m in mounts]
    assert any(source in named for source in sources), (sources, named)


@pytest.mark.parametrize("name", APP_SERVICES)
def test_compose_app_services_use_the_postgres_and_redis_services(compose, name):
    env = environment_of(compose["services"][name])
    database, redis = urlsplit(env["DATABASE_URL"]), urlsplit(env["REDIS_URL"])
    assert database.scheme in {"postgres", "postgresql", "pgsql"} and database.hostname == "postgres"
    assert redis.scheme == "redis" and redis.hostname == "redis"
    assert env["DJANGO_SETTINGS_MODULE"] == "config.settings_production"
    assert "SECRET_KEY" in env


@pytest.mark.parametrize("name", APP_SERVICES)
def test_compose_app_services_start_after_postgres_and_redis_are_healthy(compose, name):
    depends_on = compose["services"][name].get("depends_on") or {}
    assert isinstance(depends_on, dict), "depends_on needs the long form to carry conditions"
    for dependency in ("postgres", "redis"):
        assert depends_on.get(dependency, {}).get("condition") == "service_healthy", (name, dependency)


def test_compose_web_scales(compose):
    web = compose["services"]["web"]
    assert "container_name" not in web
    for port in web.get("ports") or []:
        if isinstance(port, dict):
            assert not port.get("published"), port
        else:
            # "8000" or "8000/tcp" only: "HOST:CONTAINER" would make the second replica collide.
            assert ":" not in str(port), port


def test_compose_web_migrates_then_serves_with_daphne(compose):
    command = compose["services"]["web"]["command"]
    command = command if isinstance(command, str) else " ".join(command)
    assert "migrate" in command
    assert "pg_advisory_lock" in command, "replicas starting together must not migrate concurrently"
    assert command.index("migrate") < command.index("daphne")
    assert "config.asgi:application" in command
    assert "/healthz" in " ".join(compose["services"]["web"]["healthcheck"]["test"])


def daphne_argv(command: str) -> list[str]:
    """The daphne command line in a shell script or a CMD."""
    line = next(line for line in command.splitlines() if "daphne" in line.split())
    argv = line.split()
    return argv[argv.index("daphne") :]


def test_compose_web_is_reached_only_through_the_proxy_and_believes_its_headers(compose):
    """daphne takes the client address from X-Forwarded-For (--proxy-headers), so a web replica must not be
    reachable but through the proxy, which replaces that header: web publishes no port."""
    web = compose["services"]["web"]
    assert not web.get("ports"), "a published web port would let a client name any address in X-Forwarded-For"
    assert [str(port) for port in web["expose"]] == ["8000"]
    argv = daphne_argv(web["command"][-1])
    assert "--proxy-headers" in argv and argv[-1] == "config.asgi:application", argv
    assert argv[argv.index("-p") + 1] == "8000"


def haproxy_lines() -> list[str]:
    """config/haproxy.cfg without comments, one directive a line."""
    lines = (line.split("#", 1)[0].strip() for line in HAPROXY_CFG.read_text().splitlines())
    return [line for line in lines if line]


def test_compose_proxy_runs_config_haproxy_cfg_in_front_of_every_web_replica(compose):
    proxy = compose["services"]["proxy"]
    # The branch the integration test runs this file with (Debian's haproxy 2.6: tests/integration/test_proxy.py).
    assert proxy["image"] == "haproxy:2.6"
    assert sorted(proxy["ports"]) == ["443:443", "80:80"]
    assert all(m.endswith(":ro") for m in proxy["volumes"])  # the proxy reads its config and certificate only
    mounts = dict(m.rsplit(":", 2)[:2] for m in proxy["volumes"])  # SOURCE:TARGET:ro
    assert mounts["./config/haproxy.cfg"] == "/usr/local/etc/haproxy/haproxy.cfg"
    certs = mounts["${FRAY_CERTS:-./certs}"]
    assert "net.ipv4.ip_unprivileged_port_start=0" in proxy["sysctls"]  # the image's unprivileged user binds 80/443
    assert environment_of(proxy)["ALLOWED_HOSTS"] == environment_of(compose["services"]["web"])["ALLOWED_HOSTS"]

    lines = haproxy_lines()
    binds = [line.split()[1:] for line in lines if line.startswith("bind ")]
    assert [":80"] in binds
    tls = next(b for b in binds if b[0] == ":443")
    assert tls[1] == "ssl" and tls[tls.index("crt") + 1].startswith(certs + "/"), tls
    assert "http-request redirect scheme https code 301 unless { ssl_fc }" in lines
    # Every replica Docker's DNS names `web`, on the port web exposes, health-checked.
    template = next(line.split() for line in lines if line.startswith("server-template "))
    assert template[3] == "web:8000" and template[template.index("resolvers") + 1] == "docker", template
    assert "resolvers docker" in lines and "nameserver docker 127.0.0.11:53" in lines
    assert any(line.startswith("default-server check ") for line in lines)
    check = next(line for line in lines if line.startswith("http-check send "))
    assert "uri /healthz" in check and "hdr X-Forwarded-Proto https" in check
    # The proxy's own healthcheck asks its monitor frontend.
    assert [":8404"] in binds
    assert "/dev/tcp/127.0.0.1/8404" in healthcheck_command(proxy)


def test_the_proxy_sets_the_headers_production_settings_trust():
    """The proxy replaces X-Forwarded-For (daphne --proxy-headers reads the client address from it) and sets
    X-Forwarded-Proto, the header production's SECURE_PROXY_SSL_HEADER trusts."""
    lines = haproxy_lines()
    assert "http-request set-header X-Forwarded-For %[src]" in lines
    assert "option forwardfor" not in " ".join(lines), "forwardfor adds to what the client sent, it does not replace it"
    assert "http-request set-header X-Forwarded-Proto https if { ssl_fc }" in lines
    settings = (ROOT / "config" / "settings_production.py").read_text()
    assert 'SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")' in settings


@pytest.mark.parametrize(("name", "words"), [("worker", ["celery", "worker"]), ("beat", ["celery", "beat"])])
def test_compose_celery_services(compose, name, words):
    command = compose["services"][name]["command"]
    command = command if isinstance(command, str) else " ".join(command)
    assert all(word in command.split() for word in words), command
    assert "-A config" in command


def test_compose_secret_key_is_required_not_defaulted(compose):
    secret = environment_of(compose["services"]["web"])["SECRET_KEY"]
    assert secret.startswith("${SECRET_KEY:?"), secret


# --- Dockerfile -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dockerfile():
    text = (ROOT / "Dockerfile").read_text()
    return re.sub(r"\\\n", " ", text)  # join continuation lines


def instructions(dockerfile, keyword):
    return [line.split(None, 1)[1] for line in dockerfile.splitlines() if line.split(None, 1)[:1] == [keyword]]


def test_dockerfile_runs_daphne(dockerfile):
    (cmd,) = instructions(dockerfile, "CMD")
    argv = json.loads(cmd)  # exec form, so daphne is PID 1 and gets SIGTERM
    assert argv[0] == "daphne"
    assert "config.asgi:application" in argv
    assert "--proxy-headers" in argv  # as compose's web: the image serves behind the proxy
    assert any("DJANGO_SETTINGS_MODULE=config.settings_production" in env for env in instructions(dockerfile, "ENV"))


def test_dockerfile_installs_requirements_lock(dockerfile):
    runs = instructions(dockerfile, "RUN")
    assert any("pip install" in run and "-r requirements.lock" in run and "--no-cache-dir" in run for run in runs)
    assert any("collectstatic" in run for run in runs)
    assert instructions(dockerfile, "FROM")[0].startswith("python:3.13-slim")
    (user,) = instructions(dockerfile, "USER")
    assert user.strip() not in {"root", "0"}


# --- requirements.lock ----------------------------------------------------------------------------------------


def locked_versions():
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)(\[[A-Za-z0-9._,-]+\])?==([A-Za-z0-9.+!-]+)", line)
        assert match, f"not pinned exactly: {line!r}"
        pins[re.sub(r"[-_.]+", "-", match[1]).lower()] = match[3]
    return pins


def release(version):
    return tuple(int(part) for part in re.match(r"\d+(?:\.\d+)*", version)[0].split("."))


def test_requirements_lock_pins_the_expected_versions():
    pins = locked_versions()
    assert release(pins["django"])[:2] == (6, 0)
    assert release(pins["channels"])[:2] == (4, 3)
    assert release(pins["redis"])[0] < 8  # redis-py 8 breaks channels-redis 4.3
    assert release(pins["celery"])[:2] == (5, 7)


def test_web_and_worker_share_the_media_volume_for_exports():
    import yaml

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for name in ("web", "worker"):
        service = compose["services"][name]
        assert "media:/app/var/media" in service["volumes"], name
        assert service["environment"]["MEDIA_ROOT"] == "/app/var/media"
    assert "media" in compose["volumes"]
