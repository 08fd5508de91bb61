"""The GM's quick edits on the table's rows (issue 17), shown here on Burn Bryte; each other model's are tested
beside its table (test_hero_table.py, test_sw5e_table.py, test_expanse_table.py).

Every test reads the control from the GM's table as a browser would (`inline_edit`: the form named for the
combatant) and posts what it holds through the table's one endpoint, so it is the same command as the GM's forms:
the rules refuse a bad value with a sentence and change nothing, the log records it, the GM's Undo takes it back.
Players get none of the controls, on the page or in a frame.
"""

import html
import re

import pytest
from django.urls import reverse

from combat import fragments, services, store
from tests.combat.helpers import inline_edit, state_of

pytestmark = pytest.mark.django_db

MARKERS = ("gm-inline", "inline-edit", "inline-conditions", "Health Levels -1 for")


@pytest.fixture
def running(campaign, gm, pc, npc):
    encounter = services.create_encounter(campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)])
    return services.start_encounter(encounter, gm)


def gm_table(encounter) -> str:
    encounter.refresh_from_db()
    return fragments.for_gm(encounter, store.load_state(encounter))


def players_table(encounter, user) -> str:
    encounter.refresh_from_db()
    state = store.load_state(encounter)
    return fragments.for_players(encounter, state) + fragments.me_html(encounter, state, user.pk)


