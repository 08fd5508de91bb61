"""The dice roller at the live table: who reads each roll on their page, in their websocket frames and exports.

Issue 19: "Rolls appear in the log for their audience only and in the exports, with the same per-audience rules as
every log entry." A roll for everyone reaches every phone; "me and the GM" reaches the GM; "only me" reaches its
roller alone (the GM's log says only that a roll was made); the GM's secret roll stays with the GM. No other
player's page, frame or export holds a hidden roll.
"""

from __future__ import annotations

import io

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from combat import exports, selectors, services
from combat.models import ExportJob
from combat.rules.dice import ScriptedDice
from combat.tasks import run_export
from tests.combat.phone_forms import form_sending
from tests.combat.test_consumers import (  # noqa: F401  (fixtures)
    QUIET,
    _close_worker_connections,
    act,
    build_encounter,
    pc_key,
    receive,
    receive_update,
    sockets,
    strip_until,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("asgi_loaded")]


@sync_to_async
def page(user, encounter) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(encounter.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


@sync_to_async
def log_page(user, encounter) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("encounter_log", args=[encounter.campaign_id, encounter.pk]))
    assert response.status_code == 200
    return response.content.decode()


@sync_to_async
def export(encounter, gm_view: bool, reader=None) -> str:
    out = io.StringIO()
    exports.write_json(encounter, gm_view, out, reader)
    csv = io.StringIO()
    exports.write_csv(encounter, gm_view, csv, reader)
    return out.getvalue() + csv.getvalue()


@sync_to_async
def export_job(encounter, user) -> str:
    """A player's export as the log page's button makes it: the worker's file."""
    job = ExportJob.objects.create(encounter=encounter, requested_by=user, gm_view=False, format="md")
    run_export(job.pk)
    job.refresh_from_db()
    return job.file.read().decode()


async def roll(user, encounter, actor, notation, show, faces, key):
    return await act(
        user, encounter, "roll", {"actor": actor, "notation": notation, "show": show}, key, ScriptedDice(faces)
    )


HIDDEN = ("(17)", "(6)", "(42)", "for the GM", "You rolled")


