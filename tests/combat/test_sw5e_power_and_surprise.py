"""SW5e, the audit of issue 18 with scripted dice: power dice spent on shields restore shield points; the settings
say in the notes' words what they default to; ships' Dexterity and Constitution follow their size; and a ship that
hides is checked for surprise too.

Seed: ../shared/seeds/001_a9fbea53989230b2.txt ("Surprise"); facts from ../shared/rules/sw5e-starships.md.
"""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from combat import fragments
from combat.rules import sw5e as sw
from combat.rules.core import replay
from combat.rules.sw5e import ship as ships
from ships.models import Ship
from tests.combat import test_sw5e_table as fight
from tests.combat.helpers import state_of
from tests.combat.phone_forms import forms
from tests.combat.test_sw5e_phone import fight_ship, lantern_first
from tests.combat.test_sw5e_rules import Table, begin, crew, frigate, hawk
from tests.combat.test_sw5e_table import gm_html, key, ok, player_html, sid
from tests.ships.test_ships import ship_data, visible_text

# The fight's fixtures (pytest finds them as names of this module).
tess, oru, vrask, lantern, talon, enc = fight.tess, fight.oru, fight.vrask, fight.lantern, fight.talon, fight.enc

# --- 1. power dice spent on shields -----------------------------------------------------------------------------------


def shields_spend(count=1):
    return sw.SpendPower(actor="mira", system="shields", store="central", count=count)


def test_power_dice_spent_on_shields_restore_what_they_roll():
    """Notes: "Central dice fuel anything ... Spending a die is rolling it"; power dice from the coupling are "spent
    as the rules allow on damage or shields". The Hawk (tier 1: d4) has 16/20 shields."""
    t = begin(hawk_over={"power": {"central": 2, "shields": 1}})
    events = t.do(shields_spend(), faces=[3])
    assert events[0].shield_points == 3
    hawk_now = t.state.ship("hawk")
    assert hawk_now.shields == 19 and hawk_now.stored("central") == 1
    words = sw.describe(replay(sw.evolve, t.initial, t.log[:-1]), events[0], gm=False)
    assert words == (
        "Mira spends 1 power die from the central store on shields (d4 shows 3, total 3), restoring 3 shield points "
        "(shields 19/20)."
    )
    # A system's own dice fuel that system: the shields store's die restores shields too.
    t.do(sw.SpendPower(actor="mira", system="shields", store="shields"), faces=[1])
    assert t.state.ship("hawk").shields == 20


def test_power_dice_restore_shields_only_up_to_the_maximum_and_at_zero_shields():
    t = begin(hawk_over={"power": {"central": 2}, "shields": 18})
    events = t.do(shields_spend(2), faces=[4, 3])  # 7 rolled, 2 points of room
    assert events[0].shield_points == 2 and t.state.ship("hawk").shields == 20
    before = replay(sw.evolve, t.initial, t.log[:-1])
    assert "restoring 2 shield points (shields 20/20)" in sw.describe(before, events[0], gm=True)
    down = begin(hawk_over={"power": {"central": 1}, "shields": 0})
    down.do(shields_spend(), faces=[2])  # unlike passive regeneration, dice work at 0 shield points
    assert down.state.ship("hawk").shields == 2
    full = begin(hawk_over={"power": {"central": 1}, "shields": 20})
    assert full.do(shields_spend(), faces=[4])[0].shield_points == 0
    assert full.state.ship("hawk").stored("central") == 0  # still spent: the die was rolled


def test_dice_for_other_systems_and_the_roll_setting_restore_nothing():
    t = begin(hawk_over={"power": {"central": 1}})
    t.do(sw.SpendPower(actor="mira", system="engines", store="central"), faces=[4])
    assert t.state.ship("hawk").shields == 16
    rolled = begin({"shield_power": "roll"}, hawk_over={"power": {"central": 1}})
    events = rolled.do(shields_spend(), faces=[4])
    assert events[0].shield_points == 0 and rolled.state.ship("hawk").shields == 16
    assert "restoring" not in sw.describe(rolled.state, events[0], gm=True)
    setting = next(s for s in sw.SETTINGS if s.key == "shield_power")
    assert setting.default == "restore" and 'Spending a die is rolling it"' in setting.help


