"""The Expanse (AGE) on the table: the builder, the GM's screen, the player's phone, the act endpoint, the
websocket, permissions, what players never see, query counts and hostile input.

Dice are scripted through `services.submit(..., dice=ScriptedDice(...))`, or typed in as physical dice through
the real act endpoint. Combatants are ordered enemies first (Combatant.Meta.ordering), so initiative dice go
to the Thugs, then Rosa, then Marcus. Rosa's pistol attack is Accuracy 3 + Pistols 2 = +5; Marcus's is +2;
a Thug has Defense 17 (a GM-only number no player may see), Toughness 1 and no Fortune.
"""

from __future__ import annotations

import functools
import html
import re

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.models import Character
from combat import fragments, review, services, store
from combat.models import Encounter, EncounterEvent
from combat.rules import expanse as ex
from combat.rules.dice import ScriptedDice
from tests.combat.helpers import combatant_key, inline_edit, state_of, valid_sheet
from tests.conftest import examples

pytestmark = pytest.mark.django_db

sheet = functools.partial(valid_sheet, "expanse")
key = combatant_key

SECRET_NUMBERS = "Defense 17"  # the Thugs' Defense: only the GM's screen may show it


@pytest.fixture
def rosa(campaign, player):
    return Character.objects.create(
        campaign=campaign,
        name="Rosa",
        owner=player,
        system="expanse",
        stats=sheet(
            accuracy=3,
            dexterity=3,
            constitution=2,
            perception=2,
            defense=13,
            toughness=2,
            armour="light",
            focuses="Dexterity (Initiative), Accuracy (Pistols)",
            fortune=18,
            fortune_max=18,
            level=2,
            weapons="Pistol",
        ),
    )


@pytest.fixture
def marcus(campaign, other_player):
    return Character.objects.create(
        campaign=campaign,
        name="Marcus",
        owner=other_player,
        system="expanse",
        stats=sheet(
            accuracy=2,
            fighting=3,
            strength=3,
            constitution=3,
            defense=11,
            toughness=3,
            fortune=15,
            fortune_max=15,
            level=2,
            weapons="Pistol, Heavy melee weapon",
        ),
    )


@pytest.fixture
def thug(campaign):
    return Character.objects.create(
        campaign=campaign,
        name="Thug",
        kind="npc",
        system="expanse",
        is_template=True,
        quantity=2,
        stats=sheet(
            accuracy=2, fighting=2, perception=1, defense=17, toughness=1, fortune=0, fortune_max=0, weapons="Pistol"
        ),
        gm_notes="SECRET-NPC-NOTE",
    )


def build(campaign, gm, pcs, npc, quantity=2, hidden=(), **settings_):
    encounter = services.create_encounter(
        campaign,
        gm,
        name="Tycho dock",
        model="expanse",
        pcs=pcs,
        enemies=[(npc, quantity)],
        settings=settings_,
        hidden=set(hidden),
    )
    return services.start_encounter(encounter, gm)


@pytest.fixture
def enc(campaign, gm, rosa, marcus, thug):
    return build(campaign, gm, [rosa, marcus], thug)


def go(enc, user, name, dice=(), **data):
    go.n = getattr(go, "n", 0) + 1
    return services.submit(enc.pk, user, name, data, f"t{go.n}", dice=ScriptedDice(dice))


def roll_initiative(enc, gm, faces: dict[str, tuple[int, int, int]]):
    """Initiative with chosen dice per combatant (in the state's order)."""
    state = state_of(enc)
    dice = [d for f in state.fighters for d in faces[f.id]]
    assert go(enc, gm, "roll_initiative", dice=dice).ok


def begin(enc, gm, rosa, marcus, thug):
    """Rosa (21) first, then Marcus (12), Thug 1 (6) and Thug 2 (5); Rosa's turn begins."""
    faces = {key(rosa): (6, 6, 5), key(marcus): (4, 4, 3), key(thug, 1): (1, 2, 2), key(thug, 2): (1, 1, 2)}
    roll_initiative(enc, gm, faces)
    assert go(enc, gm, "next_turn").ok


def version_of(enc) -> int:
    enc.refresh_from_db()
    return enc.version


def act_url(enc):
    return reverse("encounter_act", args=[enc.campaign_id, enc.pk])


def post(client, enc, command, key_=None, **data):
    post.n = getattr(post, "n", 0) + 1
    return client.post(
        act_url(enc), {"command": command, "key": key_ or f"p{post.n}", **data}, headers={"HX-Request": "true"}
    )


def me(enc, user):
    enc.refresh_from_db()
    return fragments.me_html(enc, store.load_state(enc), user.pk)


def player_html(enc, user):
    enc.refresh_from_db()
    state = store.load_state(enc)
    return fragments.for_players(enc, state) + fragments.me_html(enc, state, user.pk)


def gm_html(enc):
    enc.refresh_from_db()
    return fragments.for_gm(enc, store.load_state(enc))


def notice(response) -> str:
    found = re.search(r'class="notice[^"]*" role="alert">([^<]*)<', response.content.decode())
    return html.unescape(found.group(1)) if found else ""


def assert_no_gm_fact(html: str, enc) -> None:
    assert "SECRET" not in html
    assert SECRET_NUMBERS not in html
    assert "GM controls" not in html
    assert "npc-stats" not in html and "gm-only" not in html
    assert f'id="enc-{enc.pk}-gm"' not in html
    assert "gm-inline" not in html and "inline-edit" not in html and "Fortune -1 for" not in html  # quick edits


# --- the builder -------------------------------------------------------------------------------------------------


def test_the_builder_offers_the_expanse_settings_and_starts_an_encounter(gm_client, campaign, rosa, marcus, thug):
    url = reverse("encounter_create", args=[campaign.pk])
    page = gm_client.get(url, {"model": "expanse"}, headers={"HX-Request": "true"}).content.decode()
    assert "Players may enter the faces of physical dice" in page and "More stunts for this encounter" in page
    assert "cannot be played yet" not in page
    form = {
        "name": "Dock fight",
        "model": "expanse",
        "pcs": [rosa.pk, marcus.pk],
        f"npc_{thug.pk}": "2",
        "setting_fortune_die_cost": "2",
        "setting_fortune_drama_cost": "3",
        "setting_injured_penalty": "1",
        "setting_wounded_penalty": "2",
        "setting_long_range_penalty": "2",
        "setting_prepare_interrupt": "gm",
        "setting_churn_jam_cost": "1",
        "setting_weapons_at_start": "in_hand",
        "setting_churn_over": "roll",
        "setting_injury_penalties": "worst",
        "setting_entered_dice": "on",
        "extra_stunts": "Called Shot 4; Feint 1-3",
    }
    response = gm_client.post(url, {**form, "extra_stunts": "Feint"})
    assert response.status_code == 400 and "needs a name and a cost" in response.content.decode()
    response = gm_client.post(url, {**form, "extra_stunts": "Momentum 2"})
    assert response.status_code == 400 and "There is already a stunt called Momentum" in response.content.decode()
    assert not Encounter.objects.exists()
    response = gm_client.post(url, form)
    assert response.status_code == 302
    encounter = Encounter.objects.get()
    state = store.load_state(encounter)
    assert encounter.status == "active" and state.settings["entered_dice"] is True
    assert {s.name for s in state.stunts} >= {"Called Shot", "Feint", "Lightning Attack"}
    assert sorted(f.name for f in state.fighters) == ["Marcus", "Rosa", "Thug 1", "Thug 2"]
    assert state.fighter(key(rosa)).weapons == ("pistol",)
    assert state.fighter(key(rosa)).owner == rosa.owner_id


