"""The odds the review gives a roll are the engine's own: every way the dice can fall played through `decide`, and
the share of them the engine counts a success is the `chance` in that roll's facts (issue 20's luckiest and
unluckiest rolls)."""

from itertools import product

import pytest

from combat.rules import sw5e as sw
from combat.rules.dice import ScriptedDice
from combat.rules.sw5e import events as sw_events
from combat.rules.sw5e import review as sw_review
from tests.combat.test_sw5e_gear import dex_fires, fire

DAMAGE = [1] * 8  # enough damage dice for a critical hit of 2d6 doubled


def _shot(t, d20s):
    """Dex's shot from the moment `t` is at, the d20s showing `d20s` (decide changes nothing: each try starts there)."""
    return next(
        e for e in sw.decide(t.state, fire(), ScriptedDice([*d20s, *DAMAGE])) if isinstance(e, sw_events.WeaponFired)
    )


def _agrees(t, throws):
    """Every throw of the d20s tried: the engine's share of hits, and the one chance the facts gave each shot."""
    shots = [_shot(t, d20s) for d20s in throws]
    chances = {sw_review.facts(t.state, shot).rolls[0].chance for shot in shots}
    assert chances == {sum(shot.hit for shot in shots) / len(throws)}


@pytest.mark.parametrize("critical", ["double_dice", "none"])
@pytest.mark.parametrize("ac", [6, 14, 25, 26])  # laser cannons +5: sure but for a 1, even, a 20 only, never
def test_a_shots_chance_is_the_share_of_d20_faces_the_engine_counts_a_hit(critical, ac):
    _agrees(dex_fires({"critical": critical}, frigate_over={"ac": ac}), [(face,) for face in range(1, 21)])


@pytest.mark.parametrize("ac", [6, 14, 25])
def test_with_disadvantage_it_is_the_share_of_the_400_throws_of_two_d20s(ac):
    """System damage level 3, applied by the server: two d20s, the lower counts."""
    t = dex_fires({"system_damage_rolls": "applied"}, hawk_over={"system_damage": 3}, frigate_over={"ac": ac})
    _agrees(t, list(product(range(1, 21), repeat=2)))


def test_a_hero_presence_attack_and_a_held_actions_dex_roll_carry_their_odds():
    """A Presence attack succeeds when its dice reach the target's PRE: 4d6 reach 15 in 575 of 1,296 ways (44%); a
    DEX roll to act first with a held action, 3d6 under DEX 20's 13 or less: 181 of 216. A player knows neither
    number of an enemy, so neither chance that rests on one."""
    from combat.rules.hero import events as hero_events
    from combat.rules.hero import review as hero_review
    from combat.rules.hero.state import Fighter, State

    state = State(
        fighters=(
            Fighter(id="pc1", name="Kestrel", side="pc", aware_of=("e1",)),
            Fighter(id="e1", name="Agent", side="enemy"),
        )
    )
    presence = hero_events.PresenceAttacked(fighter="pc1", target="e1", roll=(6, 5, 3, 2), against=15, level=2)
    assert hero_review.facts(state, presence, gm=True).rolls[0].chance == 575 / 1296
    assert hero_review.facts(state, presence, gm=False).rolls[0].chance is None  # the Agent's PRE is the GM's
    for holder, chance in (("pc1", 181 / 216), ("e1", None)):  # an enemy's DEX is the GM's too
        other = "e1" if holder == "pc1" else "pc1"
        contest = hero_events.HoldContested(
            holder=holder, other=other, holder_roll=(4, 4, 4), other_roll=(5, 5, 5), holder_target=13, other_target=11
        )
        held, second = hero_review.facts(state, contest, gm=False).rolls
        assert (held.chance, held.succeeded, second.chance) == (chance, True, None)
        assert hero_review.facts(state, contest, gm=True).rolls[0].chance == 181 / 216