def test_a_shield_spend_stored_before_it_restored_points_replays_as_it_was():
    """Logs written before issue 18 hold no shield points: they replay to the shields they had."""
    t = begin(hawk_over={"power": {"central": 1}})
    stored = {"fighter": "mira", "ship": "hawk", "system": "shields", "store": "central", "sides": 4, "faces": [3]}
    old = sw.CODEC.event_from_json({"kind": "power_spent", "data": stored})
    assert old.shield_points == 0
    after = sw.evolve(t.state, old)
    assert after.ship("hawk").shields == 16 and after.ship("hawk").stored("central") == 0


def test_the_phone_spends_on_shields_and_both_screens_show_the_points_restored(
    enc, gm, player, other_player, tess, oru, talon
):
    lantern_first(enc, gm, player, other_player, tess, oru, talon)  # the Lantern: 20/30 shields, 1 central die
    ok(enc, other_player, "start_crew_turn", actor=key(oru))
    enc.refresh_from_db()
    phone = fragments.me_html(enc, state_of(enc), other_player.pk)
    spend = next(f for f in forms(phone) if f.sends.get("command") == "spend_power")
    assert "Shields" in phone and spend.sends["actor"] == key(oru)
    ok(enc, other_player, "spend_power", dice=[4], actor=key(oru), system="shields", store="central", count=1)
    lantern_id = sid(fight_ship(enc, "Lantern"))
    assert state_of(enc).ship(lantern_id).shields == 24
    said = "Oru spends 1 power die from the central store on shields (d4 shows 4, total 4), restoring 4 shield points"
    assert said in html.unescape(player_html(enc, player))
    gm_page = html.unescape(gm_html(enc))
    assert said in gm_page and "24/30" in gm_page


# --- 2. every setting explains itself ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key_,words",
    [
        ("stealth_ties", '"GM compares Dexterity (Stealth) of hiders with passive Wisdom (Perception).'),
        ("fire_power", '"Spending a die is rolling it"'),
        ("critical", '"Armour: AC 10 + Dex mod"'),
        ("surprised_ship", "\"Surprised crew members: the ship's turn still happens; they skip their individual"),
        ("shield_power", "capped at the shield maximum"),
    ],
)
def test_the_settings_quote_the_notes_and_say_their_default(key_, words):
    setting = next(s for s in sw.SETTINGS if s.key == key_)
    assert words in setting.help and "default" in setting.help


def test_every_sw5e_setting_has_help_and_the_skip_help_says_a_cleared_crew_member_is_skipped():
    assert [s.key for s in sw.SETTINGS if not s.help] == []
    skip = next(s for s in sw.SETTINGS if s.key == "surprised_ship").help
    assert "a crew member the GM cleared of surprise is skipped with the ship" in skip


def test_under_skip_a_crew_member_cleared_of_surprise_is_skipped_with_the_ship():
    """What the surprised_ship help says under "skip": the whole ship turn is lost, the cleared member's too."""
    t = Table(sw.initial_state([hawk(), frigate()], crew(), {"surprised_ship": "skip"}))
    t.do(sw.SetSurprise(target="hawk"))
    t.do(sw.SetSurprise(target="dex", surprised=False))
    for who, face in (("kira", 15), ("dex", 10), ("mira", 12)):
        t.do(sw.RollInitiative(actor=who), faces=[face])
    t.do(sw.SetShipInitiative(ship="frigate", value=20))
    t.do(sw.StartCombat(), faces=[2])
    t.do(sw.DistributePower())
    for who in ("vrask", "tolo"):
        t.do(sw.StartCrewTurn(actor=who))
        t.do(sw.EndCrewTurn(actor=who))
    t.do(sw.EndShipTurn(), faces=[1])  # the Hawk's first turn is lost, Dex's with it; round 2's power core rolls
    assert t.state.round == 2 and t.state.fighter("dex").turns == 1


