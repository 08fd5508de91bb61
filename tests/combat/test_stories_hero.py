"""Issue 20's stories and highlights for HERO: the hand-worked fight of tests/combat/test_hero_table.py (Kestrel's
attack hits Agent 1 for 21 STUN and 3 BODY; Agent 2's 18 misses Bulwark; Bulwark takes a Recovery)."""

import html
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from combat import review, stories
from combat.models import EncounterEvent
from tests.combat.test_hero_table import agent, bulwark, enc, fought, kestrel, key, phone_of  # noqa: F401

pytestmark = pytest.mark.django_db


def _build(encounter, gm):
    return stories.build(encounter, review.build(encounter, is_gm=gm))


def _clock(encounter, seconds):
    """The log's clock, hand-set: entry n was written at `seconds[n]` seconds."""
    start = timezone.now()
    for seq, at in seconds.items():
        EncounterEvent.objects.filter(encounter=encounter, seq=seq).update(created_at=start + timedelta(seconds=at))


def test_a_hero_story_counts_hits_misses_and_has_phases_not_turns(fought, kestrel, bulwark, agent):  # noqa: F811
    """Issue 20: "Per character: ... hits and misses, damage dealt and taken, ... conditions suffered"; HERO has no
    one's turn (phases in DEX order share a segment), so its stories show Phases used instead of turns taken."""
    cards = {c.summary.key: c for c in _build(fought, True).cards}
    k, a1, a2 = cards[key(kestrel)], cards[key(agent, 1)], cards[key(agent, 2)]
    assert (k.hits, k.misses, k.summary.damage_dealt, k.turns) == (1, 0, 3, None)
    assert (a2.hits, a2.misses) == (0, 1)
    assert (a1.summary.damage_taken, a1.summary.figures["stun_taken"]) == (3, 21)
    assert a1.conditions == {"Stunned": 1} and k.conditions == {} and cards[key(bulwark)].conditions == {}
    assert (a1.conditions_text, k.conditions_text) == ("Stunned", "none")


def test_a_hero_characters_turn_is_each_phase_they_act_in(fought, kestrel, bulwark, agent, gm_client):  # noqa: F811
    """The time each player took: a HERO character's "turn" is a phase they act in, from the event that gave them
    the floor to their last event in it. The log: 1 segment 12 starts (t=0), 2 Kestrel attacks (t=40), 3 Agent 1's
    phase is spent Stunned (t=45: no phase acted in), 4 Agent 2 attacks (t=52), 5 Bulwark takes a Recovery (t=70)."""
    _clock(fought, {1: 0, 2: 40, 3: 45, 4: 52, 5: 70, 6: 71, 7: 72, 8: 80})
    cards = {c.summary.key: c for c in _build(fought, True).cards}
    k, b, a1, a2 = cards[key(kestrel)], cards[key(bulwark)], cards[key(agent, 1)], cards[key(agent, 2)]
    assert (k.turn_seconds, b.turn_seconds, a2.turn_seconds, a1.turn_seconds) == ([40.0], [18.0], [7.0], [])
    assert (k.median_seconds, k.longest_seconds) == (40.0, 40.0)
    url = reverse("encounter_log", args=[fought.campaign_id, fought.pk])
    page = html.unescape(gm_client.get(url).content.decode())
    assert "Time on their phases" in page and "median 40 s, longest 40 s" in page


def test_hero_highlights_for_the_gm_with_the_odds_of_each_attack(fought):  # noqa: F811
    """Issue 20: "the luckiest and unluckiest rolls against their odds". Kestrel (OCV 8) needed 11 + 8 − 5 = 14 or
    less on 3d6 against Agent 1's DCV 5: 196 of 216 ways, 91%; his 12 hit. Agent 2 (OCV 5) needed 11 + 5 − 5 = 11
    against Bulwark's DCV 5: 135 of 216, 62.5%; the 18 always misses."""
    s = _build(fought, True)
    h = {x.title: x.text for x in s.highlights}
    assert h["The biggest hit"] == "Kestrel hit Agent 1 for 3 BODY."
    assert h["The closest call"].startswith("Agent 1 came down to ")
    assert h["The turn that swung the fight"] == "Turn 1, Segment 12: their opponents lost 3 BODY in all."
    assert h["The luckiest roll"] == "Kestrel succeeded against a 91% chance."
    assert h["The unluckiest roll"] == "Agent 2 failed with a 62% chance of success."
    assert s.no_luck == ""


