"""Ships through the browser: the GM's ship form, crew stations, and the power dice shown on the ship page."""

import html
import re

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import services
from campaigns.models import Character
from ships.models import CrewAssignment, Ship
from tests.conftest import examples
from tests.test_fuzz import check

pytestmark = pytest.mark.django_db

SYSTEMS = ("communications", "engines", "shields", "sensors", "weapons")


def ship_data(**overrides):
    """A valid medium tier-1 ship (6 hull dice at most) with a direct coupling, as the form posts it."""
    data = {
        "name": "Lantern",
        "notes": "Smells of ozone.",
        "livability_rating": "4",
        "mi_health": "3",
        "mi_health_max": "5",
        "size": "medium",
        "tier": "1",
        "hull": "30",
        "hull_max": "40",
        "shields": "10",
        "shields_max": "20",
        "hull_dice": "6",
        "shield_dice": "4",
        "shield_type": "fortress",
        "reactor": "power_core",
        "coupling": "direct",
        "power_central": "3",
        **{f"power_{system}": "0" for system in SYSTEMS},
    }
    data.update({k: str(v) for k, v in overrides.items()})
    return data


def field_errors(response, name):
    page = response.content.decode()
    for block in re.findall(r'<div class="field[^"]*">(.*?)</div>', page, re.S):
        if re.search(rf'name="{re.escape(name)}"', block):
            return [html.unescape(e).strip() for e in re.findall(r'<p class="error"[^>]*>(.*?)</p>', block, re.S)]
    raise AssertionError(f"no field {name!r} on the page")


def all_errors(response):
    return [
        html.unescape(e).strip()
        for e in re.findall(r'<p class="error"[^>]*>(.*?)</p>', response.content.decode(), re.S)
    ]


def visible_text(response):
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def make_ship(campaign, **fields):
    return Ship.objects.create(campaign=campaign, **{"name": "Lantern", **fields})


def crew_url(ship):
    return reverse("crew_add", args=[ship.campaign_id, ship.pk])


def remove_url(post):
    return reverse("crew_remove", args=[post.ship.campaign_id, post.ship_id, post.pk])


# --- the GM's ship form ----------------------------------------------------------------------------------------


def test_gm_creates_a_ship(gm_client, campaign):
    response = gm_client.post(reverse("ship_create", args=[campaign.pk]), ship_data())
    ship = Ship.objects.get(name="Lantern")
    assert response.status_code == 302
    assert response["Location"] == ship.get_absolute_url()
    assert ship.campaign == campaign
    assert (ship.size, ship.tier, ship.hull, ship.hull_max, ship.hull_dice) == ("medium", 1, 30, 40, 6)
    assert (ship.coupling, ship.power_central, ship.shield_type) == ("direct", 3, "fortress")
    assert ship.livability_rating == 4
    # It is listed on the campaign page, for the GM and for the players.
    page = visible_text(gm_client.get(campaign.get_absolute_url()))
    assert "Lantern" in page and "Livability 4" in page and "hull 30/40" in page


def test_gm_edits_and_deletes_a_ship(gm_client, campaign):
    ship = make_ship(campaign)
    edit = reverse("ship_edit", args=[campaign.pk, ship.pk])
    assert gm_client.get(edit).status_code == 200
    response = gm_client.post(edit, ship_data(name="Lantern II", hull="12"))
    assert response.status_code == 302
    ship.refresh_from_db()
    assert (ship.name, ship.hull) == ("Lantern II", 12)
    response = gm_client.post(reverse("ship_delete", args=[campaign.pk, ship.pk]))
    assert response.status_code == 302
    assert not Ship.objects.filter(pk=ship.pk).exists()


