"""The after-action review: timeline, filters, visibility, per-character figures and charts."""

import io
import json

import pytest
from django.urls import reverse

from campaigns.models import Character
from combat import exports, review, services, store
from combat.rules.dice import ScriptedDice
from tests.combat.helpers import valid_sheet

pytestmark = pytest.mark.django_db


@pytest.fixture
def fought(campaign, gm, player, pc, npc):
    pc.stats = {**pc.full_stats(), "skill_melee": 8, "skill_knowledge": 6}
    pc.save()
    npc.stats = {**npc.full_stats(), "health": 2, "health_max": 2}
    npc.save()
    enc = services.start_encounter(
        services.create_encounter(campaign, gm, name="Relay", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm
    )
    L, N = f"pc{pc.pk}", f"npc{npc.pk}-1"
    steps = [
        (gm, "declare", {"enemy": N, "target": L, "text": "claw"}, ()),
        (gm, "spend_collapse", {"enemy": N, "points": 1, "note": "frenzy"}, ()),
        (gm, "start_players", {}, ()),
        (player, "claim_turn", {"actor": L}, ()),
        (player, "skill_roll", {"actor": L, "skill": "Knowledge", "intent": "advantage"}, (1, 2)),
        (player, "skill_roll", {"actor": L, "skill": "Melee", "intent": "attack", "target": N}, (4, 4, 1)),
        (player, "spend_advantage", {"actor": L, "die": 0}, (7,)),  # rescued: hits for 1
        (player, "skill_roll", {"actor": L, "skill": "Melee", "intent": "other"}, (5, 5, 5, 2)),
        (gm, "resolve_failure", {"choice": "collapse"}, ()),
        (gm, "start_enemies", {}, ()),
        (gm, "resolve", {"declaration": 1, "outcome": "hit", "damage": 1}, ()),
        (gm, "next_round", {}, ()),
        (gm, "adjust_health", {"target": N, "change": -1}, ()),
    ]
    for i, (user, name, data, dice) in enumerate(steps):
        result = services.submit(enc.pk, user, name, data, f"s{i}", dice=ScriptedDice(dice))
        assert result.ok, (name, result.error)
    services.submit(enc.pk, gm, "undo", {}, "undo")  # takes back the last health adjustment
    enc.refresh_from_db()
    return enc


def test_summary_counts_what_each_character_did(fought, pc, npc):
    data = review.build(fought, is_gm=True)
    luwe = next(s for s in data.summaries if s.key == f"pc{pc.pk}")
    nivick = next(s for s in data.summaries if s.key == f"npc{npc.pk}-1")
    assert (luwe.rolls, luwe.successes, luwe.failures, luwe.doubles) == (3, 2, 1, 2)
    assert luwe.damage_dealt == 1 and luwe.damage_taken == 1
    # The Knowledge roll created an Advantage; the reroll used one; the failed Melee roll gave the GM a Collapse point.
    assert luwe.figures == {
        "collapse_given": 1,
        "collapse_spent": 0,
        "advantages_gained": 1,
        "advantages_used": 1,
        "nova_gained": 0,
        "nova_spent": 0,
    }
    assert nivick.figures["collapse_spent"] == 1  # the GM's frenzy
    assert nivick.damage_dealt == 1 and nivick.damage_taken == 1  # the undone adjustment does not count
    assert data.damage_by_round == {1: 2}


def test_charts_data_and_svg_titles(fought, gm_client):
    data = review.build(fought, is_gm=True)
    assert data.by_complexity[2][0] == 1 and data.by_complexity[3][:2] == (1, 1)
    assert sum(data.faces[8].values()) == 3 + 1 + 4  # two Melee rolls plus the reroll
    page = gm_client.get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).content.decode()
    for title in ("Success rate by complexity", "Damage per round", "Faces rolled on d8", "Faces rolled on d6"):
        assert f">{title}</title>" in page
    assert page.count('role="img"') >= 4
    # Issue 20: "Charts say what they show (die size in every dice chart, axis labels), have a text table beside
    # them for screen readers": each caption names its die, each axis is named, each chart's numbers are a table.
    assert "d8: 8 dice rolled, each face against a fair d8 (1 times each on average)." in page
    assert "Dice faces against a fair die." not in page  # the one caption every dice chart used to share
    assert ">Face of the d8</text>" in page and ">Times rolled</text>" in page
    assert ">Round</text>" in page and ">Health Levels</text>" in page  # Burn Bryte's damage is Health Levels
    assert page.count('<table class="chart-data">') == page.count('<svg class="chart"') == 4
    table = page[page.index('<caption class="sr-only">d8:') :]
    table = table[: table.index("</table>")]
    assert '<th scope="row">4</th><td>2</td><td>1</td>' in table  # two 4s; a fair d8 shows each face once in 8


