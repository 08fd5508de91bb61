"""SW5e's typed views: a player's table and phone cannot carry a GM-only fact, for every state the stored logs
pass through (set-up, surprise, hidden NPC ship initiative rolls, power, damage, undo), and the GM's view does
carry the GM's facts, marked."""

from __future__ import annotations

import pytest

from combat.tables import sw5e as table
from combat.tables.sw5e_views import GmTableView, MeView, SecretShipRow, ShipRow, TableView
from combat.tables.viewmodels import gm_only_paths
from tests.combat.typed_views import final_state, gm_only_fields, stored_states

STATES = list(stored_states("sw5e"))


@pytest.mark.parametrize("state", [s for _, s in STATES], ids=[label for label, _ in STATES])
def test_no_players_view_of_a_stored_state_carries_a_gm_only_field(state):
    players = table.public_view(None, state, gm=False)
    assert type(players) is TableView
    assert list(gm_only_paths(players)) == []
    for owner in {f.owner for f in state.pcs()}:
        mine = table.private_view(None, state, owner)
        assert isinstance(mine, MeView) and mine.mine  # each player's own crew, all of them
        assert list(gm_only_paths(mine)) == []
    assert list(gm_only_paths(table.public_view(None, state, gm=True)))  # the GM's controls at least


def test_the_players_types_cannot_hold_a_gm_only_field_and_the_gms_can():
    assert gm_only_fields(TableView) == []
    assert gm_only_fields(MeView) == []
    assert {"GmTableView.acting", "GmTableView.ships > SecretShipRow.numbers"} <= set(gm_only_fields(GmTableView))


def test_a_hidden_npc_ship_is_a_bare_row_for_players_and_marked_for_the_gm():
    state = final_state("sw5e-hidden-enemy")
    npc = next(s for s in state.ships if s.side != "pc")
    players = {row.id: row for row in table.public_view(None, state, gm=False).ships}[npc.id]
    assert type(players) is ShipRow and not players.visible
    # Not even the initiative the GM rolled for it, nor its crew.
    assert (players.numbers, players.initiative, players.crew) == (None, None, ())

    gm = table.public_view(None, state, gm=True)
    index, row = next((i, row) for i, row in enumerate(gm.ships) if row.id == npc.id)
    assert type(row) is SecretShipRow and row.numbers.hull == npc.hull
    assert {f"view.ships[{index}].numbers", f"view.ships[{index}].initiative"} <= set(gm_only_paths(gm))
    pc_rows = [i for i, row in enumerate(gm.ships) if not row.npc]
    assert not any(path.startswith(f"view.ships[{i}].") for i in pc_rows for path in gm_only_paths(gm))


def test_with_public_enemy_numbers_an_npc_ship_is_a_plain_row_for_everyone():
    state = final_state("sw5e-public-numbers")
    npc = next(s for s in state.ships if s.side != "pc")
    for gm in (False, True):
        row = next(row for row in table.public_view(None, state, gm=gm).ships if row.id == npc.id)
        assert type(row) is ShipRow and row.visible and row.numbers.hull == npc.hull