def test_player_cannot_create_edit_or_delete_ships(player_client, campaign):
    ship = make_ship(campaign)
    create = reverse("ship_create", args=[campaign.pk])
    edit = reverse("ship_edit", args=[campaign.pk, ship.pk])
    delete = reverse("ship_delete", args=[campaign.pk, ship.pk])
    assert player_client.get(create).status_code == 404
    assert player_client.post(create, ship_data(name="Pirate")).status_code == 404
    assert player_client.get(edit).status_code == 404
    assert player_client.post(edit, ship_data(name="Stolen")).status_code == 404
    assert player_client.post(delete).status_code == 404
    assert list(Ship.objects.values_list("name", flat=True)) == ["Lantern"]
    # They can still look at it, without the GM's edit link.
    response = player_client.get(ship.get_absolute_url())
    assert response.status_code == 200
    assert edit not in response.content.decode()
    assert "New ship" not in visible_text(player_client.get(campaign.get_absolute_url()))


def test_outsider_sees_nothing_of_the_ships(client, outsider, campaign):
    ship = make_ship(campaign)
    client.force_login(outsider)
    assert client.get(ship.get_absolute_url()).status_code == 404
    assert client.get(reverse("ship_create", args=[campaign.pk])).status_code == 404


def test_ship_of_another_campaign_is_not_found_through_this_one(gm_client, gm, campaign):
    elsewhere = services.create_campaign(gm, name="Elsewhere", combat_model="sw5e", description="")
    ship = make_ship(elsewhere, name="Ghost")
    assert gm_client.get(reverse("ship", args=[campaign.pk, ship.pk])).status_code == 404
    assert gm_client.post(reverse("ship_delete", args=[campaign.pk, ship.pk])).status_code == 404
    assert Ship.objects.filter(pk=ship.pk).exists()


@pytest.mark.parametrize(
    "overrides,field,sentence",
    [
        ({"tier": 7}, "tier", "Tier goes from 0 to 5."),
        ({"hull": -5}, "hull", "This cannot be negative."),
        ({"hull": 41}, "hull", "Hull points cannot be above the maximum (40)."),
        ({"shields": 21}, "shields", "Shield points cannot be above the maximum (20)."),
        ({"mi_health": 6}, "mi_health", "MI Health Levels cannot be above the maximum (5)."),
        (
            {"power_central": 5},
            "power_central",
            "5 power dice do not fit in the central store: this coupling holds 4 there.",
        ),
        (
            {"coupling": "distributed", "power_central": 0, "power_engines": 3},
            "power_engines",
            "3 power dice do not fit in the engines store: this coupling holds 2 there.",
        ),
        (
            {"coupling": "hub_and_spoke", "power_central": 3},
            "power_central",
            "3 power dice do not fit in the central store: this coupling holds 2 there.",
        ),
        ({"hull_dice": 7}, "hull_dice", "Hull dice cannot be above 6 for a tier 1 medium ship."),
        ({"shield_dice": 7}, "shield_dice", "Shield dice cannot be above 6 for a tier 1 medium ship."),
        (
            {"size": "huge", "tier": 2, "hull_dice": 14},
            "hull_dice",
            "Hull dice cannot be above 13 for a tier 2 huge ship.",
        ),
        ({"livability_rating": 0}, "livability_rating", "Livability Rating goes from 1 to 10."),
        ({"livability_rating": 11}, "livability_rating", "Livability Rating goes from 1 to 10."),
        ({"tier": "two"}, "tier", "Enter a whole number."),
    ],
)
def test_impossible_ship_is_refused_next_to_the_field(gm_client, campaign, overrides, field, sentence):
    response = gm_client.post(reverse("ship_create", args=[campaign.pk]), ship_data(**overrides))
    assert response.status_code == 400
    assert field_errors(response, field) == [sentence]
    assert all(e.endswith(".") for e in all_errors(response))
    assert not Ship.objects.exists()


@pytest.mark.parametrize("system", SYSTEMS)
def test_direct_coupling_has_no_room_in_the_systems(gm_client, campaign, system):
    response = gm_client.post(reverse("ship_create", args=[campaign.pk]), ship_data(**{f"power_{system}": 1}))
    assert response.status_code == 400
    assert field_errors(response, f"power_{system}") == [
        f"1 power dice do not fit in the {system} store: this coupling holds 0 there."
    ]
    assert field_errors(response, "power_central") == []
    assert not Ship.objects.exists()


