"""The Expanse's typed views: a player's table and phone cannot carry a GM-only fact, for every state the stored
logs pass through (an ambush by an enemy the party has not seen, enemies' hidden rolls and hits, Churn, stunts,
undo), and the GM's view does carry the GM's facts, marked."""

from __future__ import annotations

import pytest

from combat.rules.core import Sight
from combat.tables import expanse as table
from combat.tables.expanse_views import EnemyRow, EnemyWaiting, GmTableView, MeView, Row, TableView
from combat.tables.viewmodels import gm_only_paths
from tests.combat.typed_views import gm_only_fields, stored_states

STATES = list(stored_states("expanse"))


def first(fixture: str, test):
    return next(state for label, state in STATES if label.startswith(f"{fixture}@") and test(state))


@pytest.mark.parametrize("state", [s for _, s in STATES], ids=[label for label, _ in STATES])
def test_no_players_view_of_a_stored_state_carries_a_gm_only_field(state):
    players = table.public_view(None, state, gm=False)
    assert type(players) is TableView
    assert list(gm_only_paths(players)) == []
    for owner in {f.owner for f in state.pcs()}:
        mine = table.private_view(None, state, owner)
        assert isinstance(mine, MeView) and mine.mine
        assert list(gm_only_paths(mine)) == []
    gm = table.public_view(None, state, gm=True)
    assert any(".order[" in path for path in gm_only_paths(gm))  # every enemy's numbers at least


def test_the_players_types_cannot_hold_a_gm_only_field_and_the_gms_can():
    assert gm_only_fields(TableView) == []
    assert gm_only_fields(MeView) == []
    assert {"GmTableView.order > EnemyRow.defense", "GmTableView.churn"} <= set(gm_only_fields(GmTableView))


def test_an_unseen_enemy_has_no_row_for_players_and_a_marked_one_for_the_gm():
    state = first("expanse-ambush", lambda s: any(Sight(s.fighters, False).unseen(f.id) for f in s.fighters))
    unseen = next(f for f in state.fighters if Sight(state.fighters, False).unseen(f.id))
    players = table.public_view(None, state, gm=False)
    assert unseen.id not in {row.key for row in players.order}
    assert all(type(row) is Row for row in players.order)

    gm = table.public_view(None, state, gm=True)
    index, row = next((i, row) for i, row in enumerate(gm.order) if row.key == unseen.id)
    assert type(row) is EnemyRow and row.unseen
    assert {f"view.order[{index}].unseen", f"view.order[{index}].defense"} <= set(gm_only_paths(gm))


def test_damage_an_enemy_must_absorb_is_told_without_what_is_left():
    state = first("expanse-manoeuvres", lambda s: any(h.open and s.fighter(h.target).side != "pc" for h in s.hits))
    players = table.public_view(None, state, gm=False)
    enemy_rows = [w for w in players.waiting if not w.pc]
    assert enemy_rows and all(w.remaining is None for w in enemy_rows)

    gm = table.public_view(None, state, gm=True)
    marked = [i for i, w in enumerate(gm.waiting) if type(w) is EnemyWaiting]
    assert marked and all(gm.waiting[i].remaining is not None for i in marked)
    assert {f"view.waiting[{i}].remaining" for i in marked} <= set(gm_only_paths(gm))
