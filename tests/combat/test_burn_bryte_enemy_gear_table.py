"""Burn Bryte enemy weapons and shield recharge at the table (issue 18), through the services as the GM's screen
posts them: an enemy's declared attack names the weapon from its stat block, Phase 3 shows what a hit deals with
a Draining box and a Burst area, and the GM's rows recharge a personal shield."""

import pytest

from campaigns.models import Character
from combat import fragments, services
from tests.combat.helpers import act as go
from tests.combat.helpers import combatant_key as key
from tests.combat.helpers import page_text as text
from tests.combat.helpers import state_of as state
from tests.combat.helpers import valid_sheet

pytestmark = pytest.mark.django_db


@pytest.fixture
def luwe(campaign, player):
    sheet = valid_sheet("burn_bryte", skill_ranged=8, shield=0, shield_max=2)
    return Character.objects.create(campaign=campaign, name="Luwe", owner=player, system="burn_bryte", stats=sheet)


@pytest.fixture
def raider(campaign):
    sheet = valid_sheet(
        "burn_bryte", weapon_name=["siphon cannon"], weapon_damage=2, weapon_draining=True, weapon_burst=2, health=3
    )
    return Character.objects.create(
        campaign=campaign, name="Raider", kind="npc", system="burn_bryte", is_template=True, stats=sheet
    )


@pytest.fixture
def enc(campaign, gm, luwe, raider):
    encounter = services.create_encounter(
        campaign, gm, name="Dock", model="burn_bryte", pcs=[luwe], enemies=[(raider, 1)]
    )
    return services.start_encounter(encounter, gm)


def test_an_enemys_weapon_is_declared_worked_out_in_phase_3_and_a_shield_recharged_from_the_row(
    enc, gm, player, luwe, raider
):
    """Notes: attacks deal 1 "unless a weapon or ability says more" — an enemy's too, read from its stat block;
    "Shields (if any) absorb first", and the GM refills a spent one."""
    raider_key = key(raider, 1)
    go(enc, gm, "declare", enemy=raider_key, target=key(luwe), text="fires")
    table = fragments.table_html(enc, state(enc), gm=False)
    assert "Raider : fires (siphon cannon) → Luwe" in text(table)  # the players see the weapon named

    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(luwe))
    go(enc, player, "end_turn", actor=key(luwe))
    go(enc, gm, "start_enemies")
    gm_screen = text(fragments.gm_html(enc, state(enc)))
    assert "fires with siphon cannon (Extra Damage 2, Draining, Burst 2) → Luwe" in gm_screen
    assert "A hit deals 2 to each creature in the Burst 2 area (from the weapon)." in gm_screen
    assert "Draining: deal 2, Raider takes 1 unblockable" in gm_screen
    assert "Who is within 2 squares of the point?" in gm_screen
    page = fragments.gm_html(enc, state(enc))
    assert 'name="damage"' not in page.split('value="resolve"')[1].split("</form>")[0]  # no typed damage by default

    # The form as the browser sends it: the declared target ticked in the area, Draining ticked.
    go(enc, gm, "resolve", declaration="1", outcome="hit", drain="on", targets=[key(luwe)])
    s = state(enc)
    assert s.fighter(key(luwe)).health == 1  # 2 damage; her shield is spent (0/2)
    assert s.fighter(raider_key).health == 2  # Draining's 1, unblockable
    assert enc.events.order_by("-seq")[0].players_text == (
        "Raider's fires (siphon cannon) hits Luwe for 2 Health Levels. Raider takes 1 unblockable damage (Draining)."
    )

    row = fragments.table_html(enc, state(enc), gm=True)
    assert 'aria-label="Shield +1 for Luwe"' in row and 'aria-label="Shield to Full for Luwe"' in row
    go(enc, gm, "recharge_shield", target=key(luwe), points="0")
    assert state(enc).fighter(key(luwe)).shield == 2
    assert enc.events.order_by("-seq")[0].players_text == "The GM recharges Luwe's shield by 2 (2/2)."
    assert 'aria-label="Shield +1 for Luwe"' not in fragments.table_html(enc, state(enc), gm=True)  # full
    go(enc, gm, "undo")
    assert state(enc).fighter(key(luwe)).shield == 0

    services.submit(enc.pk, gm, "end_encounter", {}, "end-enemy-gear")
    luwe.refresh_from_db()
    assert luwe.stats["shield"] == 0 and luwe.stats["health"] == 1