def test_timeline_groups_by_round_and_phase_and_strikes_undone(fought, gm_client):
    page = gm_client.get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).content.decode()
    assert "Round 1" in page and "Round 2" in page and "Phase 2: players act" in page
    assert "Phase 2: players act — Luwe&#x27;s turn" in page
    assert "<s>Nivick loses 1 Health Level.</s>" in page
    assert 'aria-label="d8 showing 4, 4, 1"' in page


def test_players_do_not_see_gm_only_entries_until_revealed(fought, client, player, gm):
    url = reverse("encounter_log", args=[fought.campaign_id, fought.pk])
    client.force_login(player)
    page = client.get(url).content.decode()
    assert "frenzy" not in page and "Collapse" not in page
    client.force_login(gm)
    assert "frenzy" in client.get(url).content.decode()
    # Revealing only works after the encounter ended.
    client.post(reverse("encounter_log_reveal", args=[fought.campaign_id, fought.pk]), {"reveal": "1"})
    fought.refresh_from_db()
    assert not fought.log_revealed
    services.submit(fought.pk, gm, "end_encounter", {}, "end")
    client.post(reverse("encounter_log_reveal", args=[fought.campaign_id, fought.pk]), {"reveal": "1"})
    client.force_login(player)
    assert "frenzy" in client.get(url).content.decode()


def test_player_cannot_reveal(fought, client, player):
    client.force_login(player)
    response = client.post(reverse("encounter_log_reveal", args=[fought.campaign_id, fought.pk]), {"reveal": "1"})
    assert response.status_code == 404


def test_filters_by_character_and_kind(fought, gm_client, pc):
    url = reverse("encounter_log", args=[fought.campaign_id, fought.pk])
    body = gm_client.get(
        url, {"kind": "skill_rolled", "part": "timeline"}, headers={"HX-Request": "true"}
    ).content.decode()
    assert "<html" not in body and body.count("<li") == 3 and "declares" not in body
    body = gm_client.get(url, {"fighter": f"pc{pc.pk}"}).content.decode()
    assert "Luwe rolls Knowledge" in body
    timeline = body[body.index('id="timeline"') :]
    assert "Nivick declares" not in timeline
    # Unknown filter values are ignored rather than failing.
    assert gm_client.get(url, {"fighter": "nobody", "kind": "<script>"}).status_code == 200


def test_outsiders_get_404(fought, client, outsider):
    client.force_login(outsider)
    assert client.get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).status_code == 404


# --- unseen enemies: never on a player's log page nor in a player's export -----------------------------------------


def _player_and_gm_views(encounter, client, player, gm):
    """(player's log page, GM's log page, [player's export in every format], GM's JSON export)."""
    url = reverse("encounter_log", args=[encounter.campaign_id, encounter.pk])
    client.force_login(player)
    player_page = client.get(url).content.decode()
    client.force_login(gm)
    gm_page = client.get(url).content.decode()
    player_exports = []
    for fmt, write in exports.WRITERS.items():
        out = io.StringIO()
        write(encounter, False, out)
        player_exports.append((fmt, out.getvalue()))
    out = io.StringIO()
    exports.write_json(encounter, True, out)
    return player_page, gm_page, player_exports, out.getvalue()


