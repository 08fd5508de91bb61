"""The live table over a websocket, through the whole ASGI stack (origin check, session auth, routing).

Every test opens real websocket communicators (tests.ws_socket) on `config.asgi.application` with a browser-like Origin,
Host and session cookie, so what is asserted is what a phone at the table would receive. The channel layer
is the in-memory one by default and channels_redis under `make test-integration`.
"""

from __future__ import annotations

import logging
import re

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connections
from django.test import Client

from campaigns import services as campaign_services
from campaigns.models import Campaign, Character, Membership
from combat import services
from combat.models import Encounter, EncounterEvent
from combat.rules.dice import ScriptedDice
from tests.combat.helpers import inline_edit
from tests.conftest import make_user
from tests.ws_socket import Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("asgi_loaded")]

ORIGIN = b"http://127.0.0.1:8000"
HOST = (b"host", b"127.0.0.1:8000")
WAIT = 3  # seconds for a frame that must come
QUIET = 0.3  # seconds of silence that show nothing more is coming

# The enemy's sheet: 7/9 Health Levels, distinct from every PC's, so its exact health is easy to spot.
NPC_STATS = {"health": 7, "health_max": 9}
ENEMY_EXACT_HEALTH = re.compile(r"\d+/9 HL")


def asgi_app():
    """The production ASGI application, imported once static files are collected (whitenoise scans them)."""
    from config.asgi import application

    return application


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def ws_path(campaign_id: int, encounter_id: int) -> str:
    return f"/ws/campaigns/{campaign_id}/encounters/{encounter_id}/"


def pc_key(character) -> str:
    return f"pc{character.pk}"


def npc_key(character, n: int = 1) -> str:
    return f"npc{character.pk}-{n}"


def build_encounter(campaign, gm, pcs, npc, *, visibility="none", start=True) -> Encounter:
    npc.stats = NPC_STATS
    npc.save()
    campaign.enemy_health_visibility = visibility
    campaign.save()
    encounter = services.create_encounter(
        campaign, gm, name="Ambush at the relay", model="burn_bryte", pcs=pcs, enemies=[(npc, 1)]
    )
    if start:
        services.start_encounter(encounter, gm)
        encounter.refresh_from_db()
    return encounter


@pytest.fixture(autouse=True)
async def _close_worker_connections():
    """Close the database connection of the thread that runs sync_to_async and the consumer's queries, so
    PostgreSQL can drop the test database afterwards (an open connection would keep it in use)."""
    yield
    await sync_to_async(connections.close_all)()


@pytest.fixture
def table(campaign, gm, pc, npc):
    """A running encounter: Luwe (the player's PC) against Nivick; enemy health hidden from players."""
    return build_encounter(campaign, gm, [pc], npc, visibility="none")


@pytest.fixture
async def sockets():
    """Open websockets the way a browser does; every one is disconnected (and checked for a crash) at the end."""
    opened: list[Socket] = []

    async def open_socket(user, encounter, *, campaign_id=None, origin=ORIGIN, cookie=True):
        headers = [HOST]
        if origin is not None:
            headers.append((b"origin", origin))
        if user is not None and cookie:
            value = await sync_to_async(session_cookie)(user)
            headers.append((b"cookie", f"sessionid={value}".encode()))
        path = ws_path(campaign_id or encounter.campaign_id, encounter.pk)
        communicator = Socket(asgi_app(), path, headers=headers)
        opened.append(communicator)
        connected, code = await communicator.connect(timeout=WAIT)
        return communicator, connected, code

    yield open_socket

    for communicator in opened:
        if communicator.future.done():
            communicator.future.result()  # re-raises if the consumer crashed
        else:
            await communicator.disconnect(timeout=WAIT)


async def receive(communicator, count: int, *, then_quiet: bool = True) -> list[str]:
    """Exactly `count` text frames (then silence, unless the caller checks that once at the end)."""
    frames = [await communicator.receive_from(timeout=WAIT) for _ in range(count)]
    assert all(isinstance(f, str) for f in frames)
    if then_quiet:
        assert await communicator.receive_nothing(timeout=QUIET), "more frames arrived than expected"
    return frames


async def receive_update(communicator, encounter_id: int, *, then_quiet: bool = True) -> tuple[str, str]:
    """A player's one frame after an action, split into the players' table and their own controls ("" for a
    player without a character in the encounter). The table always comes first in the frame."""
    [html] = await receive(communicator, 1, then_quiet=then_quiet)
    assert html.lstrip().startswith(f'<section id="enc-{encounter_id}-table"'), html[:200]
    mine = html.find(f'<section id="enc-{encounter_id}-me"')
    return (html, "") if mine < 0 else (html[:mine], html[mine:])


async def receive_strip(communicator, encounter_id: int, *, then_quiet: bool = True) -> str:
    """A GM's one frame after a player's socket opened or closed: the connected-players strip (combat.presence)."""
    [html] = await receive(communicator, 1, then_quiet=then_quiet)
    assert html.lstrip().startswith(f'<section id="enc-{encounter_id}-presence"'), html[:200]
    return html


STRIP_LINE = re.compile(r'<li class="(on|off)"><span>([^<]+?)(?: <span|</span>)')