# --- the GM's screen ---------------------------------------------------------------------------------------------


def test_the_gm_sees_the_order_with_totals_drama_dice_and_ties_and_breaks_them(enc, gm, rosa, marcus, thug):
    html = gm_html(enc)
    assert "Roll initiative for everyone" in html and "GM controls" in html and "SECRET-NPC-NOTE" in html
    # Rosa 2+3+4 + Dex 3 - light armour 1 + Initiative 2 = 13 (DD 4); Marcus 4+4+4 + Dex 1 = 13 (DD 4): a full
    # tie; Thug 1: 1+2+3 + 1 = 7; Thug 2: 4.
    roll_initiative(
        enc, gm, {key(thug, 1): (1, 2, 3), key(thug, 2): (1, 1, 1), key(rosa): (2, 3, 4), key(marcus): (4, 4, 4)}
    )
    state = state_of(enc)
    assert state.order[:2] == (key(rosa), key(marcus))
    html = gm_html(enc)
    for text in (
        '13 <span class="die drama" title="Drama Die">DD 4</span>',
        "tied",
        "Tied on initiative and the Drama Die: Rosa, Marcus.",
        "Break the tie",
        "Begin the first turn",
    ):
        assert text in html, text
    words = re.sub(r"<[^>]+>", "", html)  # the numbers as read, across the spans a stream overlay hides
    assert "Defense 17 · Toughness 1 · Fortune 0/0" in words
    assert "Defense 13 · Toughness 4 · Fortune 18/18" in words
    assert html.count('class="badge tie"') == 2
    assert go(enc, gm, "break_tie", first=key(marcus), second=key(rosa)).ok
    assert state_of(enc).order[:2] == (key(marcus), key(rosa))
    html = gm_html(enc)
    assert html.index('<span class="who">Marcus') < html.index('<span class="who">Rosa')
    assert go(enc, gm, "next_turn").ok
    html = gm_html(enc)
    assert "Break the tie" not in html  # settled once the first turn begins
    assert "Acting: Marcus" in html and "End this turn, start the next" in html


def test_the_gm_attacks_with_an_npc_and_resolves_its_damage(enc, gm, player, rosa, marcus, thug):
    begin(enc, gm, rosa, marcus, thug)
    for _ in range(2):
        assert go(enc, gm, "next_turn").ok
    state = state_of(enc)
    assert state.turn == key(thug, 1)
    html = gm_html(enc)
    assert "Acting: Thug 1" in html and "Rosa · Defense 13" in html and "GM’s modifier" in html
    # 4+5+6 + Accuracy 2 + Pistols? (no focus) = 17 hits Rosa; 2d6 6+6 + Perception 1 = 13, Toughness 4: 9.
    assert go(
        enc,
        gm,
        "attack",
        dice=[4, 5, 6, 6, 6],
        actor=key(thug, 1),
        action="ranged_attack",
        weapon="pistol",
        target=key(rosa),
        distance=10,
    ).ok
    html = me(enc, player)
    assert 'data-may-act="1"' in html and "You may act now." in html
    assert "13 damage − Toughness 4 = 9" in html and "9 damage</strong> to absorb" in html
    assert 'name="points" value="9" min="0" max="9"' in html
    assert "Damage waiting" in gm_html(enc)  # the GM may step in for an absent player
    # Rosa hits back in her turn; the Thug's damage is the GM's to resolve.
    assert go(enc, gm, "next_turn").ok
    assert go(enc, gm, "next_turn").ok
    assert state_of(enc).turn == key(rosa)
    assert go(
        enc,
        player,
        "attack",
        dice=[6, 6, 5, 4, 4],
        actor=key(rosa),
        action="ranged_attack",
        weapon="pistol",
        target=key(thug, 2),
    ).ok
    html = gm_html(enc)
    assert "Thug 2</strong> is hit by Rosa" in html
    assert go(enc, gm, "accept_condition", dice=[6], actor=key(thug, 2)).ok  # 10 - 1 = 9: Injured absorbs 6
    assert go(enc, gm, "accept_condition", actor=key(thug, 2), choice="taken_out").ok
    assert state_of(enc).fighter(key(thug, 2)).out
    assert "Thug 2 is dealing with damage" not in player_html(enc, player)


def test_the_gm_adds_a_stunt_and_the_players_picker_offers_it(enc, gm, player, rosa, marcus, thug):
    begin(enc, gm, rosa, marcus, thug)
    assert go(enc, gm, "add_stunt", stunt="Called Shot", cost=3, max_cost=3, text="Aim for the weak spot").ok
    assert "Called Shot</strong> 3 SP" in gm_html(enc)
    assert go(
        enc,
        player,
        "attack",
        dice=[5, 5, 4, 2, 2],
        actor=key(rosa),
        action="ranged_attack",
        weapon="pistol",
        target=key(thug, 1),
    ).ok
    html = me(enc, player)
    assert "Stunt points to spend: 4" in html and "Called Shot (3 SP)" in html
    assert not go(enc, player, "add_stunt", stunt="Feint", cost=1).ok


def test_undo_and_end_with_breathers_write_back_fortune_and_conditions(enc, gm, player, rosa, marcus, thug):
    begin(enc, gm, rosa, marcus, thug)
    for _ in range(2):
        go(enc, gm, "next_turn")
    go(
        enc,
        gm,
        "attack",
        dice=[4, 5, 6, 6, 6],
        actor=key(thug, 1),
        action="ranged_attack",
        weapon="pistol",
        target=key(rosa),
    )
    assert go(enc, player, "spend_fortune", actor=key(rosa), points=5).ok
    assert go(enc, player, "accept_condition", dice=[4], actor=key(rosa)).ok  # 4 left: Injured absorbs 4
    before = state_of(enc)
    assert go(enc, gm, "set_condition", target=key(rosa), condition="Prone").ok
    assert go(enc, gm, "undo").ok
    assert state_of(enc) == before
    assert "<s>Rosa gains the Prone condition.</s>" in gm_html(enc)
    # Breather: 1d6 3 + Constitution 2 + level 2 = 7 Fortune back (13 -> 18 at most).
    assert go(enc, gm, "breathers", dice=[1, 1, 3, 1]).ok
    assert "Breathers are taken. End the encounter" in gm_html(enc)
    assert services.submit(enc.pk, gm, "end_encounter", {}, "end").ok
    rosa.refresh_from_db()
    assert rosa.stats["fortune"] == 18 and rosa.stats["conditions"] == ["Injured"]
    rosa.full_clean()
    thug.refresh_from_db()
    assert thug.stats["fortune"] == 0 and thug.stats["conditions"] == []  # NPC templates are left alone