def _assert_unseen(name, encounter, client, player, gm, seen_name):
    player_page, gm_page, player_exports, gm_json = _player_and_gm_views(encounter, client, player, gm)
    assert seen_name in player_page  # the visible enemy is named: the page is not simply empty
    assert name not in player_page
    summary = gm_page[gm_page.index('id="sum-h"') : gm_page.index('id="charts-h"')]
    character_filter = gm_page[gm_page.index('id="f-fighter"') : gm_page.index('id="f-kind"')]
    assert name in summary and name in character_filter  # the GM still sees everyone
    for fmt, text in player_exports:
        assert name not in text, fmt
    assert name in gm_json
    data = review.build(encounter, is_gm=False)
    assert name not in {s.name for s in data.summaries} | set(data.fighters.values())
    return player_page


@pytest.fixture
def grell(campaign):
    return Character.objects.create(campaign=campaign, name="Grell", kind="npc", system="burn_bryte")


def test_burn_bryte_players_never_see_an_unseen_enemy(campaign, gm, player, pc, npc, grell, client):
    enc = services.start_encounter(
        services.create_encounter(
            campaign,
            gm,
            name="Relay",
            model="burn_bryte",
            pcs=[pc],
            enemies=[(npc, 1), (grell, 1)],
            hidden={npc.pk},
            settings={"attack_reveals": False},  # Nivick's attack leaves it unseen: the GM's choice
        ),
        gm,
    )
    L, N, G = f"pc{pc.pk}", f"npc{npc.pk}-1", f"npc{grell.pk}-1"
    steps = [
        (gm, "declare", {"enemy": N, "target": L, "text": "ambush"}, ()),
        (gm, "declare", {"enemy": G, "target": L, "text": "shoot"}, ()),
        (gm, "start_players", {}, ()),
        (player, "claim_turn", {"actor": L}, ()),
        (player, "skill_roll", {"actor": L, "skill": "Melee", "intent": "attack", "target": G}, (4, 1)),
        (player, "end_turn", {"actor": L}, ()),
        (gm, "start_enemies", {}, ()),
        (gm, "resolve", {"declaration": 1, "outcome": "hit", "damage": 1}, ()),
        (gm, "resolve", {"declaration": 2, "outcome": "missed"}, ()),
    ]
    for i, (user, name, data, dice) in enumerate(steps):
        result = services.submit(enc.pk, user, name, data, f"h{i}", dice=ScriptedDice(dice))
        assert result.ok, (name, result.error)
    enc.refresh_from_db()
    _assert_unseen("Nivick", enc, client, player, gm, "Grell")
    # Round 1's damage: Luwe's hit on Grell and "Something unseen hits Luwe": both are on the player's log.
    assert review.build(enc, is_gm=True).damage_by_round == review.build(enc, is_gm=False).damage_by_round == {1: 2}
    # An imported copy keeps no `hidden` flag on its combatants: the state still says who the party never saw.
    gm_json = _player_and_gm_views(enc, client, player, gm)[3]
    copy = exports.import_encounter(campaign, gm, json.loads(gm_json))
    _assert_unseen("Nivick", copy, client, player, gm, "Grell")


