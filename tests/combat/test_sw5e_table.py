"""SW5e starship combat on the table: the builder, the set-up stage, ship and crew turns through the real act
endpoint, what players never see of an NPC ship, write-back to the ships, the after-action review, query
counts, the websocket, and hostile input.

The party's Lantern (Tess at the helm, Oru the gunner) faces the Red Talon, an NPC ship whose numbers are
distinctive (hull 777/987, shields 321/654) so any leak into a player's HTML is easy to spot. Dice are scripted
through `services.submit(..., dice=ScriptedDice(...))`, or typed in as a physical d20 through the act endpoint.
"""

from __future__ import annotations

import functools
import io
import json
import re
from html import unescape

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from hypothesis import example, given, settings
from hypothesis import strategies as st

from campaigns import services as campaign_services
from campaigns.models import Character
from combat import exports, fragments, review, services, store
from combat.models import Encounter
from combat.rules import sw5e as sw
from combat.rules.dice import ScriptedDice
from combat.tables import sw5e as table
from ships.models import CrewAssignment, Ship
from tests.combat.helpers import inline_edit, state_of, valid_sheet
from tests.combat.test_consumers import QUIET, receive, receive_strip, receive_update, sockets  # noqa: F401  (fixture)
from tests.conftest import examples
from tests.test_fuzz import FUZZ, check, mutated, value

pytestmark = pytest.mark.django_db

sheet = functools.partial(valid_sheet, "sw5e")

SECRET_NUMBERS = ("777", "987", "321", "654")  # the Red Talon's hull and shields: only the GM may see them
TALON_INITIATIVE = 43  # the GM's value for the Red Talon: GM-only too


@pytest.fixture
def tess(campaign, player):
    return Character.objects.create(
        campaign=campaign,
        name="Tess",
        owner=player,
        system="sw5e",
        stats=sheet(initiative_mod=3, station="pilot", bonus_action=True, bonus_action_for="evade"),
    )


@pytest.fixture
def oru(campaign, other_player):
    return Character.objects.create(
        campaign=campaign,
        name="Oru",
        owner=other_player,
        system="sw5e",
        stats=sheet(initiative_mod=1, station="gunner"),
    )


@pytest.fixture
def vrask(campaign):
    return Character.objects.create(
        campaign=campaign,
        name="Vrask",
        kind="npc",
        system="sw5e",
        stats=sheet(initiative_mod=1),
        gm_notes="SECRET-NPC-NOTE",
    )


@pytest.fixture
def lantern(campaign, tess, oru):
    ship = Ship.objects.create(
        campaign=campaign,
        name="Lantern",
        size="medium",
        tier=1,
        hull=40,
        hull_max=45,
        shields=20,
        shields_max=30,
        hull_dice=6,
        shield_dice=6,
        shield_type="directional",
        reactor="fuel_cell",
        coupling="hub_and_spoke",
        power_central=1,
        weapons="laser cannons, ion cannon",
        con_mod=1,
    )
    CrewAssignment.objects.create(ship=ship, character=tess, station="pilot")
    CrewAssignment.objects.create(ship=ship, character=oru, station="gunner")
    return ship


@pytest.fixture
def talon(campaign, vrask):
    ship = Ship.objects.create(
        campaign=campaign,
        name="Red Talon",
        side=Ship.Side.NPC,
        size="small",
        tier=2,
        hull=777,
        hull_max=987,
        shields=321,
        shields_max=654,
        hull_dice=5,
        shield_dice=5,
        shield_type="quick_charge",
        reactor="fuel_cell",
        coupling="direct",
        power_central=3,
        weapons="twin blasters",
        initiative_mod=2,
        notes="SECRET-SHIP-NOTE",
    )
    CrewAssignment.objects.create(ship=ship, character=vrask, station="pilot")
    return ship


def setting_fields(**overrides):
    fields = {f"setting_{s.key}": str(s.default) for s in sw.SETTINGS if not isinstance(s.default, bool)}
    for k, v in overrides.items():
        fields[f"setting_{k}"] = v
    return fields


def builder_form(pcs, ships: dict, **overrides):
    form = {
        "name": "Skirmish at the relay",
        "model": "sw5e",
        "pcs": [pc.pk for pc in pcs],
        **{f"ship_{ship.pk}": choice for ship, choice in ships.items()},
        **setting_fields(),
    }
    form.update(overrides)
    return form


def build(client, campaign, pcs, ships: dict, **overrides) -> Encounter:
    response = client.post(reverse("encounter_create", args=[campaign.pk]), builder_form(pcs, ships, **overrides))
    assert response.status_code == 302, response.content.decode()[:3000]
    return Encounter.objects.get(pk=int(response["Location"].rstrip("/").split("/")[-1]))


@pytest.fixture
def enc(client, gm, campaign, tess, oru, lantern, talon):
    client.force_login(gm)
    encounter = build(client, campaign, [tess, oru], {lantern: "ready", talon: "ready"})
    client.logout()
    return encounter


def key(character, n=None):
    return f"npc{character.pk}-{n or 1}" if character.kind == "npc" else f"pc{character.pk}"


def sid(ship):
    return f"ship{ship.pk}"


def go(enc, user, name, dice=(), **data):
    go.n = getattr(go, "n", 0) + 1
    return services.submit(enc.pk, user, name, data, f"t{go.n}", dice=ScriptedDice(dice))


def ok(enc, user, name, dice=(), **data):
    result = go(enc, user, name, dice, **data)
    assert result.ok, (name, result.error)
    return result


def to_combat(enc, gm, player, other_player, tess, oru, talon):
    """Tess rolls 10 + 3, Oru 15 + 1: the Lantern goes at 13; the GM puts the Red Talon at 43 (it acts first)
    unless a test sets it itself. Combat starts with the Red Talon's turn (its fuel cell makes 1 die)."""
    ok(enc, player, "roll_initiative", dice=[10], actor=key(tess))
    ok(enc, other_player, "roll_initiative", dice=[15], actor=key(oru))
    ok(enc, gm, "set_ship_initiative", ship=sid(talon), value=TALON_INITIATIVE)
    ok(enc, gm, "start_combat")


def to_lantern_turn(enc, gm, vrask, talon):
    """The GM runs the Red Talon's turn: its die to the central store (3 + 1 = 4), Vrask passes."""
    ok(enc, gm, "distribute_power", central=1)
    ok(enc, gm, "start_crew_turn", actor=key(vrask))
    ok(enc, gm, "end_crew_turn", actor=key(vrask))
    ok(enc, gm, "end_ship_turn")


def act_url(enc):
    return reverse("encounter_act", args=[enc.campaign_id, enc.pk])


def post(client, enc, command, **data):
    post.n = getattr(post, "n", 0) + 1
    data.setdefault("key", f"p{post.n}")
    return client.post(act_url(enc), {"command": command, **data}, headers={"HX-Request": "true"})


def notice(response) -> str:
    found = re.search(r'class="notice[^"]*" role="alert">([^<]*)<', response.content.decode())
    return unescape(found.group(1)) if found else ""


