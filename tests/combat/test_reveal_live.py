"""A reveal at the live table: the GM's control, and what reaches players' pages and websocket frames.

Before the reveal no player's page or frame carries the unseen combatant's name; the reveal's frame does, on
every player's socket, and the GM's table offers "Reveal" only beside a combatant the party cannot see.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from combat import services
from combat.models import Encounter
from tests.combat.test_consumers import (  # noqa: F401  (fixtures)
    LURKER,
    _close_worker_connections,
    _with_a_lurker,
    act,
    npc_key,
    pc_key,
    receive,
    receive_update,
    sockets,
    strip_until,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("asgi_loaded")]


@sync_to_async
def page(user, encounter: Encounter) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(encounter.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


async def test_a_reveal_reaches_every_players_socket_and_page_and_no_name_leaks_before(
    campaign, gm, player, other_player, pc, npc, sockets
):
    encounter, lurker = await _with_a_lurker(campaign, gm, pc, npc)
    gm_page = await page(gm, encounter)
    assert 'name="command" value="reveal"' in gm_page and f'value="{lurker}"' in gm_page
    gm_socket, _, _ = await sockets(gm, encounter)
    phone, _, _ = await sockets(player, encounter)
    watcher, _, _ = await sockets(other_player, encounter)  # a player without a character in the fight
    for socket in (phone, watcher):
        await receive(socket, 1)
    await receive(gm_socket, 1, then_quiet=False)
    await strip_until(gm_socket, encounter.pk, {"ana": True, "ben": True})  # the players joined

    for user in (player, other_player):
        html = await page(user, encounter)
        assert LURKER not in html and 'value="reveal"' not in html

    # The unseen enemy acts: GM-only, no frame for players; then the GM reveals it.
    await act(gm, encounter, "declare", {"enemy": lurker, "target": pc_key(pc), "text": "creeps"}, "hidden")
    [gm_html] = await receive(gm_socket, 1)
    assert LURKER in gm_html
    for socket in (phone, watcher):
        assert await socket.receive_nothing(timeout=0.3)

    await act(gm, encounter, "reveal", {"fighter": lurker}, "reveal")
    for socket in (phone, watcher):
        table, _ = await receive_update(socket, encounter.pk)
        assert f"{LURKER} is revealed." in table  # the log line
        assert table.count(LURKER) >= 2  # and the enemies list
        assert "creeps" in table  # its declaration, now in sight
    [gm_html] = await receive(gm_socket, 1)
    assert f"{LURKER} is revealed." in gm_html
    for user in (player, other_player):
        assert LURKER in await page(user, encounter)
    assert 'value="reveal"' not in await page(gm, encounter)  # nobody is left to reveal

    # Undo takes it off the table again; the log keeps the undone line struck through, as it does every entry.
    await act(gm, encounter, "undo", {}, "undo")
    for socket in (phone, watcher):
        table, _ = await receive_update(socket, encounter.pk)
        assert table.count(LURKER) == 1 and f"<s>{LURKER} is revealed.</s>" in table
        assert "creeps" not in table
    for user in (player, other_player):
        assert (await page(user, encounter)).count(LURKER) == 1


async def test_a_player_cannot_reveal(campaign, gm, player, pc, npc):
    encounter, lurker = await _with_a_lurker(campaign, gm, pc, npc)
    result = await sync_to_async(services.submit)(encounter.pk, player, "reveal", {"fighter": lurker}, "try")
    assert not result.ok
    assert LURKER not in (result.error or "")


async def test_revealing_one_in_sight_is_refused_with_a_sentence(campaign, gm, pc, npc):
    encounter, _ = await _with_a_lurker(campaign, gm, pc, npc)
    result = await sync_to_async(services.submit)(encounter.pk, gm, "reveal", {"fighter": npc_key(npc)}, "again")
    assert not result.ok and "already in sight" in result.error


def test_an_expanse_pc_is_offered_no_unseen_target_until_the_reveal():
    """Issue 17: players were offered "Roll the attack" at "Nobody in sight", which then failed. A PC's targets
    are the enemies it is aware of, whoever looks (the GM acting for the PC too); the reveal adds the sniper."""
    from combat.rules import expanse as ex
    from combat.rules.core import Reveal
    from combat.rules.dice import ScriptedDice
    from combat.tables import expanse_attacks as table
    from tests.combat.test_reveal_rules import ex_start

    t = ex_start(attack_reveals=False)
    luwe = t.state.fighter("luwe")
    for gm in (True, False):
        assert [x.key for x in table.targets(t.state, luwe, gm)] == ["thug"]
    [revealed] = ex.decide(t.state, Reveal(fighter="sniper"), ScriptedDice(()))
    after = ex.evolve(t.state, revealed)
    for gm in (True, False):
        assert [x.key for x in table.targets(after, after.fighter("luwe"), gm)] == ["thug", "sniper"]


async def test_after_a_reveal_the_players_log_page_and_export_name_it_and_count_it(campaign, gm, player, pc, npc):
    """Before the reveal a player's review and export leave the unseen enemy out; once revealed it has its row in
    the summary and its place among the export's combatants, like any enemy in sight."""

    @sync_to_async
    def views(encounter):
        import io

        from django.urls import reverse

        from combat import exports

        client = Client()
        client.force_login(player)
        html = client.get(reverse("encounter_log", args=[encounter.campaign_id, encounter.pk])).content.decode()
        out = io.StringIO()
        exports.write_json(Encounter.objects.get(pk=encounter.pk), False, out)
        return html, out.getvalue()

    encounter, lurker = await _with_a_lurker(campaign, gm, pc, npc)
    html, export = await views(encounter)
    assert LURKER not in html and LURKER not in export
    await act(gm, encounter, "reveal", {"fighter": lurker}, "reveal")
    html, export = await views(encounter)
    summary = html[html.index('id="sum-h"') : html.index('id="charts-h"')]
    assert LURKER in summary and f"{LURKER} is revealed." in html
    assert f'"name": "{LURKER}"' in export


