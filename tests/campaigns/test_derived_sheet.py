"""Derived stats on the character sheet: shown with how they are worked out, overridden by the GM only, and the
override used by the fight. Also the data migration that turned typed values into overrides."""

import importlib

import pytest
from django.apps import apps
from django.test import Client

from campaigns.models import Character
from combat import services
from combat.rules.stats import OVERRIDES
from tests.campaigns.test_characters import detail_url, edit_url, field_errors, visible_text
from tests.combat.helpers import combatant_key, state_of

pytestmark = pytest.mark.django_db

migration = importlib.import_module("campaigns.migrations.0005_derived_stats_become_overrides")


@pytest.fixture
def kara(campaign, player):
    """The Expanse PC: Dexterity 3 in light armour, Constitution -2."""
    return Character.objects.create(
        campaign=campaign,
        name="Kara",
        owner=player,
        system="expanse",
        stats={"dexterity": 3, "armour": "light", "constitution": -2, "accuracy": 2},
    )


@pytest.fixture
def gm_browser(gm):
    client = Client()
    client.force_login(gm)
    return client


@pytest.fixture
def player_browser(player):
    client = Client()
    client.force_login(player)
    return client


def gm_edit(character, player, **stats):
    """What the GM's edit form posts for a player's Expanse PC, with `stats` (s_… and o_… fields)."""
    return {
        "name": character.name,
        "system": "expanse",
        "kind": "pc",
        "owner": str(player.pk),
        "quantity": "1",
        "s_dexterity": "3",
        "s_armour": "light",
        "s_constitution": "-2",
        "s_accuracy": "2",
        **stats,
    }


def test_the_sheet_shows_each_derived_value_with_how_it_is_worked_out(player_browser, kara):
    """Notes: "Defense = 10 + Dexterity"; seed: armour "decreases your Dexterity", and "Toughness is equal to your
    Constitution Score (minimum 0, cannot be negative)"."""
    page = visible_text(player_browser.get(detail_url(kara)))
    assert "Defense 12 = 10 + Dexterity 3 − 1 (Light armour)" in page
    assert "Toughness 0 = Constitution -2, but never below 0" in page
    form = visible_text(player_browser.get(edit_url(kara)))
    assert "Defense 12 = 10 + Dexterity 3 − 1 (Light armour) (worked out from the sheet as saved)." in form


def test_the_gm_overrides_defense_the_sheet_says_so_and_the_fight_uses_it(gm_browser, player_browser, kara, player, gm):
    response = gm_browser.post(edit_url(kara), gm_edit(kara, player, o_defense="15", o_toughness=""))
    assert response.status_code == 302
    kara.refresh_from_db()
    assert kara.stats[OVERRIDES] == {"defense": 15}
    page = visible_text(player_browser.get(detail_url(kara)))
    assert "Defense 15 — set by the GM; derived would be 12" in page
    assert "Toughness 0 = Constitution -2" in page
    assert "set by the GM" in visible_text(gm_browser.get(edit_url(kara)))

    thug = Character.objects.create(campaign=kara.campaign, name="Thug", kind="npc", system="expanse")
    encounter = services.create_encounter(
        kara.campaign, gm, name="Dock", model="expanse", pcs=[kara], enemies=[(thug, 1)]
    )
    services.start_encounter(encounter, gm)
    fighter = state_of(encounter).fighter(combatant_key(kara))
    assert (fighter.defense, fighter.toughness) == (15, 0)

    response = gm_browser.post(edit_url(kara), gm_edit(kara, player, o_defense=" "))
    assert response.status_code == 302
    kara.refresh_from_db()
    assert OVERRIDES not in kara.stats
    assert "Defense 12 = 10 + Dexterity 3 − 1 (Light armour)" in visible_text(player_browser.get(detail_url(kara)))


def test_a_player_has_no_override_box_and_a_forged_one_changes_nothing(player_browser, kara):
    kara.stats = {**kara.stats, OVERRIDES: {"defense": 15}}
    kara.save()
    form = player_browser.get(edit_url(kara)).content.decode()
    assert 'name="o_defense"' not in form and 'name="s_defense"' not in form
    assert "Defense 15 — set by the GM; derived would be 12" in visible_text(player_browser.get(edit_url(kara)))
    forged = {"name": "Kara", "system": "expanse", "s_dexterity": "4", "s_armour": "light", "s_constitution": "-2"}
    forged |= {"o_defense": "30", "o_toughness": "9", "s_defense": "30", "overrides": "{}"}
    response = player_browser.post(edit_url(kara), forged)
    assert response.status_code == 302
    kara.refresh_from_db()
    assert kara.stats["dexterity"] == 4  # the player's own edit is saved...
    assert kara.stats[OVERRIDES] == {"defense": 15}  # ...and the GM's override stays, untouched
    assert "defense" not in kara.stats and "toughness" not in kara.stats