def test_a_players_hero_odds_stay_with_the_gm(fought):  # noqa: F811
    """What an attack needed (11 + OCV − DCV) is the GM's to know when an enemy is in it, so a player sees no odds
    of these rolls, and the page says why there is no luckiest roll."""
    s = _build(fought, False)
    assert all(r.chance is None for step in review.build(fought, is_gm=False).steps for r in step.facts.rolls)
    assert s.no_luck == stories.NO_ODDS


def test_a_players_hero_stories_say_hidden_never_zero(fought, client, player):  # noqa: F811
    """Issue 20: "a hidden figure says 'hidden', never 0": the BODY Kestrel dealt to an enemy is the GM's to know,
    so a player's story says hidden, and no highlight gives the number away."""
    s = _build(fought, False)
    assert {x.title for x in s.highlights} == set()  # every damage and health of this fight is an enemy's
    page = phone_of(client, player).get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).content
    card = html.unescape(page.decode())
    card = card[card.index('id="story-') :]
    card = card[card.index(">Kestrel<") :]
    dealt = re.search(r"<dt>Damage dealt</dt><dd>(.*?)</dd>", card).group(1)
    assert dealt == '<span class="hidden-figure">hidden</span>'
    assert "3 BODY" not in card and "Nothing stands out yet." in html.unescape(page.decode())


def _card(page: bytes, name: str) -> str:
    text = html.unescape(page.decode())
    start = text.index(f">{name}</h3>")
    return text[start : text.index("</article>", start)]


def _figure(card: str, label: str) -> str:
    return re.search(rf"<dt>{label}</dt><dd>(.*?)</dd>", card).group(1)


def test_hero_stories_count_end_spent_and_gained_and_healing(fought, kestrel, bulwark, agent, gm, client, player):  # noqa: F811
    """Issue 20: "healing, pools spent and gained (... END)". Kestrel turns on a 20 Active Point Force Field (an
    action that takes no time): 2 END, 40 to 38; the GM gives him 1 back. The GM takes 3 END from Agent 2, and 2 BODY
    from Bulwark, then gives him 1 back. An enemy's END is one of its numbers: a player reads "hidden" for it, never
    0 (the attacks of this fight gave no Active Points, so they cost no END)."""
    from tests.combat.test_hero_table import ok

    ok(fought, player, "act", actor=key(kestrel), kind="zero", text="Force Field", active_points=20)
    ok(fought, gm, "adjust_pools", target=key(kestrel), end=1)
    ok(fought, gm, "adjust_pools", target=key(agent, 2), end=-3)
    ok(fought, gm, "adjust_pools", target=key(bulwark), body=-2)
    ok(fought, gm, "adjust_pools", target=key(bulwark), body=1)
    cards = {c.summary.key: c for c in _build(fought, True).cards}
    k, b, a2 = cards[key(kestrel)], cards[key(bulwark)], cards[key(agent, 2)]
    assert (k.summary.figures["end_spent"], k.summary.figures["end_gained"]) == (2, 1)
    assert (a2.summary.figures["end_spent"], b.summary.figures["end_spent"], b.summary.figures["end_gained"]) == (
        3,
        0,
        0,
    )
    assert (b.healing, b.summary.damage_taken) == (1, 2)
    gm_page = phone_of(client, gm).get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).content
    assert _figure(_card(gm_page, "Agent 2"), "END spent") == "3"
    assert _figure(_card(gm_page, "Bulwark"), "Healing") == "1"
    mine = {c.summary.key: c for c in _build(fought, False).cards}
    assert mine[key(kestrel)].summary.figures["end_spent"] == 2 and mine[key(bulwark)].healing == 1
    assert {"end_spent", "end_gained"} <= mine[key(agent, 2)].summary.hidden
    assert mine[key(agent, 2)].summary.figures["end_spent"] == 0  # never counted for a player
    page = phone_of(client, player).get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).content
    card = _card(page, "Kestrel")
    assert (_figure(card, "END spent"), _figure(card, "END gained")) == ("2", "1")
    row = re.search(r'<th scope="row">Agent 2</th>(.*?)</tr>', html.unescape(page.decode())).group(1)
    assert row.count('<span class="hidden-figure">hidden</span>') >= 2 and ">Agent 2</h3>" not in page.decode()
