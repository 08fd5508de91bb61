"""Characters through the browser: making, editing and seeing them as a player and as a GM."""

import html
import re

import pytest
from django.urls import reverse

from campaigns import services
from campaigns.models import Character
from combat.rules import registry

pytestmark = pytest.mark.django_db


def create_url(campaign):
    return reverse("character_create", args=[campaign.pk])


def detail_url(character):
    return reverse("character", args=[character.campaign_id, character.pk])


def edit_url(character):
    return reverse("character_edit", args=[character.campaign_id, character.pk])


def delete_url(character):
    return reverse("character_delete", args=[character.campaign_id, character.pk])


def text_of(response):
    return html.unescape(response.content.decode())


def field_errors(response, name):
    """The error sentences shown inside the form field block that holds the input called `name`."""
    page = response.content.decode()
    for block in re.findall(r'<div class="field[^"]*">(.*?)</div>', page, re.S):
        if re.search(rf'name="{re.escape(name)}"', block):
            return [html.unescape(e).strip() for e in re.findall(r'<p class="error"[^>]*>(.*?)</p>', block, re.S)]
    raise AssertionError(f"no field {name!r} on the page")


def visible_text(response):
    """What a reader sees: tags stripped, entities decoded, whitespace collapsed."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


# What a player types for each combat model, and what must be stored.
NEW_PCS = {
    "burn_bryte": (
        {
            "s_skill_melee": "8",
            "s_skill_stealth": "12",
            "s_health": "2",
            "s_health_max": "4",
            "s_nova_points": "1",
            "s_nova_box_d6": "on",
            "s_neg_minor": "Stealth",
        },
        {
            "skill_melee": 8,
            "skill_stealth": 12,
            "skill_computers": 4,
            "health": 2,
            "health_max": 4,
            "nova_points": 1,
            "nova_box_d6": True,
            "nova_box_d4": False,
            "neg_minor": "Stealth",
            "speed": 5,
        },
    ),
    "sw5e": (
        {
            "s_initiative_mod": " 3 ",
            "s_station": "pilot",
            "s_bonus_action": "on",
            "s_bonus_action_for": " Second   Wind ",
            "s_hit_points": "12",
            "s_hit_points_max": "20",
        },
        {
            "initiative_mod": 3,
            "station": "pilot",
            "bonus_action": True,
            "bonus_action_for": "Second Wind",
            "hit_points": 12,
            "hit_points_max": 20,
        },
    ),
    "hero": (
        {"s_spd": "4", "s_dex": "18", "s_initiative_dex": "21", "s_stun": "-3", "s_stun_max": "30"},
        {"spd": 4, "dex": 18, "stun": -3, "stun_max": 30, "body": 10, "end_max": 20},
    ),
    "expanse": (
        {
            "s_dexterity": "3",
            "s_armour": "light",
            "s_conditions": " prone,  Injured ,Prone",
            "s_focuses": "Dexterity   (Initiative), Accuracy (Pistols)",
            "s_fortune": "10",
            "s_fortune_max": "18",
        },
        {
            "dexterity": 3,
            "armour": "light",
            "conditions": ["Prone", "Injured"],
            "focuses": ["Dexterity (Initiative)", "Accuracy (Pistols)"],
            "fortune": 10,
            "fortune_max": 18,
            "level": 1,
        },
    ),
}


# --- players make their own PCs --------------------------------------------------------------------------------


@pytest.mark.parametrize("system", sorted(NEW_PCS))
def test_player_creates_a_pc_in_each_combat_model(player_client, campaign, player, system):
    posted, expected = NEW_PCS[system]
    response = player_client.post(create_url(campaign), {"name": "Kara", "system": system, **posted})
    character = Character.objects.get(name="Kara")
    assert response.status_code == 302
    assert response["Location"] == detail_url(character)
    assert character.campaign == campaign
    assert character.owner == player
    assert character.kind == Character.Kind.PC
    assert character.system == system
    assert not character.is_template
    # Stats are stored clean and complete: typed values, normalised tags, every typed stat of the model present;
    # derived stats are worked out, not stored (HERO's posted initiative DEX 21 is no field of a player's form).
    character.refresh_from_db()
    schema = character.model.stats
    assert set(character.stats) == {stat.key for stat in schema.typed}
    for key, value in expected.items():
        assert character.stats[key] == value, key
        assert type(character.stats[key]) is type(value), key
    assert schema.validate(character.stats) == (character.stats, {})
    # The new sheet shows the values the player typed.
    page = visible_text(player_client.get(detail_url(character)))
    assert "Kara" in page
    assert registry.get(system).name in page


def test_player_cannot_make_an_npc_a_template_or_a_pc_for_someone_else(player_client, campaign, player, other_player):
    response = player_client.post(
        create_url(campaign),
        {
            "name": "Sneaky",
            "system": "hero",
            "s_spd": "5",
            "kind": "npc",
            "owner": str(other_player.pk),
            "is_template": "on",
            "quantity": "7",
            "gm_notes": "SECRET-FORGED",
        },
    )
    assert response.status_code == 302
    character = Character.objects.get(name="Sneaky")
    assert character.kind == Character.Kind.PC
    assert character.owner == player
    assert not character.is_template
    assert character.quantity == 1
    assert character.gm_notes == ""
    assert character.stats["spd"] == 5


def test_player_editing_their_pc_keeps_the_gm_notes(player_client, pc, player):
    response = player_client.post(
        edit_url(pc),
        {
            "name": "Luwe the Bold",
            "system": "burn_bryte",
            "s_health": "1",
            "s_health_max": "3",
            "gm_notes": "",
            "owner": "",
            "kind": "npc",
        },
    )
    assert response.status_code == 302
    pc.refresh_from_db()
    assert pc.name == "Luwe the Bold"
    assert pc.stats["health"] == 1
    assert pc.gm_notes == "SECRET-PC-NOTE"
    assert pc.owner == player
    assert pc.kind == Character.Kind.PC


def test_non_member_cannot_make_characters(client, outsider, campaign):
    client.force_login(outsider)
    assert client.get(create_url(campaign)).status_code == 404
    assert client.post(create_url(campaign), {"name": "Gatecrasher", "system": "hero"}).status_code == 404
    assert not Character.objects.filter(name="Gatecrasher").exists()


def test_anonymous_visitor_is_sent_to_log_in(client, campaign):
    response = client.get(create_url(campaign))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_the_sw5e_sheet_suggests_the_action_menu_for_a_bonus_action_and_takes_any_name(player_client, campaign, player):
    """Seed: "Various class or deployment features, powers, and other abilities let you take an additional action
    on your turn called a bonus action": the sheet suggests the menu's actions, and a feature's own name is fine."""
    page = player_client.get(create_url(campaign) + "?system=sw5e").content.decode()
    assert 'list="id_s_bonus_action_for-suggestions"' in page
    assert '<datalist id="id_s_bonus_action_for-suggestions">' in page and '<option value="Evade"></option>' in page
    assert "the feature&#x27;s own, e.g. Second Wind or a force power" in page
    pc = Character.objects.create(
        campaign=campaign,
        name="Tess",
        owner=player,
        system="sw5e",
        stats={"bonus_action": True, "bonus_action_for": "boost_shields"},  # stored by its key, as sheets used to
    )
    page = player_client.get(edit_url(pc)).content.decode()
    assert 'name="s_bonus_action_for" value="Boost Shields"' in page


