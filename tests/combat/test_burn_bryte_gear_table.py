"""Burn Bryte gear at the table (issue 18), through the services as the phone and the GM's screen post it: the
sheet's weapon and shield on the phone, a Burst the GM places, the ship's MI Health Levels on the table, and what
goes back to the sheets and the ship at the end."""

import pytest

from campaigns.models import Character
from combat import fragments, services
from ships.models import Ship
from tests.combat.helpers import act as go
from tests.combat.helpers import combatant_key as key
from tests.combat.helpers import page_text as text
from tests.combat.helpers import state_of as state
from tests.combat.helpers import valid_sheet

pytestmark = pytest.mark.django_db


@pytest.fixture
def luwe(campaign, player):
    sheet = valid_sheet(
        "burn_bryte", skill_ranged=8, weapon_name=["grenade launcher"], weapon_burst=2, shield=1, shield_max=1
    )
    return Character.objects.create(campaign=campaign, name="Luwe", owner=player, system="burn_bryte", stats=sheet)


@pytest.fixture
def ark(campaign):
    return Ship.objects.create(campaign=campaign, name="Ark", livability_rating=2, mi_health=2, mi_health_max=3)


@pytest.fixture
def enc(campaign, gm, luwe, npc, ark):
    encounter = services.create_encounter(
        campaign, gm, name="Dock", model="burn_bryte", pcs=[luwe], enemies=[(npc, 2)], ship=ark
    )
    return services.start_encounter(encounter, gm)


def test_a_burst_from_the_phone_is_placed_on_the_gms_screen_and_shields_and_the_ship_show(
    enc, gm, player, luwe, npc, ark
):
    go(enc, gm, "declare", enemy=key(npc, 1), target=key(luwe), text="claws")
    go(enc, gm, "declare", enemy=key(npc, 2), target=key(luwe), text="bites")
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(luwe))
    phone = fragments.me_html(enc, state(enc), player.pk)
    assert "Weapon: grenade launcher (Burst 2)" in text(phone) and "1/1" in phone
    assert "to each creature the GM puts in the Burst 2 area" in text(phone)
    assert "Burst at Nivick 1" in phone and 'name="damage"' not in phone  # damage comes from the weapon

    go(enc, player, "skill_roll", faces=(2, 5), actor=key(luwe), skill="Ranged", intent="attack", target=key(npc, 1))
    gm_screen = fragments.gm_html(enc, state(enc))
    assert 'value="place_burst"' in gm_screen and "Luwe’s Burst 2 (grenade launcher)" in gm_screen
    table = fragments.table_html(enc, state(enc), gm=False)
    assert "Luwe’s Burst 2 hit for 1 each: the GM says who is in the area." in table
    assert "Ark’s MI" in table and "2/3 HL" in table

    go(enc, gm, "place_burst", targets=[key(npc, 1), key(npc, 2)])
    s = state(enc)
    assert [f.health for f in s.enemies()] == [2, 2] and s.pending_burst is None

    go(enc, gm, "damage_ship", change="-2")
    table = fragments.table_html(enc, state(enc), gm=False)
    assert "dark" in table and "The ship has gone dark: the GM says what that means for the crew." in table

    services.submit(enc.pk, gm, "end_encounter", {}, "end-gear")
    ark.refresh_from_db()
    luwe.refresh_from_db()
    assert ark.mi_health == 0  # the MI's Health Levels go back to the ship
    assert luwe.stats["shield"] == 1