def strip_lines(html: str) -> dict[str, bool]:
    """The strip's lines: each player's name and whether it says they are connected (in words, not only colour)."""
    lines = {name: state == "on" for state, name in STRIP_LINE.findall(html)}
    assert html.count("not connected") == list(lines.values()).count(False), html
    return lines


async def strip_until(communicator, encounter_id: int, expected: dict[str, bool]) -> str:
    """Strips until one shows `expected` (two players joining at once may reach a GM in one strip or in two)."""
    while strip_lines(html := await receive_strip(communicator, encounter_id, then_quiet=False)) != expected:
        pass
    return html


async def act(user, encounter, name, data, key, dice=None):
    result = await sync_to_async(services.submit)(encounter.pk, user, name, data, key, dice=dice)
    assert result.ok, result.error
    return result


@sync_to_async
def current(encounter) -> Encounter:
    return Encounter.objects.get(pk=encounter.pk)


def assert_no_gm_fact(html: str, encounter: Encounter, visibility: str) -> None:
    assert "SECRET" not in html
    assert "Collapse" not in html
    assert "GM controls" not in html
    assert f"enc-{encounter.pk}-gm" not in html
    assert "unseen by the party" not in html
    assert "gm-inline" not in html and "inline-edit" not in html  # the GM's quick edits on the table's rows
    if visibility in ("none", "descriptor"):
        assert not ENEMY_EXACT_HEALTH.search(html), ENEMY_EXACT_HEALTH.search(html)


# --- 1. connecting gives the whole current table ----------------------------------------------------------


async def test_gm_receives_the_table_and_gm_controls_on_connect(table, gm, sockets):
    socket, connected, _ = await sockets(gm, table)
    assert connected
    [html] = await receive(socket, 1)
    assert f'id="enc-{table.pk}-table"' in html
    assert f'id="enc-{table.pk}-gm"' in html
    assert "GM controls" in html
    assert "Collapse <strong>2</strong>" in html
    assert "Nivick" in html and "7/9 HL" in html  # the GM always sees exact enemy health
    assert 'aria-label="Health Levels -1 for Nivick"' in html  # and edits it on the table
    assert f'data-version="{table.version}"' in html
    assert f'id="enc-{table.pk}-me"' not in html
    assert "SECRET-GM-NOTE" in html and "SECRET-NPC-NOTE" in html  # the GM's notes, at hand while running it


async def test_player_receives_the_table_and_their_own_controls_but_no_gm_controls(table, player, sockets):
    socket, connected, _ = await sockets(player, table)
    assert connected
    [html] = await receive(socket, 1)
    assert f'id="enc-{table.pk}-table"' in html
    assert f'id="enc-{table.pk}-me"' in html
    assert "<h2>Luwe</h2>" in html  # their own character sheet
    assert "Round 1 · Phase 1" in html and "Enemies declare" in html
    assert "Nivick" in html  # the party is aware of the enemy ...
    assert_no_gm_fact(html, table, "none")  # ... but not of its health


async def test_other_player_without_a_character_in_the_encounter_watches(table, other_player, sockets):
    socket, connected, _ = await sockets(other_player, table)
    assert connected
    [html] = await receive(socket, 1)
    assert f'id="enc-{table.pk}-table"' in html
    assert "you can watch the table" in html
    assert "<h2>Luwe</h2>" not in html
    assert_no_gm_fact(html, table, "none")


async def test_a_quick_edit_on_the_gms_table_reaches_the_phone_live_without_the_controls(table, gm, player, sockets):
    gm_socket, connected, _ = await sockets(gm, table)
    assert connected
    phone, connected, _ = await sockets(player, table)
    assert connected
    [gm_first] = await receive(gm_socket, 1, then_quiet=False)
    await receive_strip(gm_socket, table.pk)  # the player joined
    await receive(phone, 1)
    client = Client()
    await sync_to_async(client.force_login)(gm)
    url = f"/campaigns/{table.campaign_id}/encounters/{table.pk}/act/"
    fields = inline_edit(gm_first, "Health Levels -1 for Luwe")
    response = await sync_to_async(client.post)(url, fields, headers={"HX-Request": "true"})
    assert response.status_code == 200
    [gm_frame] = await receive(gm_socket, 1, then_quiet=False)
    players_table, mine = await receive_update(phone, table.pk)
    assert "2/3 HL" in players_table and "2/3 Health Levels" in mine
    assert_no_gm_fact(players_table + mine, table, "none")
    assert 'aria-label="Health Levels +1 for Luwe"' in gm_frame


# --- 2. refusals ------------------------------------------------------------------------------------------


async def test_anonymous_visitor_is_refused(table, sockets):
    socket, connected, code = await sockets(None, table)
    assert not connected
    assert code == 4401


async def test_expired_or_forged_session_is_refused(table, sockets):
    communicator = Socket(
        asgi_app(),
        ws_path(table.campaign_id, table.pk),
        headers=[HOST, (b"origin", ORIGIN), (b"cookie", b"sessionid=forged")],
    )
    connected, code = await communicator.connect(timeout=WAIT)
    try:
        assert not connected and code == 4401
    finally:
        await communicator.disconnect(timeout=WAIT)


async def test_non_member_is_refused(table, outsider, sockets):
    socket, connected, code = await sockets(outsider, table)
    assert not connected
    assert code == 4404


