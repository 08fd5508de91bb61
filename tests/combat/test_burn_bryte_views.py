"""Burn Bryte's view models: a player's table and sheet are built from types that have no GM-only field, so in no
state of a fight do they carry one; the GM's table carries the GM's facts (exact health, the unseen sniper)."""

from types import SimpleNamespace

import pytest

from campaigns.models import Campaign
from combat.tables import burn_bryte as table
from combat.tables.viewmodels import gm_only_paths
from tests.combat.typed_views import gm_only_fields, stored_states

STATES = dict(stored_states("burn_bryte"))
SNIPER_DECLARED = STATES["burn_bryte-raid@7"]  # the hidden sniper has declared a long rifle shot at Luwe
LUWE_FAILED = STATES["burn_bryte-raid@16"]  # Luwe's Stealth roll came up doubles: the GM decides what follows


def encounter(visibility: str = Campaign.EnemyHealth.DESCRIPTOR) -> SimpleNamespace:
    """All the table reads of an encounter: how much of an enemy's health the campaign shows players."""
    return SimpleNamespace(campaign=SimpleNamespace(enemy_health_visibility=visibility))


def test_the_players_types_have_no_gm_only_field_and_the_gms_table_adds_them():
    assert gm_only_fields(table.PlayersTable) == []
    assert gm_only_fields(table.BurnBrytePrivate) == []
    assert {
        "GmTable.enemies > GmEnemyRow.health",
        "GmTable.enemies > GmEnemyRow.unseen",
        "GmTable.declarations",
        "GmTable.collapse",
        "GmTable.undeclared",
    } <= set(gm_only_fields(table.GmTable))


@pytest.mark.parametrize("visibility", Campaign.EnemyHealth.values)
def test_in_every_state_of_the_stored_fights_no_player_view_carries_a_gm_only_field(visibility):
    for step, state in STATES.items():
        players = table.public_view(encounter(visibility), state, gm=False)
        assert type(players) is table.PlayersTable, step
        assert list(gm_only_paths(players)) == [], step
        for owner in {f.owner for f in state.pcs()}:
            assert list(gm_only_paths(table.private_view(encounter(visibility), state, owner))) == [], step
        assert "view.collapse" in gm_only_paths(table.public_view(encounter(visibility), state, gm=True)), step


def test_an_unseen_enemy_and_its_declaration_are_on_the_gms_table_only():
    players = table.public_view(encounter(), SNIPER_DECLARED, gm=False)
    gm = table.public_view(encounter(), SNIPER_DECLARED, gm=True)
    assert [e.key for e in players.enemies] == ["boss", "captain", "grunt"]
    assert [e.health for e in players.enemies] == ["unhurt", "unhurt", "unhurt"]
    assert "long rifle" not in [d.text for d in players.declarations]
    sniper = gm.enemies[-1]
    assert (sniper.name, sniper.health, sniper.unseen) == ("Hidden sniper", "2/2 HL", True)
    assert "long rifle" in [d.text for d in gm.declarations]
    assert "view.enemies[3].unseen" in gm_only_paths(gm)
    luwe = table.private_view(encounter(), SNIPER_DECLARED, user_id=1)
    assert not any("Hidden sniper" in d.label for d in luwe.defendable)  # no defending against a shot not seen


def test_a_failed_roll_is_on_the_rollers_sheet_and_the_collapse_pool_on_the_gms_table_only():
    luwe = table.private_view(encounter(), LUWE_FAILED, user_id=1)
    assert luwe.your_turn and luwe.mine[0].pending_failure and luwe.mine[0].last_roll.faces == (6, 5, 5, 3)
    assert list(gm_only_paths(luwe)) == []
    assert table.private_view(encounter(), LUWE_FAILED, user_id=2).mine[0].last_roll is None
    players = table.public_view(encounter(), LUWE_FAILED, gm=False)
    assert not hasattr(players, "collapse")
    assert [e.health for e in players.enemies] == ["hurt", "down", "unhurt"]
    assert table.public_view(encounter(), LUWE_FAILED, gm=True).collapse == LUWE_FAILED.collapse
