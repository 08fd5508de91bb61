"""The throttles' window and the cache they count in."""

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.urls import reverse

from campaigns import services
from campaigns.models import Membership

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self, now: float = 1_800_000_000.0):
        self.now = now

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(settings, monkeypatch):
    """Steers the time the throttle and Django's in-memory cache (where counts expire) both read."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "throttle-clock-test"}
    }
    fake = Clock()
    monkeypatch.setattr("campaigns.throttle.time", SimpleNamespace(time=fake.time))
    for module in ("django.core.cache.backends.base", "django.core.cache.backends.locmem"):
        monkeypatch.setattr(f"{module}.time", SimpleNamespace(time=fake.time))
    return fake


@pytest.mark.django_db
def test_codes_are_accepted_again_when_the_window_ends(client, gm, outsider, campaign, clock, settings):
    invite = services.regenerate_invite(campaign, gm, days=7)
    client.force_login(outsider)
    for _ in range(settings.FRAY_THROTTLES["join_code"]["user"]):
        client.post(reverse("join_code"), {"code": "ZZZZ-ZZZZ"})
    clock.now += 14 * 60 + 30
    response = client.post(reverse("join_code"), {"code": invite.code})
    assert response.status_code == 429
    assert "Too many wrong codes; try again in 1 minute." in response.content.decode()
    clock.now += 31
    assert client.post(reverse("join_code"), {"code": invite.code}).status_code == 302
    assert Membership.objects.filter(campaign=campaign, user=outsider).exists()


def _caches_from_env(**env) -> dict:
    code = "import json, django; django.setup(); from django.conf import settings; print(json.dumps(settings.CACHES))"
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    base.update(DJANGO_SETTINGS_MODULE="config.settings", **env)
    out = subprocess.run([sys.executable, "-c", code], env=base, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["default"]


def test_web_processes_share_their_counts_in_redis(tmp_path):
    cache = _caches_from_env(REDIS_URL="redis://cache.internal:6379/1", FRAY_VAR_DIR=str(tmp_path))
    assert cache["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert cache["LOCATION"] == "redis://cache.internal:6379/1"


def test_the_embedded_default_counts_in_memory(tmp_path):
    cache = _caches_from_env(FRAY_VAR_DIR=str(tmp_path))
    assert cache["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"


@pytest.mark.django_db
def test_a_cache_that_cannot_be_reached_lets_a_right_code_join(client, gm, outsider, campaign, settings):
    """Redis down: the throttle counts nothing and refuses nothing, and joining works (not a server error)."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:1/0"}
    }  # nothing listens on port 1
    invite = services.regenerate_invite(campaign, gm, days=7)
    client.force_login(outsider)
    wrong = client.post(reverse("join_code"), {"code": "WRONG-CODE"})
    assert wrong.status_code == 400 and "code" in wrong.content.decode().lower()
    joined = client.post(reverse("join_code"), {"code": invite.code})
    assert joined.status_code == 302
    assert Membership.objects.filter(campaign=campaign, user=outsider).exists()