def post(client, encounter, fields: dict) -> str:
    """Post as the control's form does (htmx); the sentence of a refusal, or ""."""
    response = client.post(
        reverse("encounter_act", args=[encounter.campaign_id, encounter.pk]), fields, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    found = re.search(r'class="notice[^"]*" role="alert">([^<]*)<', response.content.decode())
    return html.unescape(found.group(1)) if found else ""


def undo(client, encounter) -> str:
    encounter.refresh_from_db()
    return post(client, encounter, {"command": "undo", "key": f"undo-{encounter.version}"})


def version_of(encounter) -> int:
    encounter.refresh_from_db()
    return encounter.version


def test_a_health_level_down_on_a_row_reaches_the_players_and_undo_takes_it_back(client, gm, player, running, pc):
    client.force_login(gm)
    fields = inline_edit(gm_table(running), "Health Levels -1 for Luwe")
    assert fields["command"] == "adjust_health" and fields["target"] == f"pc{pc.pk}" and fields["change"] == "-1"
    assert post(client, running, fields) == ""
    assert state_of(running).fighter(f"pc{pc.pk}").health == 2
    assert "2/3 HL" in players_table(running, player)
    assert undo(client, running) == ""
    assert state_of(running).fighter(f"pc{pc.pk}").health == 3
    assert "3/3 HL" in players_table(running, player)


def test_an_enemys_row_has_the_same_controls(client, gm, running, npc):
    client.force_login(gm)
    enemy = f"npc{npc.pk}-1"
    before = state_of(running).fighter(enemy).health
    assert post(client, running, inline_edit(gm_table(running), "Health Levels -1 for Nivick")) == ""
    assert state_of(running).fighter(enemy).health == before - 1
    assert post(client, running, inline_edit(gm_table(running), "Health Levels +1 for Nivick")) == ""
    assert state_of(running).fighter(enemy).health == before


def test_health_past_full_or_below_zero_is_a_sentence_and_changes_nothing(client, gm, running, pc):
    client.force_login(gm)
    luwe = f"pc{pc.pk}"
    table = gm_table(running)
    assert "Health Levels +1 for Luwe" not in table  # at full: not offered
    version = version_of(running)
    heal = {"command": "adjust_health", "target": luwe, "change": "1", "key": "heal"}
    assert post(client, running, heal) == "Luwe is already at full Health Levels."
    assert version_of(running) == version
    assert post(client, running, {"command": "adjust_health", "target": luwe, "change": "-3", "key": "down"}) == ""
    assert "Health Levels -1 for Luwe" not in gm_table(running)  # at 0: not offered
    version = version_of(running)
    hurt = {"command": "adjust_health", "target": luwe, "change": "-1", "key": "more"}
    assert post(client, running, hurt) == "Luwe has no Health Levels left to lose."
    assert version_of(running) == version and state_of(running).fighter(luwe).health == 0


def test_a_condition_is_set_and_cleared_from_the_row_and_undo_brings_it_back(client, gm, player, running, pc):
    client.force_login(gm)
    luwe = f"pc{pc.pk}"
    table = gm_table(running)
    assert '<summary>Conditions<span class="sr-only"> of Luwe</span></summary>' in table
    assert 'aria-label="Set the condition for Luwe"' in table
    # Every row's value field offers the GM tools' one list of skills and categories (not a select per row: the
    # GM's table of 40 combatants weighed 140 KiB with them).
    assert table.count("<datalist") == 1 and table.count('list="gm-k-values"') == 3 and "<optgroup" not in table
    wrong = {"command": "set_condition", "target": luwe, "slot": "neg_minor", "value": "Physical", "key": "c0"}
    assert post(client, running, wrong) == "A minor condition names one skill."
    assert state_of(running).fighter(luwe).conditions.neg_minor == ""
    chosen = {"command": "set_condition", "target": luwe, "slot": "neg_moderate", "value": "Physical", "key": "c1"}
    assert post(client, running, chosen) == ""
    assert "moderate negative (Physical)" in players_table(running, player)  # on Luwe's own sheet
    fields = inline_edit(gm_table(running), "Clear moderate negative (Physical) for Luwe")
    assert fields["slot"] == "neg_moderate" and fields["value"] == ""
    assert post(client, running, fields) == ""
    assert state_of(running).fighter(luwe).conditions.neg_moderate == ""
    assert undo(client, running) == ""
    assert state_of(running).fighter(luwe).conditions.neg_moderate == "Physical"


def test_players_pages_and_tables_have_none_of_the_controls(client, gm, player, other_player, running):
    client.force_login(gm)
    page = client.get(running.get_absolute_url()).content.decode()
    assert all(marker in page for marker in MARKERS)  # the GM's own page has them
    for user in (player, other_player):
        client.force_login(user)
        page = client.get(running.get_absolute_url()).content.decode()
        for markup in (page, players_table(running, user)):
            assert not [marker for marker in MARKERS if marker in markup]


def test_a_player_posting_a_quick_edit_is_refused(client, gm, player, running, pc):
    client.force_login(gm)
    fields = inline_edit(gm_table(running), "Health Levels -1 for Luwe")
    client.force_login(player)
    assert post(client, running, fields) == "Only the GM can do that."
    assert state_of(running).fighter(f"pc{pc.pk}").health == 3


def test_nova_points_step_up_to_the_ships_livability_and_no_further(client, gm, player, running, pc, npc):
    """Nova points are "capped at the ship's Livability Rating" (rules notes, Nova points); with no ship, 3."""
    client.force_login(gm)
    luwe = f"pc{pc.pk}"
    assert state_of(running).fighter(luwe).nova_points == 0 and state_of(running).livability == 3
    assert "Nova points -1 for Luwe" not in gm_table(running)  # none to take
    assert "Nova points +1 for Nivick" not in gm_table(running)  # enemies have no Nova points
    for expected in (1, 2, 3):
        assert post(client, running, inline_edit(gm_table(running), "Nova points +1 for Luwe")) == ""
        assert state_of(running).fighter(luwe).nova_points == expected
    assert "3 Nova" in players_table(running, player)  # on Luwe's own sheet
    assert "Nova points +1 for Luwe" not in gm_table(running)  # at the cap: not offered
    version = version_of(running)
    more = {"command": "adjust_nova", "target": luwe, "change": "1", "key": "nova-more"}
    assert post(client, running, more) == "The ship's Livability Rating caps Nova points at 3; Luwe has 3."
    enemy = {"command": "adjust_nova", "target": f"npc{npc.pk}-1", "change": "1", "key": "nova-enemy"}
    assert post(client, running, enemy) == "Only player characters have Nova points."
    assert version_of(running) == version
    assert post(client, running, inline_edit(gm_table(running), "Nova points -1 for Luwe")) == ""
    assert state_of(running).fighter(luwe).nova_points == 2
    assert undo(client, running) == ""
    assert state_of(running).fighter(luwe).nova_points == 3