def player_html(enc, user):
    enc.refresh_from_db()
    state = store.load_state(enc)
    return fragments.for_players(enc, state) + fragments.me_html(enc, state, user.pk)


def version_of(enc) -> int:
    enc.refresh_from_db()
    return enc.version


def gm_html(enc):
    enc.refresh_from_db()
    return fragments.for_gm(enc, store.load_state(enc))


def _scrub(html: str) -> str:
    """Without the numbers every page has that mean nothing (versions, keys, CSRF tokens, style colours, row ids)."""
    html = re.sub(r"<style>.*?</style>", "", html, flags=re.S)
    html = re.sub(r'data-version="\d+"', "", html)
    html = re.sub(r'name="(key|csrfmiddlewaretoken)" value="[^"]*"', "", html)
    # Row ids: the encounter's own (`enc-321-table`, `aria-labelledby="enc-321-status"`), and those in URLs.
    html = re.sub(r"enc-\d+", "enc-N", html)
    return re.sub(r"/(campaigns|encounters|characters|ships)/\d+", r"/\1/N", html)


def shows_numbers(html: str, numbers=SECRET_NUMBERS) -> list[str]:
    text = _scrub(html)
    return [n for n in numbers if re.search(rf"(?<![\w]){n}(?![\w])", text)]


def assert_no_gm_fact(html: str, enc) -> None:
    assert "SECRET" not in html
    assert "GM controls" not in html
    assert f'id="enc-{enc.pk}-gm"' not in html
    assert "gm-inline" not in html and "inline-edit" not in html and "Hull -1 for" not in html  # quick edits
    assert not shows_numbers(html, SECRET_NUMBERS + (str(TALON_INITIATIVE),)), shows_numbers(html)


def test_the_gms_quick_edits_step_hull_shields_and_power_and_undo_takes_them_back(
    enc, client, gm, player, other_player, tess, oru, lantern, talon
):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    client.force_login(gm)
    table = gm_html(enc)
    fields = inline_edit(table, "Hull -1 for Lantern")
    assert fields == {**fields, "command": "adjust_ship", "ship": sid(lantern), "what": "hull", "change": "-1"}
    assert notice(post(client, enc, **fields)) == ""
    assert state_of(enc).ship(sid(lantern)).hull == 39
    assert "39/45" in player_html(enc, player)
    assert notice(post(client, enc, **inline_edit(gm_html(enc), "Shields +1 for Red Talon"))) == ""
    assert notice(post(client, enc, **inline_edit(gm_html(enc), "Central power -1 for Lantern"))) == ""
    state = state_of(enc)
    assert state.ship(sid(talon)).shields == 322 and state.ship(sid(lantern)).stored("central") == 0
    assert "Central power -1 for Lantern" not in gm_html(enc)  # none left: not offered
    html = player_html(enc, player)
    assert_no_gm_fact(html, enc)
    assert "322" not in html
    version = version_of(enc)
    too_much = {"ship": sid(lantern), "what": "hull", "value": "46"}
    assert notice(post(client, enc, "adjust_ship", **too_much)) == "Hull points of Lantern must be from 0 to 45."
    assert version_of(enc) == version
    for _ in range(3):
        assert notice(post(client, enc, "undo")) == ""
    state = state_of(enc)
    assert state.ship(sid(lantern)).hull == 40 and state.ship(sid(talon)).shields == 321
    assert state.ship(sid(lantern)).stored("central") == 1


# --- ships for SW5e: the builder -----------------------------------------------------------------------------------


def test_the_builder_takes_ships_with_surprise_and_crews_from_their_stations(
    gm_client, campaign, tess, oru, vrask, lantern, talon
):
    url = reverse("encounter_create", args=[campaign.pk])
    page = gm_client.get(url, {"model": "sw5e"}, headers={"HX-Request": "true"}).content.decode()
    assert "Lantern (party ship)" in page and "Red Talon (NPC ship)" in page
    assert "In the fight, surprised" in page and "Surprised crew members" in page
    assert "cannot be played yet" not in page
    assert "Unseen at the start" not in page  # surprise does that job in SW5e
    enc = build(
        gm_client,
        campaign,
        [tess, oru],
        {lantern: "ready", talon: "surprised"},
        surprised_crew=[oru.pk],
        setting_enemy_numbers="hidden",
    )
    assert enc.setup == {
        "ships": [
            {"pk": lantern.pk, "side": "pc", "surprised": False},
            {"pk": talon.pk, "side": "npc", "surprised": True},
        ],
        "surprised_crew": [oru.pk],
    }
    state = store.load_state(enc)
    assert [s.id for s in state.ships] == [sid(lantern), sid(talon)]
    assert state.ship(sid(talon)).surprised and not state.ship(sid(lantern)).surprised
    assert state.ship(sid(talon)).hull == 777 and state.ship(sid(talon)).weapons == ("twin blasters",)
    assert state.ship(sid(lantern)).con_mod == 1 and state.ship(sid(talon)).initiative_mod == 2
    # Vrask came along with his ship, as its helm; nobody had to add him as an enemy.
    crew = {f.id: (f.ship, f.station, f.surprised) for f in state.fighters}
    assert crew == {
        key(tess): (sid(lantern), "pilot", False),
        key(oru): (sid(lantern), "gunner", True),
        key(vrask): (sid(talon), "pilot", False),
    }
    assert state.fighter(key(tess)).bonus_action and state.fighter(key(tess)).initiative_mod == 3
    assert not state.started
    assert enc.combatants.get(key=key(vrask)).hidden is False


def test_a_crewless_npc_ship_and_npc_kinds_brought_in_several_times(
    gm_client, campaign, tess, oru, vrask, lantern, talon
):
    CrewAssignment.objects.filter(ship=talon).delete()
    enc = build(gm_client, campaign, [tess, oru], {lantern: "ready", talon: "ready"}, **{f"npc_{vrask.pk}": "2"})
    state = store.load_state(enc)
    assert state.crew(sid(talon)) == ()
    assert {f.id: f.ship for f in state.fighters if not f.is_pc} == {key(vrask, 1): "", key(vrask, 2): ""}


@pytest.mark.parametrize(
    "choices,overrides,sentence",
    [
        ({"lantern": "", "talon": "ready"}, {}, "Choose at least one party ship for this fight."),
        ({"lantern": "", "talon": ""}, {}, "Choose at least one party ship for this fight."),
        ({"lantern": "maybe", "talon": "ready"}, {}, "Choose whether the ship is in this fight."),
    ],
)
def test_the_builder_refuses_a_fight_without_a_party_ship(
    gm_client, campaign, tess, oru, lantern, talon, choices, overrides, sentence
):
    ships = {lantern: choices["lantern"], talon: choices["talon"]}
    response = gm_client.post(reverse("encounter_create", args=[campaign.pk]), builder_form([tess, oru], ships))
    assert response.status_code == 400
    assert sentence in response.content.decode()
    assert not Encounter.objects.exists()


