"""The Churn and an unseen target on the Expanse table (issue 19): the GM's screen prompts for a Churn effect that
came due and applies it from its own form; players never read the Churn; a player's forged attack at an enemy the
party cannot see is refused without naming it.

The fight is test_expanse_table's: Rosa (pistol, +5) acts first, then Marcus, Thug 1 and Thug 2 (Defense 17).
"""

from __future__ import annotations

import pytest

from combat.models import EncounterEvent
from tests.combat import test_expanse_table as fight
from tests.combat.helpers import state_of
from tests.combat.phone_forms import form_sending, text
from tests.combat.test_expanse_phone import spotter_fight
from tests.combat.test_expanse_table import assert_no_gm_fact, begin, build, gm_html, go, key, notice, player_html
from tests.combat.test_expanse_table import post as post_act

rosa, marcus, thug = fight.rosa, fight.marcus, fight.thug

pytestmark = pytest.mark.django_db


def test_the_gm_is_prompted_for_a_churn_effect_and_applies_it_from_the_screen(
    gm_client, campaign, gm, player, rosa, marcus, thug
):
    enc = build(campaign, gm, [rosa, marcus], thug, churn=True)
    begin(enc, gm, rosa, marcus, thug)
    assert form_sending(gm_html(enc), "apply_churn") is None  # nothing is due yet
    assert go(enc, gm, "adjust_churn", dice=[6], change=10, reason="a long chase").ok  # 1d6 at 10 shows 6: major
    page = text(gm_html(enc))
    assert "The Churn: a major effect is due." in page and "a threat rises a rank" in page
    players = player_html(enc, player)
    assert_no_gm_fact(players, enc)
    assert "Churn" not in players and "is due" not in players

    form = form_sending(gm_html(enc), "apply_churn")
    sends = {k: v for k, v in form.sends.items() if k != "csrfmiddlewaretoken"}
    assert form.options["target"][0] == key(thug, 1)
    sends.update(effect="fail", target=key(rosa), note="a stray round of recoil")
    assert notice(post_act(gm_client, enc, sends.pop("command"), key_=sends.pop("key"), **sends)) == ""
    assert state_of(enc).churn_due == () and state_of(enc).fighter(key(rosa)).churn_fail
    assert "Next test fails (the Churn): Rosa" in text(gm_html(enc))
    assert form_sending(gm_html(enc), "apply_churn") is None  # nothing more is due

    # Rosa's shot would hit Thug 1 (Defense 17) with 6, 6, 6 + 5: the Churn makes it a miss.
    assert go(
        enc,
        player,
        "attack",
        dice=[6, 6, 6, 3, 3],
        actor=key(rosa),
        action="ranged_attack",
        weapon="pistol",
        target=key(thug, 1),
    ).ok
    assert not state_of(enc).hits and not state_of(enc).fighter(key(rosa)).churn_fail
    players = player_html(enc, player)
    assert "it fails whatever the dice" in text(players) and "Churn" not in players
    assert "the Churn makes it fail" in text(gm_html(enc))
    kinds = dict(EncounterEvent.objects.filter(encounter=enc).values_list("kind", "audience"))
    assert kinds["churn_reached"] == "gm" and kinds["churn_applied"] == "gm"


def test_the_gm_picks_a_fortune_loss_for_the_churn_from_the_screen(gm_client, campaign, gm, player, rosa, marcus, thug):
    """Neither seed nor notes give the Churn table: the GM's pick is applied, here a lost Fortune."""
    enc = build(campaign, gm, [rosa, marcus], thug, churn=True)
    begin(enc, gm, rosa, marcus, thug)
    assert go(enc, gm, "adjust_churn", dice=[1], change=10).ok
    assert "Your table decides (the seed gives none)" in text(gm_html(enc))
    form = form_sending(gm_html(enc), "apply_churn")
    assert "Prone" in form.options["condition"] and "Taken out" not in form.options["condition"]
    sends = {k: v for k, v in form.sends.items() if k != "csrfmiddlewaretoken"}
    sends.update(effect="fortune", target=key(rosa), points="4")
    assert notice(post_act(gm_client, enc, sends.pop("command"), key_=sends.pop("key"), **sends)) == ""
    assert state_of(enc).fighter(key(rosa)).fortune == 14 and state_of(enc).churn_due == ()
    players = player_html(enc, player)
    assert_no_gm_fact(players, enc)
    assert "Churn" not in players


def test_a_forged_attack_at_an_unseen_enemy_is_refused_unnamed(client, campaign, gm, player, rosa, marcus, thug):
    """Seed 004, Ranged Attack: "You fire or throw a ranged weapon at one visible enemy within range"."""
    encounter, spotter_key = spotter_fight(campaign, gm, rosa, marcus, thug)
    before = state_of(encounter)
    client.force_login(player)
    said = notice(
        post_act(
            client,
            encounter,
            "attack",
            actor=key(rosa),
            action="ranged_attack",
            weapon="pistol",
            target=spotter_key,
            distance="10",
        )
    )
    assert said == "Rosa cannot see that target."
    assert state_of(encounter) == before
    assert "Spotter" not in player_html(encounter, player)


@pytest.mark.parametrize("public", [False, True])
def test_the_gm_chooses_whether_players_see_the_churn_pool(campaign, gm, player, rosa, marcus, thug, public):
    """The notes leave open who sees the Churn: the pool is the GM's unless the GM makes it public; the thresholds
    and the effects stay the GM's either way."""
    enc = build(campaign, gm, [rosa, marcus], thug, churn=True, churn_public=public)
    begin(enc, gm, rosa, marcus, thug)
    assert go(enc, gm, "adjust_churn", dice=[2], change=11, reason="SECRET reason").ok
    players = text(player_html(enc, player))
    assert ("Churn pool 11" in players) is public
    assert "is due" not in players and "SECRET" not in players and "Churn reaches" not in players
    assert "Churn pool 11" in text(gm_html(enc))
