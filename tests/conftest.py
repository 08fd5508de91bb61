import os

import pytest
from django.core.management import call_command
from hypothesis import settings as hypothesis_settings

from campaigns import services
from campaigns.models import Character, Membership, User
from config.celery import app as celery_app

PASSWORD = "a-Long-table-password-42"

# Hypothesis: "quick" by default, "thorough" in CI (.ci/run sets HYPOTHESIS_PROFILE). No deadline: on a shared
# machine running several workers, how long one example took says nothing about the code.
hypothesis_settings.register_profile("quick", max_examples=20, deadline=None, print_blob=True)
hypothesis_settings.register_profile("thorough", max_examples=200, deadline=None, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))


def examples(at_100: int) -> int:
    """A property's example count under the loaded profile: `at_100` is what it runs when a profile runs 100
    (more for a cheap pure property, fewer for one that goes through HTTP)."""
    return max(1, round(at_100 * hypothesis_settings.default.max_examples / 100))


@pytest.fixture(scope="session", autouse=True)
def _static_manifest(django_db_blocker):
    """Templates resolve hashed static names (whitenoise manifest), as in production.

    Under pytest-xdist each worker collects into a var folder of its own (var/xdist-gw0/staticfiles): the manifest
    storage deletes and rewrites every hashed file, so two workers sharing one folder would see each other's files
    vanish mid-test. A subprocess a test starts with FRAY_VAR_DIR=STATIC_ROOT.parent finds the worker's files."""
    from django.conf import settings

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        settings.STATIC_ROOT = settings.VAR_DIR / f"xdist-{worker}" / settings.STATIC_ROOT.name
    call_command("collectstatic", interactive=False, verbosity=0)


@pytest.fixture(scope="session")
def asgi_loaded(_static_manifest):
    """config.asgi loaded before a test starts: loading it runs django.setup() again, whose logging set-up drops
    the handler through which caplog sees a test's records (whitenoise scans the collected static files)."""
    import config.asgi  # noqa: F401


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Exports and uploads go to a fresh folder per test, never into the checkout."""
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _celery_eager():
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


@pytest.fixture(autouse=True)
def _fresh_cache(settings):
    """Every test counts its throttles from nothing: a cache key prefix of its own, never a flush (in integration
    runs the cache's Redis database also holds the channel layer and the broker)."""
    from uuid import uuid4

    settings.CACHES = {
        alias: {**config, "KEY_PREFIX": f"test-{uuid4().hex}"} for alias, config in settings.CACHES.items()
    }


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    """Every test gets a channel layer object of its own. Each async test runs on an event loop of its own, and a
    Redis layer keeps asyncio locks for its receivers across calls: a test whose loop closed while the hub's reader
    (combat.hub) waited in receive() left such a lock taken and bound to that dead loop, and the next test's sockets
    failed with "bound to a different event loop". A server has one loop for its whole life; tests have many."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _axes_reset(db):
    from axes.utils import reset

    reset()


def make_user(username, **extra):
    return User.objects.create_user(username=username, password=PASSWORD, email=f"{username}@example.com", **extra)


@pytest.fixture
def gm(db):
    return make_user("gemma")


@pytest.fixture
def player(db):
    return make_user("ana")


@pytest.fixture
def other_player(db):
    return make_user("ben")


@pytest.fixture
def outsider(db):
    return make_user("zed")


@pytest.fixture
def campaign(gm, player, other_player):
    campaign = services.create_campaign(gm, name="Drift", combat_model="burn_bryte", description="Space!")
    campaign.gm_notes = "SECRET-GM-NOTE: the relay is a trap"
    campaign.save()
    Membership.objects.create(campaign=campaign, user=player)
    Membership.objects.create(campaign=campaign, user=other_player)
    return campaign


@pytest.fixture
def pc(campaign, player):
    return Character.objects.create(
        campaign=campaign,
        name="Luwe",
        owner=player,
        system="burn_bryte",
        stats={"health": 3, "health_max": 3},
        gm_notes="SECRET-PC-NOTE",
    )


@pytest.fixture
def other_pc(campaign, other_player):
    return Character.objects.create(campaign=campaign, name="Furo", owner=other_player, system="burn_bryte")


@pytest.fixture
def npc(campaign):
    return Character.objects.create(
        campaign=campaign,
        name="Nivick",
        kind="npc",
        system="burn_bryte",
        is_template=True,
        quantity=4,
        gm_notes="SECRET-NPC-NOTE",
    )


def client_for(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def gm_client(client, gm):
    return client_for(client, gm)


@pytest.fixture
def player_client(client, player):
    return client_for(client, player)


@pytest.fixture
async def close_db_connections():
    """For async tests that reach the database through sync_to_async: close the worker thread's connection
    afterwards, so PostgreSQL can drop the test database."""
    yield
    from asgiref.sync import sync_to_async
    from django.db import connections

    await sync_to_async(connections.close_all)()


@pytest.fixture
def broadcasts(monkeypatch):
    """The broadcast's channel layer replaced by a recorder: every group_send as (group, message), in order."""
    sent: list[tuple[str, dict]] = []

    class Recorder:
        async def group_send(self, group, message):
            sent.append((group, message))

    monkeypatch.setattr("combat.broadcast.get_channel_layer", lambda: Recorder())
    return sent
