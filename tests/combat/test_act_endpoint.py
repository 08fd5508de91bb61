"""The table's one write endpoint, for every model: keys that tell a double tap from a second action."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Membership
from combat import services
from combat.models import EncounterEvent
from tests.combat.helpers import without_form_keys
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def running(campaign, gm, pc, npc):
    encounter = services.create_encounter(campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc], enemies=[(npc, 2)])
    return services.start_encounter(encounter, gm)


def post(client, encounter, **data):
    return client.post(
        reverse("encounter_act", args=[encounter.campaign_id, encounter.pk]), data, headers={"HX-Request": "true"}
    )


def test_a_double_tap_of_the_same_form_acts_once(client, gm, running, pc, npc):
    client.force_login(gm)
    form = {
        "command": "declare",
        "key": f"{running.pk}-0-declare",
        "enemy": f"npc{npc.pk}-1",
        "target": f"pc{pc.pk}",
        "text": "claw",
    }
    post(client, running, **form)
    post(client, running, **form)
    assert EncounterEvent.objects.filter(encounter=running).count() == 1


def test_two_gms_declaring_different_enemies_from_the_same_version_both_count(campaign, gm, running, pc, npc):
    co_gm = make_user("cora")
    Membership.objects.create(campaign=campaign, user=co_gm, role=Membership.Role.GM)
    first, second = Client(), Client()
    first.force_login(gm)
    second.force_login(co_gm)
    key = f"{running.pk}-0-declare"  # both pages were rendered at version 0
    post(first, running, command="declare", key=key, enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}", text="claw")
    post(second, running, command="declare", key=key, enemy=f"npc{npc.pk}-2", target=f"pc{pc.pk}", text="bite")
    texts = [e.payload["data"]["text"] for e in EncounterEvent.objects.filter(encounter=running).order_by("seq")]
    assert texts == ["claw", "bite"]


def test_an_action_with_its_broadcast_and_response_costs_the_same_queries_for_2_or_40_enemies(
    client, campaign, gm, pc, other_pc, npc, django_capture_on_commit_callbacks, broadcasts
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(gm)

    def queries_for(quantity):
        encounter = services.start_encounter(
            services.create_encounter(
                campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc, other_pc], enemies=[(npc, quantity)]
            ),
            gm,
        )
        with django_capture_on_commit_callbacks(execute=True), CaptureQueriesContext(connection) as queries:
            response = post(
                client, encounter, command="declare", key="d", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}", text="claw"
            )
        assert response.status_code == 200 and "claw" in response.content.decode()
        return len(queries)

    assert queries_for(2) == queries_for(40)
    assert broadcasts  # the broadcast ran inside the measured request


@pytest.mark.django_db(transaction=True)
def test_an_action_reads_each_row_once_on_its_way_to_every_screen(campaign, gm, pc, other_pc, npc, broadcasts):
    """As served: the commit runs the broadcast inside the request, and the response reuses its HTML."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    encounter = services.start_encounter(
        services.create_encounter(
            campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc, other_pc], enemies=[(npc, 3)]
        ),
        gm,
    )
    client = Client()
    client.force_login(gm)
    broadcasts.clear()  # the start's own broadcast
    with CaptureQueriesContext(connection) as queries:
        response = post(
            client, encounter, command="declare", key="d", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}", text="claw"
        )
    assert response.status_code == 200 and "claw" in response.content.decode()
    assert [group for group, _ in broadcasts] == [f"enc-{encounter.pk}-players", f"enc-{encounter.pk}-gm"]
    tables = [re.search(r'(?:FROM|INTO|UPDATE) "(\w+)"', q["sql"]) for q in queries.captured_queries]
    assert [t.group(1) for t in tables if t] == [
        "django_session",
        "campaigns_user",
        "campaigns_membership",  # who asks
        "combat_encounter",
        "combat_encounterevent",  # found and locked (its campaign is the membership's),
        # then the action's key already used?
        "combat_encounterevent",
        "combat_encounter",  # the event written, the snapshot stored
        "combat_encounterevent",  # the broadcast: the players' newest log entries, in their stored words
        "combat_encounterevent",  # every player's own hidden dice rolls, once for all their own controls
        "combat_encounterevent",
        "campaigns_character",  # then the GM's newest entries, and the GM's NPC notes
    ]


def test_the_actions_response_is_the_html_its_broadcast_sent(
    client, gm, running, pc, npc, django_capture_on_commit_callbacks, broadcasts
):
    client.force_login(gm)
    with django_capture_on_commit_callbacks(execute=True):
        response = post(
            client, running, command="declare", key="d", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}", text="claw"
        )
    sent = {group: without_form_keys(message["html"]) for group, message in broadcasts}
    assert without_form_keys(response.content.decode()).startswith(sent[f"enc-{running.pk}-gm"])


def test_a_broken_channel_layer_still_answers_a_committed_action(
    client, gm, running, pc, npc, django_capture_on_commit_callbacks, monkeypatch
):
    def no_layer():
        raise ConnectionError("the channel layer is misconfigured")

    monkeypatch.setattr("combat.broadcast.get_channel_layer", no_layer)
    client.force_login(gm)
    with django_capture_on_commit_callbacks(execute=True):
        response = post(
            client, running, command="declare", key="d", enemy=f"npc{npc.pk}-1", target=f"pc{pc.pk}", text="claw"
        )
    assert response.status_code == 200 and "claw" in response.content.decode()
    assert EncounterEvent.objects.filter(encounter=running).count() == 1