@pytest.mark.parametrize("who", ["removed while away", "logged out"])
async def test_a_refusal_is_a_close_with_its_reason_not_a_refused_handshake(table, player, who):
    """A phone that slept while its player was removed (or logged out elsewhere) reconnects on waking: the server
    must answer with 4404 / 4401, which the page shows as "closed: …; reload the page". A handshake refused outright
    reaches the browser as a bare 1006, and the page would say "reconnecting…" for ever."""
    from channels.testing import WebsocketCommunicator

    headers = [HOST, (b"origin", ORIGIN)]
    if who == "removed while away":
        headers.append((b"cookie", f"sessionid={await sync_to_async(session_cookie)(player)}".encode()))
        await sync_to_async(Membership.objects.filter(user=player, campaign_id=table.campaign_id).delete)()
    raw = WebsocketCommunicator(asgi_app(), ws_path(table.campaign_id, table.pk), headers=headers)
    connected, _ = await raw.connect(timeout=WAIT)
    assert connected, "the handshake was refused: the browser would see 1006 and retry for ever"
    assert await raw.receive_output(timeout=WAIT) == {
        "type": "websocket.close",
        "code": 4404 if who == "removed while away" else 4401,
    }


async def test_unknown_encounter_is_refused_like_a_forbidden_one(table, player, sockets):
    missing = Encounter(pk=table.pk + 1000, campaign_id=table.campaign_id)
    socket, connected, code = await sockets(player, missing)
    assert not connected
    assert code == 4404  # the same answer as for an encounter the player may not see: nothing leaks


@sync_to_async
def _encounter_in_another_campaign(npc):
    stranger_gm = make_user("vera")
    elsewhere = campaign_services.create_campaign(stranger_gm, name="Elsewhere", combat_model="burn_bryte")
    stranger_pc = Character.objects.create(campaign=elsewhere, name="Ixa", owner=stranger_gm, system="burn_bryte")
    stranger_npc = Character.objects.create(campaign=elsewhere, name="Warden", kind="npc", system="burn_bryte")
    encounter = services.create_encounter(
        elsewhere, stranger_gm, name="Their fight", model="burn_bryte", pcs=[stranger_pc], enemies=[(stranger_npc, 1)]
    )
    services.start_encounter(encounter, stranger_gm)
    return encounter


async def test_player_cannot_reach_another_campaigns_encounter(table, player, npc, sockets):
    theirs = await _encounter_in_another_campaign(npc)
    # Through their own campaign's URL with the other encounter's id ...
    socket, connected, code = await sockets(player, theirs, campaign_id=table.campaign_id)
    assert not connected and code == 4404
    # ... and through the other campaign's URL, where they are not a member.
    socket, connected, code = await sockets(player, theirs)
    assert not connected and code == 4404


@pytest.mark.parametrize("origin", [b"http://evil.example.com", b"http://127.0.0.1.evil.example.com:8000", None])
async def test_foreign_or_missing_origin_is_refused_even_with_a_valid_session(table, gm, sockets, origin):
    socket, connected, _ = await sockets(gm, table, origin=origin)
    assert not connected


async def test_draft_encounter_is_refused_for_players(campaign, gm, player, pc, npc, sockets):
    draft = await sync_to_async(build_encounter)(campaign, gm, [pc], npc, start=False)
    socket, connected, code = await sockets(player, draft)
    assert not connected and code == 4404


# --- 3. live updates, and what a player never sees ---------------------------------------------------------


