"""The campaign's history (issue 20): "A campaign page across all its encounters and sessions: encounters with their
outcome, totals per character, dice luck over the campaign against fair dice, and per-session recaps." and "A
session recap in Markdown (encounters, highlights, who fell, loot/notes typed by the GM), ready to paste into a group
chat"."""

import dataclasses
import html
import io
import json
import re
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from campaigns import sessions
from campaigns.models import Membership
from combat import exports, history, services, tables
from combat.rules import registry
from combat.rules.core import from_json
from combat.rules.dice import ScriptedDice
from tests.combat.stored_logs import FIXTURES
from tests.combat.test_hero_table import agent, bulwark, enc, kestrel  # noqa: F401  (fixtures of the HERO fight)
from tests.combat.test_hero_table import fought as hero_fought  # noqa: F401

pytestmark = pytest.mark.django_db


def play(enc, steps, prefix):
    for i, (user, name, data, dice) in enumerate(steps):
        result = services.submit(enc.pk, user, name, data, f"{prefix}{i}", dice=ScriptedDice(dice))
        assert result.ok, (name, result.error)
    enc.refresh_from_db()
    return enc


@pytest.fixture
def evening(campaign, gm):
    return sessions.create_session(
        campaign, gm, title="Night at the *relay*", starts_at=datetime(2031, 3, 14, 19, 30, tzinfo=UTC),
        duration_minutes=180,
    )  # fmt: skip


@pytest.fixture
def two_fights(campaign, gm, player, pc, npc, evening):
    """Two Burn Bryte fights of the evening, Luwe against Nivick (2 Health Levels) each time.

    First, "Relay *one*": a Knowledge roll (d6: 1, 2) that succeeds; a Melee attack (d8: 4, 4, 1) that fails until
    an Advantage rerolls the 1 into a 7 (a hit for 1); a Melee roll (d8: 5, 5, 5, 2) that fails; Nivick's claw hits
    Luwe for 1. Still going. Second, "Dock": the same Knowledge roll and rescued attack, then the GM takes Nivick's
    last Health Level and ends the fight: a victory, Nivick fallen."""
    pc.stats = {**pc.full_stats(), "skill_melee": 8, "skill_knowledge": 6}
    pc.save()
    npc.stats = {**npc.full_stats(), "health": 2, "health_max": 2}
    npc.save()
    L, N = f"pc{pc.pk}", f"npc{npc.pk}-1"
    opening = [
        (gm, "declare", {"enemy": N, "target": L, "text": "claw"}, ()),
        (gm, "start_players", {}, ()),
        (player, "claim_turn", {"actor": L}, ()),
        (player, "skill_roll", {"actor": L, "skill": "Knowledge", "intent": "advantage"}, (1, 2)),
        (player, "skill_roll", {"actor": L, "skill": "Melee", "intent": "attack", "target": N}, (4, 4, 1)),
        (player, "spend_advantage", {"actor": L, "die": 0}, (7,)),
    ]
    fights = []
    for name, rest in (
        (
            "Relay *one*",
            [
                (player, "skill_roll", {"actor": L, "skill": "Melee", "intent": "other"}, (5, 5, 5, 2)),
                (gm, "resolve_failure", {"choice": "collapse"}, ()),
                (gm, "start_enemies", {}, ()),
                (gm, "resolve", {"declaration": 1, "outcome": "hit", "damage": 1}, ()),
            ],
        ),
        ("Dock", [(gm, "adjust_health", {"target": N, "change": -1}, ()), (gm, "end_encounter", {}, ())]),
    ):
        enc = services.start_encounter(
            services.create_encounter(
                campaign, gm, name=name, model="burn_bryte", pcs=[pc], enemies=[(npc, 1)], session=evening
            ),
            gm,
        )
        fights.append(play(enc, opening + rest, name))
    return fights


def membership(user, campaign):
    return Membership.objects.get(user=user, campaign=campaign)


