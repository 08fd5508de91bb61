"""HERO's DEX-tie prompt goes once the GM sets the order, and a second identical order writes nothing; an NPC's
attack on the GM's screen defaults to a standing enemy of its own side, never a fellow NPC or a downed one."""

from __future__ import annotations

import re

import pytest

from tests.combat.helpers import combatant_key as key
from tests.combat.helpers import state_of
from tests.combat.test_hero_table import (  # noqa: F401  (fixtures)
    agent,
    begin,
    build,
    bulwark,
    enc,
    gm_html,
    kestrel,
    notice,
    ok,
    post,
    text_of,
    version_of,
)

pytestmark = pytest.mark.django_db


def test_the_tie_prompt_goes_once_the_order_is_set_and_a_repeat_writes_nothing(enc, gm, gm_client, agent):
    begin(enc, gm)
    assert "Set the order" in gm_html(enc)
    a1, a2 = key(agent, 1), key(agent, 2)
    assert notice(post(gm_client, enc, "order_ties", order=f"{a2},{a1}")) == ""
    page = gm_html(enc)
    assert "Set the order" not in page and "who goes first?" not in page
    version, lines = version_of(enc), text_of(page).count("The GM orders the characters tied on DEX")
    assert lines == 1
    assert notice(post(gm_client, enc, "order_ties", order=f"{a2},{a1}")) == ""  # the old form, clicked again
    assert version_of(enc) == version
    assert text_of(gm_html(enc)).count("The GM orders the characters tied on DEX") == 1


def test_keeping_the_tie_as_it_stands_also_clears_the_prompt(enc, gm, gm_client, agent):
    begin(enc, gm)
    a1, a2 = key(agent, 1), key(agent, 2)
    assert notice(post(gm_client, enc, "order_ties", order=f"{a1},{a2}")) == ""
    assert "Set the order" not in gm_html(enc)
    version = version_of(enc)
    assert notice(post(gm_client, enc, "order_ties", order=f"{a1},{a2}")) == ""
    assert version_of(enc) == version
    assert notice(post(gm_client, enc, "order_ties", order=f"{a2},{a1}")) == ""  # changing it is still a change
    assert version_of(enc) == version + 1 and state_of(enc).order[1:3] == (a2, a1)


def _selected_target(page: str, actor: str) -> str:
    select = re.search(rf'<select id="[^"]*{re.escape(actor)}-target" name="target">(.*?)</select>', page, re.S)
    assert select, "no attack builder for " + actor
    chosen = re.search(r'<option value="([^"]*)" selected>', select.group(1))
    return chosen.group(1) if chosen else ""


def test_an_npc_attack_defaults_to_a_pc_never_a_fellow_npc(enc, gm, kestrel, bulwark, agent):
    begin(enc, gm)
    ok(enc, gm, "end_phase", actor=key(kestrel))
    assert state_of(enc).floor == key(agent, 1)
    assert _selected_target(gm_html(enc), key(agent, 1)) in (key(kestrel), key(bulwark))


def test_an_npc_aware_of_no_pc_is_offered_no_attack_on_a_fellow_npc(campaign, gm, kestrel, bulwark, agent):
    encounter = build(campaign, gm, [kestrel, bulwark], agent, hidden={kestrel.pk, bulwark.pk})
    begin(encounter, gm)
    ok(encounter, gm, "end_phase", actor=key(kestrel))
    a1 = key(agent, 1)
    assert state_of(encounter).floor == a1
    page = gm_html(encounter)
    assert "Phase: Agent 1" in text_of(page)
    assert "Attack Agent 2" not in page and f"{a1}-target" not in page  # no attack, so no default at a fellow


def test_a_burn_bryte_declaration_defaults_to_a_standing_pc():
    from dataclasses import replace
    from types import SimpleNamespace

    from combat.tables import burn_bryte
    from tests.combat.typed_views import stored_states

    state = dict(stored_states("burn_bryte"))["burn_bryte-raid@7"]
    first = state.pcs()[0]
    fighters = tuple(replace(f, health=0) if f.id == first.id else f for f in state.fighters)
    gm = burn_bryte.public_view(
        SimpleNamespace(campaign=SimpleNamespace(enemy_health_visibility="descriptor")),
        replace(state, fighters=fighters),
        gm=True,
    )
    assert gm.all_pcs[0].key != first.id  # the declaration's target list opens on a PC still standing
    assert {p.key for p in gm.all_pcs} == {p.id for p in state.pcs()}


# --- every model: in every state of the stored fights, a default target is a standing enemy -------------------------


def _states(model):
    from tests.combat.typed_views import stored_states

    return list(stored_states(model))


def test_every_models_default_target_is_a_standing_enemy_in_every_stored_state():
    from combat.tables import burn_bryte, expanse, hero, sw5e

    checked = 0
    for step, state in _states("hero"):
        for f in state.fighters:
            foes = hero._panel(state, f, gm=True).foes
            if foes:
                first = state.fighter(foes[0].key)
                assert first.side != f.side and not first.out, (step, f.id)
                checked += 1
    for step, state in _states("expanse"):
        for f in state.fighters:
            default = expanse._panel(state, f, gm=True).default_target
            if default:
                first = state.fighter(default)
                assert first.side != f.side and not first.out, (step, f.id)
                checked += 1
    for step, state in _states("sw5e"):
        for f in state.fighters:
            default = sw5e.crew_controls(state, f).default_target
            if default:
                own, target = state.ship(f.ship), state.ship(default)
                assert target.side != own.side and target.active, (step, f.id)
                checked += 1
    for step, state in _states("burn_bryte"):
        for f in state.pcs():
            targets = burn_bryte._targets(state, f, "Melee")
            if targets:
                first = state.fighter(targets[0].key)
                assert first.side != f.side and not first.down, (step, f.id)
                checked += 1
    assert checked > 50