def test_without_a_party_ship_the_builder_says_what_to_do_first(gm_client, campaign, tess):
    page = gm_client.get(reverse("encounter_create", args=[campaign.pk]), {"model": "sw5e"}).content.decode()
    assert "SW5e fights are between ships: add the party&#x27;s ship" in page
    response = gm_client.post(reverse("encounter_create", args=[campaign.pk]), builder_form([tess], {}))
    assert response.status_code == 400 and "Choose at least one party ship for this fight." in response.content.decode()


def test_the_builder_refuses_a_ship_the_engine_cannot_read_with_a_sentence(gm_client, campaign, tess, lantern):
    Ship.objects.filter(pk=lantern.pk).update(hull=0, hull_max=0)
    response = gm_client.post(reverse("encounter_create", args=[campaign.pk]), builder_form([tess], {lantern: "ready"}))
    assert response.status_code == 400
    assert "Lantern&#x27;s maximum hull points must be from 1 to 100000." in response.content.decode()
    assert not Encounter.objects.exists()


def test_the_builder_offers_only_this_campaigns_ships(gm_client, gm, campaign, tess, lantern):
    elsewhere = campaign_services.create_campaign(gm, name="Elsewhere", combat_model="sw5e", description="")
    ghost = Ship.objects.create(campaign=elsewhere, name="Ghost ship")
    page = gm_client.get(reverse("encounter_create", args=[campaign.pk]), {"model": "sw5e"}).content.decode()
    assert "Ghost ship" not in page
    enc = build(gm_client, campaign, [tess], {lantern: "ready"}, **{f"ship_{ghost.pk}": "ready"})
    assert [s.id for s in store.load_state(enc).ships] == [sid(lantern)]


def test_a_character_with_stations_on_two_chosen_ships_boards_the_first(gm_client, campaign, tess, oru, lantern, talon):
    CrewAssignment.objects.create(ship=talon, character=tess, station="gunner")
    enc = build(gm_client, campaign, [tess, oru], {lantern: "ready", talon: "ready"})
    state = store.load_state(enc)
    assert (state.fighter(key(tess)).ship, state.fighter(key(tess)).station) == (sid(lantern), "pilot")


# --- the set-up stage ------------------------------------------------------------------------------------------------


def test_the_gm_edits_crews_and_surprise_in_the_set_up(client, enc, gm, player, tess, oru, vrask, lantern, talon):
    client.force_login(gm)
    html = gm_html(enc)
    for text in (
        "Set-up: initiative and crews",
        "Crews and stations",
        "Red Talon's initiative",
        "Roll Red Talon's initiative (d20 + 2)",
        "Start combat",
        "SECRET-NPC-NOTE",
    ):
        assert text in html, text
    assert shows_numbers(html) == list(SECRET_NUMBERS)  # the GM sees every number
    response = post(client, enc, "assign_crew", fighter=key(oru), ship=sid(talon), station="gunner")
    assert notice(response) == ""
    assert (state_of(enc).fighter(key(oru)).ship, state_of(enc).fighter(key(oru)).station) == (sid(talon), "gunner")
    assert post(client, enc, "assign_crew", fighter=key(oru), ship=sid(lantern), station="gunner").status_code == 200
    assert notice(post(client, enc, "set_surprise", target=key(oru), surprised="on")) == ""
    assert state_of(enc).fighter(key(oru)).surprised
    assert notice(post(client, enc, "set_surprise", target=sid(talon), surprised="on")) == ""
    assert notice(post(client, enc, "set_surprise", target=sid(talon), surprised="off")) == ""
    assert not state_of(enc).ship(sid(talon)).surprised
    assert (
        notice(post(client, enc, "set_surprise", target="ship999999")) == "That crew member is not in this encounter."
    )
    # Players do neither.
    client.force_login(player)
    before = state_of(enc)
    for command, data in (
        ("assign_crew", {"fighter": key(tess), "ship": sid(talon), "station": "pilot"}),
        ("set_surprise", {"target": key(oru), "surprised": "on"}),
        ("set_ship_initiative", {"ship": sid(talon), "value": "1"}),
        ("start_combat", {}),
    ):
        assert notice(post(client, enc, command, **data)) == "Only the GM can do that."
    assert state_of(enc) == before


def test_initiative_from_the_phones_the_lowest_pc_sets_the_ships(
    client, enc, gm, player, other_player, tess, oru, talon
):
    # The player's phone offers "Roll initiative"; the server rolls it.
    html = player_html(enc, player)
    assert "Roll initiative" in html and 'data-may-act="1"' in html
    assert "Use my roll" not in html  # physical dice need the GM's setting
    ok(enc, player, "roll_initiative", dice=[10], actor=key(tess))
    ok(enc, other_player, "roll_initiative", dice=[15], actor=key(oru))
    state = state_of(enc)
    assert state.ship_initiative(state.ships[0].id) == 13  # Tess 13, Oru 16: the lowest
    html = player_html(enc, player)
    assert "initiative 13" in html and "Roll initiative" not in html
    client.force_login(player)
    assert notice(post(client, enc, "roll_initiative", actor=key(oru))) == "You can act only for your own character."
    assert notice(post(client, enc, "roll_initiative", actor=key(tess))) == "Tess has already rolled initiative (13)."
    # The GM rolls the NPC ship's: d20 + 2, told in full to the GM only.
    ok(enc, gm, "set_ship_initiative", dice=[18], ship=sid(talon), roll=True)
    assert "The GM rolls initiative for Red Talon: 18 + 2 = 20." in gm_html(enc)
    assert "The GM sets Red Talon&#x27;s initiative." in player_html(enc, player)
    assert "= 20" not in player_html(enc, player)
    ok(enc, gm, "start_combat")
    state = state_of(enc)
    assert state.order == (sid(talon), state.ships[0].id) and state.ship_turn == sid(talon)
    html = player_html(enc, player)
    assert html.index("Red Talon") < html.index("Lantern</strong>")  # the order on every screen


def test_a_physical_d20_when_the_gm_allows_it(client, gm, campaign, player, tess, oru, lantern, talon):
    client.force_login(gm)
    enc = build(client, campaign, [tess, oru], {lantern: "ready", talon: "ready"}, setting_entered_initiative="on")
    client.force_login(player)
    assert "Use my roll" in player_html(enc, player)
    assert (
        notice(post(client, enc, "roll_initiative", actor=key(tess), entered="21"))
        == "A d20 shows a face from 1 to 20."
    )
    assert (
        notice(post(client, enc, "roll_initiative", actor=key(tess), entered="seven"))
        == "Entered must be a whole number."
    )
    assert notice(post(client, enc, "roll_initiative", actor=key(tess), entered="7")) == ""
    assert state_of(enc).fighter(key(tess)).initiative == 10
    assert "Tess rolls initiative: 7 (entered) + 3 = 10." in player_html(enc, player)


