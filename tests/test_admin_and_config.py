import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

ROOT = Path(__file__).resolve().parent.parent


def test_every_model_of_ours_is_in_the_admin():
    ours = [m for app in ("campaigns", "ships") for m in apps.get_app_config(app).get_models()]
    missing = [m.__name__ for m in ours if m not in admin.site._registry]
    assert not missing, f"not in the admin: {missing}"


@pytest.mark.django_db
def test_admin_pages_open_for_staff(client, gm, campaign, pc, npc):
    from campaigns.services import regenerate_invite
    from ships.models import CrewAssignment, Ship

    regenerate_invite(campaign, gm, days=7)
    from datetime import timedelta

    from django.utils import timezone

    from campaigns import sessions
    from campaigns.models import Notification

    game = sessions.create_session(
        campaign, gm, title="Relay", starts_at=timezone.now() + timedelta(days=3), duration_minutes=180
    )  # and its reminders
    sessions.set_rsvp(game, gm, "going")
    Notification.objects.create(user=gm, campaign=campaign, text="Relay starts soon.", url=game.get_absolute_url())
    sessions.calendar_feed_for(gm)

    ship = Ship.objects.create(campaign=campaign, name="Lantern")
    CrewAssignment.objects.create(ship=ship, character=pc, station="pilot")
    gm.is_staff = gm.is_superuser = True
    gm.save()
    client.force_login(gm)
    for model in admin.site._registry:
        if model._meta.app_label not in ("campaigns", "ships"):
            continue
        info = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        assert client.get(reverse(f"{info}_changelist")).status_code == 200, info
        obj = model.objects.first()
        assert client.get(reverse(f"{info}_change", args=[obj.pk])).status_code == 200, info


def _settings_from_env(**env):
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({'db': s.DATABASES['default']['ENGINE'], 'name': str(s.DATABASES['default']['NAME']), "
        "'layer': s.CHANNEL_LAYERS['default']['BACKEND'], 'broker': s.CELERY_BROKER_URL, "
        "'email': s.EMAIL_BACKEND, 'email_host': getattr(s, 'EMAIL_HOST', ''), 'hosts': s.ALLOWED_HOSTS, "
        "'debug': s.DEBUG, 'max_age': s.DATABASES['default'].get('CONN_MAX_AGE'), "
        "'pool': s.DATABASES['default'].get('OPTIONS', {}).get('pool')}))"
    )
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "EMAIL_URL", "DEBUG")}
    base.update(DJANGO_SETTINGS_MODULE="config.settings", **env)
    out = subprocess.run([sys.executable, "-c", code], env=base, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_embedded_default_needs_no_services(tmp_path):
    s = _settings_from_env(FRAY_VAR_DIR=str(tmp_path))
    assert s["db"] == "django.db.backends.sqlite3" and s["name"].startswith(str(tmp_path))
    assert s["layer"] == "channels.layers.InMemoryChannelLayer"
    assert s["broker"] == "filesystem://"
    assert s["email"] == "django.core.mail.backends.console.EmailBackend"
    assert s["debug"] is False


def test_environment_switches_to_real_services():
    s = _settings_from_env(
        DATABASE_URL="postgres://fray:pw@db.internal:5432/fray",
        REDIS_URL="redis://cache.internal:6379/1",
        EMAIL_URL="smtp+tls://mailer:pw@smtp.example.com:587",
        ALLOWED_HOSTS="fray.example.com,www.fray.example.com",
        DEBUG="true",
    )
    assert s["db"] == "django.db.backends.postgresql" and s["name"] == "fray"
    assert s["layer"] == "channels_redis.core.RedisChannelLayer"
    assert s["broker"] == "redis://cache.internal:6379/1"
    assert s["email"] == "django.core.mail.backends.smtp.EmailBackend" and s["email_host"] == "smtp.example.com"
    assert s["hosts"] == ["fray.example.com", "www.fray.example.com"]
    assert s["debug"] is True
    # Each request's queries run on a thread of its own under ASGI: connections come from a pool and go back to
    # it, rather than persisting on a thread that is never used again.
    assert s["max_age"] == 0 and s["pool"]["max_size"] == 20


def test_the_database_pool_size_comes_from_the_environment():
    s = _settings_from_env(DATABASE_URL="postgres://fray:pw@db.internal:5432/fray", DB_POOL_SIZE="7")
    assert s["pool"]["max_size"] == 7


@pytest.mark.django_db
def test_health_check_answers_for_load_balancers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True, "database": True}


def test_the_service_worker_is_served_from_the_root_so_it_covers_every_page(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/javascript"
    assert "no-cache" in response["Cache-Control"]  # a new version reaches the phones on their next visit
    assert b'addEventListener("notificationclick"' in response.content
    assert client.post("/sw.js").status_code == 405


def test_embedded_database_keeps_a_write_ahead_log_synced_on_every_commit(tmp_path):
    """Readers never wait for a writer, and a committed action survives a crash (synchronous=FULL is 2)."""
    code = (
        "import json, django; django.setup(); from django.db import connection; "
        "c = connection.cursor(); c.execute('PRAGMA journal_mode'); mode = c.fetchone()[0]; "
        "c.execute('PRAGMA synchronous'); print(json.dumps([mode, c.fetchone()[0]]))"
    )
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    base.update(DJANGO_SETTINGS_MODULE="config.settings", FRAY_VAR_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=base, cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == ["wal", 2]
