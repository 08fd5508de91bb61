"""No hidden free roll reaches anyone outside the table: a watch link's page and socket, its stream overlay, a share
link's review.

Issue 19: "no GM-only roll reaches a player's page, frame or export (extend the leak checks)". Spectators and share
links read what players read during play, so the GM's secret roll and a player's rolls "for the GM" or "only me"
never reach them; a roll for everyone does.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from combat import services, sharing
from combat.rules.dice import ScriptedDice
from tests.combat.test_consumers import (  # noqa: F401  (fixtures)
    QUIET,
    _close_worker_connections,
    act,
    pc_key,
    receive,
    table,
)
from tests.combat.test_spectators import spectators  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("asgi_loaded")]

# Faces no other part of these pages shows: the GM's secret roll, and the player's rolls to the GM and for themself.
HIDDEN = ("777", "(913)", "(654)", "in secret", "for the GM", "own eyes", "You rolled")


def assert_no_hidden_roll(html: str) -> None:
    for text in HIDDEN:
        assert text not in html, text


@sync_to_async
def get(url: str) -> str:
    response = Client().get(url)
    assert response.status_code == 200
    return response.content.decode()


async def test_hidden_rolls_never_reach_a_watch_link_its_overlay_or_a_share_link(table, gm, player, pc, spectators):  # noqa: F811
    link = await sync_to_async(sharing.watch_link)(table, gm)
    socket, connected, _ = await spectators(link.token)
    assert connected
    await receive(socket, 1)

    await act(gm, table, "roll", {"actor": "", "notation": "1d1000", "show": "gm"}, "r1", ScriptedDice([777]))
    hidden = {"actor": pc_key(pc), "notation": "1d1000", "show": "gm"}
    await act(player, table, "roll", hidden, "r2", ScriptedDice([913]))
    await act(player, table, "roll", {**hidden, "show": "self"}, "r3", ScriptedDice([654]))
    assert await socket.receive_nothing(timeout=QUIET)  # no frame at all for a roll spectators do not read

    await act(player, table, "roll", {**hidden, "show": "all", "notation": "2d6"}, "r4", ScriptedDice([2, 3]))
    [frame] = await receive(socket, 1)
    assert "Luwe rolls 2d6: 2d6 (2, 3) = 5 — no doubles." in frame
    assert_no_hidden_roll(frame)
    for page in (reverse("watch", args=[link.token]), reverse("watch_overlay", args=[link.token])):
        assert_no_hidden_roll(await get(page))

    ended = await sync_to_async(services.submit)(table.pk, gm, "end_encounter", {}, "end")
    assert ended.ok, ended.error
    await sync_to_async(table.refresh_from_db)()
    share = await sync_to_async(sharing.share_review)(table, gm)
    review = await get(reverse("shared_review", args=[share.token]))
    assert "Luwe rolls 2d6" in review
    assert_no_hidden_roll(review)