def test_tied_ships_wait_for_the_gms_order(enc, gm, player, other_player, tess, oru, talon):
    ok(enc, player, "roll_initiative", dice=[10], actor=key(tess))
    ok(enc, other_player, "roll_initiative", dice=[15], actor=key(oru))
    ok(enc, gm, "set_ship_initiative", ship=sid(talon), value=13)
    html = gm_html(enc)
    assert "Tied on initiative: who acts first?" in html and "Before combat starts: order the tied ships." in html
    assert "Tied on initiative" not in player_html(enc, player)
    assert not go(enc, gm, "start_combat").ok
    lantern_id = state_of(enc).ships[0].id
    ok(enc, gm, "order_ties", order=f"{lantern_id},{sid(talon)}")
    ok(enc, gm, "start_combat")
    assert state_of(enc).order == (lantern_id, sid(talon))


# --- ship turns and crew turns through the act endpoint ------------------------------------------------------------


def test_a_lone_crew_member_stores_the_dice_and_starts_their_turn_in_one_tap(
    client, campaign, gm, player, tess, lantern, talon
):
    """Tess alone aboard the Lantern: the form that stores the reactor's dice also starts her turn (the dice as the
    form sets them), and says that doing so passes on the shield regeneration it could have had (shields 20/30)."""
    client.force_login(gm)
    lone = build(client, campaign, [tess], {lantern: "ready", talon: "ready"})
    ok(lone, player, "roll_initiative", dice=[10], actor=key(tess))
    ok(lone, gm, "set_ship_initiative", ship=sid(talon), value=1)
    ok(lone, gm, "start_combat")
    html = unescape(player_html(lone, player))
    both = '<button type="submit" name="start_turn" value="on" class="primary">Store them and take my turn</button>'
    assert both in html
    assert "Taking your turn now passes on shield regeneration: store the dice alone to regenerate first." in html
    assert '<button type="submit">Store the power dice</button>' in html  # to regenerate the shields first
    assert "Store them and take my turn" not in gm_html(lone)  # the GM's form is the ship's, not a crew member's
    client.force_login(player)
    assert notice(post(client, lone, "distribute_power", actor=key(tess), central="1", start_turn="on")) == ""
    state = state_of(lone)
    assert state.acting == key(tess) and state.stage == "crew" and state.ship(sid(lantern)).power["central"] == 2
    html = unescape(player_html(lone, player))
    assert 'data-your-turn="1"' in html and "Fire the laser cannons at Red Talon" in html
    assert "Regenerate shields" not in html and "Store them and take my turn" not in html
    assert "Tess distributes Lantern's power dice: 1 to the central store." in html  # the log: both, in order
    assert html.index("Tess starts their turn aboard Lantern.") < html.index("Tess distributes Lantern's power")


def test_storing_the_dice_starts_only_the_turn_of_whoever_may_go_next(
    enc, gm, player, other_player, tess, oru, vrask, talon
):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    to_lantern_turn(enc, gm, vrask, talon)
    assert "Store them and take my turn" in player_html(enc, player)  # no order yet: either may go first
    assert "Store them and take my turn" in player_html(enc, other_player)
    ok(enc, player, "set_crew_order", actor=key(tess), order=f"{key(oru)},{key(tess)}")  # Tess at the helm settles it
    assert "Store them and take my turn" not in player_html(enc, player)
    assert "Store them and take my turn" in player_html(enc, other_player)
    refused = go(enc, player, "distribute_power", actor=key(tess), central=1, start_turn=True)
    assert refused.error == "The crew's order has Oru go next."
    assert state_of(enc).stage == "power"  # refused whole: the dice wait too


def test_a_whole_round_from_the_phones(client, enc, gm, player, other_player, tess, oru, vrask, lantern, talon):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    # The Red Talon acts first; the phones say so, and offer nothing yet.
    html = player_html(enc, player)
    assert "<strong>Red Talon</strong>'s ship turn" in html
    assert "Store the power dice" not in html and "Take my turn" not in html
    assert_no_gm_fact(html, enc)
    to_lantern_turn(enc, gm, vrask, talon)

    # The Lantern's turn: its fuel cell made 1 die; only its crew may place it, within the coupling's room.
    L = sid(lantern)
    html = player_html(enc, player)
    assert "The reactor produced 1 power die: where do they go?" in html and 'data-may-act="1"' in html
    assert "Central store <small>(1 of 2 free)</small>" in html
    client.force_login(player)
    assert (
        notice(post(client, enc, "distribute_power", actor=key(tess), engines="2"))
        == "The reactor produced 1 power die this turn, not 2."
    )
    assert notice(post(client, enc, "distribute_power", actor=key(tess), central="1")) == ""
    assert state_of(enc).ship(L).power["central"] == 2
    assert '<meter min="0" max="2" value="2" aria-label="Lantern Central">' in player_html(enc, player)

    # Shield regeneration at the start of the ship turn: one d8 × 1 = 8 (20 -> 28).
    assert "Regenerate shields (spend a shield die)" in player_html(enc, player)
    assert notice(post(client, enc, "regenerate_shields", actor=key(tess))) == ""
    ship = state_of(enc).ship(L)
    assert (ship.shields, ship.shield_dice) == (28, 5)

    # Oru proposes an order; Tess at the helm settles it; a proposal after that is refused.
    client.force_login(other_player)
    assert notice(post(client, enc, "set_crew_order", actor=key(oru), order=[key(oru), key(tess)])) == ""
    state = state_of(enc)
    assert state.crew_order == (key(oru), key(tess)) and not state.order_final
    assert "Crew order, proposed by Oru: Oru, Tess." in player_html(enc, player)
    client.force_login(player)
    assert notice(post(client, enc, "set_crew_order", actor=key(tess), order=[key(tess), key(oru)])) == ""
    assert state_of(enc).order_final
    client.force_login(other_player)
    assert (
        notice(post(client, enc, "set_crew_order", actor=key(oru), order=[key(oru), key(tess)]))
        == "Tess at the helm has settled the order for this turn."
    )
    assert notice(post(client, enc, "start_crew_turn", actor=key(oru))) == "The crew's order has Tess go next."
    assert "Take my turn" not in player_html(enc, other_player)

    # Tess's turn: her action, her bonus action (a feature grants it), a helm option; Fire counts per weapon.
    client.force_login(player)
    assert notice(post(client, enc, "start_crew_turn", actor=key(tess))) == ""
    html = player_html(enc, player)
    assert "Your turn!" in html and 'data-your-turn="1"' in html
    assert "Action: ready" in html and "Bonus action (Evade): ready" in html and "Reaction: ready" in html
    assert '<option value="evade">Evade (helm only)</option>' in html
    assert '<option value="laser cannons" selected>laser cannons</option>' in html  # the first not yet fired
    assert (
        notice(
            post(client, enc, "take_action", actor=key(tess), action="fire", weapon="laser cannons", target=sid(talon))
        )
        == ""
    )
    assert (
        notice(post(client, enc, "take_action", actor=key(tess), action="detect"))
        == "Tess has already taken an action this turn."
    )
    assert notice(post(client, enc, "take_action", actor=key(tess), action="evade", slot="bonus")) == ""
    html = player_html(enc, player)
    assert "Action: used" in html and "Bonus action (Evade): used" in html
    assert "Taken aboard this round: Fire (laser cannons), Evade." in html
    assert notice(post(client, enc, "end_crew_turn", actor=key(tess))) == ""

    # Oru's turn: the laser cannons have fired this round, the ion cannon has not; no helm options for a gunner.
    client.force_login(other_player)
    assert notice(post(client, enc, "start_crew_turn", actor=key(oru))) == ""
    html = player_html(enc, other_player)
    assert '<option value="laser cannons"' not in html
    assert '<option value="ion cannon" selected>ion cannon</option>' in html
    assert "Evade (helm only)" not in html and "Bonus action" not in html
    assert (
        notice(post(client, enc, "take_action", actor=key(oru), action="fire", weapon="laser cannons"))
        == "The laser cannons has already fired this round."
    )
    assert (
        notice(post(client, enc, "take_action", actor=key(oru), action="evade"))
        == "Only the helm can take Evade: Tess is at the helm of Lantern."
    )
    assert (
        notice(post(client, enc, "take_action", actor=key(oru), action="fire", weapon="ion cannon", target=sid(talon)))
        == ""
    )
    # Power dice: rolled by the server (tier 1: d4); a system's dice only for that system.
    assert (
        notice(post(client, enc, "spend_power", actor=key(oru), system="weapons", store="engines"))
        == "Dice in the engines store fuel only engines; central dice fuel anything."
    )
    result = go(enc, other_player, "spend_power", dice=[3], actor=key(oru), system="weapons", store="central")
    assert result.ok
    assert "Oru spends 1 power die from the central store on weapons (d4 shows 3, total 3)." in player_html(enc, player)
    assert state_of(enc).ship(L).power["central"] == 1
    assert notice(post(client, enc, "end_crew_turn", actor=key(oru))) == ""

    # The GM deals the round's damage; shields first, then hull; the players see the amount only.
    ok(enc, gm, "damage", ship=sid(talon), amount=400, by=key(oru))
    talon_state = state_of(enc).ship(sid(talon))
    assert (talon_state.shields, talon_state.hull) == (0, 698)
    html = player_html(enc, player)
    assert "Red Talon takes 400 damage from Oru." in html
    assert_no_gm_fact(html, enc)
    assert "Red Talon takes 400 damage from Oru: 321 to shields and 79 to hull" in gm_html(enc)

    # Either crew member ends the ship turn; round 2 begins with the Red Talon; Lantern's actions come back.
    assert "End the ship's turn" in player_html(enc, other_player)
    assert notice(post(client, enc, "end_ship_turn", actor=key(oru))) == ""
    state = state_of(enc)
    assert state.round == 2 and state.ship_turn == sid(talon) and state.ship(L).actions == ()
    assert "Round 2" in player_html(enc, player)