# --- impossible stats ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "system,posted,field,sentence",
    [
        ("hero", {"s_spd": "13"}, "s_spd", "SPD cannot be above 12."),
        ("hero", {"s_spd": "0"}, "s_spd", "SPD cannot be below 1."),
        (
            "burn_bryte",
            {"s_health": "5", "s_health_max": "3"},
            "s_health",
            "Health Levels cannot be above Maximum Health Levels (3).",
        ),
        ("expanse", {"s_conditions": "Prone, Bored"}, "s_conditions", "'Bored' is not one of the conditions"),
        ("hero", {"s_dex": "abc"}, "s_dex", "DEX must be a whole number."),
        ("hero", {"s_dex": "1.5"}, "s_dex", "DEX must be a whole number."),
        ("burn_bryte", {"s_speed": ""}, "s_speed", "Speed (squares) is required."),
        ("burn_bryte", {"s_skill_melee": "7"}, "s_skill_melee", "Melee must be one of: d4, d6, d8, d10, d12."),
        (
            "sw5e",
            {"s_hit_points": "30", "s_hit_points_max": "20"},
            "s_hit_points",
            "Hit points cannot be above Maximum hit points (20).",
        ),
        (
            "sw5e",
            {"s_bonus_action_for": "Force " * 11},
            "s_bonus_action_for",
            "The action that bonus action allows must be at most 60 characters (it has 65).",
        ),
    ],
)
def test_impossible_stats_are_refused_next_to_the_field(player_client, campaign, system, posted, field, sentence):
    before = Character.objects.count()
    response = player_client.post(create_url(campaign), {"name": "Oops", "system": system, **posted})
    assert response.status_code == 400
    errors = field_errors(response, field)
    assert any(e.startswith(sentence) for e in errors), errors
    assert all(e.endswith(".") for e in errors)
    assert Character.objects.count() == before
    # The form comes back with the chosen model's fields and what the player typed.
    assert f'name="{field}"' in response.content.decode()
    assert 'value="Oops"' in response.content.decode()


