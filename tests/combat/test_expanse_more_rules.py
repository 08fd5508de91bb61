"""Issue 19's other Expanse rules with scripted dice: penetrating damage past cover, Run taking the turn, injured
and wounded at once, attacks only at a visible enemy, and the Churn's thresholds with effects the GM applies.

The fight and its numbers are test_expanse_rules's: Luwe's pistol attack is +5 (damage 2d6 + Perception 2, a
stunning pistol 1d6 + 2), the Boss has Defense 12 and Toughness 3 + medium armour 4 = 7.
"""

from dataclasses import replace

import pytest

from combat.rules import expanse as ex
from combat.rules.core import Reveal
from combat.rules.expanse import churn
from tests.combat.test_expanse_rules import begun, boss, encounter, furo, grunt, last_test, luwe, pistol, to_turn

# --- penetrating damage ------------------------------------------------------------------------------------------


def test_stunning_damage_ignores_cover_as_well_as_toughness():
    """Seed: "A stunning weapon does penetrating damage" and "Some damage (e.g. energy) is treated as penetrating
    and it ignores Toughness entirely." Toughness "is modified by your armour", and cover is an "Armour Bonus"."""
    t = begun(state=encounter(luwe(), furo(), boss(cover=2), grunt()))
    t.do(pistol(stunning=True), faces=[4, 5, 3, 5])  # 12 + 5 = 17 hits Defense 12; 1d6 shows 5, + 2 = 7
    [hit] = t.state.hits
    assert (hit.damage, hit.cover, hit.remaining) == (7, 0, 7)  # cover rating 2 (+3) stops none of it
    said = ex.describe(t.initial, t.log[-1].event)
    assert "neither Toughness nor cover stops any of it" in said


def test_a_gm_may_let_cover_count_against_penetrating_damage_and_old_logs_keep_it():
    """The house rule (and every encounter stored before the setting existed): cover's +3 still soaks."""
    t = begun(state=encounter(luwe(), furo(), boss(cover=2), grunt(), penetrating_ignores_cover=False))
    t.do(pistol(stunning=True), faces=[4, 5, 3, 5])
    [hit] = t.state.hits
    assert (hit.damage, hit.cover, hit.remaining) == (7, 3, 4)
    old = encounter(luwe(), furo(), boss(cover=2), grunt())
    old = replace(old, settings={k: v for k, v in old.settings.items() if k != "penetrating_ignores_cover"})
    t = begun(state=old)
    t.do(pistol(stunning=True), faces=[4, 5, 3, 5])
    assert t.state.hits[0].remaining == 4


def test_overcome_toughness_makes_damage_penetrating_past_cover_too():
    """Seed: penetrating damage "ignores Toughness entirely"; Overcome Toughness makes an attack's damage ignore it."""
    t = begun(state=encounter(luwe(), furo(), boss(cover=1), grunt()))
    t.do(pistol(), faces=[4, 4, 2, 6, 5])  # 15 hits; doubles earn 2 SP; 11 + 2 = 13 damage
    assert t.state.hits[0].remaining == 13 - 7 - 2
    t.do(ex.SpendStunt(actor="luwe", stunt="Overcome Toughness"))
    assert t.state.hits[0].remaining == 13


# --- Run --------------------------------------------------------------------------------------------------------


def test_run_sacrifices_the_other_action_of_the_turn():
    """Seed, Run: "You move up to twice your Speed in meters, sacrificing the ability to perform another action so
    you can move farther.\""""
    t = begun()
    events = t.do(ex.Run(actor="luwe", metres=26))
    assert [e.kind for e in events] == ["ran", "turn_ended", "turn_started"] and t.state.turn == "boss"
    t = begun()
    t.do(ex.Aim(actor="luwe"))
    t.refuse(ex.Run(actor="luwe", metres=10), "Run takes the whole turn")
    assert t.f("luwe").cover == 0


# --- injured and wounded ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule,penalty", [("worst", -2), ("add", -3)])
def test_injured_and_wounded_at_once_the_gm_chooses_how_the_penalties_meet(rule, penalty):
    """Seed: "If any is remaining, or the character is already injured, they must accept a wounded condition or be
    taken out." Both conditions can be held; the seed names no penalty for either, so the GM says how they meet."""
    state = encounter(luwe(conditions=("Injured", "Wounded")), furo(), boss(), grunt(), injury_penalties=rule)
    t = begun(state=state)
    t.do(pistol(), faces=[1, 1, 2])
    assert last_test(t).modifier == 5 + penalty
    one = begun(state=encounter(luwe(conditions=("Injured",)), furo(), boss(), grunt(), injury_penalties=rule))
    one.do(pistol(), faces=[1, 1, 2])
    assert last_test(one).modifier == 5 - 1  # one condition: its own penalty either way


