"""SW5e ships at 0 hull points at the table (issue 18): the players' phones and the GM's screen, through the service.

Rules notes (../shared/rules/sw5e-starships.md): "At 0 hull points: ... disabled with system damage and destruction
saves (d20 ≥ 10; three successes stabilise)." The save is rolled by the server as the disabled ship's turn starts:
no button, the ship's row says so."""

from __future__ import annotations

from tests.combat.helpers import state_of
from tests.combat.test_sw5e_table import (  # noqa: F401 (fixtures)
    build,
    enc,
    gm_html,
    key,
    lantern,
    ok,
    oru,
    player_html,
    post,
    shows_numbers,
    sid,
    talon,
    tess,
    to_combat,
    vrask,
)
from tests.combat.test_sw5e_table import notice as notice_of

AUTOMATIC = "Its destruction save (d20, 10 or more) is rolled automatically as its turn starts"


def test_a_disabled_ships_crew_see_the_save_the_tally_and_only_the_actions_left_to_them(
    client, enc, gm, player, other_player, tess, oru, vrask, lantern, talon
):
    """SotG: "A disabled ship can't take actions or reactions"; "A crewmember can use their action to attempt
    repairs on a disabled ship and attempt to stabilize it" (setting disabled_crew: Patch, Direct, stabilise)."""
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    ok(enc, gm, "damage", ship=sid(lantern), amount=60)
    html = player_html(enc, player)
    assert AUTOMATIC in html and "its crew may repair it" in html
    assert "System damage level 1</strong>: disadvantage on ability checks." in html
    assert "Destruction saves: <strong>0</strong> of 3 successes, <strong>0</strong> failures." in html
    ok(enc, gm, "distribute_power", central=1)
    ok(enc, gm, "start_crew_turn", actor=key(vrask))
    ok(enc, gm, "end_crew_turn", actor=key(vrask))
    ok(enc, gm, "end_ship_turn", dice=[4])  # the Lantern's save: a failure
    lantern_now = state_of(enc).ship(sid(lantern))
    assert (lantern_now.saves_failed, lantern_now.system_damage) == (1, 2)
    html = player_html(enc, player)
    assert "<strong>1</strong> failure." in html and "System damage level 2</strong>" in html
    assert "Take my turn" in html  # the crew of a disabled ship still take their turns
    assert "Lantern is disabled: no power or shield regeneration; its crew may only try to repair it." in gm_html(enc)
    ok(enc, player, "start_crew_turn", actor=key(tess))
    html = player_html(enc, player)
    assert '<option value="patch"' in html and '<option value="direct"' in html
    assert "Reaction: none while disabled" in html and "Bonus action (Evade): not while disabled" in html
    for gone in (
        'value="fire"',
        'value="evade"',
        "quick-fire",
        "Spend power dice",
        'value="regenerate_shields"',
        "Regenerate shields",
        "Weapon (for Fire)",
    ):
        assert gone not in html, gone
    assert "Try to stabilise Lantern (DC 10; the server rolls)" in html
    assert "Try to stabilise Lantern" in gm_html(enc)  # the GM's panel for whoever is acting
    client.force_login(player)
    assert notice_of(post(client, enc, "take_action", actor=key(tess), action="fire", weapon="ion cannon")) == (
        "Lantern is disabled: its crew can only Patch or Direct, or try to stabilise it."
    )
    ok(enc, player, "stabilise", dice=[8], actor=key(tess), modifier=3)  # 11 against DC 10
    html = player_html(enc, player)
    assert "<strong>Stable</strong>: no destruction saves unless it takes damage." in html
    assert "Stable: no destruction saves unless it takes damage." in html  # the row's note
    assert "Try to stabilise" not in html
    assert "Tess tries to stabilise Lantern (d20 shows 8 + 3 = 11 against DC 10): it is stable." in html


def test_players_see_an_npc_ship_is_disabled_but_not_its_tally_or_system_damage(
    client, enc, gm, player, other_player, tess, oru, vrask, lantern, talon
):
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    ok(enc, gm, "damage", ship=sid(talon), amount=321 + 777)  # shields, then hull to 0: disabled
    players, gm_page = player_html(enc, player), gm_html(enc)
    assert AUTOMATIC in players and "disabled" in players
    assert "System damage level" not in players and "Destruction saves" not in players
    assert not shows_numbers(players)
    assert "System damage level 1</strong>" in gm_page and "Destruction saves" in gm_page


def test_under_the_nothing_setting_the_crew_are_told_they_cannot_act(
    client, gm, campaign, player, other_player, tess, oru, vrask, lantern, talon
):
    """Setting disabled_crew "nothing": the ship's turn is only its destruction save."""
    client.force_login(gm)
    enc = build(client, campaign, [tess, oru], {lantern: "ready", talon: "ready"}, setting_disabled_crew="nothing")
    client.logout()
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    ok(enc, gm, "damage", ship=sid(lantern), amount=60)
    html = player_html(enc, player)
    assert "its crew cannot act" in html and "Lantern is disabled: its crew cannot act." in html
    assert "Take my turn" not in html