def test_the_gms_quick_edits_step_fortune_and_toggle_conditions_and_undo_takes_them_back(
    enc, gm, gm_client, player, rosa, marcus, thug
):
    begin(enc, gm, rosa, marcus, thug)
    r, t1 = key(rosa), key(thug, 1)
    table = gm_html(enc)
    assert "Fortune +1 for Rosa" not in table  # at its maximum: not offered
    thug_row = table.split("Thug 1", 1)[1].split("</li>", 1)[0]
    assert 'class="inline-pool">Fortune' not in thug_row and "Conditions" in thug_row  # Fortune 0 of 0: no steps
    assert notice(post(gm_client, enc, **inline_edit(table, "Fortune -1 for Rosa"))) == ""
    assert state_of(enc).fighter(r).fortune == 17
    assert "Fortune 17/18" in player_html(enc, player)
    assert notice(post(gm_client, enc, **inline_edit(gm_html(enc), "Fortune +1 for Rosa"))) == ""
    version = version_of(enc)
    assert notice(post(gm_client, enc, "adjust_fortune", target=r, change="1")) == (
        "Rosa's Fortune is already at its maximum."
    )
    assert version_of(enc) == version
    assert notice(post(gm_client, enc, "undo")) == ""  # Fortune +1 undone
    assert state_of(enc).fighter(r).fortune == 17

    fields = inline_edit(gm_html(enc), "Add Prone for Thug 1")
    assert fields == {**fields, "command": "set_condition", "target": t1, "condition": "Prone", "on": "1"}
    assert notice(post(gm_client, enc, **fields)) == ""
    assert "Prone" in state_of(enc).fighter(t1).conditions
    assert "Prone" in player_html(enc, player)  # the table shows an enemy's conditions
    assert notice(post(gm_client, enc, "set_condition", target=t1, condition="Prone", on="1")) == (
        "Thug 1 already has the Prone condition."
    )
    assert 'class="held">Prone</button>' in gm_html(enc)
    assert notice(post(gm_client, enc, **inline_edit(gm_html(enc), "Remove Prone for Thug 1"))) == ""
    assert "Prone" not in state_of(enc).fighter(t1).conditions
    assert notice(post(gm_client, enc, "undo")) == ""
    assert "Prone" in state_of(enc).fighter(t1).conditions
    assert_no_gm_fact(player_html(enc, player), enc)


# --- the player's phone ---------------------------------------------------------------------------------------------


@pytest.fixture
def physical(campaign, gm, rosa, marcus, thug):
    """The same fight with physical dice allowed: faces typed into the act endpoint decide the rolls."""
    return build(campaign, gm, [rosa, marcus], thug, entered_dice=True)


def test_the_phone_shows_the_actions_left_and_the_attack_builder_before_rolling(enc, gm, player, rosa, marcus, thug):
    begin(enc, gm, rosa, marcus, thug)
    html = me(enc, player)
    # The banner shows it; the page's one live region (#turn-say, filled by table.js) says it in the words of data-say.
    assert 'data-your-turn="1"' in html and '<p class="banner turn">Your turn!</p>' in html
    assert 'data-say="Your turn."' in html and "aria-live" not in html and 'role="alert"' not in html
    assert "A major and a minor action, or two minor actions." in html
    assert '<option value="pistol" selected>Pistol: 3d6 + 5</option>' in html  # the sheet's weapon, and unarmed
    assert "Pistol</strong> 3d6 + 5 (Accuracy +3, Pistols +2); 50 m, to 75 m at -2; damage 2d6 + Per" in html
    assert '<option value="npc' in html and "Thug 1</option>" in html and "Defense 17" not in html
    assert "Human-sized (bicycle, kiosk): TN 11" in html
    assert "Physical dice" not in html  # the server rolls in this encounter
    for label in (
        "Defend (+2 Defense until your next turn)",
        "Run (up to 20 m; it takes your whole turn)",
        "Aim (+1 on the next attack)",
        "Guard Up +1",
        "Guard Up +2",
        ">Move</button>",
        ">Prepare</button>",
        ">Ready</button>",
        ">Stand Firm</button>",
        ">Activate</button>",
        "an ability test",
        "End my turn",
        "Roll over (bow out of the fight)",
    ):
        assert label in html, label
    # Aim and Guard Up change the roll shown; cover hampers a ranged attack.
    assert go(enc, player, "guard_up", actor=key(rosa), bonus=2).ok
    html = me(enc, player)
    assert "Pistol: 3d6 + 3" in html and "Guard Up -2" in html and "Defense <strong>15</strong>" in html
    assert "A major or a minor action." in html and "Guard Up +1" not in html
    assert "Guard Up +2 Defense and -2 on tests until the end of the round" in html
    assert go(enc, gm, "set_cover", target=key(rosa), rating=2).ok
    assert "Pistol: 3d6 + 1" in me(enc, player) and "your cover -2" in me(enc, player)
    assert go(
        enc,
        player,
        "attack",
        dice=[1, 2, 3],
        actor=key(rosa),
        action="ranged_attack",
        weapon="pistol",
        target=key(thug, 1),
    ).ok
    html = me(enc, player)
    assert "No actions left: end your turn when you are done." in html and "Roll the attack" not in html
    assert "Spend Fortune to change a die (1, 2, 3: 7, a failure)" in html
    assert "Change it (3 Fortune)" in html and "Change it (2 Fortune)" in html
    assert go(enc, player, "end_turn", actor=key(rosa)).ok
    html = me(enc, player)
    assert 'data-your-turn="0"' in html and "Your turn!" not in html and "End my turn" not in html


def test_the_stunt_picker_offers_what_the_budget_allows_each_once_a_round(
    physical, client, gm, player, rosa, marcus, thug
):
    begin(physical, gm, rosa, marcus, thug)
    assert go(physical, gm, "add_stunt", stunt="Called Shot", cost=5, max_cost=5).ok
    phone = client_for_user(client, player)
    html = me(physical, player)
    assert "Physical dice (optional): three faces, the Drama Die last" in html
    response = post(
        phone,
        physical,
        "attack",
        actor=key(rosa),
        action="ranged_attack",
        weapon="pistol",
        target=key(thug, 1),
        distance="10",
        entered="5 5 4",
        damage_entered="1, 1",
    )
    assert notice(response) == ""
    state = state_of(physical)
    assert state.tests[-1].entered and state.tests[-1].damage_faces == (1, 1) and state.fighter(key(rosa)).sp == 4
    html = me(physical, player)
    assert "Stunt points to spend: 4" in html
    assert "Lightning Attack (2 SP)" in html and "Duck and Weave (1-3 SP)" in html and "Called Shot" not in html
    assert '<option value="4">4 SP</option>' in html  # Guardian Angel 1+: up to the budget
    assert "(physical dice)" in player_html(physical, player)  # the log says so
    response = post(phone, physical, "spend_stunt", actor=key(rosa), stunt="duck_and_weave", points="3")
    assert notice(response) == ""
    html = me(physical, player)
    assert "Stunt points to spend: 1" in html and "Defense <strong>16</strong>" in html
    assert "Duck and Weave (" not in html and "Knock Prone (2 SP)" not in html and "Adrenaline Rush (1-3 SP)" in html
    version = version_of(physical)
    response = post(phone, physical, "spend_stunt", actor=key(rosa), stunt="momentum", points="2")
    assert notice(response) == "Rosa has only 1 stunt point."
    response = post(phone, physical, "spend_stunt", actor=key(rosa), stunt="duck_and_weave", points="1")
    assert notice(response) == "Rosa has already used Duck and Weave this round."
    assert version_of(physical) == version
    post(phone, physical, "end_turn", actor=key(rosa))
    assert state_of(physical).fighter(key(rosa)).sp == 0
    assert "losing 1 unspent stunt point" in player_html(physical, player)
    assert "Stunt points to spend" not in me(physical, player)