@pytest.mark.parametrize(
    "coupling,stores",
    [
        ("direct", {"central": 4}),
        ("distributed", dict.fromkeys(SYSTEMS, 2)),
        ("hub_and_spoke", {"central": 2, **dict.fromkeys(SYSTEMS, 1)}),
    ],
)
def test_full_stores_for_each_coupling_are_accepted(gm_client, campaign, coupling, stores):
    data = ship_data(coupling=coupling, **{"power_central": 0, **{f"power_{store}": n for store, n in stores.items()}})
    response = gm_client.post(reverse("ship_create", args=[campaign.pk]), data)
    assert response.status_code == 302, all_errors(response)
    ship = Ship.objects.get()
    assert sum(ship.stored_power().values()) == {"direct": 4, "distributed": 10, "hub_and_spoke": 7}[coupling]


@pytest.mark.parametrize("size,tier,most", [("tiny", 0, 1), ("small", 5, 8), ("large", 3, 10), ("gargantuan", 5, 21)])
def test_hull_dice_up_to_the_size_and_tier_total_are_accepted(gm_client, campaign, size, tier, most):
    data = ship_data(size=size, tier=tier, hull_dice=most, shield_dice=most)
    assert gm_client.post(reverse("ship_create", args=[campaign.pk]), data).status_code == 302
    data = ship_data(name="Too many", size=size, tier=tier, hull_dice=most + 1, shield_dice=most)
    response = gm_client.post(reverse("ship_create", args=[campaign.pk]), data)
    assert response.status_code == 400
    assert field_errors(response, "hull_dice") == [f"Hull dice cannot be above {most} for a tier {tier} {size} ship."]
    assert list(Ship.objects.values_list("name", flat=True)) == ["Lantern"]


def test_an_impossible_edit_leaves_the_ship_as_it_was(gm_client, campaign):
    ship = make_ship(campaign, hull=20, hull_max=30)
    response = gm_client.post(
        reverse("ship_edit", args=[campaign.pk, ship.pk]), ship_data(name="Broken", hull=35, hull_max=30)
    )
    assert response.status_code == 400
    assert field_errors(response, "hull") == ["Hull points cannot be above the maximum (30)."]
    ship.refresh_from_db()
    assert (ship.name, ship.hull, ship.hull_max) == ("Lantern", 20, 30)


# --- crew stations ---------------------------------------------------------------------------------------------


def test_gm_assigns_characters_to_stations(gm_client, campaign, pc, other_pc, npc):
    ship = make_ship(campaign)
    for character, station in ((pc, "pilot"), (other_pc, "mechanic"), (npc, "gunner")):
        response = gm_client.post(crew_url(ship), {"character": character.pk, "station": station})
        assert response.status_code == 302
    posts = {(p.character.name, p.station) for p in CrewAssignment.objects.filter(ship=ship)}
    assert posts == {("Luwe", "pilot"), ("Furo", "mechanic"), ("Nivick", "gunner")}
    page = visible_text(gm_client.get(ship.get_absolute_url()))
    assert "Helm (pilot) : Luwe (ana)" in page
    assert "Mechanic : Furo (ben)" in page
    assert "Gunner : Nivick ×4" in page
    assert "Crew: Nivick ×4 (Gunner), Furo (Mechanic), Luwe (Helm (pilot))" in visible_text(
        gm_client.get(campaign.get_absolute_url())
    )


def test_a_second_pilot_is_refused(gm_client, campaign, pc, other_pc):
    ship = make_ship(campaign)
    CrewAssignment.objects.create(ship=ship, character=pc, station="pilot")
    response = gm_client.post(crew_url(ship), {"character": other_pc.pk, "station": "pilot"})
    assert response.status_code == 400
    assert field_errors(response, "station") == ["This ship already has a pilot at the helm."]
    assert list(CrewAssignment.objects.values_list("character__name", flat=True)) == ["Luwe"]


def test_each_ship_has_its_own_pilot(gm_client, campaign, pc, other_pc):
    first, second = make_ship(campaign, name="One"), make_ship(campaign, name="Two")
    assert gm_client.post(crew_url(first), {"character": pc.pk, "station": "pilot"}).status_code == 302
    assert gm_client.post(crew_url(second), {"character": other_pc.pk, "station": "pilot"}).status_code == 302
    assert CrewAssignment.objects.filter(station="pilot").count() == 2


