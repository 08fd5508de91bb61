"""Issue 20: each character's story and the fight's highlights on the review page (Burn Bryte's hand-worked fight
of tests/combat/test_review.py; the other models have their own files)."""

import html
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from combat import review, stories
from combat.models import EncounterEvent
from tests.combat.test_review import fought  # noqa: F401  (the hand-worked Burn Bryte fight)

pytestmark = pytest.mark.django_db


def _seq(encounter, kind, nth=0):
    return list(EncounterEvent.objects.filter(encounter=encounter, kind=kind).order_by("seq"))[nth].seq


def _stories(encounter, gm):
    return stories.build(encounter, review.build(encounter, is_gm=gm))


def _highlights(encounter, gm):
    return {h.title: h for h in _stories(encounter, gm).highlights}


def test_a_burn_bryte_story_counts_turns_hits_and_the_time_taken(fought, pc, npc):  # noqa: F811
    """Issue 20: "Per character: turns taken, rolls and successes, hits and misses, damage dealt and taken, healing,
    pools spent and gained ... and the real time each player took on their turns (from event times; median and
    longest)." Luwe took one turn: a Knowledge roll (2d6 1, 2: success), a Melee attack (4, 4, 1: fails on
    doubles) rescued by an Advantage (7: a hit for 1), a Melee roll failing on doubles. Nivick's claw hit Luwe."""
    start = timezone.now()
    for row in EncounterEvent.objects.filter(encounter=fought):  # the log's clock, hand-set: 10 s an entry
        EncounterEvent.objects.filter(pk=row.pk).update(created_at=start + timedelta(seconds=10 * row.seq))
    begun, ended = _seq(fought, "turn_started"), _seq(fought, "turn_ended")
    cards = {c.summary.key: c for c in _stories(fought, True).cards}
    luwe, nivick = cards[f"pc{pc.pk}"], cards[f"npc{npc.pk}-1"]
    assert (luwe.turns, luwe.summary.rolls, luwe.summary.successes) == (1, 3, 2)
    assert (luwe.hits, luwe.misses, luwe.healing) == (1, 0, 0)  # the rescued miss became a hit
    assert (nivick.hits, nivick.misses, nivick.turns) == (1, 0, 0)  # enemies act in phases, never on a turn
    assert (luwe.summary.damage_dealt, luwe.summary.damage_taken) == (1, 1)
    assert luwe.turn_seconds == [10.0 * (ended - begun)]  # from claiming the turn to its end
    assert luwe.median_seconds == luwe.longest_seconds == 10.0 * (ended - begun)
    assert nivick.turn_seconds == []


def test_healing_counts_in_the_story(fought, gm, npc, gm_client):  # noqa: F811
    """Issue 20: the story counts "healing": the GM gives Nivick back 1 Health Level; his card (the GM's) says so."""
    from combat import services

    assert services.submit(fought.pk, gm, "adjust_health", {"target": f"npc{npc.pk}-1", "change": 1}, "heal").ok
    fought.refresh_from_db()
    cards = {c.summary.key: c for c in _stories(fought, True).cards}
    assert cards[f"npc{npc.pk}-1"].healing == 1
    gm_page = gm_client.get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).content.decode()
    assert _figure(_card(gm_page, "Nivick"), "Healing") == "1"


def test_burn_bryte_highlights_for_the_gm(fought):  # noqa: F811
    """Issue 20: "Highlights: the biggest hit, the closest call (lowest health survived), the luckiest and unluckiest
    rolls against their odds (... Burn Bryte's exact chance is already shown), the turn that swung the fight"."""
    h = _highlights(fought, True)
    assert h["The biggest hit"].text == "Luwe hit Nivick for 1 Health Level."
    assert h["The biggest hit"].moment == _seq(fought, "advantage_spent")
    assert h["The closest call"].text == "Nivick came down to 1 Health Level and was still standing at the end."
    # 2d6 with no doubles: 5 in 6; 3d8 with no doubles: 8·7·6 / 8³ = 66%; 4d8 (8·7·6·5 / 8⁴ = 41%) failed too.
    assert h["The luckiest roll"].text == "Luwe succeeded against an 83% chance."
    assert h["The luckiest roll"].moment == _seq(fought, "skill_rolled", 0)
    assert h["The unluckiest roll"].text == "Luwe failed with a 66% chance of success."
    assert h["The unluckiest roll"].moment == _seq(fought, "skill_rolled", 1)
    swing = h["The turn that swung the fight"]
    assert swing.text == "Round 1, Phase 2: players act — Luwe's turn: their opponents lost 1 Health Level in all."
    assert swing.moment == _seq(fought, "skill_rolled", 0)  # the first entry of Luwe's turn
    assert _stories(fought, True).no_luck == ""


