"""SW5e system damage and destruction saves on the ship's record (issue 18): shown and edited by the GM on the ship
page, and a stable ship left to itself regains 1 hull point after 1d4 hours, rolled by the server.

Passages quoted as "SotG" are facts of the public SW5e "Starships of the Galaxy" text (appendix A, System Damage;
chapter 9, Stabilizing a Ship), in our words."""

import pytest
from django.urls import reverse

from combat.rules.dice import ScriptedDice
from ships import views
from ships.models import Ship
from tests.ships.test_ships import all_errors, make_ship, ship_data, visible_text

pytestmark = pytest.mark.django_db


def recover_url(ship):
    return reverse("ship_recover", args=[ship.campaign_id, ship.pk])


def test_the_ship_page_shows_system_damage_its_effects_and_the_tally_at_0_hull(gm_client, campaign):
    """SotG: "A ship suffers the effect of its current level of system damage as well as all lower levels"."""
    ship = make_ship(campaign, hull=0, system_damage=2, saves_made=1, saves_failed=2)
    page = visible_text(gm_client.get(ship.get_absolute_url()))
    assert "System damage level 2: disadvantage on ability checks; 1 slowed level" in page
    assert "Destruction saves 1 of 3 successes, 2 failures" in page
    make_ship(campaign, name="Used", hull=5, system_damage=0, used=True)
    page = visible_text(gm_client.get(Ship.objects.get(name="Used").get_absolute_url()))
    assert "System damage none · used (level 5 reached" in page and "Destruction saves" not in page


def test_the_gm_edits_system_damage_and_the_tally_on_the_ship_form(gm_client, campaign):
    """SotG: "Finishing maintenance reduces a ship's system damage level by 1": the GM lowers it by hand."""
    ship = make_ship(campaign, system_damage=3)
    edit = reverse("ship_edit", args=[campaign.pk, ship.pk])
    response = gm_client.post(edit, ship_data(system_damage="2"))
    assert response.status_code == 302
    ship.refresh_from_db()
    assert ship.system_damage == 2
    response = gm_client.post(edit, ship_data(system_damage="6", saves_failed="3"))
    assert response.status_code == 400
    assert "System damage goes from 0 to 5 (level 6 destroys the ship)." in all_errors(response)
    assert "Failed destruction saves go from 0 to 2 (the third ends the count)." in all_errors(response)
    response = gm_client.post(edit, ship_data(hull="5", stable="on"))
    assert "Destruction saves and stable are for a ship at 0 hull points." in all_errors(response)
    ship.refresh_from_db()
    assert (ship.system_damage, ship.stable) == (2, False)


def test_a_form_without_the_new_fields_keeps_the_ships_system_damage(gm_client, campaign):
    ship = make_ship(campaign, system_damage=4)
    response = gm_client.post(reverse("ship_edit", args=[campaign.pk, ship.pk]), ship_data(hull="12"))
    assert response.status_code == 302
    ship.refresh_from_db()
    assert (ship.hull, ship.system_damage) == (12, 4)


def test_a_stable_ship_regains_1_hull_point_after_1d4_hours_rolled_by_the_server(gm_client, campaign, monkeypatch):
    """SotG: "A stable ship that isn't repaired regains 1 hit point after 1d4 hours"."""
    monkeypatch.setattr(views, "Dice", lambda: ScriptedDice([3]))
    ship = make_ship(campaign, hull=0, stable=True, saves_made=0, system_damage=1)
    page = gm_client.get(ship.get_absolute_url()).content.decode()
    assert "Time passes: regains 1 hull point (roll 1d4 hours)" in page
    response = gm_client.post(recover_url(ship), follow=True)
    ship.refresh_from_db()
    assert (ship.hull, ship.stable, ship.recovered_after, ship.system_damage) == (1, False, 3, 1)
    page = visible_text(response)
    assert "Lantern regains 1 hull point after 3 hours." in page
    assert "Back at 1 hull point after 3 hours (1d4, rolled by the server) while stable." in page
    assert "Time passes" not in page


def test_a_ship_that_is_not_stable_does_not_recover_by_itself(gm_client, campaign, monkeypatch):
    monkeypatch.setattr(views, "Dice", lambda: ScriptedDice([2]))
    ship = make_ship(campaign, hull=0, stable=False, saves_failed=1)
    assert "Time passes" not in gm_client.get(ship.get_absolute_url()).content.decode()
    response = gm_client.post(recover_url(ship), follow=True)
    assert "Lantern is not stable: it must be stabilised (or repaired) first." in visible_text(response)
    ship.refresh_from_db()
    assert (ship.hull, ship.saves_failed, ship.recovered_after) == (0, 1, None)


def test_players_cannot_let_time_pass_for_a_ship(player_client, campaign):
    ship = make_ship(campaign, hull=0, stable=True)
    assert "Time passes" not in player_client.get(ship.get_absolute_url()).content.decode()
    assert player_client.post(recover_url(ship)).status_code == 404
    ship.refresh_from_db()
    assert ship.hull == 0 and ship.stable
