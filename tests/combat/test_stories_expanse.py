"""Issue 20's stories and highlights for The Expanse: the hand-worked fight of tests/combat/test_expanse_table.py
(Rosa's pistol hits Thug 1 for 7 past Toughness; Marcus misses; Thug 1 hits Rosa for 9, which she pays in Fortune)."""

import html
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from combat import review, stories
from combat.models import Encounter, EncounterEvent
from tests.combat.test_expanse_table import enc, fought, go, key, marcus, rosa, thug  # noqa: F401

pytestmark = pytest.mark.django_db


def _build(encounter, gm):
    return stories.build(encounter, review.build(encounter, is_gm=gm))


def _clock(encounter, seconds):
    """The log's clock, hand-set: entry n was written at `seconds[n]` seconds."""
    start = timezone.now()
    for seq, at in seconds.items():
        EncounterEvent.objects.filter(encounter=encounter, seq=seq).update(created_at=start + timedelta(seconds=at))


def test_an_expanse_story_counts_turns_hits_misses_and_stunt_points(fought, rosa, marcus, thug):  # noqa: F811
    """Issue 20: "Per character: turns taken, rolls and successes, hits and misses, damage dealt and taken, ...
    pools spent and gained (... stunt points ...)"."""
    cards = {c.summary.key: c for c in _build(fought, True).cards}
    r, m, t = cards[key(rosa)], cards[key(marcus)], cards[key(thug, 1)]
    assert (r.turns, r.hits, r.misses, r.summary.damage_dealt, r.summary.damage_taken) == (1, 1, 0, 7, 9)
    assert (m.turns, m.hits, m.misses) == (1, 0, 1)
    assert (t.turns, t.hits, t.misses) == (1, 1, 0)
    assert r.summary.figures == {"sp_earned": 4, "sp_spent": 3, "fortune_spent": 9, "fortune_gained": 0}
    assert len(r.turn_seconds) == len(m.turn_seconds) == 1


def test_expanse_highlights(fought, rosa):  # noqa: F811
    """Issue 20: "the biggest hit, the closest call (lowest health survived) ... the turn that swung the fight";
    an Expanse combatant's health is Fortune."""
    for gm in (True, False):  # every figure of this fight is public
        s = _build(fought, gm)
        h = {x.title: x.text for x in s.highlights}
        assert h["The biggest hit"] == "Thug 1 hit Rosa for 9 damage past Toughness."
        assert h["The closest call"] == "Rosa came down to 9 Fortune and was still standing at the end."  # 18 - 9
        assert h["The turn that swung the fight"] == (
            "Round 1, Thug 1's turn: the player characters lost 9 damage past Toughness in all."
        )


def test_expanse_luck_against_the_exact_odds_of_each_test(fought):  # noqa: F811
    """Issue 20: "the luckiest and unluckiest rolls against their odds", worked out from 3d6's 216 ways. Rosa: 3d6 +
    5 against Thug 1's Defense 17 needs 12 or more (81 ways, 37.5%; her 14 hit). Marcus: + 2 against 17 needs 15 or
    more (20 ways, 9%; his 8 missed). Thug 1: + 2 against Rosa's Defense 16 (Duck and Weave) needs 14 or more
    (35 ways, 16%; his 15 hit)."""
    s = _build(fought, True)
    h = {x.title: x.text for x in s.highlights}
    assert h["The luckiest roll"] == "Thug 1 succeeded against a 16% chance."
    assert h["The unluckiest roll"] == "Marcus failed with a 9% chance of success."
    chances = [r.chance for step in review.build(fought, is_gm=True).steps for r in step.facts.rolls if r.counted]
    assert chances == [81 / 216, 20 / 216, 35 / 216]
    assert s.no_luck == ""


def test_a_player_knows_the_odds_only_against_a_defense_they_may_see(fought):  # noqa: F811
    """A thug's Defense is the GM's to know (the log does not tell it to players), so the odds of the PCs' attacks on
    the thugs stay with the GM; Thug 1's attack on Rosa was against her Defense, which the party knows."""
    s = _build(fought, False)
    h = {x.title: x.text for x in s.highlights}
    assert h["The luckiest roll"] == "Thug 1 succeeded against a 16% chance."
    assert "The unluckiest roll" not in h  # Marcus's miss had odds the party does not know
    chances = [r.chance for step in review.build(fought, is_gm=False).steps for r in step.facts.rolls if r.counted]
    assert chances == [None, None, 35 / 216]