def client_for_user(client, user):
    client.logout()
    client.force_login(user)
    return client


def test_a_jammed_gun_shows_on_the_phone_and_a_minor_action_clears_it(
    physical, client, gm, player, other_player, rosa, marcus, thug
):
    begin(physical, gm, rosa, marcus, thug)
    assert go(physical, player, "end_turn", actor=key(rosa)).ok
    phone = client_for_user(client, other_player)
    response = post(
        phone,
        physical,
        "attack",
        actor=key(marcus),
        action="ranged_attack",
        weapon="pistol",
        target=key(thug, 2),
        entered="1 1 6",
    )  # 8 + 2 against Defense 17: a miss, Drama Die 6
    assert notice(response) == ""
    html = me(physical, other_player)
    assert "Your pistol is jammed or out of ammunition: a minor action clears it." in html
    assert "Clear the jam: Pistol" in html
    assert "Stunt points to spend" not in html  # doubles on a miss earn nothing
    assert "the pistol jams or runs dry (Drama Die 6)" in player_html(physical, other_player)
    assert "jammed: Pistol" in player_html(physical, player)  # the table shows it to everyone
    post(phone, physical, "end_turn", actor=key(marcus))
    for _ in range(2):
        assert go(physical, gm, "next_turn").ok
    assert go(physical, player, "end_turn", actor=key(rosa)).ok
    assert state_of(physical).round == 2 and state_of(physical).turn == key(marcus)
    html = me(physical, other_player)
    assert '<option value="pistol" disabled>Pistol: 3d6 + 2 (jammed)</option>' in html
    assert '<option value="heavy_melee" disabled>Heavy melee weapon: 3d6 + 3 (Ready first)</option>' in html
    assert '<option value="unarmed" selected>' in html  # his pistol is in hand, the heavy weapon stowed
    response = post(
        phone,
        physical,
        "attack",
        actor=key(marcus),
        action="ranged_attack",
        weapon="pistol",
        target=key(thug, 2),
        entered="6 6 6",
    )
    assert notice(response) == "Marcus's pistol is jammed or out of ammunition; a minor action fixes it."
    response = post(phone, physical, "clear_jam", actor=key(marcus), weapon="pistol")
    assert notice(response) == ""
    html = me(physical, other_player)
    assert "is jammed" not in html and "One minor action." not in html and "A major or a minor action." in html
    assert "clears the jam in their pistol" in player_html(physical, other_player)
    response = post(
        phone,
        physical,
        "attack",
        actor=key(marcus),
        action="ranged_attack",
        weapon="pistol",
        target=key(thug, 2),
        entered="6 5 4",
        damage_entered="2 2",
    )
    assert notice(response) == "" and state_of(physical).tests[-1].success


@pytest.mark.parametrize(
    "fields,sentence",
    [
        ({"entered": "5 5"}, "Enter the three dice of the test, the Drama Die last."),
        ({"entered": "7 1 1"}, "Each die of a test shows a face from 1 to 6."),
        ({"entered": "five"}, "Entered must be a whole number."),
        ({"entered": "5 5 5", "damage_entered": "3"}, "The damage is 2d6: enter 2 dice or none."),
        ({"damage_entered": "9 1"}, "Each damage die shows a face from 1 to 6."),
        ({"weapon": "banana"}, "Choose one of the weapon types."),
        ({"distance": "lots"}, "Distance must be a whole number."),
        ({"distance": "80"}, "Thug 1 is out of range: the pistol reaches 75 m."),
        ({"target": "npc999999-1"}, "That combatant is not in this encounter."),
        ({"action": "defend"}, "Choose All-Out Attack, Charge, Melee Attack, Ranged Attack or Stunt Attack."),
        ({"action": "melee_attack"}, "Melee Attack is made in close combat, not with a pistol."),
    ],
)
def test_bad_attack_input_is_a_sentence_and_changes_nothing(
    physical, client, gm, player, rosa, marcus, thug, fields, sentence
):
    begin(physical, gm, rosa, marcus, thug)
    version = version_of(physical)
    phone = client_for_user(client, player)
    form = {
        "actor": key(rosa),
        "action": "ranged_attack",
        "weapon": "pistol",
        "target": key(thug, 1),
        "distance": "10",
        **fields,
    }
    response = post(phone, physical, "attack", **form)
    assert response.status_code == 200 and notice(response) == sentence
    physical.refresh_from_db()
    assert physical.version == version


def test_physical_dice_are_refused_when_the_server_rolls(enc, client, gm, player, rosa, marcus, thug):
    begin(enc, gm, rosa, marcus, thug)
    version = version_of(enc)
    response = post(
        client_for_user(client, player),
        enc,
        "attack",
        actor=key(rosa),
        action="ranged_attack",
        weapon="pistol",
        target=key(thug, 1),
        entered="5 5 4",
    )
    assert notice(response) == "The GM has the server roll the dice in this encounter."
    assert version_of(enc) == version


def test_the_damage_choice_spends_fortune_takes_conditions_and_rolls_over(
    enc, client, gm, player, other_player, rosa, marcus, thug
):
    begin(enc, gm, rosa, marcus, thug)
    for _ in range(2):
        go(enc, gm, "next_turn")
    assert go(
        enc,
        gm,
        "attack",
        dice=[4, 5, 6, 6, 6],
        actor=key(thug, 1),
        action="ranged_attack",
        weapon="pistol",
        target=key(rosa),
    ).ok  # 13 damage, Toughness 4: 9 to absorb
    phone = client_for_user(client, player)
    version = version_of(enc)
    assert notice(post(phone, enc, "spend_fortune", actor=key(rosa), points="lots")) == "Points must be a whole number."
    assert notice(post(phone, enc, "spend_fortune", actor=key(rosa), points="10")) == (
        "Rosa can spend 0 to 9 Fortune on this damage."
    )
    other = Client_as(other_player)
    assert notice(post(other, enc, "spend_fortune", actor=key(rosa), points="1")) == (
        "You can act only for your own character."
    )
    assert version_of(enc) == version
    assert notice(post(phone, enc, "spend_fortune", actor=key(rosa), points="4")) == ""
    html = me(enc, player)
    assert "Fortune <strong>14</strong>/18" in html and "5 damage</strong> to absorb" in html
    assert "Fortune to spend" not in html and "Take Injured (absorbs 1d6)" in html and "Be taken out" in html
    assert go(enc, player, "accept_condition", dice=[2], actor=key(rosa)).ok
    html = me(enc, player)
    assert "3 damage</strong> to absorb" in html and "Take Wounded (absorbs 1d6)" in html
    assert "Conditions: Injured" in html
    assert notice(post(phone, enc, "roll_over", actor=key(rosa), condition="Wounded")) == ""
    assert "You asked to roll over with the Wounded condition; the GM decides." in me(enc, player)
    assert "<strong>Rosa</strong> asks to roll over with the Wounded condition." in gm_html(enc)
    assert go(enc, gm, "approve_roll_over", fighter=key(rosa), approve=True, condition="Wounded").ok
    state = state_of(enc)
    assert state.fighter(key(rosa)).rolled_over and not any(h.open for h in state.hits)
    html = me(enc, player)
    assert "to absorb" not in html and 'data-may-act="0"' in html
    assert "rolled over" in player_html(enc, player)