def test_a_players_charts_add_up_only_the_entries_the_player_can_read(campaign, gm, player, pc, npc, monkeypatch):
    """Should a model word an entry for the GM only (no sentence for players), its dice and damage stay off the
    player's charts too: counting them would tell the players that something happened."""
    from combat.rules import burn_bryte as bb

    enc = services.start_encounter(
        services.create_encounter(campaign, gm, name="Relay", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm
    )
    L, N = f"pc{pc.pk}", f"npc{npc.pk}-1"
    for i, (user, name, data, dice) in enumerate(
        [
            (gm, "declare", {"enemy": N, "target": L, "text": "ambush"}, ()),
            (gm, "start_players", {}, ()),
            (player, "claim_turn", {"actor": L}, ()),
            (
                player,
                "skill_roll",
                {"actor": L, "skill": "Melee", "intent": "attack", "target": N, "extra_damage": 1},
                (4, 1),
            ),
            (player, "end_turn", {"actor": L}, ()),
            (gm, "start_enemies", {}, ()),
            (gm, "resolve", {"declaration": 1, "outcome": "hit", "damage": 1}, ()),
        ]
    ):
        assert services.submit(enc.pk, user, name, data, f"c{i}", dice=ScriptedDice(dice)).ok
    enc.refresh_from_db()
    before = review.build(enc, is_gm=False)
    assert before.damage_by_round == {1: 3} and before.faces == {4: {4: 1, 1: 1}}
    worded = bb.describe
    monkeypatch.setattr(
        bb,
        "describe",
        lambda state, event, gm=True: (
            None if not gm and event.kind in ("skill_rolled", "resolved") else worded(state, event, gm)
        ),
    )
    hidden = review.build(enc, is_gm=False)
    assert not any(e.kind in ("skill_rolled", "resolved") for e in hidden.entries)
    assert hidden.damage_by_round == {} and hidden.faces == {}
    gms = review.build(enc, is_gm=True)
    assert gms.damage_by_round == {1: 3} and gms.faces == {4: {4: 1, 1: 1}}


def test_expanse_players_never_see_an_unseen_enemy(campaign, gm, player, client):
    rosa = Character.objects.create(
        campaign=campaign,
        name="Rosa",
        owner=player,
        system="expanse",
        stats=valid_sheet(
            "expanse",
            accuracy=3,
            dexterity=3,
            defense=13,
            toughness=2,
            fortune=18,
            fortune_max=18,
            focuses="Accuracy (Pistols)",
            weapons="Pistol",
        ),
    )
    thug = Character.objects.create(
        campaign=campaign,
        name="Thug",
        kind="npc",
        system="expanse",
        stats=valid_sheet("expanse", accuracy=2, defense=11, toughness=1, weapons="Pistol"),
    )
    spotter = Character.objects.create(
        campaign=campaign,
        name="Spotter",
        kind="npc",
        system="expanse",
        stats=valid_sheet("expanse", accuracy=4, defense=14, weapons="Rifle"),
    )
    enc = services.start_encounter(
        services.create_encounter(
            campaign,
            gm,
            name="Dock",
            model="expanse",
            pcs=[rosa],
            enemies=[(thug, 1), (spotter, 1)],
            hidden={spotter.pk},
            settings={"attack_reveals": False},  # the Spotter's shot leaves it unseen: the GM's choice
        ),
        gm,
    )
    R, T, S = f"pc{rosa.pk}", f"npc{thug.pk}-1", f"npc{spotter.pk}-1"
    faces = {S: (6, 6, 6), R: (4, 4, 3), T: (1, 1, 2)}  # the Spotter goes first, then Rosa, then the Thug
    state = store.load_state(enc)
    steps = [
        (gm, "roll_initiative", {}, [d for f in state.fighters for d in faces[f.id]]),
        (gm, "next_turn", {}, ()),
        (
            gm,
            "attack",
            {"actor": S, "action": "ranged_attack", "weapon": "rifle", "target": R, "distance": 100},
            (5, 5, 6, 6, 6, 6),
        ),
        (gm, "next_turn", {}, ()),
        (player, "attack", {"actor": R, "action": "ranged_attack", "weapon": "pistol", "target": T}, (6, 6, 5, 2, 2)),
    ]
    for i, (user, name, data, dice) in enumerate(steps):
        result = services.submit(enc.pk, user, name, data, f"x{i}", dice=ScriptedDice(dice))
        assert result.ok, (name, result.error)
    enc.refresh_from_db()
    player_page = _assert_unseen("Spotter", enc, client, player, gm, "Thug")
    assert "Someone unseen makes a Ranged Attack" in player_page  # the attack is on the log, unnamed