def test_the_builder_shows_the_sw5e_settings_help(gm_client, campaign, tess, lantern):
    page = html.unescape(
        gm_client.get(reverse("encounter_create", args=[campaign.pk]), {"model": "sw5e"}).content.decode()
    )
    for setting in sw.SETTINGS:
        if setting.key in ("stealth_ties", "fire_power", "critical", "surprised_ship", "shield_power"):
            assert setting.help in page, setting.key


# --- 3. size adjustments to Dexterity and Constitution ----------------------------------------------------------------


@pytest.mark.parametrize(
    "size,dex,con",
    [("tiny", 2, -2), ("small", 1, -1), ("medium", 0, 0), ("large", -1, 1), ("huge", -2, 2), ("gargantuan", -3, 3)],
)
def test_a_size_adjusts_the_dex_and_con_scores_so_half_that_to_the_modifiers(size, dex, con):
    """Notes, "Ship statistics": "Str/Dex/Con adj." Tiny Dex +4, Con −4 ... Gargantuan Dex −6, Con +6; Strength
    never."""
    assert ships.size_adjustment(size, "dex") == dex and ships.size_adjustment(size, "con") == con
    assert ships.size_adjustment(size, "str") == 0
    assert ships.sized_modifier(size, "dex", 1) == 1 + dex


def test_the_adjusted_modifiers_stay_within_what_a_ship_may_have():
    assert ships.sized_modifier("tiny", "con", -10) == -10 and ships.sized_modifier("gargantuan", "con", 20) == 20
    assert ships.sized_modifier("gargantuan", "con", 14) == 17


@pytest.mark.django_db
@pytest.mark.parametrize(
    "size,armour,dex_mod,ac",
    [
        ("tiny", "none", 0, 12),  # Dex +4 to the score: +2
        ("small", "deflection", 1, 12),  # 1 + 1 = 2, at the deflection cap
        ("small", "deflection", 2, 12),  # 2 + 1 = 3, capped at +2
        ("large", "none", 0, 9),
        ("gargantuan", "reinforced", 5, 10),  # 5 − 3 = 2, reinforced counts +0
        ("gargantuan", "deflection", 0, 7),  # a negative Dex is never capped
    ],
)
def test_the_derived_ac_counts_the_size_dex_adjustment_within_the_armour_cap(campaign, size, armour, dex_mod, ac):
    """Notes: "Armour: AC 10 + Dex mod (+ tier bonus); deflection caps Dex at +2 ...; reinforced caps Dex at +0"."""
    ship = Ship(campaign=campaign, name="S", size=size, tier=0, armour=armour, dex_mod=dex_mod)
    assert ship.derived_ac == ac and ship.armour_class == ac
    ship.ac_override = 17  # the GM's typed AC (a tier bonus, say) wins
    assert ship.armour_class == 17


@pytest.mark.django_db
def test_hull_points_count_the_size_con_adjustment_and_typed_maximums_stay_the_gms(gm_client, campaign):
    """Notes: "Hull points: first hull die at max + Con mod, the rest rolled or averaged + Con mod"; Large Con +2.
    Large tier 0: 7 d10; typed Con +1 is +2 with size: 12 + 6 × 8 = 60."""
    create = reverse("ship_create", args=[campaign.pk])
    data = ship_data(name="Big", size="large", tier=0, hull_dice=7, shield_dice=7, points_from_size="on", con_mod=1)
    assert gm_client.post(create, data).status_code == 302
    big = Ship.objects.get(name="Big")
    assert big.con_modifier == 2 and (big.hull, big.hull_max) == (60, 60)
    # Tiny tier 5: 6 d4; Con −4 to the score: typed 0 is −2; first die 4 − 2, the rest 3 − 2; at least 1 a die.
    assert Ship(size="tiny", tier=5, con_mod=0).derived_hull_max == 2 + 5 * 1
    assert Ship(size="tiny", tier=5, con_mod=-1).derived_hull_max == 1 + 5 * 1
    typed = ship_data(name="Typed", size="large", tier=0, hull_dice=7, shield_dice=7, hull=50, hull_max=50, con_mod=1)
    assert gm_client.post(create, typed).status_code == 302
    kept = Ship.objects.get(name="Typed")
    assert kept.hull_max == 50 and kept.derived_hull_max == 60
    page = visible_text(gm_client.get(kept.get_absolute_url()))
    assert "size, tier and Con give 60" in page and "Constitution modifier 2 (1 before size)" in page
    assert "Dexterity modifier -1 (0 before size)" in page and "AC 9 (derived: 10 + Dex -1 with size" in page