def test_any_number_of_gunners(gm_client, campaign, pc, other_pc):
    ship = make_ship(campaign)
    gunners = [pc, other_pc] + [
        Character.objects.create(campaign=campaign, name=f"Gunner {i}", kind="npc", system="sw5e") for i in range(4)
    ]
    for character in gunners:
        assert gm_client.post(crew_url(ship), {"character": character.pk, "station": "gunner"}).status_code == 302
    assert CrewAssignment.objects.filter(ship=ship, station="gunner").count() == 6


def test_unknown_station_is_refused(gm_client, campaign, pc):
    ship = make_ship(campaign)
    response = gm_client.post(crew_url(ship), {"character": pc.pk, "station": "captain"})
    assert response.status_code == 400
    assert field_errors(response, "station") == ["Choose a station from the list."]
    assert not CrewAssignment.objects.exists()


def test_player_assigns_their_own_pc(player_client, campaign, pc):
    ship = make_ship(campaign)
    response = player_client.post(crew_url(ship), {"character": pc.pk, "station": "pilot"})
    assert response.status_code == 302
    post = CrewAssignment.objects.get()
    assert (post.character, post.station) == (pc, "pilot")


def test_player_cannot_assign_someone_elses_character(player_client, campaign, pc, other_pc, npc):
    ship = make_ship(campaign)
    for character in (other_pc, npc):
        response = player_client.post(crew_url(ship), {"character": character.pk, "station": "gunner"})
        assert response.status_code == 400
        assert field_errors(response, "character") == ["Choose one of the campaign's characters."]
    assert not CrewAssignment.objects.exists()
    # The choices offered to the player are their own PCs only.
    body = player_client.get(ship.get_absolute_url()).content.decode()
    assert f'value="{pc.pk}"' in body
    assert f'value="{other_pc.pk}"' not in body
    assert "Nivick" not in body


def test_player_removes_only_their_own_crew_post(player_client, campaign, pc, other_pc):
    ship = make_ship(campaign)
    mine = CrewAssignment.objects.create(ship=ship, character=pc, station="gunner")
    theirs = CrewAssignment.objects.create(ship=ship, character=other_pc, station="pilot")
    body = player_client.get(ship.get_absolute_url()).content.decode()
    assert remove_url(mine) in body
    assert remove_url(theirs) not in body
    assert player_client.post(remove_url(theirs)).status_code == 404
    assert CrewAssignment.objects.filter(pk=theirs.pk).exists()
    assert player_client.post(remove_url(mine)).status_code == 302
    assert not CrewAssignment.objects.filter(pk=mine.pk).exists()


def test_gm_removes_anyone_from_a_station(gm_client, campaign, other_pc):
    ship = make_ship(campaign)
    post = CrewAssignment.objects.create(ship=ship, character=other_pc, station="pilot")
    assert gm_client.post(remove_url(post)).status_code == 302
    assert not CrewAssignment.objects.exists()


def test_crew_post_of_another_ship_cannot_be_removed_through_this_one(gm_client, campaign, pc):
    ship, other = make_ship(campaign, name="One"), make_ship(campaign, name="Two")
    post = CrewAssignment.objects.create(ship=other, character=pc, station="pilot")
    url = reverse("crew_remove", args=[campaign.pk, ship.pk, post.pk])
    assert gm_client.post(url).status_code == 404
    assert CrewAssignment.objects.filter(pk=post.pk).exists()


def test_character_of_another_campaign_cannot_be_assigned(gm_client, gm, campaign):
    ship = make_ship(campaign)
    elsewhere = services.create_campaign(gm, name="Elsewhere", combat_model="sw5e", description="")
    stranger = Character.objects.create(campaign=elsewhere, name="Stranger", system="sw5e")
    response = gm_client.post(crew_url(ship), {"character": stranger.pk, "station": "gunner"})
    assert response.status_code == 400
    assert field_errors(response, "character") == ["Choose one of the campaign's characters."]
    assert not CrewAssignment.objects.exists()
    assert "Stranger" not in gm_client.get(ship.get_absolute_url()).content.decode()