@pytest.mark.parametrize(("visibility", "failure"), [("none", "collapse"), ("descriptor", "consequence")])
async def test_every_player_frame_of_a_whole_round_is_free_of_gm_facts(
    campaign, gm, player, pc, npc, sockets, visibility, failure
):
    encounter = await sync_to_async(build_encounter)(campaign, gm, [pc], npc, visibility=visibility)
    me, enemy = pc_key(pc), npc_key(npc)
    gm_socket, connected, _ = await sockets(gm, encounter)
    assert connected
    player_socket, connected, _ = await sockets(player, encounter)
    assert connected
    gm_frames = await receive(gm_socket, 1, then_quiet=False)
    await receive_strip(gm_socket, encounter.pk)  # the player joined
    player_frames = await receive(player_socket, 1)

    async def step(user, name, data, dice=None, players_learn=True):
        await act(user, encounter, name, data, f"{name}-{len(gm_frames)}", dice)
        # One frame for the GMs; one for the player: the players' table, then this player's own controls. The
        # players' frame leaves first, so once the GM's is here, a player without one gets none.
        [gm_html] = await receive(gm_socket, 1, then_quiet=False)
        gm_frames.append(gm_html)
        if not players_learn:  # an action players may not know of sends them nothing at all
            assert await player_socket.receive_nothing(timeout=QUIET)
            return gm_html, None, None
        table_html, me_html = await receive_update(player_socket, encounter.pk, then_quiet=False)
        player_frames.extend([table_html, me_html])
        assert f'id="enc-{encounter.pk}-table"' in table_html
        assert f'id="enc-{encounter.pk}-me"' in me_html
        return gm_html, table_html, me_html

    gm_html, table_html, _ = await step(gm, "declare", {"enemy": enemy, "target": me, "text": "fires a harpoon"})
    assert "fires a harpoon" in gm_html
    assert "fires a harpoon" in table_html and "Luwe" in table_html

    _, table_html, me_html = await step(gm, "start_players", {})
    assert "Players act" in table_html
    assert "Take my turn" in me_html

    _, table_html, me_html = await step(player, "claim_turn", {"actor": me})
    assert "Your turn!" in me_html
    assert "<strong>Luwe</strong> is taking their turn" in table_html

    roll = {"actor": me, "skill": "Ranged", "intent": "attack", "target": enemy, "damage": 1}
    gm_html, table_html, _ = await step(player, "skill_roll", roll, dice=ScriptedDice([1, 2]))
    assert "6/9 HL" in gm_html  # the hit landed ...
    assert "the roll succeeds" in table_html  # ... the players see the roll, not the number

    gm_html, table_html, me_html = await step(player, "skill_roll", roll, dice=ScriptedDice([4, 4, 1]))
    assert "fails on doubles" in table_html
    assert "Doubles: the roll failed" in me_html
    assert "Consequence or Collapse point?" in gm_html

    gm_html, _, _ = await step(
        gm, "spend_collapse", {"enemy": enemy, "points": 1, "note": "SECRET frenzy"}, players_learn=False
    )
    assert "The GM spends 1 Collapse point on Nivick: SECRET frenzy." in gm_html
    assert "Collapse <strong>1</strong>" in gm_html

    gm_html, table_html, _ = await step(gm, "resolve_failure", {"choice": failure, "note": "drops the harpoon"})
    if failure == "consequence":
        assert "a consequence: drops the harpoon" in table_html
    else:  # the players see the turn end; only the GM sees the Collapse point it earned
        assert "Luwe&#x27;s turn ends on a failed roll" in table_html
        assert "the GM gains 1 Collapse point" in gm_html and "Collapse <strong>2</strong>" in gm_html

    _, table_html, me_html = await step(gm, "undo", {})
    assert "(undone)" in table_html
    assert "Doubles: the roll failed" in me_html  # the failure waits for the GM again

    _, table_html, me_html = await step(gm, "end_encounter", {})
    assert "Encounter over" in table_html
    assert "Your turn!" not in me_html

    assert await gm_socket.receive_nothing(timeout=QUIET) and await player_socket.receive_nothing(timeout=QUIET)
    # the snapshot, then 9 GM frames; players: 8 × (table, own controls), none for the GM's Collapse point
    assert len(gm_frames) == 10 and len(player_frames) == 17
    assert {re.search(r'data-version="(\d+)"', html).group(1) for html in player_frames[-2:]} == {"8"}
    for html in gm_frames:
        assert "Collapse" in html
    for html in player_frames:
        assert_no_gm_fact(html, encounter, visibility)
    enemy_rows = [re.search(r"Nivick</span><span>([^<]*)</span>", html) for html in player_frames]
    shown = {row.group(1) for row in enemy_rows if row}
    assert shown == ({"hurt"} if visibility == "descriptor" else {""})


async def test_exact_visibility_shows_enemy_health_to_players(campaign, gm, player, pc, npc, sockets):
    encounter = await sync_to_async(build_encounter)(campaign, gm, [pc], npc, visibility="exact")
    socket, connected, _ = await sockets(player, encounter)
    assert connected
    [html] = await receive(socket, 1)
    assert "Nivick</span><span>7/9 HL</span>" in html
    assert "Collapse" not in html and "GM controls" not in html


async def test_an_action_reaches_every_connected_socket_with_its_version(table, gm, player, npc, pc, sockets):
    gm_socket, _, _ = await sockets(gm, table)
    player_socket, _, _ = await sockets(player, table)
    await receive(gm_socket, 1, then_quiet=False)
    await receive_strip(gm_socket, table.pk)
    await receive(player_socket, 1)
    await act(gm, table, "declare", {"enemy": npc_key(npc), "target": pc_key(pc), "text": "lunges"}, "k1")
    version = (await current(table)).version
    assert version == table.version + 1
    [gm_html] = await receive(gm_socket, 1)
    player_table, player_me = await receive_update(player_socket, table.pk)
    for html in (gm_html, player_table, player_me):
        assert f'data-version="{version}"' in html
    assert "Nivick declares: lunges against Luwe." in gm_html
    assert "Nivick declares: lunges against Luwe." in player_table


async def test_a_refused_command_sends_nothing(table, gm, player, sockets):
    gm_socket, _, _ = await sockets(gm, table)
    player_socket, _, _ = await sockets(player, table)
    await receive(gm_socket, 1, then_quiet=False)
    await receive_strip(gm_socket, table.pk)
    await receive(player_socket, 1)
    result = await sync_to_async(services.submit)(table.pk, player, "start_players", {}, "sneaky")
    assert not result.ok
    assert await gm_socket.receive_nothing(timeout=QUIET)
    assert await player_socket.receive_nothing(timeout=QUIET)


# --- 4. catching up after a phone sleeps --------------------------------------------------------------------