def test_a_hit_can_leave_a_character_injured_and_wounded():
    """Seed: "If the character accepts a wounded condition they can remove an additional 1d6 of damage. Any
    further damage past those two things results in being Taken Out.\""""
    t = begun()
    t.do(pistol(), faces=[3, 5, 6, 6, 6])  # 19 hits; 12 + 2 = 14 damage, 7 past Toughness
    t.do(ex.SpendFortune(actor="boss", points=0))
    t.do(ex.AcceptCondition(actor="boss"), faces=[2])
    t.do(ex.AcceptCondition(actor="boss"), faces=[1])
    assert t.f("boss").conditions == ("Injured", "Wounded", "Taken out")  # 7 - 2 - 1 = 4 left: taken out


@pytest.mark.parametrize("last,after", [(False, ("Wounded", "Injured")), (True, ("Wounded", "Taken out"))])
def test_wounded_but_no_longer_injured_is_the_gms_call(last, after):
    """Seed: "If any is remaining, or the character is already injured, they must accept a wounded condition or be
    taken out." It leaves open a character wounded but no longer injured: the GM's setting."""
    t = begun(state=encounter(luwe(), furo(), boss(conditions=("Wounded",)), grunt(), wounded_is_last=last))
    t.do(pistol(), faces=[3, 5, 6, 6, 6])  # 14 damage, 7 past Toughness
    t.do(ex.SpendFortune(actor="boss", points=1))  # 6 left: with Wounded the last step, that takes him out
    if not last:
        t.do(ex.AcceptCondition(actor="boss"), faces=[6])  # Injured absorbs all 6
    assert t.f("boss").conditions == after


# --- a visible target ---------------------------------------------------------------------------------------------


def unseen_grunt(**kw):
    return encounter(luwe(aware_of=("boss",)), furo(aware_of=("boss",)), boss(), grunt(**kw))


def test_an_unseen_enemy_cannot_be_attacked_and_the_refusal_never_names_it():
    """Seed, Ranged Attack: "You fire or throw a ranged weapon at one visible enemy within range"; Making Attacks:
    "Ranged = Line of Sight"."""
    t = begun(state=unseen_grunt())
    t.refuse(pistol("grunt"), r"^Luwe cannot see that target\.$")
    t.do(ex.Ready(actor="luwe", item="grenade"))
    t.refuse(ex.ThrowGrenade(actor="luwe", targets="boss, grunt", distance=5), r"^Luwe cannot see one of those")
    t = begun(state=unseen_grunt(conditions=("Taken out",)))
    t.refuse(pistol("grunt"), r"^Luwe cannot see that target\.$")  # not "Grunt is already out"


def test_the_gm_adds_an_unseen_enemy_in_the_blast_and_players_never_read_its_name():
    """Seed, Explosives: "Grenades effect everyone within 5 metres" - an unseen Grunt in the blast too, though the
    thrower may name only "one visible enemy" (refused without its name, above)."""
    t = begun(state=unseen_grunt())
    t.do(ex.Ready(actor="luwe", item="grenade"))
    # Accuracy 3: 9 + 3 = 12 against TN 11, landing on the Boss: 3d6 = 16.
    t.do(ex.ThrowGrenade(actor="luwe", targets="boss", distance=8), faces=[2, 3, 4, 5, 5, 6])
    assert t.state.landed.targets == ("boss",)
    e, *_ = t.do(ex.AlsoInBlast(targets="grunt"))  # the same 3d6, no new dice (and Luwe's turn ends: nothing left)
    assert (e.targets, e.faces) == (("grunt",), (5, 5, 6))
    hits = {h.target: h for h in t.state.hits}
    assert hits["grunt"].damage == 16 and hits["grunt"].after_toughness == 15  # Toughness 1
    assert ex.describe(t.state, e) == "Luwe's grenade also catches Grunt for 16 damage."
    assert "Grunt" not in ex.describe(t.state, e, gm=False)
    t.refuse(ex.AlsoInBlast(targets="grunt"), "Grunt is already caught in that blast")
    t.refuse(ex.AlsoInBlast(targets=""), "Choose who else is within 5 m")


def test_a_grenade_aimed_at_no_one_rolls_its_damage_when_the_gm_adds_someone():
    """The thrower saw nobody to name: the blast's 3d6 are rolled when the GM says who was within 5 m."""
    t = begun(state=unseen_grunt())
    t.do(ex.Ready(actor="luwe", item="grenade"))
    t.do(ex.ThrowGrenade(actor="luwe", targets="", distance=8), faces=[2, 3, 4])
    assert not t.state.hits
    t.do(ex.AlsoInBlast(targets="grunt"), faces=[1, 2, 3])
    assert [(h.target, h.damage) for h in t.state.hits] == [("grunt", 6)]
    to_turn(t, "boss")
    to_turn(t, "luwe")  # the thrower's next turn: the GM's chance has passed
    t.refuse(ex.AlsoInBlast(targets="boss"), "No grenade has gone off")