def Client_as(user):
    from django.test import Client

    c = Client()
    c.force_login(user)
    return c


def test_being_taken_out_from_the_phone(enc, client, gm, player, rosa, marcus, thug):
    begin(enc, gm, rosa, marcus, thug)
    for _ in range(2):
        go(enc, gm, "next_turn")
    go(
        enc,
        gm,
        "attack",
        dice=[4, 5, 6, 6, 6],
        actor=key(thug, 1),
        action="ranged_attack",
        weapon="pistol",
        target=key(rosa),
        damage_ability="",
    )
    response = post(client_for_user(client, player), enc, "accept_condition", actor=key(rosa), choice="taken_out")
    assert notice(response) == ""
    assert state_of(enc).fighter(key(rosa)).out
    assert "Rosa is taken out." in player_html(enc, player) and "taken out</span>" in player_html(enc, player)


def test_a_prepared_action_lets_the_player_act_when_the_gm_calls_the_interrupt(enc, gm, player, rosa, marcus, thug):
    begin(enc, gm, rosa, marcus, thug)
    assert go(enc, player, "prepare", actor=key(rosa), action="ranged_attack").ok
    assert state_of(enc).turn == key(marcus)
    html = me(enc, player)
    assert 'data-may-act="0"' in html and "Prepared: Ranged Attack" in html
    assert "Interrupt now: Rosa (Ranged Attack)" in gm_html(enc)
    assert go(enc, gm, "interrupt", fighter=key(rosa)).ok
    html = me(enc, player)
    assert 'data-may-act="1"' in html and "You may act now." in html
    assert "Interrupt now with your prepared Ranged Attack." in html
    builder = html[html.index('name="action"') : html.index("</select>", html.index('name="action"'))]
    assert builder.count("<option") == 1 and "Ranged Attack" in builder
    assert "Defend (+2" not in html and "End my turn" not in html
    assert "Marcus</strong>’s turn — <strong>Rosa</strong> interrupts" in player_html(enc, player)
    assert go(
        enc,
        player,
        "attack",
        dice=[1, 2, 3],
        actor=key(rosa),
        action="ranged_attack",
        weapon="pistol",
        target=key(thug, 1),
    ).ok
    assert 'data-may-act="0"' in me(enc, player) and state_of(enc).turn == key(marcus)


def test_players_may_interrupt_themselves_by_setting(campaign, gm, player, rosa, marcus, thug):
    encounter = build(campaign, gm, [rosa, marcus], thug, prepare_interrupt="player")
    begin(encounter, gm, rosa, marcus, thug)
    go(encounter, player, "prepare", actor=key(rosa), action="defend")
    html = me(encounter, player)
    assert 'data-may-act="1"' in html and "Interrupt now with my prepared Defend" in html
    assert go(encounter, player, "interrupt_self", actor=key(rosa)).ok
    assert "Defend (+2 Defense until your next turn)" in me(encounter, player)


def test_a_grenade_catches_everyone_ticked(physical, client, gm, player, rosa, marcus, thug):
    begin(physical, gm, rosa, marcus, thug)
    phone = client_for_user(client, player)
    assert notice(post(phone, physical, "ready", actor=key(rosa), item="grenade")) == (
        "Rosa carries no grenade; the GM can give one."  # her sheet names only a pistol
    )
    assert go(physical, gm, "give_weapon", target=key(rosa), weapon="grenade", stow=True).ok
    assert notice(post(phone, physical, "ready", actor=key(rosa), item="grenade", stow="pistol")) == ""
    html = me(physical, player)
    assert "Throw the grenade: 3d6 + 3 against TN 11, up to 11 m" in html
    response = phone.post(
        act_url(physical),
        {
            "command": "throw_grenade",
            "key": "g1",
            "actor": key(rosa),
            "targets": [key(thug, 1), key(thug, 2)],
            "distance": "6",
            "entered": "4 5 6",
            "damage_entered": "2 3 4",
        },
        headers={"HX-Request": "true"},
    )
    assert notice(response) == ""
    state = state_of(physical)
    assert sorted(h.target for h in state.hits) == [key(thug, 1), key(thug, 2)]
    assert all(h.damage == 9 and h.remaining == 8 for h in state.hits)


# --- what players never see -------------------------------------------------------------------------------------------


def test_no_player_fragment_ever_shows_a_gm_fact(campaign, gm, player, other_player, rosa, marcus, thug):
    spotter = Character.objects.create(
        campaign=campaign,
        name="SECRET Spotter",
        kind="npc",
        system="expanse",
        stats=sheet(accuracy=4, defense=14, weapons="Rifle"),
        gm_notes="SECRET note",
    )
    encounter = services.create_encounter(
        campaign,
        gm,
        name="Dock",
        model="expanse",
        pcs=[rosa, marcus],
        enemies=[(thug, 1), (spotter, 1)],
        hidden={spotter.pk},
        settings={"churn": True, "attack_reveals": False},  # the Spotter's shot leaves it unseen
    )
    services.start_encounter(encounter, gm)
    T1, S = key(thug, 1), f"npc{spotter.pk}-1"
    checked = []

    def check():
        for user in (player, other_player):
            html = player_html(encounter, user)
            assert_no_gm_fact(html, encounter)
            checked.append(html)
        gm_page = gm_html(encounter)
        assert "SECRET Spotter" in gm_page and SECRET_NUMBERS in gm_page  # the markers exist for the GM
        assert "unseen by the party" in gm_page

    check()
    state = state_of(encounter)
    faces = {T1: (1, 1, 2), S: (6, 6, 6), key(rosa): (1, 1, 2), key(marcus): (4, 4, 3)}
    assert go(encounter, gm, "roll_initiative", dice=[d for f in state.fighters for d in faces[f.id]]).ok
    check()
    assert go(encounter, gm, "next_turn").ok  # the unseen Spotter (19) goes first, then Marcus (12), Rosa (8)
    check()
    assert "<strong>someone unseen</strong>’s turn" in player_html(encounter, player)
    assert go(
        encounter,
        gm,
        "attack",
        dice=[5, 5, 6, 6, 6, 6],
        actor=S,
        action="ranged_attack",
        weapon="rifle",
        target=key(marcus),
        distance=100,
    ).ok  # 16 + 4 hits Marcus (11) with doubles; success on DD 6: Churn
    check()
    assert go(encounter, gm, "spend_stunt", actor=S, stunt="momentum", points=1).ok
    for _ in range(2):
        assert go(encounter, gm, "next_turn").ok
    check()
    assert go(
        encounter,
        player,
        "attack",
        dice=[6, 6, 5, 2, 2],
        actor=key(rosa),
        action="ranged_attack",
        weapon="pistol",
        target=T1,
    ).ok  # damage waiting on the Thug: the GM's numbers
    check()
    assert "Thug is dealing with damage from Rosa." in player_html(encounter, player)
    assert go(encounter, gm, "adjust_churn", change=2, reason="SECRET scene").ok
    check()
    assert "Churn" in gm_html(encounter)
    assert all("Churn" not in html for html in checked)


