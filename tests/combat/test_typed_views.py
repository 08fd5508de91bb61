"""Every registered combat model's views are typed, and a player's never carries a GM-only field.

For each model, every state its stored fights pass through (tests/combat/fixtures/logs: set-ups, unseen enemies,
hidden rolls, undone entries) is rendered into the players' table and each player's own view, under every
enemy-health setting. A model registered later is walked too: test_stored_logs requires it to keep stored logs.
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from campaigns.models import Campaign
from combat import tables
from combat.rules import registry
from combat.tables.viewmodels import PrivateView, gm_only_paths
from tests.combat.typed_views import gm_only_fields, stored_states

MODELS = sorted(registry.MODELS)


def encounter_seen_with(visibility: str) -> SimpleNamespace:
    """What a table's views read of the encounter: the campaign's enemy-health setting."""
    return SimpleNamespace(campaign=SimpleNamespace(enemy_health_visibility=visibility))


def owners(state) -> set[int]:
    return {f.owner for f in state.fighters if getattr(f, "owner", None)}


@pytest.mark.parametrize("model", MODELS)
def test_no_player_view_of_any_stored_state_carries_a_gm_only_field(model):
    table = tables.get(model)
    states = list(stored_states(model))
    assert states, f"{model} keeps no stored logs to walk"
    walked = 0
    for visibility in Campaign.EnemyHealth.values:
        encounter = encounter_seen_with(visibility)
        for label, state in states:
            players = table.public_view(encounter, state, gm=False)
            assert dataclasses.is_dataclass(players), f"{model}: the players' view is not typed"
            assert list(gm_only_paths(players)) == [], (label, visibility)
            assert gm_only_fields(type(players)) == [], f"{model}: the players' view type can hold a GM-only fact"
            for user_id in owners(state):
                mine = table.private_view(encounter, state, user_id)
                assert isinstance(mine, PrivateView), f"{model}: a private view is not a PrivateView"
                assert list(gm_only_paths(mine)) == [], (label, visibility, user_id)
                walked += 1
            gm = table.public_view(encounter, state, gm=True)
            assert list(gm_only_paths(gm)), f"{model}: the GM's view marks no GM-only fact at {label}"
    assert walked, f"{model}: no player's own view was walked"