def test_several_impossible_stats_each_get_their_sentence(player_client, campaign):
    response = player_client.post(
        create_url(campaign),
        {
            "name": "Oops",
            "system": "hero",
            "s_spd": "13",
            "s_dex": "lots",
            "s_body": "12",
            "s_body_max": "10",
        },
    )
    assert response.status_code == 400
    assert field_errors(response, "s_spd") == ["SPD cannot be above 12."]
    assert field_errors(response, "s_dex") == ["DEX must be a whole number."]
    assert field_errors(response, "s_body") == ["BODY cannot be above Maximum BODY (10)."]
    assert field_errors(response, "s_con") == []
    assert not Character.objects.filter(name="Oops").exists()


def test_editing_to_an_impossible_stat_changes_nothing(player_client, pc):
    response = player_client.post(edit_url(pc), {"name": "Renamed", "system": "burn_bryte", "s_health": "9"})
    assert response.status_code == 400
    assert field_errors(response, "s_health") == ["Health Levels cannot be above Maximum Health Levels (3)."]
    pc.refresh_from_db()
    assert pc.name == "Luwe"
    assert pc.stats == {"health": 3, "health_max": 3}


def test_unknown_combat_model_is_refused_with_a_sentence(player_client, campaign):
    response = player_client.post(create_url(campaign), {"name": "Oops", "system": "dnd5e"})
    assert response.status_code == 400
    assert field_errors(response, "system") == ["Choose one of the four combat models."]
    assert not Character.objects.filter(name="Oops").exists()


# --- whose character is it ---------------------------------------------------------------------------------------


def test_player_cannot_edit_or_delete_another_players_pc(player_client, other_pc):
    assert player_client.get(edit_url(other_pc)).status_code == 404
    response = player_client.post(edit_url(other_pc), {"name": "Hijacked", "system": "burn_bryte"})
    assert response.status_code == 404
    assert player_client.post(delete_url(other_pc)).status_code == 404
    other_pc.refresh_from_db()
    assert other_pc.name == "Furo"


def test_player_can_delete_their_own_pc(player_client, pc, campaign):
    response = player_client.post(delete_url(pc))
    assert response.status_code == 302
    assert not Character.objects.filter(pk=pc.pk).exists()


def test_delete_needs_a_post(player_client, pc):
    assert player_client.get(delete_url(pc)).status_code == 405
    assert Character.objects.filter(pk=pc.pk).exists()


def test_player_sees_only_the_name_of_another_pc(player_client, other_pc):
    other_pc.notes = "Furo-private-backstory"
    other_pc.stats = {"health": 2, "health_max": 7, "skill_skullduggery": 12}
    other_pc.gm_notes = "SECRET-OTHER-NOTE"
    other_pc.save()
    response = player_client.get(detail_url(other_pc))
    assert response.status_code == 200
    page = visible_text(response)
    assert "Furo" in page
    for hidden in ("Furo-private-backstory", "Maximum Health Levels", "Skullduggery", "d12", "SECRET-"):
        assert hidden not in page
    assert reverse("character_edit", args=[other_pc.campaign_id, other_pc.pk]) not in response.content.decode()


def test_player_sees_their_own_full_sheet_but_not_its_gm_notes(player_client, pc):
    response = player_client.get(detail_url(pc))
    page = visible_text(response)
    assert "Maximum Health Levels" in page
    assert "Skullduggery" in page
    assert "SECRET-" not in response.content.decode()
    assert edit_url(pc) in response.content.decode()
    edit_page = player_client.get(edit_url(pc))
    assert edit_page.status_code == 200
    assert "SECRET-" not in edit_page.content.decode()
    assert 'name="gm_notes"' not in edit_page.content.decode()
    assert 'name="owner"' not in edit_page.content.decode()


def test_gm_sees_every_sheet_with_its_gm_notes(gm_client, pc, other_pc, npc):
    for character in (pc, npc):
        page = visible_text(gm_client.get(detail_url(character)))
        assert "Maximum Health Levels" in page
        assert character.gm_notes in page
    page = visible_text(gm_client.get(detail_url(other_pc)))
    assert "Maximum Health Levels" in page
    edit_page = gm_client.get(edit_url(pc))
    assert edit_page.status_code == 200
    assert "SECRET-PC-NOTE" in text_of(edit_page)


