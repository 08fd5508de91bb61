"""Run on the Expanse phone (issue 19): the seed's Run "sacrific[es] the ability to perform another action", so at
the start of her turn the phone offers Run as her whole turn, no longer offers it once she has taken a minor
action, and tapping it as rendered ends her turn.

The fight is test_expanse_table's: Rosa acts first, then Marcus, Thug 1 and Thug 2.
"""

from __future__ import annotations

import pytest

from tests.combat import test_expanse_table as fight
from tests.combat.helpers import state_of
from tests.combat.phone_forms import form_sending, text
from tests.combat.test_expanse_phone import tap
from tests.combat.test_expanse_table import begin, build, key, me

rosa, marcus, thug = fight.rosa, fight.marcus, fight.thug

pytestmark = pytest.mark.django_db


def test_run_is_offered_as_the_whole_turn_and_tapping_it_ends_her_turn(
    client, campaign, gm, player, rosa, marcus, thug
):
    enc = build(campaign, gm, [rosa, marcus], thug)
    begin(enc, gm, rosa, marcus, thug)
    html = me(enc, player)
    assert "Run (up to 20 m; it takes your whole turn)" in text(html)  # Speed 11 - light armour 1, twice
    client.force_login(player)
    assert tap(client, enc, form_sending(html, "run")) == ""
    assert state_of(enc).turn == key(marcus)


def test_after_a_minor_action_run_is_not_offered(client, campaign, gm, player, rosa, marcus, thug):
    enc = build(campaign, gm, [rosa, marcus], thug)
    begin(enc, gm, rosa, marcus, thug)
    client.force_login(player)
    assert tap(client, enc, form_sending(me(enc, player), "aim")) == ""
    html = me(enc, player)
    assert form_sending(html, "run") is None and form_sending(html, "defend") is not None


def test_with_the_house_rule_run_leaves_a_minor_action(client, campaign, gm, player, rosa, marcus, thug):
    enc = build(campaign, gm, [rosa, marcus], thug, run_ends_turn=False)
    begin(enc, gm, rosa, marcus, thug)
    html = me(enc, player)
    assert "Run (up to 20 m)" in text(html) and "whole turn" not in text(html)
    client.force_login(player)
    assert tap(client, enc, form_sending(html, "run")) == ""
    assert state_of(enc).turn == key(rosa) and form_sending(me(enc, player), "aim") is not None