async def test_reconnecting_player_gets_everything_they_missed_in_the_first_frame(table, gm, player, pc, npc, sockets):
    gm_socket, _, _ = await sockets(gm, table)
    player_socket, _, _ = await sockets(player, table)
    await receive(gm_socket, 1, then_quiet=False)
    await receive_strip(gm_socket, table.pk)
    [before] = await receive(player_socket, 1)
    assert "Enemies declare" in before
    await player_socket.disconnect(timeout=WAIT)
    assert strip_lines(await receive_strip(gm_socket, table.pk)) == {"ana": False, "ben": False}

    await act(gm, table, "declare", {"enemy": npc_key(npc), "target": pc_key(pc), "text": "fires a harpoon"}, "a")
    await act(gm, table, "start_players", {}, "b")
    await receive(gm_socket, 2)
    version = (await current(table)).version

    player_socket, connected, _ = await sockets(player, table)
    assert connected
    [html] = await receive(player_socket, 1)
    assert "Players act" in html
    assert "Nivick</strong>: fires a harpoon → Luwe" in html
    assert "Take my turn" in html  # their own controls caught up too
    assert f'data-version="{version}"' in html
    assert_no_gm_fact(html, table, "none")


# --- 5. what the client may send -----------------------------------------------------------------------------


async def test_a_hello_frame_gets_a_fresh_snapshot(table, gm, player, pc, npc, sockets):
    socket, _, _ = await sockets(player, table)
    await receive(socket, 1)
    await socket.send_to(text_data="hello")
    [html] = await receive(socket, 1)
    assert f'id="enc-{table.pk}-table"' in html and f'id="enc-{table.pk}-me"' in html
    assert_no_gm_fact(html, table, "none")
    await socket.send_to(text_data="x" * 4096)  # the largest frame allowed
    [html] = await receive(socket, 1)
    assert f'id="enc-{table.pk}-table"' in html


@pytest.mark.parametrize("frame", [{"text_data": "x" * 4097}, {"bytes_data": b"hello"}])
async def test_an_oversized_or_binary_frame_closes_the_socket_and_changes_nothing(table, gm, player, sockets, frame):
    socket, _, _ = await sockets(player, table)
    await receive(socket, 1)
    before = await current(table)
    events = await sync_to_async(EncounterEvent.objects.filter(encounter=table).count)()
    await socket.send_to(**frame)
    closed = await socket.receive_output(timeout=WAIT)
    assert closed == {"type": "websocket.close", "code": 4400}
    after = await current(table)
    assert after.version == before.version and after.state == before.state
    assert await sync_to_async(EncounterEvent.objects.filter(encounter=table).count)() == events


async def test_a_json_command_over_the_socket_is_not_an_action(table, gm, sockets, npc, pc):
    """Actions go over HTTP; the socket only resyncs, even for the GM."""
    socket, _, _ = await sockets(gm, table)
    await receive(socket, 1)
    await socket.send_json_to({"command": "declare", "enemy": npc_key(npc), "target": pc_key(pc), "key": "ws"})
    [html] = await receive(socket, 1)
    assert (await current(table)).version == table.version
    assert "Nothing has happened yet." in html


# --- 6. a broken channel layer never loses an action -------------------------------------------------------------


async def test_a_failing_channel_layer_does_not_lose_the_action(
    table, gm, player, pc, npc, sockets, monkeypatch, caplog
):
    gm_socket, _, _ = await sockets(gm, table)
    await receive(gm_socket, 1)

    async def down(*args, **kwargs):
        raise ConnectionError("channel layer is down")

    layer = get_channel_layer()
    monkeypatch.setattr(layer, "group_send", down)
    # The logger's own handler, not caplog's: the record is made in the thread the action ran in.
    logged = []
    warnings = logging.Handler(logging.WARNING)
    warnings.emit = logged.append
    logging.getLogger("combat.broadcast").addHandler(warnings)
    try:
        result = await act(
            gm, table, "declare", {"enemy": npc_key(npc), "target": pc_key(pc), "text": "bites"}, "while-down"
        )
    finally:
        logging.getLogger("combat.broadcast").removeHandler(warnings)
    assert result.ok and not result.duplicate
    stored = EncounterEvent.objects.filter(encounter=table, idempotency_key=services.sender_key(gm, "while-down"))
    assert await sync_to_async(stored.exists)()
    after = await current(table)
    assert after.version == table.version + 1
    assert any("channel layer unavailable" in record.getMessage() for record in logged)
    assert await gm_socket.receive_nothing(timeout=QUIET)  # nothing could be sent ...

    monkeypatch.undo()
    player_socket, connected, _ = await sockets(player, table)  # ... so a (re)connecting client catches up
    assert connected
    await receive_strip(gm_socket, table.pk)
    [html] = await receive(player_socket, 1)
    assert "Nivick declares: bites against Luwe." in html
    assert f'data-version="{after.version}"' in html
    await gm_socket.send_to(text_data="hello")  # and a client that stayed connected resyncs on hello
    [html] = await receive(gm_socket, 1)
    assert "Nivick declares: bites against Luwe." in html


async def test_a_failing_render_does_not_lose_the_action(table, gm, pc, npc, monkeypatch, caplog):
    from combat import fragments

    def broken(*args, **kwargs):
        raise RuntimeError("template blew up")

    monkeypatch.setattr(fragments.Renderer, "for_gm", broken)
    with caplog.at_level(logging.ERROR, logger="combat.broadcast"):
        await act(gm, table, "declare", {"enemy": npc_key(npc), "target": pc_key(pc)}, "render-down")
    assert (await current(table)).version == table.version + 1
    assert "could not render fragments" in caplog.text