def test_a_placed_scattered_grenade_can_take_in_more_and_a_missed_one_cannot():
    t = begun(state=unseen_grunt())
    t.do(ex.Ready(actor="luwe", item="grenade"))
    t.do(ex.ThrowGrenade(actor="luwe", targets="boss", distance=8), faces=[1, 2, 4, 4])  # misses: scatters 4 m
    t.refuse(ex.AlsoInBlast(targets="grunt"), "No grenade has gone off")
    t.do(ex.Blast(targets="boss"), faces=[1, 2, 3])
    t.do(ex.AlsoInBlast(targets="grunt"))
    assert [(h.target, h.damage) for h in t.state.hits] == [("boss", 6), ("grunt", 6)]


def test_with_the_setting_off_a_grenade_hits_only_whom_it_was_aimed_at():
    t = begun(state=replace(unseen_grunt(), settings={**unseen_grunt().settings, "gm_widens_blast": False}))
    t.do(ex.Ready(actor="luwe", item="grenade"))
    t.do(ex.ThrowGrenade(actor="luwe", targets="boss", distance=8), faces=[2, 3, 4, 5, 5, 6])
    assert t.state.landed is None
    t.refuse(ex.AlsoInBlast(targets="grunt"), "hits only whom it was aimed at")


def test_a_revealed_enemy_can_be_attacked_and_enemies_see_the_party():
    t = begun(("boss", "luwe", "furo", "grunt"), state=unseen_grunt())
    t.do(ex.Attack(actor="boss", action="ranged_attack", weapon="pistol", target="luwe", distance=5), faces=[1, 1, 2])
    t.do(Reveal(fighter="grunt"))
    t.do(ex.EndTurn(actor="boss"))
    t.do(pistol("grunt"), faces=[1, 1, 3])
    assert last_test(t).target == "grunt"


# --- the Churn ------------------------------------------------------------------------------------------------------


def churning(pool=0, **settings):
    return begun(state=replace(encounter(churn=True, **settings), churn=pool))


@pytest.mark.parametrize("pool,roll,severity", [(0, 4, "minor"), (0, 5, "major"), (10, 2, "minor"), (10, 3, "major")])
def test_at_10_and_20_the_gm_rolls_on_the_churn_over_table(pool, roll, severity):
    """Notes: "At 10 and 20 the GM rolls on the Churn table; at 30 an epic effect and the pool resets." The
    table is the GM's setting; by default 1d6 makes a major effect likelier at 20 than at 10."""
    t = churning(pool)
    [reached] = t.do(ex.AdjustChurn(change=10, reason="a scene ends"), faces=[roll])[1:]
    assert (reached.level, reached.roll, reached.severity) == (pool + 10, roll, severity)
    assert t.state.churn_due == (severity,) and t.state.churn == pool + 10
    said = ex.describe(t.state, reached)
    assert f"1d6 on the Churn Over table: {roll}" in said and churn.SEVERITIES[severity][1] in said
    assert ex.describe(t.state, reached, gm=False) is None and reached.audience == "gm"


def test_without_a_roll_10_is_minor_20_major_and_30_epic_with_a_reset():
    t = churning(churn_over="fixed")
    t.do(ex.AdjustChurn(change=25))  # no die is rolled
    assert t.state.churn_due == ("minor", "major")
    t.do(ex.AdjustChurn(change=5))
    assert t.state.churn_due == ("minor", "major", "epic") and t.state.churn == 0


def test_the_churn_makes_a_combatants_next_test_fail_whatever_the_dice():
    """The Churn's minor effect, as the engine applies it: "A character automatically fails an ability test"."""
    t = churning(9)
    t.do(ex.AdjustChurn(change=1), faces=[1])
    t.refuse(ex.ApplyChurn(effect="fail", target="nobody"), "not in this encounter")
    t.do(ex.ApplyChurn(effect="fail", target="luwe", note="her sights are off"))
    assert t.state.churn_due == () and t.f("luwe").churn_fail
    t.refuse(ex.ApplyChurn(effect="fail", target="luwe"), "No Churn effect is due")
    t.do(pistol(), faces=[6, 6, 5, 6, 6])  # 22 against Defense 12, doubles: the Churn makes it a miss
    test = last_test(t)
    assert not test.success and test.churned and test.sp == 0 and not t.state.hits
    assert not t.f("luwe").churn_fail
    assert "the Churn makes it fail" in ex.describe(t.initial, t.log[-1].event)
    said = ex.describe(t.initial, t.log[-1].event, gm=False)
    assert "it fails whatever the dice" in said and "a miss" in said and "Churn" not in said
    t.refuse(ex.ChangeDie(actor="luwe", die=0, face=1), "The Churn made that test fail")  # Fortune cannot help
    t.refuse(ex.Defend(actor="luwe"), "already taken a major action")  # the failed attack was her major action
    t.do(ex.Aim(actor="luwe"))  # her minor: nothing is left, so the turn ends by itself
    assert t.state.turn == "boss"
    t.do(
        ex.Attack(actor="boss", action="ranged_attack", weapon="pistol", target="luwe", distance=5),
        faces=[5, 6, 4, 1, 1],
    )
    assert last_test(t).success  # only the marked combatant's next test