def test_an_expanse_story_counts_the_conditions_suffered(fought, rosa, thug):  # noqa: F811
    """Issue 20: "conditions suffered": Thug 1 took Injured, then Wounded, to answer Rosa's 7 damage; players see
    a thug's conditions on the table too."""
    for gm in (True, False):
        cards = {c.summary.key: c for c in _build(fought, gm).cards}
        assert cards[key(thug, 1)].conditions == {"Injured": 1, "Wounded": 1}
        assert cards[key(rosa)].conditions_text == "none"


@pytest.fixture
def two_rounds(fought, gm, player, rosa, thug):  # noqa: F811
    """The fight goes on: the thugs end their turns, round 2 opens on Rosa, the GM gives her 3 Fortune back (9 to 12)
    and she ends her turn; Marcus's second turn has just begun."""
    for user, name, data in [
        (gm, "end_turn", {"actor": key(thug, 1)}),
        (gm, "end_turn", {"actor": key(thug, 2)}),
        (gm, "adjust_fortune", {"target": key(rosa), "change": 3}),
        (player, "end_turn", {"actor": key(rosa)}),
    ]:
        assert go(fought, user, name, **data).ok, name
    return Encounter.objects.get(pk=fought.pk)


def test_expanse_turn_times_median_and_longest(two_rounds, rosa, marcus, thug):  # noqa: F811
    """Issue 20: "the real time each player took on their turns (from event times; median and longest)". The log:
    1 initiative (t=0); Rosa's turn 2-5 (t=5, 20, 30, 40): 40 s from the entry before it; Marcus's 6-8 (t=42, 50,
    55): 15 s; Thug 1's 9-15 (t=60 … 100): 45 s; Thug 2's 16-17 (t=101, 110): 10 s; Rosa's second 18-20 (t=112,
    115, 130): 20 s; Marcus's second, begun at 21 (t=131): 1 s so far. Rosa: median of 40 and 20 is 30."""
    clock = {1: 0, 2: 5, 3: 20, 4: 30, 5: 40, 6: 42, 7: 50, 8: 55, 9: 60, 10: 70, 11: 80, 12: 85, 13: 90, 14: 95}
    _clock(two_rounds, clock | {15: 100, 16: 101, 17: 110, 18: 112, 19: 115, 20: 130, 21: 131})
    cards = {c.summary.key: c for c in _build(two_rounds, True).cards}
    r, m, t1, t2 = cards[key(rosa)], cards[key(marcus)], cards[key(thug, 1)], cards[key(thug, 2)]
    assert (r.turns, r.turn_seconds, r.median_seconds, r.longest_seconds) == (2, [40.0, 20.0], 30.0, 40.0)
    assert (m.turns, m.turn_seconds, m.median_seconds, m.longest_seconds) == (2, [15.0, 1.0], 8.0, 15.0)
    assert (t1.turn_seconds, t2.turn_seconds) == ([45.0], [10.0])
    mine = {c.summary.key: c for c in _build(two_rounds, False).cards}
    assert mine[key(rosa)].turn_seconds == [40.0, 20.0]  # every entry of this fight is public


def test_expanse_stories_show_fortune_spent_and_gained(two_rounds, rosa, thug, client, gm, player):  # noqa: F811
    """Issue 20: "pools spent and gained (... Fortune, stunt points ...)": Rosa paid Thug 1's 9 damage in Fortune and
    the GM gave her 3 back; she earned 4 stunt points and spent 3. An enemy's Fortune is one of its numbers: a
    player's summary says hidden, never 0, and shows no enemy's story."""
    cards = {c.summary.key: c for c in _build(two_rounds, True).cards}
    assert cards[key(rosa)].summary.figures == {"sp_earned": 4, "sp_spent": 3, "fortune_spent": 9, "fortune_gained": 3}
    assert not cards[key(thug, 1)].summary.hidden
    mine = review.build(two_rounds, is_gm=False)
    thug_row = next(s for s in mine.summaries if s.key == key(thug, 1))
    assert {"fortune_spent", "fortune_gained"} <= thug_row.hidden and thug_row.figures["fortune_spent"] == 0
    url = reverse("encounter_log", args=[two_rounds.campaign_id, two_rounds.pk])
    for user in (gm, player):
        client.force_login(user)
        page = html.unescape(client.get(url).content.decode())
        start = page.index(">Rosa</h3>")
        card = page[start : page.index("</article>", start)]
        assert "<dt>Fortune spent</dt><dd>9</dd>" in card and "<dt>Fortune gained</dt><dd>3</dd>" in card
        assert "<dt>Time on their turns</dt>" in card
        row = re.search(r'<th scope="row">Thug 1</th>(.*?)</tr>', page).group(1)
        assert row.count("hidden-figure") == (0 if user == gm else 2)
        assert (">Thug 1</h3>" in page) == (user == gm)