def test_the_gm_adds_an_unseen_spotter_to_a_grenade_s_blast_and_players_never_read_its_name(
    campaign, gm, player, other_player, rosa, marcus, thug
):
    """Seed, Explosives: "Grenades effect everyone within 5 metres"; Rosa may name only whom she sees."""
    spotter = Character.objects.create(
        campaign=campaign, name="SECRET Spotter", kind="npc", system="expanse", stats=sheet(defense=14, toughness=1)
    )
    encounter = services.create_encounter(
        campaign,
        gm,
        name="Dock",
        model="expanse",
        pcs=[rosa, marcus],
        enemies=[(thug, 1), (spotter, 1)],
        hidden={spotter.pk},
    )
    services.start_encounter(encounter, gm)
    T1, S = key(thug, 1), f"npc{spotter.pk}-1"
    state = state_of(encounter)
    faces = {T1: (1, 1, 2), S: (1, 1, 3), key(rosa): (6, 6, 5), key(marcus): (4, 4, 3)}
    assert go(encounter, gm, "roll_initiative", dice=[d for f in state.fighters for d in faces[f.id]]).ok
    assert go(encounter, gm, "next_turn").ok  # Rosa (21) first
    assert go(encounter, gm, "give_weapon", target=key(rosa), weapon="grenade").ok  # in Rosa's hand
    refused = go(encounter, player, "throw_grenade", actor=key(rosa), targets=f"{T1},{S}", distance=5)
    assert not refused.ok and "Spotter" not in refused.error and S not in refused.error
    # Accuracy 3: 4, 4 and 5 + 3 = 16 against TN 11; the blast's 3d6 = 6.
    assert go(encounter, player, "throw_grenade", dice=[4, 4, 5, 1, 2, 3], actor=key(rosa), targets=T1, distance=5).ok
    gm_page = html.unescape(gm_html(encounter))
    assert "Who else is within 5 m of Rosa’s grenade?" in gm_page and "Caught: Thug" in gm_page
    assert f'id="gm-also-{S}"' in gm_page
    assert go(encounter, gm, "also_in_blast", targets=S).ok
    assert [(h.target, h.damage) for h in state_of(encounter).hits] == [(T1, 6), (S, 6)]
    for user in (player, other_player):
        page = player_html(encounter, user)
        assert "Spotter" not in page and S not in page
        assert_no_gm_fact(page, encounter)
    players_log = [e.players_text for e in EncounterEvent.objects.filter(encounter=encounter, kind="blast_widened")]
    assert players_log == ["Rosa's grenade also catches someone unseen for 6 damage."]


# --- permissions through the act endpoint -----------------------------------------------------------------------------

GM_ONLY = [
    ("roll_initiative", {}),
    ("next_turn", {}),
    ("break_tie", {"first": "x", "second": "y"}),
    ("add_stunt", {"stunt": "Feint", "cost": "1"}),
    ("set_condition", {"target": "T", "condition": "Prone"}),
    ("adjust_fortune", {"target": "T", "change": "5"}),
    ("set_cover", {"target": "T", "rating": "3"}),
    ("interrupt", {"fighter": "R"}),
    ("approve_roll_over", {"fighter": "R"}),
    ("breathers", {}),
    ("blast", {"targets": "T"}),
    ("also_in_blast", {"targets": "T"}),
    ("adjust_churn", {"change": "1"}),
    ("churn_jam", {"fighter": "R"}),
    ("apply_churn", {"effect": "fail", "target": "R"}),
]


@pytest.mark.parametrize("name,data", GM_ONLY)
def test_players_cannot_issue_gm_commands(enc, client, player, rosa, thug, name, data):
    names = {"T": key(thug, 1), "R": key(rosa)}
    data = {k: names.get(v, v) for k, v in data.items()}
    response = post(client_for_user(client, player), enc, name, **data)
    assert notice(response) == "Only the GM can do that."
    assert not EncounterEvent.objects.filter(encounter=enc).exists()


def test_players_act_only_for_their_own_characters_and_never_undo_or_end(
    enc, client, gm, player, other_player, rosa, marcus, thug
):
    begin(enc, gm, rosa, marcus, thug)
    version = version_of(enc)
    phone = client_for_user(client, other_player)
    assert notice(post(phone, enc, "defend", actor=key(rosa))) == "You can act only for your own character."
    assert notice(post(phone, enc, "attack", actor=key(thug, 1), target=key(rosa))) == (
        "You can act only for your own character."
    )
    assert notice(post(phone, enc, "undo")) == "Only the GM can undo."
    assert notice(post(phone, enc, "end_encounter")) == "Only the GM can end the encounter."
    assert notice(post(phone, enc, "defend", actor=key(marcus))) == "It is not Marcus's turn."
    assert version_of(enc) == version and state_of(enc).ended is False


def test_another_campaigns_encounter_is_a_404(enc, client, gm, player, outsider):
    from campaigns import services as campaign_services

    theirs = campaign_services.create_campaign(outsider, name="Elsewhere", combat_model="expanse")
    ixa = Character.objects.create(campaign=theirs, name="Ixa", owner=outsider, system="expanse")
    warden = Character.objects.create(campaign=theirs, name="Warden", kind="npc", system="expanse")
    foreign = build(theirs, outsider, [ixa], warden, quantity=1)
    url = reverse("encounter_act", args=[enc.campaign_id, foreign.pk])
    response = client_for_user(client, player).post(url, {"command": "roll_initiative", "key": "x"})
    assert response.status_code == 404 and not foreign.events.exists()


# --- queries ----------------------------------------------------------------------------------------------------------


def test_queries_per_action_do_not_grow_with_combatants(
    client, campaign, gm, player, rosa, marcus, thug, django_capture_on_commit_callbacks
):
    def queries_for(quantity):
        encounter = build(campaign, gm, [rosa, marcus], thug, quantity=quantity)
        state = state_of(encounter)
        faces = {f.id: (1, 1, 1) for f in state.fighters} | {key(rosa): (6, 6, 6)}
        go(encounter, gm, "roll_initiative", dice=[d for f in state.fighters for d in faces[f.id]])
        go(encounter, gm, "next_turn")
        phone = client_for_user(client, player)
        with CaptureQueriesContext(connection) as act_q:
            with django_capture_on_commit_callbacks(execute=False):
                response = post(phone, encounter, "aim", actor=key(rosa))
        assert notice(response) == ""
        with CaptureQueriesContext(connection) as render_q:
            encounter.refresh_from_db()
            state = store.load_state(encounter)
            fragments.for_gm(encounter, state)
            fragments.for_players(encounter, state)
            fragments.me_html(encounter, state, player.pk)
        return len(act_q), len(render_q)

    assert queries_for(2) == queries_for(20)


# --- the after-action review ----------------------------------------------------------------------------------------