def test_totals_and_dice_luck_add_up_over_two_fights(two_fights, campaign, player, pc):
    """Luwe, by hand: 3 rolls in the first fight (Knowledge, the rescued attack, the failed Melee roll: 2 successes,
    1 failure, doubles 4-4 and 5-5-5) and 2 in the second (both succeed, doubles 4-4); a hit for 1 in each; the claw
    for 1 in the first. The faces: d6 1, 2 twice; d8 4, 4, 1, 7 twice and 5, 5, 5, 2 once."""
    seen = history.build(membership(player, campaign))
    (luwe,) = seen.totals
    columns = ("actions", "rolls", "successes", "failures", "doubles", "dealt", "taken")
    values = dict(zip(columns, luwe.cells, strict=True))
    assert luwe.name == "Luwe" and luwe.fights == 2
    assert [values[k] for k in ("rolls", "successes", "failures", "doubles", "dealt", "taken")] == [
        [5, False], [4, False], [1, False], [3, False], [2, False], [1, False],
    ]  # fmt: skip
    d6, d8 = seen.luck
    assert d6.rows == (("1", "2", "0.7"), ("2", "2", "0.7"), ("3", "0", "0.7"), ("4", "0", "0.7"), ("5", "0", "0.7"),
                       ("6", "0", "0.7"))  # fmt: skip
    assert [row[1] for row in d8.rows] == ["2", "1", "0", "4", "3", "0", "2", "0"]
    assert d8.caption == "d8: 12 dice rolled, each face against a fair d8 (1.5 times each on average)."


def test_the_recap_of_a_session_with_two_fights(two_fights, campaign, gm, player, evening):
    """The fights oldest first, each with its model, outcome, rounds and who fell; the highlights (the biggest hit:
    Luwe's rescued attack for 1 in the first fight, which the claw's 1 on Luwe only ties; who fell); the GM's notes
    at the end, as typed; every name escaped so it stays text in a chat that reads Markdown."""
    sessions.set_recap(evening, "Loot: **300 credits** and the relay's key card.")
    (part,) = history.build(membership(player, campaign)).parts
    assert part.recap == (
        "# Night at the \\*relay\\* (14 Mar 2031)\n"
        "\n"
        "## Fights\n"
        "\n"
        "- **Relay \\*one\\*** (Burn Bryte): In progress after 1 round. Nobody fell.\n"
        "- **Dock** (Burn Bryte): Victory after 1 round. Fell: Nivick.\n"
        "\n"
        "## Highlights\n"
        "\n"
        "- The biggest hit: Luwe hit Nivick for 1 Health Level (Relay \\*one\\*).\n"
        "- Who fell: Nivick (Dock).\n"
        "\n"
        "## Notes\n"
        "\n"
        "Loot: **300 credits** and the relay's key card.\n"
    )
    assert history.build(membership(gm, campaign)).parts[0].recap == part.recap  # nothing here is the GM's alone


def test_the_history_page_shows_totals_luck_and_the_recap_to_copy(two_fights, client, player, campaign):
    client.force_login(player)
    page = client.get(reverse("archive", args=[campaign.pk])).content.decode()
    assert "<h1>History</h1>" in page and "Player characters over the campaign" in page
    assert '<tr><th scope="row">Luwe</th><td>2</td>' in page
    assert "d8: 12 dice rolled, each face against a fair d8" in page
    assert "<strong>Victory</strong> · 1 round · fell: Nivick" in page
    recap = re.search(r'<textarea id="recap-\d+" class="copy" readonly rows="8">(.*?)</textarea>', page, re.S)
    assert html.unescape(recap.group(1)).startswith("# Night at the \\*relay\\* (14 Mar 2031)\n\n## Fights\n")


