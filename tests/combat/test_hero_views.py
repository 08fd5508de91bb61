"""HERO's view models: a player's chart and phone panels are built from types that have no GM-only field, so in no
state of a fight do they carry one; the GM's chart carries every number and the unseen lurker."""

from combat.rules.core import UNSEEN_NAME
from combat.tables import hero as table
from combat.tables.viewmodels import gm_only_paths
from tests.combat.typed_views import gm_only_fields, stored_states

STATES = dict(stored_states("hero"))
LURKER_ACTS = STATES["hero-brawl@1"]  # the lurker no PC is aware of has the floor: a knife out of nowhere
ANA_ACTS = STATES["hero-brawl@2"]  # Ana's phase; the ogre is in sight, the lurker still is not
ANA, BO = 1, 2  # the players' user ids


def test_the_players_types_have_no_gm_only_field_and_the_gms_table_adds_them():
    assert gm_only_fields(table.PlayersTable) == []
    assert gm_only_fields(table.HeroPrivate) == []
    assert {
        "GmTable.rows",
        "GmTable.rows > GmRow.unseen",
        "GmTable.queue",
        "GmTable.panel",
        "GmTable.floor_name",
    } <= set(gm_only_fields(table.GmTable))


def test_in_every_state_of_the_stored_fights_no_player_view_carries_a_gm_only_field():
    for step, state in STATES.items():
        players = table.public_view(None, state, gm=False)
        assert type(players) is table.PlayersTable, step
        assert list(gm_only_paths(players)) == [], step
        for owner in {f.owner for f in state.pcs()}:
            assert list(gm_only_paths(table.private_view(None, state, owner))) == [], step
        assert "view.rows" in gm_only_paths(table.public_view(None, state, gm=True)), step


def test_an_unseen_enemys_phase_is_the_gms_alone():
    players = table.public_view(None, LURKER_ACTS, gm=False)
    gm = table.public_view(None, LURKER_ACTS, gm=True)
    assert players.floor_name == UNSEEN_NAME and gm.floor_name == "Lurker"
    assert [r.key for r in players.rows] == [q.key for q in players.queue] == ["ana", "bo", "ogre"]
    assert [(r.key, r.unseen) for r in gm.rows][-1] == ("lurker", True) and gm.panel.key == "lurker"
    assert "view.rows[3].unseen" in gm_only_paths(gm) and "view.panel" in gm_only_paths(gm)


def test_a_seen_enemys_numbers_stay_off_the_players_chart_and_out_of_a_phones_to_hit_hint():
    players = table.public_view(None, ANA_ACTS, gm=False)
    ogre = players.rows[-1]
    assert (ogre.key, ogre.numbers, ogre.spd, ogre.dcv) == ("ogre", False, None, None)
    assert players.queue[-1].dex is None and players.queue[0].dex == 18
    ana = table.private_view(None, ANA_ACTS, ANA)
    assert ana.your_turn and [(t.key, t.hint) for t in ana.mine[0].targets] == [
        ("bo", "hits on 13 or less"),
        ("ogre", "hits on 11 + OCV 7 − their DCV or less"),
    ]
    assert not table.private_view(None, ANA_ACTS, BO).your_turn
    gm_ogre = table.public_view(None, ANA_ACTS, gm=True).rows[2]
    assert (gm_ogre.key, gm_ogre.numbers) == ("ogre", True) and gm_ogre.spd is not None