def test_outsider_cannot_touch_the_crew(client, outsider, campaign, pc):
    ship = make_ship(campaign)
    post = CrewAssignment.objects.create(ship=ship, character=pc, station="pilot")
    client.force_login(outsider)
    assert client.post(crew_url(ship), {"character": pc.pk, "station": "gunner"}).status_code == 404
    assert client.post(remove_url(post)).status_code == 404
    assert CrewAssignment.objects.count() == 1


# --- the ship page -----------------------------------------------------------------------------------------------


def test_hub_and_spoke_shows_stored_dice_against_capacity(player_client, campaign):
    ship = make_ship(campaign, coupling="hub_and_spoke", power_central=1, power_engines=1, tier=3)
    page = visible_text(player_client.get(ship.get_absolute_url()))
    assert "Central 1 / 2" in page
    assert "Engines 1 / 1" in page
    for system in ("Communications", "Shields", "Sensors", "Weapons"):
        assert f"{system} 0 / 1" in page
    assert "Power die d8" in page


def test_direct_coupling_shows_only_the_central_store(gm_client, campaign):
    ship = make_ship(campaign, coupling="direct", power_central=3, tier=0)
    page = visible_text(gm_client.get(ship.get_absolute_url()))
    assert "Central 3 / 4" in page
    assert "Engines 0 /" not in page
    assert "Power die 1 (flat)" in page


def test_distributed_coupling_shows_each_system_store(gm_client, campaign):
    ship = make_ship(campaign, coupling="distributed", power_weapons=2, power_shields=1, tier=5)
    page = visible_text(gm_client.get(ship.get_absolute_url()))
    assert "Weapons 2 / 2" in page
    assert "Shields 1 / 2" in page
    assert "Sensors 0 / 2" in page
    assert "Central 0 /" not in page
    assert "Power die d12" in page


def test_ship_page_shows_hull_dice_against_the_size_and_tier_total(gm_client, campaign):
    ship = make_ship(campaign, size="huge", tier=2, hull_dice=10, shield_dice=13, livability_rating=6)
    page = visible_text(gm_client.get(ship.get_absolute_url()))
    assert "Hull dice (d12) 10 / 13" in page
    assert "Shield dice (d12) 13 / 13" in page
    assert "Livability Rating 6" in page


@pytest.mark.django_db
def test_same_character_twice_on_one_ship_gets_a_plain_sentence(gm_client, campaign, pc):
    from ships.models import CrewAssignment, Ship

    ship = Ship.objects.create(campaign=campaign, name="Lantern")
    CrewAssignment.objects.create(ship=ship, character=pc, station="gunner")
    response = gm_client.post(
        f"/campaigns/{campaign.pk}/ships/{ship.pk}/crew/", {"character": pc.pk, "station": "operator"}
    )
    assert response.status_code == 400
    assert "That character already has a station on this ship." in response.content.decode()
    assert CrewAssignment.objects.filter(ship=ship).count() == 1


# --- NPC ships and the SW5e combat numbers ----------------------------------------------------------------------


def test_gm_keeps_an_npc_ship_with_weapons_and_modifiers(gm_client, campaign):
    data = ship_data(
        name="Red Talon", side="npc", weapons=" twin blasters ,  proton torpedoes,", con_mod="-2", initiative_mod="3"
    )
    response = gm_client.post(reverse("ship_create", args=[campaign.pk]), data)
    assert response.status_code == 302
    ship = Ship.objects.get(name="Red Talon")
    assert (ship.side, ship.con_mod, ship.initiative_mod) == ("npc", -2, 3)
    assert ship.is_npc and ship.weapon_list() == ["twin blasters", "proton torpedoes"]
    page = visible_text(gm_client.get(ship.get_absolute_url()))
    assert "NPC ship players never see this page" in page
    assert "Weapons twin blasters, proton torpedoes" in page and "Initiative modifier 3" in page
    assert "Constitution modifier -2" in page