def test_a_players_highlights_leak_nothing_and_link_the_same_moments(fought, client, player, gm):  # noqa: F811
    """Issue 20: "a player and a spectator never see a GM-only fact in the replay, highlights" — Nivick's health is
    the GM's to know (no closest call of his for players); a player's moment is the log's seq, as the GM's is."""
    h = _highlights(fought, False)
    assert h["The closest call"].text == "Luwe came down to 2 Health Levels and was still standing at the end."
    assert h["The biggest hit"].moment == _seq(fought, "advantage_spent")
    url = reverse("encounter_log", args=[fought.campaign_id, fought.pk])
    client.force_login(player)
    page = html.unescape(client.get(url).content.decode())
    stories_html = page[page.index('id="highlights"') : page.index('id="charts-h"')]
    assert "Nivick came down" not in stories_html and "Collapse" not in stories_html and "frenzy" not in page
    assert "Luwe came down to 2 Health Levels" in stories_html and "Each character's story" in stories_html
    assert 'id="story-pc' in stories_html and 'id="story-npc' not in stories_html  # a card per PC
    client.force_login(gm)
    gm_page = html.unescape(client.get(url).content.decode())
    assert "Nivick came down to 1 Health Level" in gm_page and "Collapse points given" in gm_page


@pytest.mark.parametrize("as_gm", [True, False])
def test_each_highlight_links_to_its_moment_in_the_replay(fought, client, player, gm, as_gm):  # noqa: F811
    """Issue 20: each highlight "links to its moment in the replay": the link's replay shows the entry it is about."""
    url = reverse("encounter_log", args=[fought.campaign_id, fought.pk])
    client.force_login(gm if as_gm else player)
    page = html.unescape(client.get(url).content.decode())
    links = re.findall(r'<strong>([^<]+)</strong>: [^<]*<a href="[^"?]*\?at=(\d+)#replay"', page)
    assert len(links) == 5
    expected = {
        "The biggest hit": "Luwe spends an Advantage to reroll die 1: it shows 7.",
        "The luckiest roll": "Luwe rolls Knowledge to create an advantage",
        "The unluckiest roll": "Luwe rolls Melee to attack Nivick at complexity 3",
        "The turn that swung the fight": "Luwe rolls Knowledge to create an advantage",
        "The closest call": "Luwe spends an Advantage" if as_gm else "Nivick's claw hits Luwe for 1 Health Level.",
    }
    for title, at in links:
        shown = html.unescape(client.get(url, {"at": at}).content.decode())
        moment = shown[shown.index('class="moment"') : shown.index('class="scrubber"')]
        assert expected[title] in moment, (title, at)


def test_a_burn_bryte_story_counts_the_conditions_suffered(fought, gm, client, player, pc, npc):  # noqa: F811
    """Issue 20: "conditions suffered": the GM gives Luwe a minor negative condition (Melee), clears it and gives it
    again, and gives Nivick a significant one. An enemy's conditions are the GM's (as on the table): a player's
    story of Nivick, had they one, would not count it, and their page never names it."""
    from combat import services

    luwe, nivick = f"pc{pc.pk}", f"npc{npc.pk}-1"
    for n, (target, slot, value) in enumerate(
        [
            (luwe, "neg_minor", "Melee"),
            (luwe, "neg_minor", ""),
            (luwe, "neg_minor", "Melee"),
            (nivick, "neg_significant", "yes"),
        ]
    ):
        assert services.submit(
            fought.pk, gm, "set_condition", {"target": target, "slot": slot, "value": value}, f"c{n}"
        ).ok
    fought.refresh_from_db()
    cards = {c.summary.key: c for c in _stories(fought, True).cards}
    assert cards[luwe].conditions == {"Minor negative condition": 2}
    assert cards[luwe].conditions_text == "Minor negative condition ×2"
    assert cards[nivick].conditions == {"Significant negative condition": 1}
    mine = {c.summary.key: c for c in _stories(fought, False).cards}
    assert mine[luwe].conditions == {"Minor negative condition": 2} and mine[nivick].conditions == {}
    client.force_login(player)
    page = html.unescape(client.get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).content.decode())
    stories_html = page[page.index('id="stories"') : page.index('id="charts-h"')]
    assert "<dt>Conditions suffered</dt><dd>Minor negative condition ×2</dd>" in stories_html
    assert "Significant negative" not in stories_html


