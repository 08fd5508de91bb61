"""The embedded default with a real Celery worker: `make run`'s worker (with beat, on kombu's filesystem broker) in a
process of its own, on SQLite, with no DATABASE_URL or REDIS_URL.

One worker serves the whole module. It runs with the Makefile's own arguments (read from the `run` recipe) in a
throwaway FRAY_VAR_DIR, so the SQLite database, the broker's folders, beat's schedule and the exports live in a
tmp dir; its working directory is an empty folder of its own, so anything it writes to a relative path shows up.
The data are made by `manage.py shell` in that same environment; the test reads the results straight from the
SQLite file. Every wait is bounded; the worker is always stopped, and its log is shown when something fails.

tests/integration/test_reminder_worker.py does the same against PostgreSQL and Redis.
"""

import json
import os
import re
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60  # seconds: the bound of every wait below

# Everything that would take the processes off the embedded default, or away from their tmp dir.
NOT_EMBEDDED = {
    "DATABASE_URL",
    "REDIS_URL",
    "EMAIL_URL",
    "MEDIA_ROOT",
    "CELERY_TASK_ALWAYS_EAGER",
    "CELERY_BROKER_VISIBILITY_TIMEOUT",
    "DJANGO_SETTINGS_MODULE",
    "FRAY_VAR_DIR",
    "PYTHONPATH",
    "DEBUG",
}

# Users, a campaign whose reminder one hour before a session is due a second from now, an encounter with one
# logged event and a queued (not yet sent) export of it. Then beat's schedule as a `make run` stopped a while ago
# leaves it: the every-minute reminder sweep is overdue, so the starting beat sends it at once instead of a
# minute later. Prints the facts the test needs as JSON on the last line.
SETUP = """
import json
from datetime import timedelta

from celery.beat import PersistentScheduler
from django.conf import settings
from django.utils import timezone

from campaigns import services, sessions
from campaigns.models import Character, Membership, Reminder, User
from combat import services as combat_services
from combat.models import ExportJob
from config.celery import app

# No passwords: nobody logs in, and hashing three would cost seconds.
gm, ana, ben = (User.objects.create_user(username=name, email=f"{name}@example.com")
                for name in ("gemma", "ana", "ben"))
campaign = services.create_campaign(gm, name="Drift", combat_model="burn_bryte", description="Space!")
Membership.objects.create(campaign=campaign, user=ana)
Membership.objects.create(campaign=campaign, user=ben)
campaign.reminder_offsets = "1"
campaign.save()
game = sessions.create_session(campaign, gm, title="Live relay",
                               starts_at=timezone.now() + timedelta(hours=1, seconds=1), duration_minutes=60)
due = Reminder.objects.get(session=game, user=ana)

pc = Character.objects.create(campaign=campaign, name="Luwe", owner=ana, system="burn_bryte")
npc = Character.objects.create(campaign=campaign, name="Nivick", kind="npc", system="burn_bryte")
encounter = combat_services.start_encounter(combat_services.create_encounter(
    campaign, gm, name="Relay", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm)
result = combat_services.submit(encounter.pk, gm, "declare", {"enemy": f"npc{npc.pk}-1", "target": f"pc{pc.pk}"}, "d")
assert result.ok, result
job = ExportJob.objects.create(encounter=encounter, requested_by=ana, gm_view=False, format="csv")

scheduler = PersistentScheduler(app=app, schedule_filename=settings.CELERY_BEAT_SCHEDULE_FILENAME)
sweep = scheduler.schedule["send-due-reminders"]
sweep.last_run_at = sweep.default_now() - timedelta(minutes=2)
scheduler.close()

print(json.dumps({"reminder": due.pk, "send_at": due.send_at.timestamp(), "session": game.pk, "export": job.pk}))
"""


def makefile_worker_args() -> list[str]:
    """The arguments `make run` gives `celery`: `... $(BIN)/celery -A config worker --beat ... &`."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^run:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe, "the Makefile has no run target"
    match = re.search(r"\$\(BIN\)/celery ([^&\n]+?)\s*&", recipe[1])
    assert match, f"the run target starts no Celery worker in the background:\n{recipe[1]}"
    args = shlex.split(match[1])
    assert args[:3] == ["-A", "config", "worker"] and "--beat" in args and "--pool=solo" in args, args
    return args


def embedded_env(var_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in NOT_EMBEDDED}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        FRAY_VAR_DIR=str(var_dir),
        DEBUG="true",  # as `make run` sets it
        PYTHONPATH=str(ROOT),  # the worker runs in a folder of its own
        PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
    )
    return env


def manage(env, *args) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert result.returncode == 0, f"manage.py {args[0]} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def query(database: Path, sql: str, *params) -> list[tuple]:
    """Read the worker's SQLite database directly (read-only, one short transaction)."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=20)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


@dataclass
class Embedded:
    env: dict
    var: Path
    log: Path
    facts: dict
    proc: subprocess.Popen

    @property
    def database(self) -> Path:
        return self.var / "fray.sqlite3"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, predicate, what: str, timeout: float = TIMEOUT):
        """Poll `predicate` until it returns something true; fail with the worker's log after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            assert self.proc.poll() is None, f"the worker exited ({self.proc.returncode}):\n{self.output()}"
            assert time.monotonic() < deadline, f"{what}: not within {timeout} s. Worker log:\n{self.output()}"
            time.sleep(0.2)


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of process group `pgid`."""
    proc = Path("/proc")
    if not proc.is_dir():  # not Linux: ask the kernel about the whole group
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        return [pgid]
    members = []
    for stat in proc.glob("[0-9]*/stat"):
        try:
            state, _ppid, pgrp = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(pgrp) == pgid and state != "Z":
            members.append(int(stat.parent.name))
    return members