def test_only_crew_of_that_ship_assign_its_dice(
    client, gm, campaign, player, other_player, tess, oru, vrask, lantern, talon
):
    CrewAssignment.objects.filter(character=oru).delete()
    CrewAssignment.objects.create(ship=talon, character=oru, station="gunner")  # Oru is aboard the Red Talon
    client.force_login(gm)
    enc = build(client, campaign, [tess, oru], {lantern: "ready", talon: "ready"})
    # With a PC aboard, the Red Talon's initiative is Oru's (16), above the Lantern's (Tess, 13).
    assert not go(enc, gm, "set_ship_initiative", ship=sid(talon), value=5).ok
    ok(enc, player, "roll_initiative", dice=[10], actor=key(tess))
    ok(enc, other_player, "roll_initiative", dice=[15], actor=key(oru))
    ok(enc, gm, "start_combat")
    # The Red Talon's turn, Oru aboard: Tess (on the Lantern) may not place its dice, nor may her player for Oru.
    client.force_login(player)
    assert (
        notice(post(client, enc, "distribute_power", actor=key(tess), central="1"))
        == "Tess is not aboard Red Talon, whose turn it is."
    )
    assert (
        notice(post(client, enc, "distribute_power", actor=key(oru), central="1"))
        == "You can act only for your own character."
    )
    assert notice(post(client, enc, "distribute_power", central="1")) == "Only the GM can do that."
    assert state_of(enc).stage == "power"
    client.force_login(other_player)
    assert notice(post(client, enc, "distribute_power", actor=key(oru), central="1")) == ""


def test_only_the_helm_sets_the_final_order_and_the_gm_may_settle_it(
    enc, gm, player, other_player, tess, oru, vrask, talon
):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    to_lantern_turn(enc, gm, vrask, talon)
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, other_player, "set_crew_order", actor=key(oru), order=f"{key(oru)} {key(tess)}")
    assert not state_of(enc).order_final
    ok(enc, other_player, "set_crew_order", actor=key(oru), order=f"{key(tess)} {key(oru)}")  # still a proposal
    assert not state_of(enc).order_final and state_of(enc).order_by == key(oru)
    ok(enc, gm, "set_crew_order", order=f"{key(oru)},{key(tess)}")
    state = state_of(enc)
    assert state.order_final and state.order_by == ""
    assert "Crew order, settled by the GM: Oru, Tess." in player_html(enc, player)
    assert (
        go(enc, other_player, "set_crew_order", actor=key(oru), order=f"{key(tess)},{key(oru)}").error
        == "The GM has settled the order for this turn."
    )
    ok(enc, player, "set_crew_order", actor=key(tess), order=f"{key(tess)},{key(oru)}")  # the helm may re-settle
    assert state_of(enc).crew_order == (key(tess), key(oru)) and state_of(enc).order_by == key(tess)


def test_surprise_costs_the_first_turn_and_the_reaction_until_it_ends(
    client, gm, campaign, player, other_player, tess, oru, vrask, lantern, talon
):
    client.force_login(gm)
    enc = build(client, campaign, [tess, oru], {lantern: "ready", talon: "ready"}, surprised_crew=[oru.pk])
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    html = player_html(enc, other_player)
    assert "Surprised: no action on the first turn" in html and "Reaction: after my first turn" in html
    assert "React (out of turn)" not in html
    assert "React (out of turn)" in player_html(enc, player)
    client.force_login(other_player)
    assert (
        notice(post(client, enc, "take_action", actor=key(oru), action="interfere", slot="reaction"))
        == "Oru is surprised: no reaction until their first turn ends."
    )
    to_lantern_turn(enc, gm, vrask, talon)
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    assert notice(post(client, enc, "start_crew_turn", actor=key(oru))) == ""
    assert "Oru is surprised and can take no action on this first turn." in player_html(enc, other_player)
    state = state_of(enc)
    assert state.fighter(key(oru)).took_turn and not state.acting
    # From now on Oru may react, once, and gets it back at the start of the next turn.
    assert notice(post(client, enc, "take_action", actor=key(oru), action="interfere", slot="reaction")) == ""
    assert "Reaction: used" in player_html(enc, other_player)
    assert (
        notice(post(client, enc, "take_action", actor=key(oru), action="direct", slot="reaction"))
        == "Oru has already used their reaction; it returns at the start of their next turn."
    )


