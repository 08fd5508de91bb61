"""The History page reads each fight's figures once (combat.history keeps them in Django's cache under the fight's
version): a campaign with more fights costs no more queries, and a fight that goes on or is revealed is read anew."""

import html
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from combat import services
from tests.combat.test_history import play

pytestmark = pytest.mark.django_db


def fight(campaign, gm, player, pc, npc, name):
    """A short Burn Bryte fight, ended: Nivick declares a claw, Luwe rolls Knowledge (1, 2: a success)."""
    L, N = f"pc{pc.pk}", f"npc{npc.pk}-1"
    enc = services.start_encounter(
        services.create_encounter(campaign, gm, name=name, model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm
    )
    return play(
        enc,
        [
            (gm, "declare", {"enemy": N, "target": L, "text": "claw"}, ()),
            (gm, "start_players", {}, ()),
            (player, "claim_turn", {"actor": L}, ()),
            (player, "skill_roll", {"actor": L, "skill": "Knowledge", "intent": "advantage"}, (1, 2)),
            (gm, "end_encounter", {}, ()),
        ],
        name,
    )


def queries(client, url) -> int:
    with CaptureQueriesContext(connection) as done:
        assert client.get(url).status_code == 200
    return len(done.captured_queries)


@pytest.mark.parametrize("as_gm", [True, False])
def test_more_fights_cost_no_more_queries_once_read(campaign, gm, player, pc, npc, client, as_gm):
    client.force_login(gm if as_gm else player)
    url = reverse("archive", args=[campaign.pk])
    fight(campaign, gm, player, pc, npc, "One")
    queries(client, url)  # the first reader replays the fight
    with_one = queries(client, url)
    for n in range(4):
        fight(campaign, gm, player, pc, npc, f"More {n}")
    first = queries(client, url)  # four fights new to the page: each log read once
    assert first == with_one + 4
    assert queries(client, url) == with_one  # five fights, read as cheaply as one


def test_a_fight_that_goes_on_is_read_anew(campaign, gm, player, pc, npc, client):
    """Luwe's rolls in the History's totals follow the fight: one roll, then two after another turn's roll."""
    L, N = f"pc{pc.pk}", f"npc{npc.pk}-1"
    enc = services.start_encounter(
        services.create_encounter(campaign, gm, name="Ongoing", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm
    )
    steps = [
        (gm, "declare", {"enemy": N, "target": L, "text": "claw"}, ()),
        (gm, "start_players", {}, ()),
        (player, "claim_turn", {"actor": L}, ()),
        (player, "skill_roll", {"actor": L, "skill": "Knowledge", "intent": "advantage"}, (1, 2)),
    ]
    play(enc, steps, "a")
    client.force_login(player)
    url = reverse("archive", args=[campaign.pk])

    def luwes_rolls() -> str:
        page = html.unescape(client.get(url).content.decode())
        row = page[page.index('<th scope="row">Luwe</th>') :]
        fights, actions, rolls, *_ = re.findall(r"<td>([^<]*)</td>", row[: row.index("</tr>")])
        return rolls

    assert luwes_rolls() == "1"
    play(enc, [(player, "skill_roll", {"actor": L, "skill": "Knowledge", "intent": "advantage"}, (1, 2, 3))], "b")
    assert luwes_rolls() == "2"


def test_what_the_gm_read_first_never_reaches_a_player(campaign, gm, player, pc, npc, client):
    """The cache keeps each audience apart: the GM reads the History first (an unseen Nivick fell), then a player
    reads it, and Nivick is never named to them, in the fights or the recap."""
    npc.stats = {**npc.full_stats(), "health": 1, "health_max": 1}
    npc.save()
    N = f"npc{npc.pk}-1"
    enc = services.start_encounter(
        services.create_encounter(
            campaign, gm, name="Unseen", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)], hidden=[npc.pk]
        ),
        gm,
    )
    play(enc, [(gm, "adjust_health", {"target": N, "change": -1}, ()), (gm, "end_encounter", {}, ())], "u")
    url = reverse("archive", args=[campaign.pk])
    client.force_login(gm)
    assert "Nivick" in html.unescape(client.get(url).content.decode())
    client.force_login(player)
    page = html.unescape(client.get(url).content.decode())
    assert "Unseen" in page and "Nivick" not in page


def test_the_history_is_right_with_the_cache_down(campaign, gm, player, pc, npc, client, monkeypatch):
    """The cache only saves time: with it down (Redis gone) the page replays every fight and still shows them."""
    fight(campaign, gm, player, pc, npc, "Cache down")

    class Down:
        def get_many(self, keys):
            raise ConnectionError("the cache is down")

        def set_many(self, data, timeout):
            raise ConnectionError("the cache is down")

    monkeypatch.setattr("combat.history.cache", Down())
    client.force_login(player)
    response = client.get(reverse("archive", args=[campaign.pk]))
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert "Cache down" in page and '<th scope="row">Luwe</th>' in page