def test_a_bad_override_gets_a_sentence_next_to_its_box_and_changes_nothing(gm_browser, kara, player):
    response = gm_browser.post(edit_url(kara), gm_edit(kara, player, o_defense="41", s_dexterity="5"))
    assert response.status_code == 400
    assert field_errors(response, "o_defense") == ["Defense cannot be above 40."]
    kara.refresh_from_db()
    assert kara.stats == {"dexterity": 3, "armour": "light", "constitution": -2, "accuracy": 2}


def test_a_hero_sheet_shows_initiative_dex_from_dex(gm_browser, campaign, player):
    """Seed: "the one with the highest DEX acts first"."""
    hero = Character.objects.create(campaign=campaign, name="Kid", owner=player, system="hero", stats={"dex": 23})
    assert "DEX for initiative 23 = DEX 23" in visible_text(gm_browser.get(detail_url(hero)))


# --- the data migration ---------------------------------------------------------------------------------------------


def test_stored_typed_values_become_overrides_only_where_someone_chose_them(campaign):
    sheets = {
        "stock": ("expanse", {"dexterity": 3, "constitution": 2, "defense": 11, "toughness": 1}),
        "formula": ("expanse", {"dexterity": 3, "armour": "light", "constitution": -1, "defense": 13, "toughness": 0}),
        "chosen": ("expanse", {"dexterity": 3, "defense": 16, "toughness": 5}),
        "hero_stock": ("hero", {"dex": 23, "initiative_dex": 10}),
        "hero_raised": ("hero", {"dex": 18, "initiative_dex": 21}),
        "other": ("burn_bryte", {"health": 3, "defense": 11}),
    }
    made = {
        name: Character.objects.create(campaign=campaign, name=name, kind="npc", system=system, stats=stats)
        for name, (system, stats) in sheets.items()
    }
    migration.typed_to_overrides(apps, None)
    after = {name: Character.objects.get(pk=c.pk).stats for name, c in made.items()}
    assert after["stock"] == {"dexterity": 3, "constitution": 2}
    assert after["formula"] == {"dexterity": 3, "armour": "light", "constitution": -1}
    assert after["chosen"] == {"dexterity": 3, OVERRIDES: {"defense": 16, "toughness": 5}}
    assert after["hero_stock"] == {"dex": 23}
    assert after["hero_raised"] == {"dex": 18, OVERRIDES: {"initiative_dex": 21}}
    assert after["other"] == {"health": 3, "defense": 11}
    assert Character.objects.get(pk=made["hero_stock"].pk).derived_stats()[0].value == 23

    migration.overrides_to_typed(apps, None)
    back = {name: Character.objects.get(pk=c.pk).stats for name, c in made.items()}
    assert back["chosen"] == {"dexterity": 3, "defense": 16, "toughness": 5}
    assert back["hero_stock"] == {"dex": 23, "initiative_dex": 23}
    assert back["formula"]["defense"] == 12


def test_the_sheet_shows_toughness_speed_and_dexterity_as_the_fight_uses_them(campaign, player, player_browser):
    """Seed: "Toughness is equal to your Constitution Score ... It is modified by your armour, which decreases your
    Dexterity and Speed" (Medium Body Armour +4 / -2). Constitution 3 in medium armour fights at Toughness 7."""
    naomi = Character.objects.create(
        campaign=campaign,
        name="Naomi",
        owner=player,
        system="expanse",
        stats={"constitution": 3, "dexterity": 3, "speed": 11, "armour": "medium"},
    )
    page = visible_text(player_browser.get(detail_url(naomi)))
    assert "Toughness 3 = Constitution 3 (7 in a fight, with Medium armour +4)" in page
    assert "Dexterity 3 (1 in Dexterity tests, after Medium armour − 2)" in page
    assert "Speed (m) 11 (9 in a fight, after Medium armour − 2)" in page
    assert "Defense 11 = 10 + Dexterity 3 − 2 (Medium armour) (13 in an encounter whose GM turned the armour " in page


def test_a_sheet_without_armour_shows_no_fight_notes(player_browser, campaign, player):
    plain = Character.objects.create(
        campaign=campaign, name="Amos", owner=player, system="expanse", stats={"constitution": 4}
    )
    page = visible_text(player_browser.get(detail_url(plain)))
    assert "Toughness 4 = Constitution 4" in page and "in a fight" not in page