@pytest.mark.django_db
def test_the_fight_takes_the_modifiers_with_the_size(gm_client, campaign, tess, oru, lantern, talon):
    """The Red Talon is Small: Con −2 to the score, so its typed 0 is −1 when a Patch adds it."""
    Ship.objects.filter(pk=talon.pk).update(con_mod=0, str_mod=1)
    encounter = fight.build(gm_client, campaign, [tess, oru], {lantern: "ready", talon: "ready"})
    red = state_of(encounter).ship(sid(talon))
    assert (red.con_mod, red.str_mod) == (-1, 1)
    assert state_of(encounter).ship(sid(lantern)).con_mod == 1  # Medium: no adjustment


def test_the_ship_form_help_says_what_the_worked_out_numbers_include():
    fields = {f.name: str(f.help_text) for f in Ship._meta.get_fields() if hasattr(f, "help_text")}
    assert "Tiny +4, Small +2, Large −2, Huge −4, Gargantuan −6" in fields["dex_mod"]
    assert "Tiny −4, Small −2, Large +2, Huge +4, Gargantuan +6" in fields["con_mod"]
    assert '"(+ tier bonus)" gives no numbers, so it is not included' in fields["ac_override"]
    assert "each with the size's adjustment" in fields["points_from_size"]


# --- 4. both sides hide ----------------------------------------------------------------------------------------------


def stealthy(settings=None):
    f = sw.fighter_from_sheet
    fighters = (
        f("kira", "Kira", "pc", 1, {"passive_perception": 14, "stealth_mod": 3}),
        f("dex", "Dex", "pc", 2, {"passive_perception": 10}),
        f("mira", "Mira", "pc", 3, {"passive_perception": 12}),
        f("vrask", "Captain Vrask", "enemy", None, {"stealth_mod": 2, "passive_perception": 13}),
        f("tolo", "Tolo", "enemy", None, {"passive_perception": 11}),
    )
    return Table(sw.initial_state([hawk(), frigate()], fighters, settings))


def test_when_both_sides_hide_each_side_is_checked_against_the_others_stealth():
    """Seed: "the GM compares the Dexterity (Stealth) checks of anyone hiding with the passive Wisdom (Perception)
    score of each creature on the opposing side. Any ship that doesn't notice a threat is surprised"."""
    t = stealthy()
    # Hawk crew: Kira 17 + 3 = 20, Dex 15, Mira 14; frigate crew: Vrask 10 + 2 = 12, Tolo 15.
    t.do(sw.WorkOutSurprise(hiders=("hawk", "frigate")), faces=[17, 15, 14, 10, 15])
    assert t.state.ship("frigate").surprised  # Vrask's 13 and Tolo's 11 beat none of 20, 15, 14
    assert not t.state.ship("hawk").surprised  # Kira's 14 beats Vrask's 12; Mira's 12 only ties it (stays hidden)
    hawk_crew = {f.id: t.state.surprised_now(f) for f in t.state.crew("hawk")}
    assert hawk_crew == {"kira": False, "dex": True, "mira": True}


def test_when_both_sides_hide_and_both_notice_nobody_is_surprised():
    t = stealthy()
    t.do(sw.WorkOutSurprise(hiders=("frigate", "hawk")), faces=[1, 1, 1, 1, 1])
    assert not t.state.ship("hawk").surprised and not t.state.ship("frigate").surprised
    assert not any(t.state.surprised_now(f) for f in t.state.fighters)


def test_a_ship_that_hides_alone_keeps_what_the_gm_set():
    t = stealthy()
    t.do(sw.SetSurprise(target="frigate"))
    t.do(sw.WorkOutSurprise(hiders=("frigate",)), faces=[20, 20])
    assert t.state.ship("frigate").surprised  # nobody hid against it: the GM's word stands
    assert t.state.ship("hawk").surprised