def test_gm_edits_a_players_pc_and_its_gm_notes(gm_client, pc, player):
    response = gm_client.post(
        edit_url(pc),
        {
            "name": "Luwe",
            "system": "burn_bryte",
            "kind": "pc",
            "owner": str(player.pk),
            "quantity": "1",
            "gm_notes": "SECRET-PC-NOTE: owes the relay money",
            "s_health": "1",
            "s_health_max": "5",
        },
    )
    assert response.status_code == 302
    pc.refresh_from_db()
    assert pc.gm_notes == "SECRET-PC-NOTE: owes the relay money"
    assert pc.stats["health"] == 1 and pc.stats["health_max"] == 5
    assert pc.owner == player


def test_gm_can_delete_any_character(gm_client, other_pc, npc):
    assert gm_client.post(delete_url(other_pc)).status_code == 302
    assert gm_client.post(delete_url(npc)).status_code == 302
    assert not Character.objects.filter(pk__in=[other_pc.pk, npc.pk]).exists()


def test_players_never_see_gm_notes_anywhere(client, player, other_player, campaign, pc, other_pc, npc):
    other_pc.gm_notes = "SECRET-OTHER-NOTE"
    other_pc.save()
    client.force_login(player)
    pages = [
        reverse("home"),
        campaign.get_absolute_url(),
        create_url(campaign),
        create_url(campaign) + "?system=hero",
        detail_url(pc),
        edit_url(pc),
        detail_url(other_pc),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert "SECRET-" not in response.content.decode(), url
    fragment = client.get(edit_url(pc) + "?system=burn_bryte", headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    assert "SECRET-" not in fragment.content.decode()
    # A failed save re-renders the form: still nothing secret.
    failed = client.post(edit_url(pc), {"name": "Luwe", "system": "burn_bryte", "s_health": "99"})
    assert failed.status_code == 400
    assert "SECRET-" not in failed.content.decode()
    # NPC pages and GM pages are not there at all.
    for url in (detail_url(npc), edit_url(npc), reverse("gm_notes", args=[campaign.pk])):
        response = client.get(url)
        assert response.status_code == 404, url
        assert "SECRET-" not in response.content.decode()


# --- NPCs and templates ----------------------------------------------------------------------------------------


def npc_data(**overrides):
    data = {
        "name": "Nivick",
        "system": "burn_bryte",
        "kind": "npc",
        "owner": "",
        "is_template": "on",
        "quantity": "4",
        "gm_notes": "SECRET-NEW-NPC",
        "s_skill_ranged": "10",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def test_gm_creates_an_npc_template_shown_with_its_quantity(gm_client, campaign):
    response = gm_client.post(create_url(campaign), npc_data())
    assert response.status_code == 302
    nivick = Character.objects.get(name="Nivick")
    assert nivick.kind == Character.Kind.NPC
    assert nivick.owner is None
    assert nivick.is_template
    assert nivick.quantity == 4
    assert nivick.stats["skill_ranged"] == 10
    page = visible_text(gm_client.get(campaign.get_absolute_url()))
    assert "Nivick ×4" in page


def test_a_single_npc_shows_without_a_count(gm_client, campaign):
    gm_client.post(create_url(campaign), npc_data(name="Boss", is_template=None, quantity="1"))
    boss = Character.objects.get(name="Boss")
    assert not boss.is_template
    page = visible_text(gm_client.get(campaign.get_absolute_url()))
    assert "Boss" in page
    assert "Boss ×" not in page


@pytest.mark.parametrize("quantity", ["0", "51"])
def test_template_quantity_outside_1_to_50_is_refused(gm_client, campaign, quantity):
    response = gm_client.post(create_url(campaign), npc_data(quantity=quantity))
    assert response.status_code == 400
    assert field_errors(response, "quantity") == ["Quantity must be between 1 and 50."]
    assert not Character.objects.filter(name="Nivick").exists()


def test_npc_with_a_player_is_refused(gm_client, campaign, player):
    response = gm_client.post(create_url(campaign), npc_data(owner=str(player.pk)))
    assert response.status_code == 400
    assert field_errors(response, "owner") == ["NPCs belong to the GMs; leave the player empty."]
    assert not Character.objects.filter(name="Nivick").exists()


def test_pc_marked_as_template_is_refused(gm_client, campaign, player):
    response = gm_client.post(create_url(campaign), npc_data(kind="pc", owner=str(player.pk), quantity="1"))
    assert response.status_code == 400
    assert field_errors(response, "is_template") == ["Only NPCs can be encounter templates."]
    assert not Character.objects.filter(name="Nivick").exists()


def test_gm_cannot_give_a_pc_to_someone_outside_the_campaign(gm_client, campaign, outsider):
    response = gm_client.post(
        create_url(campaign), npc_data(kind="pc", owner=str(outsider.pk), is_template=None, quantity="1")
    )
    assert response.status_code == 400
    errors = field_errors(response, "owner")
    assert errors and errors[0].endswith(".")
    assert not Character.objects.filter(name="Nivick").exists()


def test_gm_makes_a_pc_for_a_player(gm_client, campaign, player):
    response = gm_client.post(
        create_url(campaign), npc_data(name="Pre-gen", kind="pc", owner=str(player.pk), is_template=None, quantity="1")
    )
    assert response.status_code == 302
    pregen = Character.objects.get(name="Pre-gen")
    assert pregen.owner == player and pregen.kind == Character.Kind.PC


# --- switching the combat model --------------------------------------------------------------------------------


def test_changing_the_model_swaps_in_its_stat_fields(player_client, campaign):
    response = player_client.get(create_url(campaign) + "?system=hero", headers={"HX-Request": "true"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body
    assert 'id="stat-fields"' in body
    assert "SPD" in body
    assert 'name="s_spd"' in body
    assert "Skullduggery" not in body  # the campaign's default model (Burn Bryte) is gone
    assert 'name="name"' not in body  # only the stat fields, not the whole form


@pytest.mark.parametrize(
    "system,present", [("expanse", "s_conditions"), ("sw5e", "s_station"), ("burn_bryte", "s_skill_skullduggery")]
)
def test_each_model_has_its_own_fragment(gm_client, campaign, system, present):
    response = gm_client.get(create_url(campaign) + f"?system={system}", headers={"HX-Request": "true"})
    body = response.content.decode()
    assert f'name="{present}"' in body
    assert "<html" not in body
    assert 'name="s_spd"' not in body


def test_without_htmx_the_whole_form_comes_with_the_chosen_model(player_client, campaign):
    response = player_client.get(create_url(campaign) + "?system=hero")
    body = response.content.decode()
    assert "<html" in body
    assert 'name="s_spd"' in body
    assert re.search(r'<option value="hero" selected>', body)


def test_unknown_model_in_the_url_falls_back_to_the_campaign_default(player_client, campaign):
    response = player_client.get(create_url(campaign) + "?system=nonsense", headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert 'name="s_skill_melee"' in response.content.decode()


# --- lists on the campaign page --------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["player", "gm"])
def test_campaign_page_shows_the_pc_summary(client, campaign, pc, request, who):
    pc.stats = {"health": 2, "health_max": 3, "nova_points": 1, "speed": 6}
    pc.save()
    client.force_login(request.getfixturevalue(who))
    page = visible_text(client.get(campaign.get_absolute_url()))
    summary = "Health Levels 2 · Maximum Health Levels 3 · Nova points 1 · Speed (squares) 6"
    assert re.search(r"Luwe Burn Bryte( · played by ana)? " + re.escape(summary), page), page


def test_gm_list_shows_every_pc_and_who_plays_it(gm_client, campaign, pc, other_pc):
    page = visible_text(gm_client.get(campaign.get_absolute_url()))
    assert "Luwe" in page and "played by ana" in page
    assert "Furo" in page and "played by ben" in page


def test_player_sees_the_party_by_name(player_client, campaign, pc, other_pc):
    page = visible_text(player_client.get(campaign.get_absolute_url()))
    assert "Luwe" in page
    assert "Furo" in page
    assert detail_url(other_pc) in player_client.get(campaign.get_absolute_url()).content.decode()


def test_players_cannot_see_npcs(player_client, campaign, npc):
    response = player_client.get(campaign.get_absolute_url())
    assert response.status_code == 200
    assert "Nivick" not in response.content.decode()
    assert player_client.get(detail_url(npc)).status_code == 404
    assert player_client.get(edit_url(npc)).status_code == 404
    assert player_client.post(delete_url(npc)).status_code == 404
    assert Character.objects.filter(pk=npc.pk).exists()


def test_characters_of_another_campaign_are_not_reachable(player_client, campaign, gm, pc):
    elsewhere = services.create_campaign(gm, name="Elsewhere", combat_model="hero", description="")
    stranger = Character.objects.create(campaign=elsewhere, name="Stranger", system="hero")
    # Through this campaign's URL, or through the other campaign's: both unknown to the player.
    assert player_client.get(reverse("character", args=[campaign.pk, stranger.pk])).status_code == 404
    assert player_client.get(detail_url(stranger)).status_code == 404
