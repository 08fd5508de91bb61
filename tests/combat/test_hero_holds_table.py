"""Issue 19's HERO controls at the table: a held action's moment offered on the phone ("Act now" or "Keep
holding"), a DEX hold that says why it cannot act yet, moving by RUN and Presence attacks from the phone, and what
players never learn of an Agent from them.

Segment 12 of turn 1 runs Kestrel (DEX 23), Agent 1 and Agent 2 (DEX 15, tied) and Bulwark (DEX 14).
"""

import io

import pytest

from campaigns.models import Character
from combat import exports
from combat.models import Encounter
from tests.combat import test_hero_table as hero_table
from tests.combat.helpers import combatant_key as key
from tests.combat.helpers import state_of
from tests.combat.test_hero_table import (
    assert_no_gm_fact,
    begin,
    build,
    gm_html,
    me,
    notice,
    ok,
    phone_of,
    player_html,
    post,
    sheet,
    text_of,
    version_of,
)

pytestmark = pytest.mark.django_db
kestrel, bulwark, agent, enc = hero_table.kestrel, hero_table.bulwark, hero_table.agent, hero_table.enc


def test_a_hold_until_an_agent_attacks_offers_kestrel_act_now_on_the_phone(
    enc, client, gm, player, other_player, kestrel, bulwark, agent
):
    begin(enc, gm)
    phone = phone_of(client, player)
    page = me(enc, player)
    assert '<option value="attacks">They attack</option>' in page
    assert f'<option value="{key(agent, 1)}">Agent 1</option>' in page
    response = post(phone, enc, "hold", actor=key(kestrel), until="trigger", on="attacks", whom=key(agent, 1))
    assert notice(response) == ""
    assert "Kestrel holding until Agent 1 attacks" in text_of(player_html(enc, other_player))
    ok(enc, gm, "attack", faces=[6, 6, 6], actor=key(agent, 1), target=key(bulwark), dice=0, against="pd")

    page = me(enc, player)
    assert "Act now? The held action's moment has come: Agent 1 attacks." in page
    assert ">Act now</button>" in page and ">Keep holding</button>" in page and 'data-may-act="1"' in page
    other = player_html(enc, other_player)
    assert "Waiting for Kestrel: a held action’s moment has come." in text_of(other)
    assert "Kestrel's held action: its moment has come (Agent 1 attacks); act now or keep holding." in other
    assert_no_gm_fact(other, enc)
    gm_page = gm_html(enc)
    assert "Kestrel keeps holding" in gm_page and "Kestrel acts now" in gm_page and ">Next segment<" not in gm_page

    version = version_of(enc)
    response = post(phone_of(client, other_player), enc, "end_phase", actor=key(bulwark))
    assert notice(response) == "It is not Bulwark's phase." and version_of(enc) == version
    assert notice(post(phone_of(client, player), enc, "keep_holding", actor=key(kestrel))) == ""
    assert state_of(enc).offers == () and "Act now?" not in me(enc, player)
    assert "Act on my held action now" in me(enc, player)  # still held: Kestrel may act before the next phase


def test_a_dex_hold_tells_the_phone_why_it_cannot_act_yet_and_offers_it_at_that_dex(
    enc, client, gm, player, kestrel, bulwark, agent
):
    begin(enc, gm)
    phone = phone_of(client, player)
    assert notice(post(phone, enc, "hold", actor=key(kestrel), until="dex", dex=14)) == ""
    page = me(enc, player)
    assert "Not yet: Kestrel holds until DEX 14: Agent 1 acts first, at DEX 15." in page
    assert "Act on my held action now" not in page
    response = post(phone, enc, "release", actor=key(kestrel))
    assert notice(response) == "Kestrel holds until DEX 14: Agent 1 acts first, at DEX 15."
    ok(enc, gm, "end_phase", actor=key(agent, 1))
    ok(enc, gm, "end_phase", actor=key(agent, 2))  # Bulwark (DEX 14) is next: DEX 14 has come round
    assert "Act now? The held action's moment has come: DEX 14." in me(enc, player)
    assert notice(post(phone, enc, "release", actor=key(kestrel))) == ""
    assert state_of(enc).acting == key(kestrel)


def test_moving_from_the_phone_is_a_half_or_full_move_by_the_distance(enc, client, gm, player, kestrel, agent):
    begin(enc, gm)
    phone = phone_of(client, player)
    page = me(enc, player)
    assert "RUN 12 m: up to 6 m is a half move (an attack can follow); more is a full move and ends the phase." in page
    version = version_of(enc)
    assert notice(post(phone, enc, "move", actor=key(kestrel), metres=13)) == "Kestrel runs 1 to 12 m in a phase."
    assert version_of(enc) == version
    assert notice(post(phone, enc, "move", actor=key(kestrel), metres=5, text="to the skylight")) == ""
    page = player_html(enc, player)
    assert "Kestrel moves 5 m (to the skylight): a half move (half of RUN 12 m or less); half a phase is left." in page
    assert 'max="6"' in page.split('name="metres"')[1].split(">")[0]  # only a half move is left
    assert notice(post(phone, enc, "move", actor=key(kestrel), metres=6)) == ""
    assert state_of(enc).floor == key(agent, 1)