def test_the_gm_runs_an_npc_ship_and_its_crew(client, enc, gm, player, other_player, tess, oru, vrask, lantern, talon):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    html = gm_html(enc)
    assert "Red Talon's turn" in html and "The reactor produced 1 power die" in html
    client.force_login(gm)
    assert notice(post(client, enc, "distribute_power", central="1")) == ""
    assert notice(post(client, enc, "start_crew_turn", actor=key(vrask))) == ""
    html = gm_html(enc)
    assert "Vrask is acting" in html and '<option value="twin blasters" selected>twin blasters</option>' in html
    assert (
        notice(
            post(
                client, enc, "take_action", actor=key(vrask), action="fire", weapon="twin blasters", target=sid(lantern)
            )
        )
        == ""
    )
    assert notice(post(client, enc, "damage", ship=sid(lantern), amount="25", by=sid(talon))) == ""
    ship = state_of(enc).ship(sid(lantern))
    assert (ship.shields, ship.hull) == (0, 35)  # 20 shields, then 5 to the hull
    html = player_html(enc, player)
    assert "Vrask fires the twin blasters at Lantern as an action." in html
    assert "Lantern takes 25 damage from Red Talon: 20 to shields and 5 to hull (shields 0/30, hull 35/45)." in html
    # The player sees the Red Talon's power spent, but not how much.
    result = go(enc, gm, "spend_power", dice=[5, 6], actor=key(vrask), system="engines", store="central", count=2)
    assert result.ok
    assert "Vrask spends power dice on engines." in player_html(enc, player)
    assert "d6 show 5, 6" in gm_html(enc)
    assert_no_gm_fact(player_html(enc, player), enc)
    assert notice(post(client, enc, "end_crew_turn", actor=key(vrask))) == ""
    assert notice(post(client, enc, "end_ship_turn")) == ""
    assert state_of(enc).ship_turn == sid(lantern)


def test_free_text_actions_count_by_name(enc, gm, player, other_player, tess, oru, vrask, talon):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    ok(enc, gm, "allow_action", action="Jam comms")
    to_lantern_turn(enc, gm, vrask, talon)
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, player, "start_crew_turn", actor=key(tess))
    assert '<option value="Jam comms">Jam comms</option>' in player_html(enc, player)
    ok(enc, player, "take_action", actor=key(tess), action="Jam comms")
    ok(enc, player, "end_crew_turn", actor=key(tess))
    ok(enc, other_player, "start_crew_turn", actor=key(oru))
    assert '<option value="Jam comms">' not in player_html(enc, other_player)
    result = go(enc, other_player, "take_action", actor=key(oru), action="Jam comms")
    assert result.error == "Someone aboard Lantern has already taken Jam comms this round."


def test_undo_from_the_gms_screen(client, enc, gm, player, other_player, tess, oru, talon):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    client.force_login(gm)
    before = state_of(enc)
    assert notice(post(client, enc, "damage", ship=sid(talon), amount="5")) == ""
    assert notice(post(client, enc, "undo")) == ""
    assert state_of(enc) == before
    assert "(undone)" in player_html(enc, player)
    client.force_login(player)
    assert notice(post(client, enc, "undo")) == "Only the GM can undo."


# --- what players see and never see -----------------------------------------------------------------------------------


def test_players_never_see_npc_ship_numbers_and_the_gm_sees_all(enc, gm, player, other_player, tess, oru, vrask, talon):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    for user in (player, other_player):
        html = player_html(enc, user)
        assert "Red Talon" in html and "Its hull, shields and power are the GM's to know." in html
        assert_no_gm_fact(html, enc)
        assert "the reactor&#x27;s power dice wait" not in html  # would tell the Red Talon's reactor output
    gm_page = gm_html(enc)
    assert shows_numbers(gm_page) == list(SECRET_NUMBERS)
    assert f"initiative {TALON_INITIATIVE}" in gm_page and "SECRET-NPC-NOTE" in gm_page
    # The whole log, as a player may read it after the encounter, and every export, keep them hidden too.
    ok(enc, gm, "damage", ship=sid(talon), amount=12, by=key(tess))
    ok(enc, gm, "end_encounter")
    enc.refresh_from_db()
    for writer in exports.WRITERS.values():
        out = io.StringIO()
        writer(enc, False, out)
        assert not shows_numbers(out.getvalue()), (writer, shows_numbers(out.getvalue()))


def test_the_public_setting_shows_npc_ship_numbers_to_players(client, gm, campaign, player, tess, oru, lantern, talon):
    client.force_login(gm)
    enc = build(client, campaign, [tess, oru], {lantern: "ready", talon: "ready"}, setting_enemy_numbers="public")
    html = player_html(enc, player)
    assert shows_numbers(html) == list(SECRET_NUMBERS)
    assert "GM controls" not in html and "SECRET" not in html


def test_a_player_sees_their_ship_in_full(enc, gm, player, other_player, tess, oru, vrask, talon):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    html = fragments.me_html(*_enc_state(enc), player.pk)
    assert "<h2>Tess</h2>" in html and "Helm (pilot) aboard <strong>Lantern</strong> · initiative 13" in html
    assert '<meter min="0" max="45" value="40" aria-label="Lantern hull points">' in html
    assert '<meter min="0" max="30" value="20" aria-label="Lantern shield points">' in html
    assert "Red Talon's ship turn. Lantern goes later this round." in unescape(html)
    assert "Still open to Lantern this round" in html
    assert "<h2>Oru</h2>" not in html  # only their own crew member


def test_a_pc_the_gm_puts_aboard_the_npc_ship_still_sees_none_of_its_numbers(
    enc, gm, player, other_player, tess, oru, vrask, talon
):
    ok(enc, gm, "assign_crew", fighter=key(oru), ship=sid(talon), station="gunner")
    ok(enc, player, "roll_initiative", dice=[10], actor=key(tess))
    ok(enc, other_player, "roll_initiative", dice=[15], actor=key(oru))
    ok(enc, gm, "start_combat")  # the Red Talon (Oru, 16) first
    assert state_of(enc).ship_turn == sid(talon) and state_of(enc).stage == "power"
    html = player_html(enc, other_player)
    assert "Gunner aboard <strong>Red Talon</strong>" in html
    assert "Store the power dice" not in html and "The reactor produced" not in html
    assert_no_gm_fact(html, enc)


def _enc_state(enc):
    enc.refresh_from_db()
    return enc, store.load_state(enc)


# --- the end: write-back ---------------------------------------------------------------------------------------------