def stop_worker(proc: subprocess.Popen) -> list[int]:
    """As `make run` does on Ctrl-C: SIGTERM to the worker, which stops its beat child and exits. Never leaves its
    process group behind: whatever is still alive after a bounded wait gets SIGKILL. Returns what had to be killed."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
    deadline = time.monotonic() + 10  # beat's child process finishes writing its schedule after the worker exits
    while group_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    stragglers = group_members(proc.pid)
    if stragglers:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return stragglers


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    base = tmp_path_factory.mktemp("embedded")
    var, cwd, log = base / "var", base / "cwd", base / "worker.log"
    cwd.mkdir()
    env = embedded_env(var)

    manage(env, "migrate", "--noinput", "-v0")
    facts = json.loads(manage(env, "shell", "--no-imports", "-c", SETUP).strip().splitlines()[-1])
    # Start the worker only once the reminder is due, so beat's first sweep finds it.
    time.sleep(max(0.0, facts["send_at"] - time.time() + 0.1))

    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", *makefile_worker_args()],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            process_group=0,
        )  # `set -m`, as in make run
    embedded = Embedded(env=env, var=var, log=log, facts=facts, proc=proc)
    clean_exit = False
    try:
        # Ready: the worker's consumer has bound its remote-control queue in the broker's pidbox table.
        table = var / "celery" / "control" / "celery.pidbox.exchange"
        embedded.wait_for(lambda: table.exists() and b".celery.pidbox" in table.read_bytes(), "worker ready")
        yield embedded
        clean_exit = True
    finally:
        killed = stop_worker(proc)
        if not clean_exit:
            print(f"--- worker log ---\n{embedded.output()}")
    assert proc.returncode == 0 and not killed, (
        f"the worker did not shut down cleanly (exit {proc.returncode}, killed {killed}):\n{embedded.output()}"
    )
    # Everything the embedded default writes belongs under FRAY_VAR_DIR, not in the folder it was started from
    # (`make run` starts it in the checkout).
    assert not list(cwd.iterdir()), sorted(p.name for p in cwd.iterdir())


def test_beat_sends_a_due_reminder_through_the_worker(embedded):
    """Nobody queues the sweep here: beat, inside the worker, sends campaigns.tasks.send_due_reminders and the
    worker runs it against SQLite."""
    session = embedded.facts["session"]
    embedded.wait_for(
        lambda: (
            not query(
                embedded.database, "SELECT 1 FROM campaigns_reminder WHERE session_id = ? AND sent_at IS NULL", session
            )
        ),
        "the due reminders sent by beat's first sweep",
        timeout=30,  # under a minute: the sweep after it would come 60 s later and hide a beat that missed this one
    )
    ((sent_at, late, attempts, skipped, error),) = query(
        embedded.database,
        "SELECT sent_at, late, attempts, skipped_reason, last_error FROM campaigns_reminder WHERE id = ?",
        embedded.facts["reminder"],
    )
    assert sent_at and not late and attempts == 1 and not skipped and not error
    notes = query(
        embedded.database,
        "SELECT u.username, n.text FROM campaigns_notification n JOIN campaigns_user u ON u.id = n.user_id"
        " JOIN campaigns_reminder r ON r.id = n.reminder_id WHERE r.session_id = ? ORDER BY u.username",
        session,
    )
    assert [name for name, _ in notes] == ["ana", "ben", "gemma"], notes
    assert all(text.startswith("Drift: Live relay starts") for _, text in notes), notes
    # The embedded e-mail backend is the console: the worker's own output.
    log = embedded.output()
    assert log.count("Subject: Reminder: Live relay starts in") == 3, log
    assert "To: ana@example.com" in log, log


def test_a_queued_export_is_written_by_the_worker(embedded):
    """Queued the way the log page does it (run_export.delay from another process), while the worker runs."""
    job = embedded.facts["export"]
    manage(embedded.env, "shell", "--no-imports", "-c", f"from combat.tasks import run_export; run_export.delay({job})")

    def finished():
        ((status, error),) = query(embedded.database, "SELECT status, error FROM combat_exportjob WHERE id = ?", job)
        assert status != "failed", f"the export failed: {error}\n{embedded.output()}"
        return status == "done"

    embedded.wait_for(finished, "the export")
    ((name, events),) = query(embedded.database, "SELECT file, events FROM combat_exportjob WHERE id = ?", job)
    written = embedded.var / "media" / name  # the embedded MEDIA_ROOT, under FRAY_VAR_DIR
    assert name.startswith("exports/") and written.is_file(), (name, sorted((embedded.var / "media").rglob("*")))
    text = written.read_text()
    assert text.startswith("seq,time,round,phase,kind,by,event,dice,undone"), text
    assert "Nivick declares: attacks against Luwe." in text and events == 1, text


def test_the_worker_answers_the_compose_healthcheck(embedded):
    """docker-compose.yml's worker healthcheck, run against this worker: the same Celery app and node name
    (celery@<hostname>), here over the filesystem broker instead of Redis."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    test = compose["services"]["worker"]["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL", test
    command = test[1].replace("$$", "$")  # compose's escape for the $ the shell sees
    check = subprocess.run(
        ["sh", "-c", command],
        cwd=embedded.var,
        env={**embedded.env, "HOSTNAME": socket.gethostname()},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert check.returncode == 0, f"{check.stdout}{check.stderr}\nworker log:\n{embedded.output()}"
    assert f"celery@{socket.gethostname()}: OK" in check.stdout and "pong" in check.stdout, check.stdout