def test_a_presence_attack_from_the_phone_and_one_from_an_agent_keep_the_agents_numbers(
    enc, client, gm, player, other_player, kestrel, bulwark, agent
):
    begin(enc, gm)
    page = me(enc, player)
    assert "Presence attack: 2d6" in page  # PRE 10 by default: 1d6 per 5 PRE
    ok(
        enc,
        player,
        "presence_attack",
        faces=[6, 5, 4],
        actor=key(kestrel),
        target=key(agent, 1),
        dice_mod=1,
        text="Drop it!",
    )
    other = player_html(enc, other_player)
    assert "Kestrel makes a Presence attack on Agent 1 (Drop it!): 15 on 3d6; Agent 1 is impressed:" in other
    assert "against 10" not in other  # the Agent's PRE is the GM's
    assert "15 on 3d6 against 10" in gm_html(enc)
    ok(enc, gm, "presence_attack", faces=[1, 1], actor=key(agent, 2), target=key(bulwark))
    other = player_html(enc, other_player)
    assert "Agent 2 makes a Presence attack on Bulwark; Bulwark is not impressed." in other
    assert_no_gm_fact(other, enc)


def test_the_gm_rolls_an_agents_presence_attack_off_phase_and_a_cowed_pc_loses_the_phase(
    enc, client, gm, gm_client, player, kestrel, bulwark, agent
):
    begin(enc, gm)
    assert "Roll the Presence attack" in gm_html(enc)
    # From the GM's form, with the server's dice: 1d6 can never reach Bulwark's PRE 10.
    response = post(gm_client, enc, "presence_attack", actor=key(agent, 2), target=key(bulwark), dice_mod="-1")
    assert notice(response) == ""
    assert "Agent 2 makes a Presence attack on Bulwark; Bulwark is not impressed." in player_html(enc, player)
    # 8d6 of sixes against Kestrel's PRE 10: cowed, so her open phase is lost (the GM's setting, on by default).
    ok(enc, gm, "presence_attack", faces=[6] * 8, actor=key(agent, 2), target=key(kestrel), dice_mod=6)
    page = player_html(enc, player)
    assert "Kestrel is cowed: may surrender, run away or faint, and is at 0 DCV." in page
    assert "Kestrel, awed by a Presence attack, does not act in the phase in segment 12." in page
    assert state_of(enc).floor != key(kestrel) and "Your phase!" not in me(enc, player)


def test_an_unseen_snipers_hold_and_presence_attack_never_reach_a_player(
    campaign, gm, player, other_player, kestrel, bulwark, agent
):
    sniper = Character.objects.create(
        campaign=campaign,
        name="SECRET Sniper",
        kind="npc",
        system="hero",
        stats=sheet(spd=4, dex=18, initiative_dex=18, pre=35),
    )
    # The GM keeps the Sniper unseen when it attacks (a Presence attack is an attack).
    enc = build(campaign, gm, [kestrel, bulwark], agent, hidden={sniper.pk}, extra=[(sniper, 1)], attack_reveals=False)
    sn = f"npc{sniper.pk}-1"
    begin(enc, gm)
    ok(enc, player, "end_phase", actor=key(kestrel))
    ok(enc, gm, "hold", actor=sn, until="trigger", on="moves", whom=key(bulwark))
    ok(enc, gm, "hold", actor=key(agent, 1), until="trigger", on="attacks", whom=sn)  # an ally the party never saw
    assert "Agent 1 holding until something happens" in text_of(player_html(enc, player))
    assert "Agent 1 holding until SECRET Sniper attacks" in text_of(gm_html(enc))
    ok(enc, gm, "end_phase", actor=key(agent, 2))
    ok(enc, other_player, "move", actor=key(bulwark), metres=3)  # the Sniper's moment: offered to the GM
    assert state_of(enc).offers == (sn,)
    assert "SECRET Sniper acts now" in gm_html(enc)
    assert "Turn 1, segment 12: waiting for someone unseen’s held action" in me(enc, player)
    assert "Waiting for " not in text_of(player_html(enc, player))  # the table names no unseen holder
    # 7d6 of sixes (PRE 35) against Bulwark's PRE 10: cowed.
    ok(enc, gm, "presence_attack", faces=[6] * 7, actor=sn, target=key(bulwark))
    ok(enc, gm, "keep_holding", actor=sn)
    for user in (player, other_player):
        page = player_html(enc, user)
        assert_no_gm_fact(page, enc)
        assert "Someone unseen makes a Presence attack on Bulwark; Bulwark is cowed" in page
        assert "7d6" not in page and "42" not in page and "Sniper" not in page
    assert "waiting for someone unseen’s held action" not in me(enc, other_player)  # kept: no longer waiting
    for writer in exports.WRITERS.values():
        out = io.StringIO()
        writer(Encounter.objects.get(pk=enc.pk), False, out)
        assert "Sniper" not in out.getvalue() and "7d6" not in out.getvalue()
    out = io.StringIO()
    exports.write_markdown(Encounter.objects.get(pk=enc.pk), True, out)
    assert "SECRET Sniper makes a Presence attack on Bulwark: 42 on 7d6 against 10" in out.getvalue()