# --- 7. private fragments go only to their owner -------------------------------------------------------------------


async def test_your_turn_and_your_sheet_reach_only_the_owner(
    campaign, gm, player, other_player, pc, other_pc, npc, sockets
):
    encounter = await sync_to_async(build_encounter)(campaign, gm, [pc, other_pc], npc)
    gm_socket, _, _ = await sockets(gm, encounter)
    mine, _, _ = await sockets(player, encounter)
    theirs, _, _ = await sockets(other_player, encounter)
    await receive(gm_socket, 1, then_quiet=False)
    await strip_until(gm_socket, encounter.pk, {"ana": True, "ben": True})
    player_frames = await receive(mine, 1)
    other_frames = await receive(theirs, 1)

    commands = [
        (gm, "declare", {"enemy": npc_key(npc), "target": pc_key(pc), "text": "fires a harpoon"}),
        (gm, "start_players", {}),
        (player, "claim_turn", {"actor": pc_key(pc)}),
    ]
    for user, name, data in commands:
        await act(user, encounter, name, data, name)
        await receive(gm_socket, 1, then_quiet=False)
        player_frames += await receive_update(mine, encounter.pk, then_quiet=False)
        other_frames += await receive_update(theirs, encounter.pk, then_quiet=False)
    for socket in (gm_socket, mine, theirs):
        assert await socket.receive_nothing(timeout=QUIET)

    assert "Your turn!" in player_frames[-1]
    assert "<h2>Luwe</h2>" in player_frames[-1] and 'value="skill_roll"' in player_frames[-1]
    me_id = f'id="enc-{encounter.pk}-me"'
    their_me = [html for html in other_frames if me_id in html]
    assert len(their_me) == 4  # the snapshot and one private fragment per action
    for html in other_frames:
        assert "Your turn!" not in html
        assert "<h2>Luwe</h2>" not in html
        assert 'value="skill_roll"' not in html
        assert f'value="{pc_key(pc)}"' not in html  # no control for someone else's character
    for html in their_me:
        assert "<h2>Furo</h2>" in html
    assert "<strong>Luwe</strong> is taking their turn" in other_frames[-2]  # they do see whose turn it is


@sync_to_async
def _leave(campaign, user):
    Membership.objects.filter(campaign=campaign, user=user).delete()


async def test_a_removed_member_cannot_reconnect(table, player, sockets):
    await _leave(await sync_to_async(Campaign.objects.get)(pk=table.campaign_id), player)
    socket, connected, code = await sockets(player, table)
    assert not connected and code == 4404


async def test_a_member_removed_while_connected_is_closed_on_resync_not_crashed(table, player, sockets):
    socket, connected, _ = await sockets(player, table)
    assert connected
    await receive(socket, 1)
    await _leave(await sync_to_async(Campaign.objects.get)(pk=table.campaign_id), player)
    await socket.send_to(text_data="hello")
    assert await socket.receive_output(timeout=WAIT) == {"type": "websocket.close", "code": 4404}


# --- 8. a change of membership reaches open sockets at once ----------------------------------------------------------

LURKER = "Skulk"  # an enemy the party is not aware of: only GMs may read its name


@sync_to_async
def _with_a_lurker(campaign, gm, pc, npc) -> tuple[Encounter, str]:
    """A running encounter: Luwe against Nivick (seen) and Skulk (unseen by the party)."""
    lurker = Character.objects.create(campaign=campaign, name=LURKER, kind="npc", system="burn_bryte", stats=NPC_STATS)
    encounter = services.create_encounter(
        campaign,
        gm,
        name="Ambush at the relay",
        model="burn_bryte",
        pcs=[pc],
        enemies=[(npc, 1), (lurker, 1)],
        hidden=[lurker.pk],
    )
    services.start_encounter(encounter, gm)
    return Encounter.objects.get(pk=encounter.pk), npc_key(lurker)


def set_role(campaign, user, role) -> Membership:
    member = Membership.objects.get(campaign=campaign, user=user)
    return campaign_services.set_role(campaign, member, role)


@sync_to_async
def _remove(campaign, user):
    campaign_services.remove_member(campaign, Membership.objects.get(campaign=campaign, user=user))


def assert_players_table(html: str, encounter: Encounter) -> None:
    """A player's snapshot: the table, after the player's own controls where the model puts those first."""
    starts = (f'<section id="enc-{encounter.pk}-table"', f'<section id="enc-{encounter.pk}-me"')
    assert html.lstrip().startswith(starts) and f'id="enc-{encounter.pk}-table"' in html, html[:200]
    assert_no_gm_fact(html, encounter, "none")
    assert LURKER not in html


def assert_gm_table(html: str, encounter: Encounter) -> None:
    assert f'id="enc-{encounter.pk}-gm"' in html and "SECRET-GM-NOTE" in html and LURKER in html


