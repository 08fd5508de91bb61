"""The dice roller's rolls in the after-action review: who rolled them, their dice, and who reads them.

Issue 19: "Rolls appear in the log for their audience only and in the exports, with the same per-audience rules as
every log entry." A free roll's review facts name its roller (so the character filter finds it) and list its dice
for whoever may read them; a free roll has no target, so it is no success, failure or luck against the odds. A
player's own hidden roll ("me and the GM", "only me") is in their own timeline, never in another player's.
"""

import pytest
from django.test import Client
from django.urls import reverse

from combat import review, services, stories
from combat.rules.dice import ScriptedDice
from tests.combat.test_consumers import build_encounter, pc_key

pytestmark = pytest.mark.django_db


def roll(user, encounter, actor, notation, show, faces, key):
    result = services.submit(
        encounter.pk, user, "roll", {"actor": actor, "notation": notation, "show": show}, key, dice=ScriptedDice(faces)
    )
    assert result.ok, result.error


@pytest.fixture
def rolled(campaign, gm, player, other_player, pc, other_pc, npc):
    encounter = build_encounter(campaign, gm, [pc, other_pc], npc)
    roll(player, encounter, pc_key(pc), "2d6+1", "all", [3, 5], "r1")
    roll(player, encounter, pc_key(pc), "1d20", "self", [17], "r2")
    roll(player, encounter, pc_key(pc), "1d8", "gm", [6], "r3")
    roll(gm, encounter, "", "d%", "gm", [42], "r4")
    roll(other_player, encounter, pc_key(other_pc), "3d4", "all", [1, 2, 4], "r5")
    encounter.refresh_from_db()
    return encounter


def rolls_of(data: review.Review) -> dict[str, tuple[str, list]]:
    return {e.text: (e.actor, e.dice) for e in data.entries if e.kind == "dice_rolled"}


def test_the_review_names_each_roller_and_lists_the_dice_its_viewer_may_read(rolled, gm, player, pc, other_pc):
    luwe, furo = pc_key(pc), pc_key(other_pc)
    assert rolls_of(review.build(rolled, is_gm=True)) == {
        "Luwe rolls 2d6+1: 2d6 (3, 5) + 1 = 9 — no doubles.": (luwe, [(6, (3, 5))]),
        "Luwe rolled dice for their own eyes only.": (luwe, []),  # the GM learns a roll was made, not its dice
        "Luwe rolls for the GM: 1d8: 1d8 (6) = 6.": (luwe, [(8, (6,))]),
        "The GM rolls in secret: 1d100: 1d100 (42) = 42.": ("", [(100, (42,))]),
        "Furo rolls 3d4: 3d4 (1, 2, 4) = 7 — no doubles.": (furo, [(4, (1, 2, 4))]),
    }
    assert rolls_of(review.build(rolled, is_gm=False)) == {
        "Luwe rolls 2d6+1: 2d6 (3, 5) + 1 = 9 — no doubles.": (luwe, [(6, (3, 5))]),
        "Furo rolls 3d4: 3d4 (1, 2, 4) = 7 — no doubles.": (furo, [(4, (1, 2, 4))]),
    }
    # The roller reads their own hidden rolls, as their phone words them, dice and all.
    assert rolls_of(review.build(rolled, is_gm=False, reader=player.pk)) == {
        "Luwe rolls 2d6+1: 2d6 (3, 5) + 1 = 9 — no doubles.": (luwe, [(6, (3, 5))]),
        "You rolled for yourself: 1d20: 1d20 (17) = 17.": (luwe, [(20, (17,))]),
        "You rolled for you and the GM: 1d8: 1d8 (6) = 6.": (luwe, [(8, (6,))]),
        "Furo rolls 3d4: 3d4 (1, 2, 4) = 7 — no doubles.": (furo, [(4, (1, 2, 4))]),
    }


def test_free_rolls_are_no_successes_failures_or_luck_against_the_odds(rolled, pc):
    data = review.build(rolled, is_gm=True)
    luwe = next(s for s in data.summaries if s.key == pc_key(pc))
    assert (luwe.rolls, luwe.successes, luwe.failures, luwe.doubles) == (0, 0, 0, 0)
    assert data.by_complexity == {}
    assert stories.build(rolled, data).no_luck == stories.NO_ODDS
    assert sum(data.faces[6].values()) == 2 and sum(data.faces[100].values()) == 1  # the faces were rolled
    assert 20 not in data.faces  # the "only me" roll's faces are its roller's alone


def timeline(user, encounter, fighter: str) -> str:
    """The log page's timeline filtered to one character, as its Character filter fetches it."""
    client = Client()
    client.force_login(user)
    url = reverse("encounter_log", args=[encounter.campaign_id, encounter.pk])
    response = client.get(url, {"fighter": fighter, "part": "timeline"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    return response.content.decode()


def test_the_log_page_filters_free_rolls_by_character_for_the_gm_and_players(rolled, gm, player, other_player, pc):
    gm_page = timeline(gm, rolled, pc_key(pc))
    assert "Luwe rolls 2d6+1" in gm_page and "Luwe rolls for the GM: 1d8" in gm_page
    assert 'aria-label="d8 showing 6"' in gm_page
    assert "Furo rolls 3d4" not in gm_page and "The GM rolls in secret" not in gm_page
    their_page = timeline(other_player, rolled, pc_key(pc))
    assert 'aria-label="d6 showing 3, 5"' in their_page and "Furo rolls 3d4" not in their_page
    for hidden in ("(17)", "(6)", "(42)", "for the GM", "You rolled", "own eyes"):
        assert hidden not in their_page
    own_page = timeline(player, rolled, pc_key(pc))
    assert "You rolled for yourself: 1d20: 1d20 (17) = 17." in own_page
    assert 'aria-label="d20 showing 17"' in own_page
    assert "You rolled for you and the GM: 1d8: 1d8 (6) = 6." in own_page
    assert "(42)" not in own_page and "own eyes" not in own_page


def test_a_share_link_never_holds_a_players_hidden_roll(rolled, player):
    data = review.build(rolled, is_gm=False, players_only=True, reader=player.pk)
    assert "Luwe rolls 2d6+1: 2d6 (3, 5) + 1 = 9 — no doubles." in [e.text for e in data.entries]
    assert not any("You rolled" in e.text or "(42)" in e.text for e in data.entries)