async def test_each_roll_reaches_only_its_audience(campaign, gm, player, other_player, pc, other_pc, npc, sockets):
    encounter = await sync_to_async(build_encounter)(campaign, gm, [pc, other_pc], npc)
    luwe = pc_key(pc)
    gm_socket, _, _ = await sockets(gm, encounter)
    mine, _, _ = await sockets(player, encounter)
    theirs, _, _ = await sockets(other_player, encounter)
    await receive(gm_socket, 1, then_quiet=False)
    await strip_until(gm_socket, encounter.pk, {"ana": True, "ben": True})
    await receive(mine, 1)
    await receive(theirs, 1)

    # Both phones offer the roller, though it is nobody's turn; the other player has no control for Luwe.
    for user in (player, other_player):
        html = await page(user, encounter)
        assert 'name="command" value="roll"' in html and f'id="enc-{encounter.pk}-dice-me"' in html
    assert f'value="{luwe}"' not in await page(other_player, encounter)
    assert 'value="self"' not in await page(gm, encounter) and "Secret (GM only)" in await page(gm, encounter)

    # For everyone: every socket reads it in the log.
    await roll(player, encounter, luwe, "2d6+1", "all", [3, 5], "r1")
    said = "Luwe rolls 2d6+1: 2d6 (3, 5) + 1 = 9 — no doubles."
    for socket in (mine, theirs):
        table, _ = await receive_update(socket, encounter.pk)
        assert said in table
    [gm_html] = await receive(gm_socket, 1)
    assert said in gm_html

    # Only me: no frame for the other player; the GM learns a roll was made, not what it showed.
    await roll(player, encounter, luwe, "1d20", "self", [17], "r2")
    [gm_html] = await receive(gm_socket, 1)
    assert "Luwe rolled dice for their own eyes only." in gm_html and "(17)" not in gm_html
    assert await theirs.receive_nothing(timeout=QUIET) and await mine.receive_nothing(timeout=QUIET)
    assert "You rolled for yourself: 1d20: 1d20 (17) = 17." in await page(player, encounter)

    # Me and the GM: the GM reads it; the GM's secret roll: only the GM.
    await roll(player, encounter, luwe, "1d8", "gm", [6], "r3")
    [gm_html] = await receive(gm_socket, 1)
    assert "Luwe rolls for the GM: 1d8: 1d8 (6) = 6" in gm_html
    await roll(gm, encounter, "", "d%", "gm", [42], "r4")
    [gm_html] = await receive(gm_socket, 1)
    assert "The GM rolls in secret: 1d100: 1d100 (42) = 42." in gm_html
    assert await theirs.receive_nothing(timeout=QUIET)

    # A public action afterwards: Luwe's own frame carries their hidden rolls, the other player's does not.
    await roll(other_player, encounter, pc_key(other_pc), "d20", "all", [9], "r5")
    table, own = await receive_update(mine, encounter.pk)
    assert "Furo rolls 1d20: 1d20 (9) = 9." in table
    assert "You rolled for yourself: 1d20: 1d20 (17) = 17." in own and "You rolled for you and the GM" in own
    their_frame = "".join(await receive_update(theirs, encounter.pk))
    await receive(gm_socket, 1)
    other_page = await page(other_player, encounter)
    for text in HIDDEN:
        assert text not in their_frame and text not in other_page
        assert text not in table
    # The exports: the other player's holds none of the hidden rolls; the roller's own holds theirs, as their
    # phone words them, and no one else's; the GM's sentences never show the "only me" roll.
    for players_export in (await export(encounter, False), await export(encounter, False, other_player.pk)):
        assert "(3, 5)" in players_export
        for text in (*HIDDEN, "own eyes"):
            assert text not in players_export
    own_export = await export(encounter, False, player.pk)
    assert "You rolled for yourself: 1d20: 1d20 (17) = 17." in own_export and "1d20: 17" in own_export
    assert "You rolled for you and the GM: 1d8: 1d8 (6) = 6." in own_export
    assert "(42)" not in own_export and "own eyes" not in own_export
    own_file = await export_job(encounter, player)
    assert "You rolled for yourself: 1d20: 1d20 (17) = 17." in own_file and "(42)" not in own_file
    assert "You rolled" not in await export_job(encounter, other_player)
    # The log page (timeline and charts) follows the same rules.
    assert "Luwe rolls 2d6+1" in await log_page(other_player, encounter)
    for text in (*HIDDEN, "own eyes"):
        assert text not in await log_page(other_player, encounter)
    gm_log = await log_page(gm, encounter)
    assert "The GM rolls in secret" in gm_log and "own eyes only" in gm_log and "1d20 (17)" not in gm_log
    gm_export = await export(encounter, gm_view=True)
    assert "(6)" in gm_export and "(42)" in gm_export and "1d20 (17)" not in gm_export and "1d20: 17" not in gm_export


async def test_a_player_rolls_only_for_their_own_character(campaign, gm, player, other_player, pc, other_pc, npc):
    encounter = await sync_to_async(build_encounter)(campaign, gm, [pc, other_pc], npc)
    submit = sync_to_async(services.submit)
    data = {"actor": pc_key(pc), "notation": "2d6", "show": "all"}
    refused = await submit(encounter.pk, other_player, "roll", data, "k1", dice=ScriptedDice([1, 1]))
    assert not refused.ok and refused.error == "You can act only for your own character."
    # Without a PC a player rolls in their own name, never as the GM, whatever name the form sends.
    forged = {**data, "actor": "", "player": "The GM", "show": "gm"}
    own = await submit(encounter.pk, other_player, "roll", forged, "k2", dice=ScriptedDice([1, 1]))
    assert own.ok
    assert await sync_to_async(selectors.hidden_rolls)(encounter) == {
        other_player.pk: ("You rolled for you and the GM: 2d6: 2d6 (1, 1) = 2 — doubles.",)
    }
    gm_log = await log_page(gm, encounter)
    assert "ben rolls for the GM: 2d6: 2d6 (1, 1) = 2 — doubles." in gm_log and "The GM rolls in secret" not in gm_log
    bad = await submit(encounter.pk, player, "roll", {**data, "notation": "10000d10000"}, "k3")
    assert not bad.ok and bad.error == "Numbers in a roll go up to 1000."


