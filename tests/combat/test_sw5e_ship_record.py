"""SW5e system damage between fights (issue 18): written back to the ship's record when the encounter ends, read
back when the ship joins the next one, and level 4's halved maxima on the table.

Passages quoted as "SotG" are facts of the public SW5e "Starships of the Galaxy" text (appendix A, System Damage),
in our words. Our rules notes leave open whether system damage lasts past the fight: setting system_damage_after."""

from __future__ import annotations

from combat.models import Encounter
from ships.models import Ship
from tests.combat.helpers import state_of
from tests.combat.test_sw5e_table import (  # noqa: F401 (fixtures)
    build,
    enc,
    gm_html,
    lantern,
    ok,
    oru,
    player_html,
    setting_fields,
    sid,
    talon,
    tess,
    to_combat,
    vrask,
)


def lantern_down_and_ended(enc, gm, player, other_player, tess, oru, talon, lantern):
    """60 damage: the Lantern's 20 shields and 40 hull, so it is disabled at 0 hull points with system damage 1;
    the GM ends the encounter."""
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    ok(enc, gm, "damage", ship=sid(lantern), amount=60)
    ok(enc, gm, "end_encounter")
    lantern.refresh_from_db()


def test_system_damage_and_the_tally_go_back_to_the_ship_and_come_into_the_next_fight(
    client, gm_client, enc, gm, player, other_player, campaign, tess, oru, vrask, lantern, talon
):
    """SotG: system damage lasts until "Finishing maintenance reduces a ship's system damage level by 1" (setting
    system_damage_after, default kept)."""
    lantern_down_and_ended(enc, gm, player, other_player, tess, oru, talon, lantern)
    assert (lantern.hull, lantern.system_damage, lantern.saves_made, lantern.stable) == (0, 1, 0, False)
    Ship.objects.filter(pk=lantern.pk).update(saves_made=2, saves_failed=1)
    gm_client.force_login(gm)  # the enc fixture logged the shared client out
    again = build(gm_client, campaign, [tess, oru], {lantern: "ready", talon: "ready"})
    ship = state_of(again).ship(sid(lantern))
    assert (ship.status, ship.system_damage, ship.saves_made, ship.saves_failed) == ("disabled", 1, 2, 1)


def test_under_the_cleared_setting_system_damage_is_repaired_when_the_fight_ends(
    client, gm_client, gm, player, other_player, campaign, tess, oru, vrask, lantern, talon
):
    fight = build(
        gm_client,
        campaign,
        [tess, oru],
        {lantern: "ready", talon: "ready"},
        **setting_fields(system_damage_after="cleared"),
    )
    assert Encounter.objects.get(pk=fight.pk).settings["system_damage_after"] == "cleared"
    lantern_down_and_ended(fight, gm, player, other_player, tess, oru, talon, lantern)
    assert (lantern.hull, lantern.system_damage) == (0, 0)


def test_a_ship_at_level_4_shows_its_halved_maxima_to_the_gm_and_its_crew(
    client, gm_client, gm, player, other_player, campaign, tess, oru, vrask, lantern, talon
):
    """SotG system damage level 4: "Hit point maximum, shield point maximum, and shield regeneration rate
    halved" — the record keeps 45 and 30; the table reads 22 and 15."""
    Ship.objects.filter(pk=lantern.pk).update(system_damage=4, hull=20, shields=10)
    fight = build(gm_client, campaign, [tess, oru], {lantern: "ready", talon: "ready"})
    for html in (gm_html(fight), player_html(fight, player)):
        assert '20/22 <small class="halved">(max 22, halved from 45 at system damage 4)</small>' in html
        assert '10/15 <small class="halved">(max 15, halved from 30 at system damage 4)</small>' in html
        assert "a shield die restores 4)" in html  # a d8 directional shield die: 8, halved
    lantern.refresh_from_db()
    assert (lantern.hull_max, lantern.shields_max) == (45, 30)


def test_a_used_ship_says_so_on_the_table_after_its_system_damage_is_repaired(
    client, gm_client, gm, player, other_player, campaign, tess, oru, vrask, lantern, talon
):
    """SotG: effects end below level 1 "except for 'used'"."""
    Ship.objects.filter(pk=lantern.pk).update(used=True, system_damage=0)
    fight = build(gm_client, campaign, [tess, oru], {lantern: "ready", talon: "ready"})
    assert state_of(fight).ship(sid(lantern)).used
    sentence = "<strong>Used</strong> (system damage level 5 in an earlier fight): a 1 on a crew member's roll"
    assert sentence in gm_html(fight) and sentence in player_html(fight, player)