def test_ending_writes_hull_shields_dice_and_power_back_to_the_ships(
    enc, gm, player, other_player, tess, oru, vrask, lantern, talon
):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    to_lantern_turn(enc, gm, vrask, talon)  # the Red Talon stores its die: 4 in the central store
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, player, "regenerate_shields", actor=key(tess))  # 28 shields, 5 shield dice
    ok(enc, player, "start_crew_turn", actor=key(tess))
    ok(enc, player, "take_action", dice=[4], actor=key(tess), action="patch")  # d8 4 + Con 1: 45
    ok(enc, gm, "damage", ship=sid(talon), amount=330)
    ok(enc, gm, "end_encounter")
    lantern.refresh_from_db()
    talon.refresh_from_db()
    assert (lantern.hull, lantern.shields, lantern.hull_dice, lantern.shield_dice) == (45, 28, 5, 5)
    assert lantern.power_central == 2
    assert (talon.hull, talon.shields, talon.power_central) == (768, 0, 4)
    lantern.full_clean()
    talon.full_clean()
    assert Encounter.objects.get(pk=enc.pk).status == "ended"


def test_write_back_touches_only_ships_of_the_encounters_campaign(enc, gm, lantern):
    elsewhere = campaign_services.create_campaign(gm, name="Elsewhere", combat_model="sw5e", description="")
    stranger = Ship.objects.create(campaign=elsewhere, name="Stranger", hull=10, hull_max=30)
    state = state_of(enc)
    forged = sw.State(
        ships=state.ships + (sw.Ship(id=sid(stranger), name="Stranger", hull=1, hull_max=30),), fighters=state.fighters
    )
    table.write_back(enc, forged)
    stranger.refresh_from_db()
    assert stranger.hull == 10


def test_write_back_keeps_within_what_the_ship_allows_now(enc, gm, lantern):
    Ship.objects.filter(pk=lantern.pk).update(hull_max=20, hull=20, coupling="direct")
    table.write_back(enc, state_of(enc))
    lantern.refresh_from_db()
    assert (lantern.hull, lantern.power_central) == (20, 1)
    lantern.full_clean()


# --- the after-action review ------------------------------------------------------------------------------------------


def two_ship_turns(enc, gm, player, other_player, tess, oru, vrask, lantern, talon):
    """The Red Talon's turn (Vrask spends two power dice, the Talon hits the Lantern for 9), then the Lantern's
    (Tess spends two, and hits the Talon for 30)."""
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    ok(enc, gm, "distribute_power", central=1)
    ok(enc, gm, "start_crew_turn", actor=key(vrask))
    ok(enc, gm, "spend_power", dice=[6, 6], actor=key(vrask), system="weapons", store="central", count=2)
    ok(enc, gm, "damage", ship=sid(lantern), amount=9, by=sid(talon))
    ok(enc, gm, "end_crew_turn", actor=key(vrask))
    ok(enc, gm, "end_ship_turn")
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, player, "start_crew_turn", actor=key(tess))
    ok(enc, player, "spend_power", dice=[2, 4], actor=key(tess), system="weapons", store="central", count=2)
    ok(enc, gm, "damage", ship=sid(talon), amount=30, by=key(tess))


def test_the_review_counts_power_dice_rolls_and_damage_by_ship_and_crew(
    client, enc, gm, player, other_player, tess, oru, vrask, lantern, talon
):
    two_ship_turns(enc, gm, player, other_player, tess, oru, vrask, lantern, talon)
    data = review.build(Encounter.objects.get(pk=enc.pk), is_gm=True)
    rows = {s.key: s for s in data.summaries}
    assert data.model_figures == (("power_dice_spent", "Power dice spent"), ("power_dice_gained", "Power dice gained"))
    assert rows[key(tess)].figures["power_dice_spent"] == rows[key(vrask)].figures["power_dice_spent"] == 2
    assert rows[key(tess)].damage_dealt == 30 and rows[sid(talon)].damage_taken == 30
    assert rows[sid(talon)].damage_dealt == 9 and rows[sid(lantern)].damage_taken == 9
    assert rows[key(tess)].rolls == 2  # initiative and the power dice
    assert data.faces[6] == {6: 2} and data.faces[4] == {2: 1, 4: 1}
    assert data.damage_by_round == {1: 39}
    # A player's review leaves out the Red Talon's dice and power, as their log does; damage stays public.
    mine = review.build(Encounter.objects.get(pk=enc.pk), is_gm=False)
    rows = {s.key: s for s in mine.summaries}
    assert rows[key(vrask)].figures["power_dice_spent"] == 0 and rows[key(tess)].figures["power_dice_spent"] == 2
    assert 6 not in mine.faces and mine.damage_by_round == {1: 39}
    # ... and says those are hidden, never a plain 0 (issue 20); Tess's own figures are whole.
    assert {"power_dice_spent", "rolls"} <= rows[key(vrask)].hidden and not rows[key(tess)].hidden
    assert not mine.damage_hidden and not data.has_hidden
    # The review page and its timeline, headed by ship turns.
    client.force_login(player)
    page = client.get(reverse("encounter_log", args=[enc.campaign_id, enc.pk])).content.decode()
    assert "Power dice spent" in page and "Red Talon&#x27;s turn" in page and "Set-up" in page
    assert '<span class="hidden-figure">hidden</span>' in page and "is the GM's to know" in page
    assert "Initiative, crews and surprise" in page
    assert not shows_numbers(page)
    client.force_login(gm)
    assert client.get(reverse("encounter_log", args=[enc.campaign_id, enc.pk])).status_code == 200


def test_exports_of_an_sw5e_encounter_import_back(client, enc, gm, player, other_player, tess, oru, talon, campaign):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    ok(enc, gm, "damage", ship=sid(talon), amount=7)
    for fmt, writer in exports.WRITERS.items():
        out = io.StringIO()
        assert writer(Encounter.objects.get(pk=enc.pk), True, out) > 0, fmt
    out = io.StringIO()
    exports.write_json(Encounter.objects.get(pk=enc.pk), True, out)
    doc = json.loads(out.getvalue())
    assert doc["encounter"]["model"] == "sw5e" and doc["complete"]
    copy = exports.import_encounter(campaign, gm, doc)
    assert copy.state == Encounter.objects.get(pk=enc.pk).state and copy.status == "ended"


# --- queries ----------------------------------------------------------------------------------------------------------


def test_queries_per_action_do_not_grow_with_the_crew(
    client, gm, campaign, player, other_player, tess, oru, vrask, lantern, talon, django_capture_on_commit_callbacks
):
    def queries_for(extra_crew):
        client.force_login(gm)
        enc = build(
            client, campaign, [tess, oru], {lantern: "ready", talon: "ready"}, **{f"npc_{vrask.pk}": str(extra_crew)}
        )
        ok(enc, player, "roll_initiative", dice=[10], actor=key(tess))
        with CaptureQueriesContext(connection) as submit_q:
            with django_capture_on_commit_callbacks(execute=False):
                ok(enc, other_player, "roll_initiative", dice=[15], actor=key(oru))
        with CaptureQueriesContext(connection) as render_q:
            enc.refresh_from_db()
            state = store.load_state(enc)
            fragments.for_gm(enc, state)
            fragments.for_players(enc, state)
            fragments.me_html(enc, state, player.pk)
        return len(submit_q), len(render_q)

    assert queries_for(1) == queries_for(12)