async def test_a_removed_player_is_closed_at_once_on_every_socket_and_gets_no_further_frame(
    table, campaign, gm, player, pc, npc, sockets
):
    gm_socket, _, _ = await sockets(gm, table)
    phone, _, _ = await sockets(player, table)
    tablet, _, _ = await sockets(player, table)  # the same player, a second screen
    for socket in (gm_socket, phone, tablet):
        await receive(socket, 1, then_quiet=socket is not gm_socket)
    await receive_strip(gm_socket, table.pk)  # once: the tablet changes nothing, the player was connected already

    await _remove(campaign, player)
    for socket in (phone, tablet):  # without sending anything
        assert await socket.receive_output(timeout=WAIT) == {"type": "websocket.close", "code": 4404}

    assert strip_lines(await receive_strip(gm_socket, table.pk, then_quiet=False)) == {"ben": False}  # ana left
    await act(gm, table, "declare", {"enemy": npc_key(npc), "target": pc_key(pc), "text": "fires"}, "after")
    [html] = await receive(gm_socket, 1)
    assert "fires" in html
    for socket in (phone, tablet):
        assert await socket.receive_nothing(timeout=QUIET)


async def test_a_gm_made_a_player_gets_the_players_table_at_once_and_then_only_players_frames(
    campaign, gm, other_player, pc, npc, sockets
):
    encounter, lurker = await _with_a_lurker(campaign, gm, pc, npc)
    await sync_to_async(set_role)(campaign, other_player, Membership.Role.GM)
    co_gm, connected, _ = await sockets(other_player, encounter)
    assert connected
    [html] = await receive(co_gm, 1)
    assert_gm_table(html, encounter)

    await sync_to_async(set_role)(campaign, other_player, Membership.Role.PLAYER)
    [html] = await receive(co_gm, 1)  # at once, without asking
    assert_players_table(html, encounter)

    # The unseen enemy's declaration is for the GMs' eyes only; Nivick's is everyone's.
    await act(gm, encounter, "declare", {"enemy": lurker, "target": pc_key(pc), "text": "creeps"}, "hidden")
    await act(gm, encounter, "declare", {"enemy": npc_key(npc), "target": pc_key(pc), "text": "fires"}, "seen")
    # Only the players' frame of the action they may know of: the hidden one sends them nothing.
    [html] = await receive(co_gm, 1)
    assert_players_table(html, encounter)
    assert "fires" in html and "creeps" not in html

    await co_gm.send_to(text_data="hello")
    [html] = await receive(co_gm, 1)
    assert_players_table(html, encounter)


async def test_a_player_made_a_gm_gets_the_gms_table_at_once_and_then_the_gms_frames(
    campaign, gm, other_player, pc, npc, sockets
):
    encounter, lurker = await _with_a_lurker(campaign, gm, pc, npc)
    socket, _, _ = await sockets(other_player, encounter)
    [html] = await receive(socket, 1)
    assert_players_table(html, encounter)

    @sync_to_async
    def made_gm_elsewhere():
        elsewhere = campaign_services.create_campaign(gm, name="Elsewhere", combat_model="burn_bryte")
        Membership.objects.create(campaign=elsewhere, user=other_player)
        return set_role(elsewhere, other_player, Membership.Role.GM)

    await made_gm_elsewhere()
    assert await socket.receive_nothing(timeout=QUIET)  # their role in another campaign changes nothing here

    await sync_to_async(set_role)(campaign, other_player, Membership.Role.GM)
    [html] = await receive(socket, 1)
    assert_gm_table(html, encounter)

    await act(gm, encounter, "declare", {"enemy": lurker, "target": pc_key(pc), "text": "creeps"}, "hidden")
    [html] = await receive(socket, 1)
    assert_gm_table(html, encounter)
    assert "creeps" in html

    await socket.send_to(text_data="hello")
    [html] = await receive(socket, 1)
    assert_gm_table(html, encounter)


async def test_a_resync_moves_a_socket_whose_order_was_lost(
    campaign, gm, other_player, pc, npc, sockets, monkeypatch, caplog
):
    """With the channel layer down when the GM is made a player, the change still stands; the socket's next
    resync finds it, sends the players' table and leaves the GMs' group."""
    encounter, lurker = await _with_a_lurker(campaign, gm, pc, npc)
    await sync_to_async(set_role)(campaign, other_player, Membership.Role.GM)
    socket, _, _ = await sockets(other_player, encounter)
    await receive(socket, 1)

    async def down(*args, **kwargs):
        raise ConnectionError("channel layer is down")

    monkeypatch.setattr(get_channel_layer(), "group_send", down)
    with caplog.at_level(logging.WARNING, logger="campaigns.live"):
        member = await sync_to_async(set_role)(campaign, other_player, Membership.Role.PLAYER)
    monkeypatch.undo()
    assert "channel layer unavailable" in caplog.text
    assert not (await sync_to_async(Membership.objects.get)(pk=member.pk)).is_gm  # the change stands
    assert await socket.receive_nothing(timeout=QUIET)  # the order never came

    await socket.send_to(text_data="hello")
    [html] = await receive(socket, 1)
    assert_players_table(html, encounter)
    await act(gm, encounter, "declare", {"enemy": lurker, "target": pc_key(pc), "text": "creeps"}, "hidden")
    await act(gm, encounter, "declare", {"enemy": npc_key(npc), "target": pc_key(pc), "text": "fires"}, "seen")
    [html] = await receive(socket, 1)  # the hidden declaration sends players nothing
    assert_players_table(html, encounter)
    assert "fires" in html and "creeps" not in html