@pytest.fixture
def fought(enc, gm, player, other_player, rosa, marcus, thug):
    begin(enc, gm, rosa, marcus, thug)
    steps = [
        (
            player,
            "attack",
            {"actor": key(rosa), "action": "ranged_attack", "weapon": "pistol", "target": key(thug, 1)},
            [5, 5, 4, 3, 3],
        ),  # 19 hits with doubles: 4 SP; 3 + 3 + 2 = 8 - Toughness 1 = 7
        (player, "spend_stunt", {"actor": key(rosa), "stunt": "duck_and_weave", "points": 3}, []),
        (player, "end_turn", {"actor": key(rosa)}, []),
        (
            other_player,
            "attack",
            {"actor": key(marcus), "action": "ranged_attack", "weapon": "pistol", "target": key(thug, 2)},
            [1, 1, 6],
        ),  # a miss with doubles: a jam, no SP
        (other_player, "end_turn", {"actor": key(marcus)}, []),
        (
            gm,
            "attack",
            {"actor": key(thug, 1), "action": "ranged_attack", "weapon": "pistol", "target": key(rosa)},
            [4, 5, 6, 6, 6],
        ),  # 17 against 16 (Duck and Weave): 13 - Toughness 4 = 9
        (player, "spend_fortune", {"actor": key(rosa), "points": 9}, []),
        (gm, "accept_condition", {"actor": key(thug, 1)}, [6]),
        (gm, "accept_condition", {"actor": key(thug, 1)}, [1]),
    ]
    for user, name, data, dice in steps:
        result = go(enc, user, name, dice=dice, **data)
        assert result.ok, (name, result.error)
    enc.refresh_from_db()
    return enc


def test_the_review_counts_tests_doubles_damage_and_stunt_points(fought, rosa, marcus, thug):
    data = review.build(fought, is_gm=True)
    by = {s.key: s for s in data.summaries}
    r, m, t = by[key(rosa)], by[key(marcus)], by[key(thug, 1)]
    assert (r.rolls, r.successes, r.failures, r.doubles) == (1, 1, 0, 1)
    assert (m.rolls, m.successes, m.failures, m.doubles) == (1, 0, 1, 1)
    assert (t.rolls, t.successes, t.failures, t.doubles) == (1, 1, 0, 0)
    assert (r.damage_dealt, r.damage_taken, t.damage_dealt, t.damage_taken) == (7, 9, 9, 7)
    assert r.figures == {"sp_earned": 4, "sp_spent": 3, "fortune_spent": 9, "fortune_gained": 0}  # 9 on the damage
    assert m.figures == {"sp_earned": 0, "sp_spent": 0, "fortune_spent": 0, "fortune_gained": 0}
    assert data.model_figures == (
        ("sp_earned", "Stunt points earned"),
        ("sp_spent", "Stunt points spent"),
        ("fortune_spent", "Fortune spent"),
        ("fortune_gained", "Fortune gained"),
    )
    assert data.damage_by_round == {1: 16}
    assert sum(data.faces[6].values()) == 12 + 5 + 3 + 5 + 2  # initiative, three attacks, two injury dice


def test_the_review_page_exports_and_player_view_work(fought, client, gm, player):
    from combat import exports

    page = client_for_user(client, gm).get(reverse("encounter_log", args=[fought.campaign_id, fought.pk]))
    body = page.content.decode()
    assert page.status_code == 200 and "Stunt points earned" in body and "Before the first round" in body
    assert "Round 1" in body and "Rosa&#x27;s turn" in body and "Faces rolled on d6" in body
    assert "Damage per round" in body
    for fmt in ("json", "csv", "md", "html"):
        import io

        out = io.StringIO()
        assert exports.WRITERS[fmt](fought, True, out) == fought.events.count()
    import io
    import json

    out = io.StringIO()
    exports.write_json(fought, True, out)
    copy = exports.import_encounter(fought.campaign, gm, json.loads(out.getvalue()))
    assert store.load_state(copy) == store.load_state(fought)
    body = client_for_user(client, player).get(reverse("encounter_log", args=[fought.campaign_id, fought.pk]))
    assert body.status_code == 200 and SECRET_NUMBERS not in body.content.decode()


def test_review_facts_follow_toughness_guardians_and_changed_dice():
    from combat.rules.expanse import review as expanse_review
    from tests.combat.test_expanse_rules import begun, pistol, punch

    def facts_of(t, command, faces=()):
        before = t.state
        events = t.do(command, faces)
        out, state = [], before
        for event in events:
            out.append(expanse_review.facts(state, event))
            state = ex.evolve(state, event)
        return out

    t = begun()
    [shot] = facts_of(t, pistol(), [3, 3, 6, 1, 2])  # 5 damage against Toughness 7: nothing gets through
    assert shot.damage == () and shot.sp_earned == 6 and shot.rolls[0].doubles and shot.rolls[1].counted is False
    [stunt] = facts_of(t, ex.SpendStunt(actor="luwe", stunt="Overcome Toughness"))
    assert stunt.damage == (("luwe", "boss", 5),) and stunt.sp_spent == 2 and not stunt.action

    t = begun()
    [miss] = facts_of(t, pistol(), [1, 2, 3])
    assert miss.rolls[0].succeeded is False and miss.damage == () and miss.action
    [changed] = facts_of(t, ex.ChangeDie(actor="luwe", die=0, face=2), [3, 4])  # 2, 2, 3 hits: 3 SP; 9 - 7 = 2
    assert changed.damage == (("luwe", "boss", 2),) and changed.sp_earned == 3 and not changed.rolls[0].counted

    t = begun(("furo", "boss", "luwe", "grunt"))
    t.do(punch(), [4, 4, 3, 1])
    t.do(ex.SpendStunt(actor="furo", stunt="Guardian Angel", points=3, ally="luwe"))
    t.do(ex.EndTurn(actor="furo"))
    [hit] = facts_of(
        t, ex.Attack(actor="boss", action="melee_attack", weapon="heavy_melee", target="luwe"), [4, 5, 6, 6, 5]
    )
    assert hit.damage == (("boss", "luwe", 12),)
    moved, spent = facts_of(t, ex.SpendFortune(actor="luwe", points=2))
    assert sorted(moved.damage) == [("boss", "furo", 3), ("boss", "luwe", -3)] and spent.damage == ()
    assert expanse_review.round_title(0) == "Before the first round" and expanse_review.round_title(2) == "Round 2"
    assert expanse_review.section_title(0, "luwe", {"luwe": "Luwe"}) == "Luwe's turn"