# --- the websocket ----------------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_the_table_over_the_websocket_keeps_npc_numbers_from_the_players(
    client, gm, campaign, player, other_player, tess, oru, vrask, lantern, talon, sockets, close_db_connections
):
    def make():
        client.force_login(gm)
        return build(client, campaign, [tess, oru], {lantern: "ready", talon: "ready"})

    enc = await sync_to_async(make)()
    gm_socket, connected, _ = await sockets(gm, enc)
    assert connected
    phone, connected, _ = await sockets(player, enc)
    assert connected
    [gm_first] = await receive(gm_socket, 1, then_quiet=False)
    await receive_strip(gm_socket, enc.pk)  # the phone joined
    [phone_first] = await receive(phone, 1)
    assert shows_numbers(gm_first) == list(SECRET_NUMBERS) and "GM controls" in gm_first
    assert f'id="enc-{enc.pk}-me"' in phone_first and "Roll initiative" in phone_first
    assert_no_gm_fact(phone_first, enc)
    frames = [phone_first]

    async def step(user, name, data, dice=(), players_learn=True):
        result = await sync_to_async(services.submit)(
            enc.pk, user, name, data, f"ws-{name}-{len(frames)}", dice=ScriptedDice(dice)
        )
        assert result.ok, result.error
        [gm_html_] = await receive(gm_socket, 1, then_quiet=False)
        if not players_learn:  # the players' frame leaves before the GM's: none has come, none will
            assert await phone.receive_nothing(timeout=QUIET)
            return gm_html_, None, None
        table_html, me_html = await receive_update(phone, enc.pk, then_quiet=False)
        frames.extend([table_html, me_html])
        return gm_html_, table_html, me_html

    await step(player, "roll_initiative", {"actor": key(tess)}, [10])
    await step(other_player, "roll_initiative", {"actor": key(oru)}, [15])
    gm_frame, table_frame, _ = await step(gm, "set_ship_initiative", {"ship": sid(talon), "value": TALON_INITIATIVE})
    assert f"initiative {TALON_INITIATIVE}" in gm_frame and "The GM sets Red Talon&#x27;s initiative." in table_frame
    _, table_frame, me_frame = await step(gm, "start_combat", {})
    assert "Red Talon</strong>'s ship turn" in table_frame
    await step(gm, "distribute_power", {"central": 1}, players_learn=False)  # an NPC ship's power: the GM's alone
    await step(gm, "start_crew_turn", {"actor": key(vrask)})
    await step(gm, "spend_power", {"actor": key(vrask), "system": "weapons", "store": "central", "count": 2}, [3, 4])
    gm_frame, table_frame, _ = await step(gm, "damage", {"ship": sid(lantern), "amount": 6, "by": sid(talon)})
    assert "Lantern takes 6 damage from Red Talon: 6 to shields" in table_frame
    await step(gm, "end_crew_turn", {"actor": key(vrask)})
    _, table_frame, me_frame = await step(gm, "end_ship_turn", {})
    assert "The reactor produced 1 power die" in me_frame and 'data-may-act="1"' in me_frame
    await step(player, "distribute_power", {"actor": key(tess), "central": 1})
    _, _, me_frame = await step(player, "start_crew_turn", {"actor": key(tess)})
    assert "Your turn!" in me_frame
    assert await gm_socket.receive_nothing(timeout=QUIET) and await phone.receive_nothing(timeout=QUIET)
    for html in frames:
        assert_no_gm_fact(html, enc)
    # A phone that slept catches up with everything in its first frame.
    await phone.disconnect()
    again, connected, _ = await sockets(player, enc)
    assert connected
    [html] = await receive(again, 1)
    assert "Your turn!" in html and "Lantern takes 6 damage from Red Talon" in html
    assert_no_gm_fact(html, enc)


# --- hostile input ----------------------------------------------------------------------------------------------------

COMMANDS = [c.name for c in sw.COMMANDS] + ["undo"]
FIELDS = sorted({f.name for c in sw.COMMANDS for f in c.__dataclass_fields__.values()})


@pytest.fixture
def running(enc, gm, player, other_player, tess, oru, vrask, talon):
    """An encounter in combat, and the ids worth trying against it (its own, and another encounter's)."""
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    other = Encounter.objects.create(campaign=enc.campaign, name="Other", model="sw5e", created_by=gm)
    return enc, other


@settings(FUZZ, max_examples=examples(60))
@given(data=st.data())
@example(data=None)
def test_fuzz_the_act_endpoint(client, running, gm, player, tess, oru, vrask, talon, lantern, data):
    enc, other = running
    ids = [
        key(tess),
        key(oru),
        key(vrask),
        sid(talon),
        sid(lantern),
        "ship999999",
        "pc0",
        "",
        "central",
        "weapons",
        "fire",
        "detect",
        "evade",
        "laser cannons",
        "pilot",
        "reaction",
        "bonus",
        "1",
        "-1",
        "3",
    ]
    if data is None:  # a fixed example: a player issuing the GM's damage for another encounter's ship
        gm_side, form = False, {"command": "damage", "ship": "ship999999", "amount": "5", "key": "x"}
    else:
        gm_side = data.draw(st.booleans())
        form = data.draw(
            st.fixed_dictionaries(
                # A GM's end would leave every later example an ended table; players try it (and are refused).
                {
                    "command": st.one_of(st.sampled_from(COMMANDS + ([] if gm_side else ["end_encounter"])), value),
                    "key": st.one_of(st.uuids().map(str), value),
                },
                optional={
                    name: st.one_of(st.sampled_from(ids), value, st.lists(st.sampled_from(ids), max_size=3))
                    for name in FIELDS
                },
            )
        )
    client.force_login(gm if gm_side else player)
    before = Encounter.objects.get(pk=enc.pk)
    response = check(client, "post", act_url(enc), form, htmx=True)
    assert response.status_code == 200
    after = Encounter.objects.get(pk=enc.pk)
    if not gm_side:
        if form["command"] in ("damage", "adjust_ship", "allow_action", "assign_crew", "undo", "end_encounter"):
            assert after.version == before.version
        assert after.status == before.status
        assert_no_gm_fact(response.content.decode(), enc)
    # Another encounter's URL through this campaign gets a 404, never a way in.
    assert client.post(reverse("encounter_act", args=[enc.campaign_id, other.pk + 1000]), form).status_code == 404


@settings(FUZZ, max_examples=examples(40))
@given(data=st.data())
def test_fuzz_the_sw5e_builder(client, gm, campaign, tess, oru, vrask, lantern, talon, data):
    base = builder_form([tess, oru], {lantern: "ready", talon: "surprised"}, surprised_crew=[oru.pk])
    base = {k: (v if isinstance(v, str) else [str(x) for x in v]) for k, v in base.items()}
    names = [*base, f"ship_{lantern.pk}", f"ship_{talon.pk}", "surprised_crew", "hidden", f"npc_{vrask.pk}"]
    junk = st.one_of(value, st.sampled_from(["ready", "surprised", "", str(tess.pk), str(vrask.pk)]))
    form = data.draw(mutated(base, names, junk))
    client.force_login(gm)
    check(client, "post", reverse("encounter_create", args=[campaign.pk]), form)