def test_the_churn_table_is_labelled_the_gm_s_because_neither_seed_nor_notes_give_one():
    """Notes: "At 10 and 20 the GM rolls on the Churn table" - with no table given, so the setting says so."""
    setting = next(s for s in ex.SETTINGS if s.key == "churn_over")
    assert "the seed and notes give none" in setting.label
    assert all(label.startswith("House table") for _, label in setting.choices)
    assert "neither they nor the seed give the table" in setting.help


def test_the_gm_s_churn_pick_takes_fortune_and_the_engine_applies_it():
    """The GM's table decides the effect; the engine applies the pick: Luwe loses 3 of her 20 Fortune."""
    t = churning(9)
    t.do(ex.AdjustChurn(change=1), faces=[1])
    t.refuse(ex.ApplyChurn(effect="fortune", target="luwe", points=0), "Take 1 to 20 Fortune")
    applied, adjusted = t.do(ex.ApplyChurn(effect="fortune", target="luwe", points=3, note="a ricochet"))
    assert (applied.effect, applied.points, adjusted.change) == ("fortune", 3, -3)
    assert t.f("luwe").fortune == 17 and t.state.churn_due == ()
    assert ex.describe(t.state, applied) == "Minor Churn: Luwe loses 3 Fortune (a ricochet)."
    assert ex.describe(t.state, applied, gm=False) is None  # the Churn stays the GM's ...
    assert "Churn" not in ex.describe(t.state, adjusted, gm=False)  # ... players see only the Fortune drop


def test_the_gm_s_churn_pick_gives_a_condition_and_a_lost_fortune_stops_at_0():
    t = churning(9)
    t.do(ex.AdjustChurn(change=11), faces=[1, 1])  # 10 and 20: two effects due
    t.refuse(ex.ApplyChurn(effect="condition", target="boss", condition="Taken out"), "Choose one of the conditions")
    applied, condition = t.do(ex.ApplyChurn(effect="condition", target="boss", condition="Prone"))
    assert condition == ex.ConditionSet(target="boss", condition="Prone") and t.f("boss").prone
    assert ex.describe(t.state, applied) == "Minor Churn: Boss takes the Prone condition."
    t.refuse(ex.ApplyChurn(effect="condition", target="boss", condition="Prone"), "already has the Prone")
    grunt_fortune = t.f("grunt").fortune
    _, adjusted = t.do(ex.ApplyChurn(effect="fortune", target="grunt", points=20))
    assert adjusted.change == -grunt_fortune and t.f("grunt").fortune == 0 and t.state.churn_due == ()


def test_a_churned_grenade_scatters():
    t = churning(9)
    t.do(ex.AdjustChurn(change=1), faces=[1])
    t.do(ex.ApplyChurn(effect="fail", target="luwe"))
    t.do(ex.Ready(actor="luwe", item="grenade"))
    events = t.do(ex.ThrowGrenade(actor="luwe", targets="boss", distance=5), faces=[6, 6, 6, 1, 1, 1, 4])
    [thrown] = [e.test for e in events if isinstance(e, ex.Tested)]
    assert thrown.churned and thrown.scatter == 4  # 1d6 m off, and the GM places the blast
    assert t.state.blast is not None and not t.state.hits


def test_a_narrative_churn_effect_is_the_gms_to_tell_and_players_never_read_it():
    t = churning(29)
    [reached] = t.do(ex.AdjustChurn(change=1))[1:]
    assert reached.severity == "epic" and reached.roll == 0
    t.refuse(ex.ApplyChurn(effect="narrate", note="  "), "Say what the Churn does")
    t.refuse(ex.ApplyChurn(effect="explode"), "or narrate what the Churn does")
    [applied] = t.do(ex.ApplyChurn(effect="narrate", note="The station's spin gravity fails"))
    assert t.state.churn_due == ()
    assert ex.describe(t.state, applied) == "Epic Churn: The station's spin gravity fails."
    assert ex.describe(t.state, applied, gm=False) is None and applied.audience == "gm"
    t = begun()
    t.refuse(ex.ApplyChurn(effect="narrate", note="x"), "does not use Churn")