def _card(page: str, name: str) -> str:
    """The story card of `name` on a review page (its HTML, entities unescaped)."""
    page = html.unescape(page)
    start = page.index(f">{name}</h3>")
    return page[start : page.index("</article>", start)]


def _figure(card: str, label: str) -> str:
    return re.search(rf"<dt>{label}</dt><dd>(.*?)</dd>", card).group(1)


def test_burn_bryte_stories_show_each_pool_spent_and_gained(fought, gm, player, client, pc, npc):  # noqa: F811
    """Issue 20: "pools spent and gained (Advantages, Collapse, Nova ...)". Luwe's Knowledge roll created an
    Advantage (1 gained) and the reroll used it (1 used); the GM spent a Collapse point on Nivick's frenzy (GM-only,
    like the pool) and gave his failure's point to the pool. Then the GM gives Luwe 2 Nova points and he spends 1."""
    from combat import services

    luwe, nivick = f"pc{pc.pk}", f"npc{npc.pk}-1"
    assert services.submit(fought.pk, gm, "adjust_nova", {"target": luwe, "change": 2}, "nova+").ok
    assert services.submit(fought.pk, player, "spend_nova", {"actor": luwe, "points": 1}, "nova-").ok
    fought.refresh_from_db()
    cards = {c.summary.key: c for c in _stories(fought, True).cards}
    assert cards[luwe].summary.figures == {
        "collapse_given": 1,
        "collapse_spent": 0,
        "advantages_gained": 1,
        "advantages_used": 1,
        "nova_gained": 2,
        "nova_spent": 1,
    }
    assert cards[nivick].summary.figures["collapse_spent"] == 1
    url = reverse("encounter_log", args=[fought.campaign_id, fought.pk])
    client.force_login(gm)
    gm_card = _card(client.get(url).content.decode(), "Luwe")
    assert [_figure(gm_card, label) for label in ("Advantages gained", "Nova points gained", "Nova points spent")] == [
        "1",
        "2",
        "1",
    ]
    assert _figure(_card(client.get(url).content.decode(), "Nivick"), "Collapse points spent") == "1"
    # A player: the same Advantages and Nova; the GM's Collapse pool is no figure of theirs at all.
    mine = {c.summary.key: c for c in _stories(fought, False).cards}
    assert mine[luwe].summary.figures == {
        "advantages_gained": 1,
        "advantages_used": 1,
        "nova_gained": 2,
        "nova_spent": 1,
    }
    client.force_login(player)
    page = client.get(url).content.decode()
    assert _figure(_card(page, "Luwe"), "Nova points gained") == "2" and "Collapse" not in page


def test_the_gm_reads_every_enemys_story_a_player_none(fought, gm, player, client, npc):  # noqa: F811
    """The GM sees a card for Nivick too (his claw hit, his health, his conditions); a player, who may not know an
    enemy's numbers, reads only the player characters' stories."""
    url = reverse("encounter_log", args=[fought.campaign_id, fought.pk])
    client.force_login(gm)
    nivick = _card(client.get(url).content.decode(), "Nivick")
    assert _figure(nivick, "Hits and misses") == "1 hit, 0 misses" and _figure(nivick, "Damage dealt") == "1"
    client.force_login(player)
    page = html.unescape(client.get(url).content.decode())
    stories_html = page[page.index('id="stories"') : page.index('id="charts-h"')]
    assert ">Luwe</h3>" in stories_html and ">Nivick</h3>" not in stories_html