async def test_deleting_the_campaign_closes_every_socket_of_it(table, campaign, gm, player, sockets):
    gm_socket, _, _ = await sockets(gm, table)
    player_socket, _, _ = await sockets(player, table)
    await receive(gm_socket, 1, then_quiet=False)
    await receive_strip(gm_socket, table.pk)
    await receive(player_socket, 1)
    await sync_to_async(Campaign.objects.filter(pk=campaign.pk).delete)()
    for socket in (gm_socket, player_socket):
        assert await socket.receive_output(timeout=WAIT) == {"type": "websocket.close", "code": 4404}


# --- 9. resyncs are rationed ---------------------------------------------------------------------------------


@pytest.fixture
def frozen_clock(monkeypatch):
    """The resync ration's clock, standing still until a test moves it (now[0] += seconds)."""
    now = [1000.0]
    monkeypatch.setattr("combat.consumers.monotonic", lambda: now[0])
    return now


@pytest.fixture
def snapshots(monkeypatch):
    """How many tables the sockets rendered (a snapshot on connect and on every resync answered)."""
    from combat import fragments

    rendered = [0]
    real = fragments.for_viewer

    def counting(*args, **kwargs):
        rendered[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(fragments, "for_viewer", counting)
    return rendered


async def test_a_socket_flooding_resyncs_is_closed_after_a_few_snapshots(
    table, player, sockets, frozen_clock, snapshots
):
    from combat.consumers import BURST

    socket, _, _ = await sockets(player, table)
    await receive(socket, 1)
    for _ in range(200):
        await socket.send_to(text_data="hello")
    answered = 0
    while (output := await socket.receive_output(timeout=WAIT))["type"] == "websocket.send":
        answered += 1
    assert output == {"type": "websocket.close", "code": 4429}
    assert await socket.receive_nothing(timeout=QUIET)
    assert answered == BURST
    assert snapshots[0] == 1 + BURST  # the connect's table and the few resyncs answered: no more work than that

    again, connected, _ = await sockets(player, table)  # the phone reconnects and gets its table
    assert connected
    [html] = await receive(again, 1)
    assert f'id="enc-{table.pk}-me"' in html


async def test_a_phone_may_resync_a_few_times_at_once_then_about_once_a_second(table, player, sockets, frozen_clock):
    from combat.consumers import BURST

    socket, _, _ = await sockets(player, table)
    await receive(socket, 1)
    for _ in range(BURST):  # waking up: a few at once
        await socket.send_to(text_data="hello")
        await receive(socket, 1)
    for _ in range(3):  # then one a second
        frozen_clock[0] += 1
        await socket.send_to(text_data="hello")
        [html] = await receive(socket, 1)
        assert f'id="enc-{table.pk}-table"' in html
    await socket.send_to(text_data="hello")  # a second one within the same second is one too many
    assert await socket.receive_output(timeout=WAIT) == {"type": "websocket.close", "code": 4429}


# --- 9. the page's heartbeat ----------------------------------------------------------------------------------


async def test_a_ping_gets_a_pong_and_no_table(table, player, sockets, snapshots):
    socket, _, _ = await sockets(player, table)
    await receive(socket, 1)
    for _ in range(3):
        await socket.send_to(text_data="ping")
        assert await receive(socket, 1) == ["pong"]
    assert snapshots[0] == 1  # only the connect's table: a ping reads nothing
    await socket.send_to(text_data="hello")  # a resync still answers with the table
    [html] = await receive(socket, 1)
    assert f'id="enc-{table.pk}-table"' in html


async def test_pings_do_not_use_up_the_resyncs(table, player, sockets, frozen_clock):
    from combat.consumers import BURST, PING_BURST

    socket, _, _ = await sockets(player, table)
    await receive(socket, 1)
    for _ in range(PING_BURST):  # a phone waking up pings at once ...
        await socket.send_to(text_data="ping")
        assert await receive(socket, 1) == ["pong"]
    for _ in range(BURST):  # ... and may still resync as often as before
        await socket.send_to(text_data="hello")
        [html] = await receive(socket, 1)
        assert f'id="enc-{table.pk}-table"' in html


async def test_a_socket_flooding_pings_is_closed_after_a_few_pongs(table, player, sockets, frozen_clock):
    from combat.consumers import PING_BURST

    socket, _, _ = await sockets(player, table)
    await receive(socket, 1)
    for _ in range(200):
        await socket.send_to(text_data="ping")
    answered = 0
    while (output := await socket.receive_output(timeout=WAIT))["type"] == "websocket.send":
        assert output["text"] == "pong"
        answered += 1
    assert output == {"type": "websocket.close", "code": 4429}
    assert await socket.receive_nothing(timeout=QUIET)
    assert answered == PING_BURST


async def test_a_phone_may_ping_about_once_a_second(table, player, sockets, frozen_clock):
    from combat.consumers import PING_BURST

    socket, _, _ = await sockets(player, table)
    await receive(socket, 1)
    for _ in range(PING_BURST + 5):  # every second, forever
        frozen_clock[0] += 1
        await socket.send_to(text_data="ping")
        assert await receive(socket, 1) == ["pong"]