def test_a_figure_hidden_from_a_player_stays_hidden_in_the_totals(hero_fought, client, gm, player, campaign):  # noqa: F811
    """Issue 20: "A number a viewer may not know is shown as hidden, never as 0." Kestrel's hit did 3 BODY to
    Agent 1: the GM's history counts it, a player's says it is hidden."""
    gms = {t.name: t for t in history.build(membership(gm, campaign)).totals}
    players = {t.name: t for t in history.build(membership(player, campaign)).totals}
    assert gms["Kestrel"].cells[5] == [3, False]  # damage dealt
    assert players["Kestrel"].cells[5] == [0, True]
    client.force_login(player)
    page = client.get(reverse("archive", args=[campaign.pk])).content.decode()
    row = re.search(r'<tr><th scope="row">Kestrel</th>(.*?)</tr>', page).group(1)
    assert re.findall(r"<td>(.*?)</td>", row)[6] == '<span class="hidden-figure">hidden</span>'  # after Fights
    assert "is the GM's to know" in html.unescape(page)


def test_only_members_see_the_history(two_fights, client, outsider, campaign):
    client.force_login(outsider)
    assert client.get(reverse("archive", args=[campaign.pk])).status_code == 404


def test_only_the_gm_writes_the_recap_notes(client, gm, player, campaign, evening):
    url = reverse("session_recap", args=[campaign.pk, evening.pk])
    client.force_login(player)
    assert client.post(url, {"recap": "Player's loot"}).status_code == 404
    evening.refresh_from_db()
    assert evening.recap == ""
    assert 'name="recap"' not in client.get(evening.get_absolute_url()).content.decode()  # no box for a player
    client.force_login(gm)
    assert 'name="recap"' in client.get(evening.get_absolute_url()).content.decode()
    response = client.post(url, {"recap": "Loot: a *key card*."}, follow=True)
    assert "Recap notes saved." in response.content.decode()
    too_long = client.post(url, {"recap": "x" * 4001})
    assert too_long.status_code == 400 and "at most 4000 characters" in too_long.content.decode()
    evening.refresh_from_db()
    assert evening.recap == "Loot: a *key card*."
    client.force_login(player)  # the group reads them on the session page, rendered
    assert "<em>key card</em>" in client.get(evening.get_absolute_url()).content.decode()


def initial_state(fixture: str):
    """The state a stored fight (tests/combat/fixtures/logs) began from: nobody down yet."""
    data = json.loads((FIXTURES / f"{fixture}.json").read_text())
    return from_json(registry.get(data["model"]).engine.State, data["initial"]), tables.get(data["model"])


@pytest.mark.parametrize(
    ("fixture", "falls"),
    [
        ("burn_bryte-ambush", lambda f: dataclasses.replace(f, health=0)),  # 0 Health Levels
        ("hero-brawl", lambda f: dataclasses.replace(f, body=0)),  # 0 BODY
        ("expanse-ambush", lambda f: dataclasses.replace(f, rolled_over=True)),
    ],
)
def test_each_model_says_who_fell_for_the_recap(fixture, falls):
    """The recap's "who fell": the fighter put down by its model's own rule, and nobody else."""
    state, table = initial_state(fixture)
    assert table.fallen(state) == []
    first = state.fighters[0]
    state = dataclasses.replace(state, fighters=(falls(first), *state.fighters[1:]))
    assert table.fallen(state) == [first.id]


def test_a_disabled_ship_fell_in_sw5e():
    state, table = initial_state("sw5e-weapon-fire")
    assert table.fallen(state) == []
    ship = state.ships[-1]
    state = dataclasses.replace(state, ships=(*state.ships[:-1], dataclasses.replace(ship, status="disabled")))
    assert table.fallen(state) == [ship.id]


def test_the_recap_downloads_as_markdown_from_the_history_page(two_fights, client, player, campaign, evening):
    """Issue 20: the recap "also in the exports": each session on the History page offers its recap as a file."""
    client.force_login(player)
    url = reverse("session_recap_download", args=[campaign.pk, evening.pk])
    assert (
        f'href="{url}" download>Download recap (.md)'
        in client.get(reverse("archive", args=[campaign.pk])).content.decode()
    )
    response = client.get(url)
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="recap-night-at-the-relay.md"'
    (part,) = history.build(membership(player, campaign)).parts
    assert response.content.decode() == part.recap


