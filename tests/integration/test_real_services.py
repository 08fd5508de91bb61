"""Run by `make test-integration` (and .ci/run) with DATABASE_URL and REDIS_URL pointing at real services."""

import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection

from campaigns import services
from campaigns.models import Membership

pytestmark = pytest.mark.integration


@pytest.mark.django_db
def test_database_is_postgresql_and_constraints_hold(gm, player):
    assert connection.vendor == "postgresql"
    campaign = services.create_campaign(gm, name="Drift", combat_model="hero")
    Membership.objects.create(campaign=campaign, user=player)
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(campaign=campaign, user=player)


def test_channel_layer_is_redis_and_delivers_to_a_group():
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    layer = get_channel_layer()

    async def round_trip():
        channel = await layer.new_channel()
        group = f"test-{uuid.uuid4().hex}"
        await layer.group_add(group, channel)
        await layer.group_send(group, {"type": "fragment", "html": "<div id='x'>hello</div>"})
        message = await layer.receive(channel)
        await layer.group_discard(group, channel)
        return message

    assert async_to_sync(round_trip)() == {"type": "fragment", "html": "<div id='x'>hello</div>"}


def test_celery_broker_is_redis_and_reachable():
    from config.celery import app

    assert app.conf.broker_url.startswith("redis://")
    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=2)
        queue = f"fray-test-{uuid.uuid4().hex}"
        with conn.SimpleQueue(queue) as q:
            q.put({"ping": 1})
            assert q.get(timeout=5).payload == {"ping": 1}
            q.clear()
