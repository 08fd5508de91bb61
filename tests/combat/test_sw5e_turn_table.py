"""Issue 18's SW5e turn rules at the table: from the players' phones and the GM's screen, through the service.

Seed: ../shared/seeds/001_a9fbea53989230b2.txt; notes: ../shared/rules/sw5e-starships.md."""

from __future__ import annotations

from combat import store
from combat.rules import sw5e as sw
from tests.combat.helpers import state_of
from tests.combat.test_sw5e_table import (  # noqa: F401 (fixtures)
    enc,
    gm_html,
    go,
    key,
    lantern,
    notice,
    ok,
    oru,
    player_html,
    post,
    sid,
    talon,
    tess,
    to_combat,
    to_lantern_turn,
    vrask,
)


def test_the_gm_allows_an_action_that_may_repeat_and_two_crew_take_it(
    client, enc, gm, player, other_player, tess, oru, vrask, talon
):
    """Seed: "two different crewmembers could both cast the same force power or make an ability check with the
    Medicine skill"."""
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    client.force_login(gm)
    assert 'name="repeat"' in gm_html(enc)  # the GM's form says whether it may repeat
    assert notice(post(client, enc, "allow_action", action="Medicine check", repeat="on")) == ""
    assert "Medicine check (may repeat)" in gm_html(enc)
    to_lantern_turn(enc, gm, vrask, talon)
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, player, "start_crew_turn", actor=key(tess))
    ok(enc, player, "take_action", actor=key(tess), action="Medicine check")
    ok(enc, player, "end_crew_turn", actor=key(tess))
    ok(enc, other_player, "start_crew_turn", actor=key(oru))
    assert '<option value="Medicine check">Medicine check (may repeat)</option>' in player_html(enc, other_player)
    ok(enc, other_player, "take_action", actor=key(oru), action="Medicine check")


def test_regenerate_shields_from_the_phone_rolls_a_shield_die(
    client, enc, gm, player, other_player, tess, oru, vrask, talon
):
    """Notes: "Regenerate Shields (spend a shield die)", once per ship turn. The Lantern is Medium: d8."""
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    to_lantern_turn(enc, gm, vrask, talon)
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, player, "start_crew_turn", actor=key(tess))
    option = '<option value="regenerate_shields">Regenerate Shields (once per ship turn)</option>'
    assert option in player_html(enc, player) and option in gm_html(enc)
    ok(enc, player, "take_action", dice=[5], actor=key(tess), action="regenerate_shields")
    lantern_now = state_of(enc).ship(next(s.id for s in state_of(enc).ships if s.name == "Lantern"))
    assert (lantern_now.shields, lantern_now.shield_dice) == (25, 5)
    ok(enc, player, "end_crew_turn", actor=key(tess))
    ok(enc, other_player, "start_crew_turn", actor=key(oru))
    assert 'value="regenerate_shields"' not in player_html(enc, other_player)
    result = go(enc, other_player, "take_action", actor=key(oru), action="regenerate_shields")
    assert result.error == "Regenerate Shields has already been used on Lantern this ship turn."


def test_the_phone_names_the_action_a_bonus_action_allows(
    client, enc, gm, player, other_player, tess, oru, vrask, talon
):
    """Seed: "You can only take a bonus action if some feature gives you one": Tess's feature is for Evade."""
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    to_lantern_turn(enc, gm, vrask, talon)
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, player, "start_crew_turn", actor=key(tess))
    html = player_html(enc, player)
    assert "Bonus action (Evade): ready" in html and "Evade (bonus action)</button>" in html
    result = go(enc, player, "take_action", actor=key(tess), action="detect", slot="bonus")
    assert result.error == "Tess's bonus action is for Evade only."
    ok(enc, player, "take_action", actor=key(tess), action="evade", slot="bonus")


def test_the_gm_clears_one_crew_member_of_their_ships_surprise(client, enc, gm, player, tess, oru, vrask, talon):
    """Seed: "A member of a group can be surprised even if the other members aren't"."""
    client.force_login(gm)
    assert notice(post(client, enc, "set_surprise", target=sid(talon), surprised="on")) == ""
    assert state_of(enc).surprised_now(state_of(enc).fighter(key(vrask)))
    assert 'aria-label="Not surprised: Vrask"' in gm_html(enc)  # the ship's surprise shows on him
    assert notice(post(client, enc, "set_surprise", target=key(vrask), surprised="off")) == ""
    assert not state_of(enc).surprised_now(state_of(enc).fighter(key(vrask)))
    cleared = store.load_log(enc)[-1].event
    assert sw.describe(state_of(enc), cleared, gm=True) == "Vrask is not surprised."


def test_a_helm_handed_over_mid_round_takes_no_helm_action_that_round(
    client, enc, gm, player, other_player, tess, oru, vrask, talon
):
    """Seed: "In a larger craft, however, only one player can take helm actions"."""
    to_combat(enc, gm, player, other_player, tess, oru, talon)
    to_lantern_turn(enc, gm, vrask, talon)
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, player, "start_crew_turn", actor=key(tess))
    ok(enc, player, "take_action", actor=key(tess), action="evade")
    ok(enc, player, "end_crew_turn", actor=key(tess))
    lantern_id = state_of(enc).fighter(key(oru)).ship
    ok(enc, gm, "assign_crew", fighter=key(oru), ship=lantern_id, station="pilot")
    ok(enc, other_player, "start_crew_turn", actor=key(oru))
    assert 'value="fly"' not in player_html(enc, other_player)
    result = go(enc, other_player, "take_action", actor=key(oru), action="fly")
    assert result.error == (
        "Only one crew member can take helm actions aboard Lantern in a round: Tess already has this round."
    )


def test_the_gm_has_the_server_work_out_surprise_from_the_set_up(client, enc, gm, player, tess, oru, vrask, talon):
    """Seed: "the GM compares the Dexterity (Stealth) checks of anyone hiding with the passive Wisdom (Perception)
    score of each creature on the opposing side". Sheets default to Stealth +0 and passive Perception 10."""
    client.force_login(gm)
    html = gm_html(enc)
    assert 'name="hiders"' in html and "Roll Stealth against passive Perception" in html
    ok(enc, gm, "work_out_surprise", dice=[15], hiders=[sid(talon)])  # Vrask 15 beats both passive 10s
    state = state_of(enc)
    assert state.ship(state.fighter(key(tess)).ship).surprised
    assert state.surprised_now(state.fighter(key(tess))) and state.surprised_now(state.fighter(key(oru)))
    client.force_login(player)
    assert notice(post(client, enc, "work_out_surprise", hiders=sid(talon))) == "Only the GM can do that."