# --- the websocket ----------------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_the_websocket_brings_each_phone_its_turn_and_never_a_gm_fact(
    campaign, gm, player, other_player, rosa, marcus, thug, close_db_connections
):
    from tests.combat.test_consumers import act as ws_act
    from tests.combat.test_consumers import receive, receive_update, strip_until
    from tests.combat.test_consumers import sockets as _  # noqa: F401  (documentation: the same socket helpers)

    encounter = await sync_to_async(build)(campaign, gm, [rosa, marcus], thug)
    opened = []

    async def open_socket(user):
        from tests.combat.test_consumers import HOST, ORIGIN, asgi_app, session_cookie, ws_path
        from tests.ws_socket import Socket

        cookie = await sync_to_async(session_cookie)(user)
        socket = Socket(
            asgi_app(),
            ws_path(encounter.campaign_id, encounter.pk),
            headers=[HOST, (b"origin", ORIGIN), (b"cookie", f"sessionid={cookie}".encode())],
        )
        connected, _ = await socket.connect(timeout=3)
        assert connected
        opened.append(socket)
        return socket

    try:
        gm_socket = await open_socket(gm)
        rosa_socket = await open_socket(player)
        marcus_socket = await open_socket(other_player)
        [gm_first] = await receive(gm_socket, 1, then_quiet=False)
        await strip_until(gm_socket, encounter.pk, {"ana": True, "ben": True})  # both phones joined
        [rosa_first] = await receive(rosa_socket, 1)
        [marcus_first] = await receive(marcus_socket, 1)
        assert "Roll initiative for everyone" in gm_first and SECRET_NUMBERS in gm_first
        assert "<h2>Rosa</h2>" in rosa_first and "<h2>Marcus</h2>" in marcus_first
        for frame in (rosa_first, marcus_first):
            assert_no_gm_fact(frame, encounter)

        async def step(user, name, data, dice=()):
            await ws_act(user, encounter, name, data, f"ws-{name}-{len(opened)}-{id(data)}", ScriptedDice(dice))
            [gm_html_] = await receive(gm_socket, 1, then_quiet=False)
            rosa_frames = await receive_update(rosa_socket, encounter.pk, then_quiet=False)
            marcus_frames = await receive_update(marcus_socket, encounter.pk, then_quiet=False)
            for frame in rosa_frames + marcus_frames:
                assert_no_gm_fact(frame, encounter)
            return gm_html_, rosa_frames, marcus_frames

        state = await sync_to_async(state_of)(encounter)
        faces = {key(rosa): (6, 6, 5), key(marcus): (4, 4, 3), key(thug, 1): (1, 2, 2), key(thug, 2): (1, 1, 2)}
        await step(gm, "roll_initiative", {}, [d for f in state.fighters for d in faces[f.id]])
        _, (table_frame, rosa_me), (_, marcus_me) = await step(gm, "next_turn", {})
        assert "<strong>Rosa</strong>’s turn" in table_frame
        assert 'data-your-turn="1"' in rosa_me and "Your turn!" in rosa_me
        assert 'data-your-turn="0"' in marcus_me and "Your turn!" not in marcus_me
        gm_frame, (table_frame, _), _ = await step(
            player,
            "attack",
            {"actor": key(rosa), "action": "ranged_attack", "weapon": "pistol", "target": key(thug, 1)},
            [6, 6, 5, 3, 3],
        )
        assert "Thug 1</strong> is hit by Rosa" in gm_frame and "Defense 17" in gm_frame
        assert "Thug 1 is dealing with damage from Rosa." in table_frame
        await step(player, "end_turn", {"actor": key(rosa)})
        _, _, (_, marcus_me) = await step(other_player, "end_turn", {"actor": key(marcus)})
        assert 'data-your-turn="0"' in marcus_me
        _, (_, rosa_me), _ = await step(
            gm,
            "attack",
            {"actor": key(thug, 1), "action": "ranged_attack", "weapon": "pistol", "target": key(rosa)},
            [4, 5, 6, 6, 6],
        )
        assert 'data-may-act="1"' in rosa_me and "You may act now." in rosa_me and "to absorb" in rosa_me
        for socket in opened:
            assert await socket.receive_nothing(timeout=0.3)
    finally:
        for socket in opened:
            await socket.disconnect(timeout=3)


# --- hostile input ----------------------------------------------------------------------------------------------------

EXPANSE_COMMANDS = [c.name for c in ex.COMMANDS] + ["undo", "end_encounter"]
EXPANSE_FIELDS = sorted({f for c in ex.COMMANDS for f in c.__dataclass_fields__})


@pytest.mark.parametrize("gm_side", [False, True])
def test_fuzz_the_act_endpoint(client, physical, gm, player, rosa, marcus, thug, gm_side):
    from tests.test_fuzz import FUZZ, check, scalar

    begin(physical, gm, rosa, marcus, thug)
    keys = [
        key(rosa),
        key(marcus),
        key(thug, 1),
        key(thug, 2),
        "npc999-1",
        "0",
        "-1",
        "2",
        "6",
        "99",
        "5 5 4",
        "1,1,6",
        "pistol",
        "grenade",
        "ranged_attack",
        "charge",
        "duck_and_weave",
        "Injured",
        "taken_out",
        "condition",
        "on",
        "Strength",
        "human_sized",
    ]
    forms = st.fixed_dictionaries(
        {
            "command": st.one_of(st.sampled_from(EXPANSE_COMMANDS), scalar),
            "key": st.one_of(st.uuids().map(str), scalar),
        },
        optional={
            name: st.one_of(st.sampled_from(keys), scalar, st.lists(st.sampled_from(keys), min_size=2, max_size=3))
            for name in EXPANSE_FIELDS
        },
    )
    client_for_user(client, gm if gm_side else player)

    @settings(FUZZ, max_examples=examples(60))
    @given(form=forms)
    def run(form):
        before = version_of(physical)
        check(client, "post", act_url(physical), form, htmx=True)  # never a 500; refused: nothing changed
        if not gm_side and form["command"] in (
            "undo",
            "end_encounter",
            "roll_initiative",
            "add_stunt",
            "breathers",
            "set_condition",
            "adjust_fortune",
        ):
            assert version_of(physical) == before  # the GM's alone
        if version_of(physical) != before:
            state = state_of(physical)
            assert state.majors_taken <= 1 and len(state.turn_actions) <= 2
            assert all(0 <= f.fortune <= f.fortune_max and f.sp >= 0 for f in state.fighters)

    run()
    physical.refresh_from_db()
    assert gm_side or physical.status == Encounter.Status.ACTIVE


def test_press_the_attack_after_a_melee_hit_and_pursuit_when_the_foe_moves(
    enc, gm, player, other_player, rosa, marcus, thug
):
    begin(enc, gm, rosa, marcus, thug)
    go(enc, player, "end_turn", actor=key(rosa))
    html = me(enc, other_player)
    assert "Press the Attack on" not in html  # only after striking someone in melee this turn
    assert "Heavy melee weapon</strong> 3d6 + 3 (Fighting +3); within 2 m; damage 2d6 + Str; ready first" in html
    assert go(enc, gm, "give_weapon", target=key(marcus), weapon="heavy_melee").ok  # in hand, no action spent
    assert go(
        enc,
        other_player,
        "attack",
        dice=[5, 5, 6, 1, 1],
        actor=key(marcus),
        action="melee_attack",
        weapon="heavy_melee",
        target=key(thug, 1),
    ).ok
    html = me(enc, other_player)
    assert "Press the Attack on Thug 1" in html and "Stunt points to spend: 6" in html
    assert go(enc, other_player, "press_the_attack", actor=key(marcus), target=key(thug, 1)).ok
    assert "Pressing the attack on Thug 1 until the start of their next turn" in me(enc, other_player)
    assert go(enc, other_player, "end_turn", actor=key(marcus)).ok
    assert 'data-may-act="0"' in me(enc, other_player)
    assert go(enc, gm, "move", actor=key(thug, 1), metres=4).ok
    html = me(enc, other_player)
    assert 'data-may-act="1"' in html and "Thug 1 moved away: pursue (m)" in html
    assert go(enc, other_player, "pursue", actor=key(marcus), target=key(thug, 1), metres=4).ok
    assert 'data-may-act="0"' in me(enc, other_player)
