"""Phones acting at the same moment, on real PostgreSQL row locks."""

import threading

import pytest
from django.db import connection

from campaigns.models import Character, Membership
from combat import services
from combat.models import EncounterEvent
from tests.conftest import make_user

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _race(calls):
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(i, fn):
        try:
            barrier.wait()
            results[i] = fn()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return results


@pytest.fixture
def table(campaign, gm, npc):
    players = [make_user(f"p{i}") for i in range(4)]
    pcs = []
    for i, user in enumerate(players):
        Membership.objects.create(campaign=campaign, user=user)
        pcs.append(Character.objects.create(campaign=campaign, name=f"PC {i}", owner=user, system="burn_bryte"))
    encounter = services.start_encounter(
        services.create_encounter(campaign, gm, name="Rush", model="burn_bryte", pcs=pcs, enemies=[(npc, 1)]), gm)
    services.submit(encounter.pk, gm, "declare", {"enemy": f"npc{npc.pk}-1", "target": f"pc{pcs[0].pk}"}, "d")
    services.submit(encounter.pk, gm, "start_players", {}, "s")
    return encounter, players, pcs


def test_two_phones_claiming_at_once_are_serialised(table):
    encounter, players, pcs = table
    assert connection.vendor == "postgresql"
    results = _race([
        (lambda u=u, c=c: services.submit(encounter.pk, u, "claim_turn", {"actor": f"pc{c.pk}"}, f"claim-{c.pk}"))
        for u, c in zip(players, pcs, strict=True)
    ])
    winners = [r for r in results if r.ok]
    losers = [r for r in results if not r.ok]
    assert len(winners) == 1
    assert all(r.error.endswith("is still taking their turn.") for r in losers)
    seqs = list(EncounterEvent.objects.filter(encounter=encounter).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


def test_a_double_tap_from_several_connections_acts_once(table):
    encounter, players, pcs = table
    results = _race([
        (lambda: services.submit(encounter.pk, players[1], "claim_turn", {"actor": f"pc{pcs[1].pk}"}, "same-key"))
        for _ in range(5)
    ])
    assert all(r.ok for r in results)
    assert EncounterEvent.objects.filter(encounter=encounter, kind="turn_started").count() == 1