def test_a_form_without_the_new_fields_keeps_what_the_ship_has(gm_client, campaign):
    ship = make_ship(campaign, side="npc", con_mod=2, initiative_mod=4, weapons="ion cannon")
    response = gm_client.post(
        reverse("ship_edit", args=[campaign.pk, ship.pk]),
        ship_data(name="Renamed", side="", con_mod="", initiative_mod=""),
    )
    assert response.status_code == 302
    ship.refresh_from_db()
    assert (ship.name, ship.side, ship.con_mod, ship.initiative_mod) == ("Renamed", "npc", 2, 4)
    new = gm_client.post(reverse("ship_create", args=[campaign.pk]), ship_data(name="Plain"))
    assert new.status_code == 302
    plain = Ship.objects.get(name="Plain")
    assert (plain.side, plain.con_mod, plain.initiative_mod, plain.weapons) == ("pc", 0, 0, "")


@pytest.mark.parametrize(
    "overrides,field,sentence",
    [
        ({"side": "pirate"}, "side", "Choose a party ship or an NPC ship."),
        ({"con_mod": 21}, "con_mod", "Choose from -10 to 20."),
        ({"initiative_mod": -11}, "initiative_mod", "Choose from -10 to 20."),
        ({"initiative_mod": 99999}, "initiative_mod", "Choose from -10 to 20."),
        ({"con_mod": "x"}, "con_mod", "Enter a whole number."),
        (
            {"weapons": "laser, Laser"},
            "weapons",
            'Name each weapon once (two of a kind: "laser cannon 1, laser cannon 2").',
        ),
        ({"weapons": "a" * 61}, "weapons", "Each weapon's name can be at most 60 characters long."),
        ({"weapons": ",".join(f"gun {n}" for n in range(13))}, "weapons", "List at most 12 weapons."),
    ],
)
def test_impossible_sw5e_combat_numbers_are_refused_next_to_the_field(gm_client, campaign, overrides, field, sentence):
    response = gm_client.post(reverse("ship_create", args=[campaign.pk]), ship_data(**overrides))
    assert response.status_code == 400
    assert field_errors(response, field) == [sentence]
    assert not Ship.objects.exists()


def test_npc_ships_are_hidden_from_players(client, player, gm, campaign, pc):
    party = make_ship(campaign, name="Lantern")
    enemy = make_ship(campaign, name="Red Talon", side="npc", hull=17, hull_max=19)
    post = CrewAssignment.objects.create(ship=enemy, character=pc, station="gunner")
    client.force_login(player)
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert "Lantern" in page and "Red Talon" not in page and "17/19" not in page
    assert client.get(enemy.get_absolute_url()).status_code == 404
    assert client.get(party.get_absolute_url()).status_code == 200
    assert client.post(crew_url(enemy), {"character": pc.pk, "station": "pilot"}).status_code == 404
    assert client.post(remove_url(post)).status_code == 404
    assert CrewAssignment.objects.filter(pk=post.pk).exists()
    client.force_login(gm)
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert "Red Talon" in page and "17/19" in page
    assert client.get(enemy.get_absolute_url()).status_code == 200


SHIP_FIELDS = {**ship_data(), "side": "npc", "weapons": "laser cannons", "con_mod": "1", "initiative_mod": "2"}


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    form=st.builds(
        lambda base, changes: {**base, **changes},
        st.just(SHIP_FIELDS),
        st.dictionaries(
            st.sampled_from(["side", "weapons", "con_mod", "initiative_mod"]),
            st.one_of(
                st.text(max_size=80),
                st.integers(-(2**40), 2**40).map(str),
                st.sampled_from(["", "npc", "pc", "NaN", "1e9", "\x00", "a,a"]),
            ),
            max_size=4,
        ),
    ),
    creating=st.booleans(),
)
def test_fuzz_the_new_ship_fields(client, gm, campaign, form, creating):
    """Junk in the fields SW5e added: a sentence or a stored ship that validates, never a server error."""
    client.force_login(gm)
    ship = Ship.objects.get_or_create(campaign=campaign, name="Fuzzed")[0]
    url = reverse("ship_create", args=[campaign.pk]) if creating else reverse("ship_edit", args=[campaign.pk, ship.pk])
    response = check(client, "post", url, form)
    if response.status_code == 302:
        for row in Ship.objects.all():
            row.full_clean()