@pytest.mark.parametrize("model", ["expanse", "hero"])
def test_the_gms_table_offers_reveal_beside_the_unseen_only_and_players_gain_it(campaign, gm, player, model):
    """The Expanse and HERO tables: "Reveal" beside the unseen enemy on the GM's table alone; after it the players'
    table names the enemy, and the GM has nobody left to reveal."""
    from campaigns.models import Character
    from combat import fragments, store
    from combat.models import Encounter
    from tests.combat.helpers import valid_sheet

    def npc(name):
        return Character.objects.create(
            campaign=campaign, name=name, kind="npc", system=model, stats=valid_sheet(model)
        )

    pc = Character.objects.create(campaign=campaign, name="Rosa", owner=player, system=model, stats=valid_sheet(model))
    seen, lurker = npc("Guard"), npc(LURKER)
    encounter = services.create_encounter(
        campaign, gm, name="Dock", model=model, pcs=[pc], enemies=[(seen, 1), (lurker, 1)], hidden={lurker.pk}
    )
    services.start_encounter(encounter, gm)
    key = f"npc{lurker.pk}-1"

    def tables():
        enc = Encounter.objects.get(pk=encounter.pk)
        state = store.load_state(enc)
        return fragments.for_gm(enc, state), fragments.for_players(enc, state) + fragments.me_html(
            enc, state, player.pk
        )

    gm_html, players_html = tables()
    assert gm_html.count('name="command" value="reveal"') == 1 and f'value="{key}"' in gm_html
    assert LURKER not in players_html and 'value="reveal"' not in players_html
    assert services.submit(encounter.pk, gm, "reveal", {"fighter": key}, "reveal").ok
    gm_html, players_html = tables()
    assert 'value="reveal"' not in gm_html
    assert f"{LURKER} is revealed." in players_html and players_html.count(LURKER) >= 2