def test_a_player_with_no_character_in_the_fight_rolls_in_their_own_name(campaign, gm, player, other_player, pc, npc):
    """ "Anyone can make a free roll from a phone": a member watching the fight without a PC in it too."""
    encounter = build_encounter(campaign, gm, [pc], npc)
    client = Client()
    client.force_login(other_player)
    html = client.get(encounter.get_absolute_url()).content.decode()
    assert f'id="enc-{encounter.pk}-dice-me"' in html and 'name="actor" value=""' in html
    assert "Roll as" not in html  # nobody to choose between
    data = {"actor": "", "notation": "3d6+2", "show": "all"}
    assert services.submit(encounter.pk, other_player, "roll", data, "r1", dice=ScriptedDice([6, 5, 4])).ok
    for user in (gm, player, other_player):
        assert "ben rolls 3d6+2: 3d6 (6, 5, 4) + 2 = 17 — no doubles." in client_page(user, encounter)


def client_page(user, encounter) -> str:
    client = Client()
    client.force_login(user)
    return client.get(encounter.get_absolute_url()).content.decode()


def test_a_phone_shows_its_five_newest_hidden_rolls_and_not_an_undone_one(campaign, gm, player, pc, other_pc, npc):
    encounter = build_encounter(campaign, gm, [pc, other_pc], npc)
    for face in range(1, 8):
        data = {"actor": pc_key(pc), "notation": "1d8", "show": "self"}
        assert services.submit(encounter.pk, player, "roll", data, f"k{face}", dice=ScriptedDice([face])).ok
    assert services.submit(encounter.pk, gm, services.UNDO, {}, "undo").ok  # the GM takes back the 7 (unseen)
    rolls = selectors.hidden_rolls(encounter)
    assert rolls[player.pk] == tuple(f"You rolled for yourself: 1d8: 1d8 ({n}) = {n}." for n in (6, 5, 4, 3, 2))
    assert set(rolls) == {player.pk}  # nobody else has any


def test_a_burn_bryte_phone_rolls_k_plus_1_for_a_skill_without_knowing_the_dice(campaign, gm, player, pc, npc):
    """Issue 19: "`k+1` dice for Burn Bryte skills" (seed 000: "the k-th roll of a turn = k+1 dice" of the skill's
    size). The phone offers the character's skills; the server works out the dice from the sheet."""
    pc.stats = {**pc.stats, "skill_melee": 8}
    pc.save()
    encounter = build_encounter(campaign, gm, [pc], npc)
    form = form_sending(client_page(player, encounter), "roll")
    assert form is not None and form.options["skill"][:2] == ["", "Computers"] and "Melee" in form.options["skill"]
    assert "8" not in " ".join(form.options["skill"])  # the player picks a skill, not dice
    data = {**form.sends, "notation": "k+1", "skill": "Melee", "show": "all"}
    assert services.submit(encounter.pk, player, "roll", data, "k1", dice=ScriptedDice([3, 7])).ok
    assert "Luwe rolls Melee 2d8: 2d8 (3, 7) = 10 — no doubles." in client_page(gm, encounter)
    refused = services.submit(encounter.pk, player, "roll", {**data, "skill": "Piloting"}, "k2")
    assert not refused.ok and refused.error == "Choose one of Luwe's skills."
    gm_form = form_sending(client_page(gm, encounter), "roll")
    assert gm_form is not None and "skill" not in gm_form.options  # the GM has no character's skills to roll