def test_a_session_of_another_campaign_has_no_recap_here(two_fights, client, gm, player, campaign, evening):
    """Members only, and only their campaign's sessions: anything else is a 404, as for every campaign page."""
    from campaigns import services as campaign_services

    other = campaign_services.create_campaign(gm, name="Elsewhere", combat_model="burn_bryte", description="")
    Membership.objects.create(campaign=other, user=player)
    client.force_login(player)
    assert client.get(reverse("session_recap_download", args=[other.pk, evening.pk])).status_code == 404


@pytest.fixture
def ambush(campaign, gm, pc, npc, evening):
    """A Burn Bryte fight of the evening against Nivick, whom the party never sees (hidden from the start, and he
    never attacks, which would reveal him): the GM takes his 3 Health Levels and ends the fight, a victory."""
    enc = services.start_encounter(
        services.create_encounter(
            campaign, gm, name="Ambush", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)], hidden=[npc.pk],
            session=evening,
        ),
        gm,
    )  # fmt: skip
    N = f"npc{npc.pk}-1"
    return play(enc, [(gm, "adjust_health", {"target": N, "change": -3}, ()), (gm, "end_encounter", {}, ())], "ambush")


def test_a_players_recap_never_names_an_unseen_enemy(ambush, campaign, gm, player, evening, client):
    """Issue 20: "a player and a spectator never see a GM-only fact in the ... recap". The GM's recap tells that
    Nivick fell; a player's does not name him, since the party never saw him."""
    gms = history.session_recap(membership(gm, campaign), evening)
    assert gms.endswith("## Highlights\n\n- Who fell: Nivick (Ambush).\n")
    client.force_login(player)
    mine = client.get(reverse("session_recap_download", args=[campaign.pk, evening.pk])).content.decode()
    assert "Nivick" not in mine
    assert mine.endswith("## Highlights\n\n- Nobody fell.\n")
    assert "- **Ambush** (Burn Bryte): Ended after 1 round. Nobody fell." in mine


def test_a_players_recap_never_shows_a_hidden_number(hero_fought, campaign, gm, player, evening):  # noqa: F811
    """Kestrel's hit did 3 BODY to Agent 1, a number the GM alone knows: the GM's recap makes it the biggest hit, a
    player's has no biggest hit at all rather than a made-up or zero one."""
    hero_fought.session = evening
    hero_fought.save(update_fields=["session"])
    gms = history.session_recap(membership(gm, campaign), evening)
    assert "- The biggest hit: Kestrel hit Agent 1 for 3 BODY (Rooftop).\n" in gms
    mine = history.session_recap(membership(player, campaign), evening)
    assert "BODY" not in mine and "The biggest hit" not in mine


def markdown_export(encounter, gm_view: bool, reader=None) -> str:
    out = io.StringIO()
    exports.write_markdown(encounter, gm_view, out, reader)
    return out.getvalue()


def test_the_markdown_export_ends_with_the_sessions_recap_for_its_reader(ambush, campaign, gm, player, evening):
    """Issue 20: the session recap is "also in the exports": a fight's Markdown export ends with the recap of its
    session, the GM's for the GM and a player's for a player, who never reads the unseen enemy's name there."""
    gms = markdown_export(ambush, True)
    assert gms.endswith("\n---\n\n" + history.session_recap(membership(gm, campaign), evening))
    assert "- Who fell: Nivick (Ambush)." in gms
    mine = markdown_export(ambush, False, reader=player.pk)
    assert mine.endswith("\n---\n\n" + history.session_recap(membership(player, campaign), evening))
    assert "Nivick" not in mine and "- **Ambush** (Burn Bryte): Ended after 1 round. Nobody fell." in mine


def test_a_players_markdown_export_shows_no_hidden_number_in_its_recap(hero_fought, gm, player, evening):  # noqa: F811
    hero_fought.session = evening
    hero_fought.save(update_fields=["session"])
    assert "- The biggest hit: Kestrel hit Agent 1 for 3 BODY (Rooftop)." in markdown_export(hero_fought, True)
    mine = markdown_export(hero_fought, False, reader=player.pk)
    assert "## Highlights" in mine and "The biggest hit" not in mine
