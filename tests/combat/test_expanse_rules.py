"""The Expanse (AGE) rules core with scripted dice: the seed's tables, the action economy, damage, stunts, invariants.

Every test die is the third face of a 3d6 roll = the Drama Die. Modifiers used below:
Luwe's pistol attack is Accuracy 3 + Pistols 2 = +5; Furo's unarmed attack is Fighting 3 + Brawling 2 = +5;
the Boss has Defense 12 and Toughness 3 + medium armour 4 = 7; the Grunt has Defense 11 and Toughness 1.
"""

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules import expanse as ex
from combat.rules.core import Logged, RuleError, Undone, from_json, replay, to_json
from combat.rules.dice import Dice, ScriptedDice
from combat.rules.expanse import rulebook as T
from combat.rules.expanse.decide import next_turn
from combat.rules.free_roll import DiceRolled
from tests.combat.free_rolls import random_free_roll
from tests.conftest import examples

ZERO = dict.fromkeys(ex.ABILITIES, 0)


def fighter(id, name, side, owner=None, abilities=None, **kw):
    return ex.Fighter(id=id, name=name, side=side, owner=owner, abilities={**ZERO, **(abilities or {})}, **kw)


def luwe(**kw):
    return fighter(
        "luwe",
        "Luwe",
        "pc",
        1,
        {"Accuracy": 3, "Dexterity": 3, "Perception": 2, "Fighting": 1, "Strength": 1, "Constitution": 2},
        **{
            "focuses": ("Accuracy (Pistols)", "Dexterity (Initiative)"),
            "defense": 13,
            "toughness": 2,
            "fortune": 20,
            "fortune_max": 20,
            "speed": 13,
            "level": 3,
            "aware_of": ("boss", "grunt"),
            **kw,
        },
    )


def furo(**kw):
    return fighter(
        "furo",
        "Furo",
        "pc",
        2,
        {"Fighting": 3, "Strength": 3, "Dexterity": 1, "Constitution": 3},
        **{
            "focuses": ("Fighting (Brawling)", "Strength (Might)"),
            "defense": 11,
            "toughness": 3,
            "armour": "light",
            "fortune": 15,
            "fortune_max": 15,
            "speed": 11,
            "level": 2,
            "aware_of": ("boss", "grunt"),
            **kw,
        },
    )


def boss(**kw):
    return fighter(
        "boss",
        "Boss",
        "enemy",
        None,
        {"Fighting": 3, "Accuracy": 2, "Strength": 3, "Dexterity": 2, "Perception": 1},
        **{
            "defense": 12,
            "toughness": 3,
            "armour": "medium",
            "fortune": 10,
            "fortune_max": 10,
            "speed": 10,
            "aware_of": ("luwe", "furo"),
            **kw,
        },
    )


def grunt(**kw):
    return fighter(
        "grunt",
        "Grunt",
        "enemy",
        None,
        {"Accuracy": 1, "Dexterity": 1},
        **{"defense": 11, "toughness": 1, "fortune": 4, "fortune_max": 4, "aware_of": ("luwe", "furo"), **kw},
    )


def encounter(*fighters, **settings_):
    settings_.setdefault("weapons_at_start", "free")  # hands in play: test_expanse_weapons.py
    return ex.initial_state(fighters or (luwe(), furo(), boss(), grunt()), settings_)


class Table:
    """Runs commands through decide/evolve and keeps the log, like the service does."""

    def __init__(self, state):
        self.initial = state
        self.state = state
        self.log = []

    def do(self, command, faces=()):
        dice = ScriptedDice(faces)
        events = ex.decide(self.state, command, dice)
        assert dice.left == 0, "every scripted die is used"
        for event in events:
            self.log.append(Logged(seq=len(self.log) + 1, event=event))
            self.state = ex.evolve(self.state, event)
        return events

    def refuse(self, command, match, faces=()):
        before = self.state
        with pytest.raises(RuleError, match=match):
            self.do(command, faces)
        assert self.state == before

    def undo_last(self):
        self.log.append(Logged(seq=len(self.log) + 1, event=Undone(seqs=(self.log[-1].seq,))))
        self.state = replay(ex.evolve, self.initial, self.log)

    def f(self, fid):
        return self.state.fighter(fid)


def begun(order=("luwe", "boss", "furo", "grunt"), state=None):
    """Skip the initiative roll: fix the order, then start the first turn."""
    state = state or encounter()
    ranks = {fid: 20 - i for i, fid in enumerate(order)}
    fighters = tuple(replace(f, initiative=ranks.get(f.id, 0)) for f in state.fighters)
    t = Table(replace(state, fighters=fighters, order=tuple(order), initiative_rolled=True))
    t.do(ex.NextTurn())
    assert t.state.turn == order[0]
    return t


def pistol(target="boss", **kw):
    return ex.Attack(
        actor=kw.pop("actor", "luwe"),
        action=kw.pop("action", "ranged_attack"),
        weapon="pistol",
        target=target,
        distance=kw.pop("distance", 10),
        **kw,
    )


def punch(target="boss", **kw):
    return ex.Attack(
        actor=kw.pop("actor", "furo"), action=kw.pop("action", "melee_attack"), weapon="unarmed", target=target, **kw
    )


def last_test(t):
    return t.state.tests[-1]


def to_turn(t, fid):
    """End turns until it is `fid`'s."""
    for _ in range(10):
        if t.state.turn == fid:
            return
        t.do(ex.EndTurn(actor=t.state.turn))
    raise AssertionError(f"never reached {fid}'s turn")


# --- initiative --------------------------------------------------------------------------------------------------


def test_initiative_is_dexterity_plus_focus_with_armour_and_orders_by_total_then_drama_die():
    t = Table(encounter())
    # Luwe: Dex 3 + Initiative focus 2 = +5; Furo: Dex 1 - light armour 1 = 0; Boss: Dex 2 - medium 2 = 0; Grunt +1.
    [e] = t.do(ex.RollInitiative(), faces=[1, 2, 3, 4, 4, 4, 6, 5, 1, 2, 2, 2])
    totals = {r.fighter: r.total for r in e.rolls}
    assert totals == {"luwe": 11, "furo": 12, "boss": 12, "grunt": 7}
    assert [r.focus for r in e.rolls] == [True, False, False, False]
    assert t.state.order == ("furo", "boss", "luwe", "grunt")  # 12 vs 12: Drama Die 4 beats 1
    assert t.f("boss").drama == 1
    text = ex.describe(t.initial, e)
    assert text.startswith("Initiative order: Furo 12 (Drama Die 4), Boss 12 (Drama Die 1), Luwe 11")
    assert "Boss 12" not in ex.describe(t.initial, e, gm=False)


def test_armour_penalty_on_initiative_is_a_setting():
    t = Table(encounter(armour_penalty=False))
    [e] = t.do(ex.RollInitiative(), faces=[1, 2, 3, 4, 4, 4, 6, 5, 1, 2, 2, 2])
    assert {r.fighter: r.total for r in e.rolls}["furo"] == 13


def test_a_full_tie_is_the_gms_to_break_before_the_first_turn():
    t = Table(encounter())
    t.do(ex.RollInitiative(), faces=[1, 1, 1, 2, 3, 4, 2, 3, 4, 1, 1, 1])  # furo and boss: 9 with Drama Die 4
    assert t.state.order[:2] == ("furo", "boss")
    assert "Furo and Boss are tied on both, so the GM decides" in ex.describe(t.initial, t.log[0].event)
    t.refuse(ex.BreakTie(first="luwe", second="grunt"), "not tied")
    t.do(ex.BreakTie(first="boss", second="furo"))
    assert t.state.order[:2] == ("boss", "furo")
    t.refuse(ex.RollInitiative(), "already been rolled", faces=[1] * 12)
    t.do(ex.NextTurn())
    assert t.state.turn == "boss" and t.state.round == 1
    t.refuse(ex.BreakTie(first="furo", second="boss"), "before the first turn")


def test_the_order_repeats_each_round_and_skips_those_taken_out():
    t = begun(("luwe", "boss", "furo", "grunt"))
    t.do(ex.SetCondition(target="furo", condition="Taken out"))
    seen = []
    for _ in range(6):
        seen.append((t.state.round, t.state.turn))
        t.do(ex.EndTurn(actor=t.state.turn))
    assert seen == [(1, "luwe"), (1, "boss"), (1, "grunt"), (2, "luwe"), (2, "boss"), (2, "grunt")]


def test_momentum_moves_you_up_the_order_from_the_next_round():
    t = begun(("boss", "luwe", "grunt", "furo"))
    t.do(ex.EndTurn(actor="boss"))
    t.do(pistol("grunt"), faces=[3, 3, 4, 5, 5])  # doubles: 4 SP
    t.do(ex.SpendStunt(actor="luwe", stunt="Momentum", points=3))
    assert t.f("luwe").initiative == 19 + 9
    assert t.state.order == ("boss", "luwe", "grunt", "furo")  # this round is unchanged
    to_turn(t, "furo")
    t.do(ex.EndTurn(actor="furo"))
    assert t.state.round == 2 and t.state.turn == "luwe" and t.state.order[0] == "luwe"


# --- the action economy ----------------------------------------------------------------------------------------------

ACTIONS = {
    "defend": lambda: ex.Defend(actor="luwe"),
    "aim": lambda: ex.Aim(actor="luwe"),
    "activate": lambda: ex.Activate(actor="luwe", what="her hand terminal"),
    "move": lambda: ex.Move(actor="luwe", metres=2),
    "run": lambda: ex.Run(actor="luwe", metres=20),
}


THIRD = "already taken two actions|It is not Luwe's turn"  # two actions and nothing else: the turn is over


@pytest.mark.parametrize(
    "sequence,refused",
    [
        (("defend", "run"), "already taken a major action"),
        (("run", "defend"), "It is not Luwe's turn"),  # seed: Run "sacrific[es] the ability to perform another action"
        (("aim", "move", "activate"), THIRD),
        (("aim", "activate", "defend"), THIRD),
        (("aim", "defend"), None),
        (("defend", "aim"), None),
        (("move", "activate"), None),
    ],
)
def test_one_major_and_one_minor_or_two_minors(sequence, refused):
    t = begun()
    for action in sequence[:-1]:
        t.do(ACTIONS[action]())
    if refused:
        t.refuse(ACTIONS[sequence[-1]](), refused)
        return
    events = t.do(ACTIONS[sequence[-1]]())
    # nothing is left: the turn ends by itself and the next one starts
    assert [e.kind for e in events[-2:]] == ["turn_ended", "turn_started"] and events[-2].auto
    assert t.state.turn == "boss"


def test_a_third_action_is_refused_while_the_turn_is_still_open():
    t = begun()
    t.do(ex.Aim(actor="luwe"))
    t.do(pistol(), faces=[4, 4, 2, 1, 1])  # doubles: 2 SP keep the turn open
    assert t.state.turn == "luwe" and t.state.turn_actions == ("aim", "ranged_attack")
    t.refuse(ex.Move(actor="luwe", metres=1), "already taken two actions this turn")
    t.refuse(ex.Defend(actor="luwe"), "already taken two actions this turn")


def test_a_second_major_is_refused_with_a_sentence():
    t = begun()
    t.do(pistol(), faces=[1, 2, 3])  # a miss
    t.refuse(ex.Defend(actor="luwe"), "Luwe has already taken a major action this turn, so Defend cannot follow")
    t.refuse(pistol(), "already taken a major action")
    t.do(ex.Move(actor="luwe", metres=3))


def test_only_the_combatant_whose_turn_it_is_acts_and_the_player_may_end_early():
    t = begun()
    t.refuse(punch(), "not Furo's turn")
    t.refuse(ex.EndTurn(actor="furo"), "not Furo's turn")
    t.do(ex.Move(actor="luwe", metres=1))
    [ended, started] = t.do(ex.EndTurn(actor="luwe"))
    assert not ended.auto and started.fighter == "boss"
    assert ex.describe(t.initial, ended) == "Luwe ends their turn."


def test_nothing_left_waits_for_stunt_points_and_a_changeable_die():
    t = begun()
    t.do(ex.Aim(actor="luwe"))
    t.do(pistol(), faces=[1, 1, 2])  # a miss: Fortune could still change a die
    assert t.state.turn == "luwe"
    t.do(ex.EndTurn(actor="luwe"))
    t2 = begun(state=encounter(fortune_die_cost=0, fortune_drama_cost=0))
    t2.do(ex.Aim(actor="luwe"))
    events = t2.do(pistol(), faces=[1, 1, 2])
    assert events[-2].kind == "turn_ended" and t2.state.turn == "boss"


# --- actions with effects, and their expiry ------------------------------------------------------------------------


def test_defend_lasts_until_the_start_of_your_next_turn():
    t = begun(("luwe", "boss", "furo", "grunt"))
    t.do(ex.Defend(actor="luwe"))
    t.do(ex.EndTurn(actor="luwe"))
    assert ex.defense(t.state, t.f("luwe")) == 15
    t.do(ex.Attack(actor="boss", action="melee_attack", weapon="heavy_melee", target="luwe"), faces=[2, 4, 5])
    assert last_test(t).tn == 15 and last_test(t).total == 14 and not last_test(t).success  # 14 would hit 13
    for who in ("boss", "furo", "grunt"):
        to_turn(t, who)
        assert ex.defense(t.state, t.f("luwe")) == 15
        t.do(ex.EndTurn(actor=who))
    assert t.state.turn == "luwe" and ex.defense(t.state, t.f("luwe")) == 13


def test_all_out_attack_adds_one_damage_on_a_hit_and_costs_one_defense_either_way():
    t = begun(("furo", "boss", "luwe", "grunt"))
    t.do(punch(action="all_out_attack"), faces=[2, 3, 4, 2])  # 9 + 5 = 14 hits; 1d3 = 2 + Str 3 + 1
    assert last_test(t).damage == 6
    assert ex.defense(t.state, t.f("furo")) == 10
    to_turn(t, "luwe")
    assert ex.defense(t.state, t.f("furo")) == 10
    to_turn(t, "furo")
    assert ex.defense(t.state, t.f("furo")) == 11
    t.refuse(ex.Attack(actor="furo", action="all_out_attack", weapon="pistol", target="boss"), "close combat")
    t.do(punch(action="all_out_attack"), faces=[1, 2, 3])  # a miss still costs Defense
    assert ex.defense(t.state, t.f("furo")) == 10


def test_guard_up_helps_defense_hurts_tests_and_ends_with_the_round():
    t = begun(("boss", "luwe", "furo", "grunt"))
    t.do(ex.EndTurn(actor="boss"))
    t.do(ex.GuardUp(actor="luwe", bonus=2))
    assert ex.defense(t.state, t.f("luwe")) == 15
    t.do(pistol(), faces=[1, 2, 4])
    assert last_test(t).modifier == 3  # +5, -2 for Guard Up
    t.do(ex.EndTurn(actor="luwe"))
    to_turn(t, "grunt")
    assert ex.defense(t.state, t.f("luwe")) == 15  # still this round
    t.do(ex.EndTurn(actor="grunt"))
    assert t.state.round == 2 and t.state.turn == "boss"
    assert ex.defense(t.state, t.f("luwe")) == 13  # the round ended before Luwe's next turn


def test_guard_up_comes_before_any_major_and_never_with_defend():
    t = begun()
    t.do(ex.Defend(actor="luwe"))
    t.refuse(ex.GuardUp(actor="luwe", bonus=1), "took Defend this turn and cannot also Guard Up")
    t = begun()
    t.do(pistol(), faces=[4, 4, 1, 1, 1])
    t.refuse(ex.GuardUp(actor="luwe", bonus=1), "Guard Up must come before any major action")
    t = begun()
    t.refuse(ex.GuardUp(actor="luwe", bonus=3), "Guard Up adds \\+1 or \\+2")
    t.do(ex.GuardUp(actor="luwe", bonus=1))
    t.refuse(ex.Defend(actor="luwe"), "used Guard Up this turn and cannot also Defend")


def test_aim_helps_only_if_the_next_action_is_an_attack_even_next_turn():
    t = begun()
    t.do(ex.Aim(actor="luwe"))
    t.do(pistol(), faces=[1, 2, 4, 1, 1])
    assert last_test(t).modifier == 6
    t = begun()
    t.do(ex.Move(actor="luwe", metres=1))
    t.do(ex.Aim(actor="luwe"))  # two minors: the turn ends, Aim carries over
    assert t.state.turn == "boss" and t.f("luwe").aim
    to_turn(t, "luwe")
    t.do(pistol(), faces=[1, 2, 4, 1, 1])
    assert last_test(t).modifier == 6 and not t.f("luwe").aim
    t = begun()
    t.do(ex.Aim(actor="luwe"))
    t.do(ex.Move(actor="luwe", metres=1))  # the next action was not an attack: the aim is gone
    assert not t.f("luwe").aim


def test_charge_moves_half_speed_and_gains_one_after_four_metres_straight():
    t = begun(("furo", "boss", "luwe", "grunt"))
    # Furo's Speed is 11, less 1 for light armour: half is 5.
    t.refuse(punch(action="charge", moved=6), "up to half their Speed: 5 m")
    t.do(punch(action="charge", moved=5, straight=True), faces=[1, 2, 4, 1])
    assert last_test(t).modifier == 6
    t = begun(("furo", "boss", "luwe", "grunt"))
    t.do(punch(action="charge", moved=3, straight=True), faces=[1, 2, 4, 1])
    assert last_test(t).modifier == 5
    t = begun(("furo", "boss", "luwe", "grunt"))
    t.do(punch(action="charge", moved=5, straight=False), faces=[1, 2, 4, 1])  # not in a straight line
    assert last_test(t).modifier == 5
    t = begun(("furo", "boss", "luwe", "grunt"), encounter(furo(conditions=("Prone",)), boss(), luwe(), grunt()))
    t.refuse(punch(action="charge", moved=2), "prone and must stand up")
    t.refuse(ex.Run(actor="furo", metres=4), "prone and must stand up")
    t.do(ex.Move(actor="furo", metres=5, stand_up=True))
    assert not t.f("furo").prone
    t.do(punch(action="charge", moved=2), faces=[1, 2, 4, 1])


def test_run_and_move_distances():
    t = begun()
    t.refuse(ex.Run(actor="luwe", metres=27), "twice their Speed: 26 m")
    t.do(ex.Run(actor="luwe", metres=26, cover=2))
    assert t.f("luwe").cover == 2
    t = begun()
    t.refuse(ex.Move(actor="luwe", metres=14), "can move 13 m")
    t.refuse(ex.Move(actor="luwe", metres=8, drop_prone=True), "can move 7 m")
    t.do(ex.Move(actor="luwe", metres=7, drop_prone=True))  # dropping prone costs half Speed (6 of 13)
    assert t.f("luwe").prone


def test_run_may_take_the_whole_turn_by_setting():
    t = begun(state=encounter(run_ends_turn=False))  # the house rule: a minor may follow Run
    t.do(ex.Run(actor="luwe", metres=10))
    t.do(ex.Aim(actor="luwe"))
    t = begun()
    events = t.do(ex.Run(actor="luwe", metres=10))
    assert events[-1].kind == "turn_started" and t.state.turn == "boss"
    t = begun()
    t.do(ex.Aim(actor="luwe"))
    t.refuse(ex.Run(actor="luwe", metres=10), "only action")


def test_prepare_postpones_the_major_and_interrupts_when_the_gm_calls_it():
    t = begun(("luwe", "boss", "furo", "grunt"))
    [prepared, ended, started] = t.do(ex.Prepare(actor="luwe", action="ranged_attack"))
    assert ended.auto and started.fighter == "boss"  # Prepare uses up the minor and the postponed major
    t.do(ex.Move(actor="boss", metres=3))
    t.refuse(ex.InterruptSelf(actor="luwe"), "The GM calls interrupts")
    t.refuse(pistol(), "not Luwe's turn")
    t.do(ex.Interrupt(fighter="luwe"))
    t.refuse(ex.Attack(actor="boss", action="melee_attack", weapon="heavy_melee", target="luwe"), "interrupting")
    t.refuse(ex.Defend(actor="luwe"), "prepared Ranged Attack, so that is the action to take now")
    [shot] = t.do(pistol(), faces=[1, 2, 4, 3, 3])
    assert shot.slot == "prepared" and shot.test.success
    assert t.state.interrupt == "" and t.f("luwe").prepared == "" and t.state.turn == "boss"
    assert t.state.turn_actions == ("move",)  # the Boss's own actions are untouched
    t.refuse(ex.Interrupt(fighter="luwe"), "no prepared action")


def test_an_interrupt_survives_the_turn_holder_dropping_out_and_the_gm_may_call_it_off():
    t = begun(("luwe", "boss", "furo", "grunt"))
    t.do(ex.Prepare(actor="luwe", action="ranged_attack"))
    t.do(ex.Interrupt(fighter="luwe"))
    t.do(ex.RollOver(actor="boss", condition="Wounded"))
    events = t.do(ex.ApproveRollOver(fighter="boss"))
    assert [e.kind for e in events] == ["rolled_over", "turn_ended", "turn_started"]
    assert t.state.turn == "furo" and t.state.interrupt == "luwe"
    t.refuse(ex.NextTurn(), "Let the interrupting combatant act first")
    t.do(pistol("grunt"), faces=[1, 1, 2])
    assert t.state.interrupt == "" and t.state.turn == "furo"
    t = begun(("luwe", "boss", "furo", "grunt"))
    t.do(ex.Prepare(actor="luwe", action="ranged_attack"))
    t.refuse(ex.Interrupt(), "Nobody is interrupting")
    t.do(ex.Interrupt(fighter="luwe"))
    before = t.state
    [e] = t.do(ex.Interrupt())
    assert t.state.interrupt == "" and t.f("luwe").prepared == "ranged_attack"
    assert ex.describe(before, e) == "The GM calls off Luwe's interrupt."
    t = begun(("luwe", "boss"), encounter(luwe(), boss()))
    t.do(ex.Prepare(actor="luwe", action="ranged_attack"))
    t.do(ex.Interrupt(fighter="luwe"))
    t.do(ex.RollOver(actor="boss", condition="Wounded"))
    t.do(ex.ApproveRollOver(fighter="boss"))  # Luwe's own turn comes round: the prepared action and its call lapse
    assert t.state.turn == "luwe" and t.state.interrupt == "" and t.f("luwe").prepared == ""
    t.do(ex.Move(actor="luwe", metres=2))


def test_an_unused_prepared_action_is_lost_at_the_start_of_your_next_turn():
    t = begun(("luwe", "boss"), encounter(luwe(), boss()))
    t.do(ex.Prepare(actor="luwe", action="defend"))
    assert t.f("luwe").prepared == "defend"
    before = t.state
    [ended, started] = t.do(ex.EndTurn(actor="boss"))
    assert started.fighter == "luwe" and t.f("luwe").prepared == ""
    assert ex.describe(ex.evolve(before, ended), started) == "Round 2: Luwe's turn; the prepared Defend is lost."


def test_prepare_needs_both_actions_free_and_players_may_interrupt_by_setting():
    t = begun()
    t.do(ex.Aim(actor="luwe"))
    t.refuse(ex.Prepare(actor="luwe", action="ranged_attack"), "needs both of this turn's actions free")
    t = begun(state=encounter(prepare_interrupt="player"))
    t.do(ex.Prepare(actor="luwe", action="defend"))
    t.do(ex.InterruptSelf(actor="luwe"))
    [e] = t.do(ex.Defend(actor="luwe"))
    assert e.slot == "prepared" and ex.defense(t.state, t.f("luwe")) == 15


def test_press_the_attack_follows_a_melee_hit_and_pursues_when_the_foe_moves():
    t = begun(("furo", "boss", "luwe", "grunt"))
    t.refuse(ex.PressTheAttack(actor="furo", target="boss"), "only after striking Boss")
    t.do(punch(), faces=[2, 3, 4, 1])
    t.do(ex.PressTheAttack(actor="furo", target="boss"))
    t.do(ex.EndTurn(actor="furo"))
    t.refuse(ex.Pursue(actor="furo", target="boss", metres=5), "has not moved away")
    t.do(ex.Move(actor="boss", metres=4))
    t.refuse(ex.Pursue(actor="furo", target="boss", metres=11), "up to their Speed: 10 m")
    t.do(ex.Pursue(actor="furo", target="boss", metres=5))
    t.refuse(ex.Pursue(actor="furo", target="boss", metres=5), "not pressing the attack")


def test_ready_draws_the_grenade_and_activate_is_a_minor_action():
    t = begun()
    t.refuse(ex.ThrowGrenade(actor="luwe", targets="boss", distance=5), "needs a grenade in hand")
    t.do(ex.Ready(actor="luwe", item="grenade", stow="pistol"))
    assert t.f("luwe").in_hand == "grenade"
    t.do(ex.Activate(actor="luwe", what="her hand terminal"))
    assert t.state.turn == "boss"  # two minors
    t = begun()
    t.do(ex.Ready(actor="luwe", item="riot_shield"))
    assert ex.defense(t.state, t.f("luwe")) == 15


def test_stand_firm_resists_knock_prone_with_an_opposed_test_and_the_points_are_still_spent():
    t = begun(("boss", "luwe", "furo", "grunt"))
    t.do(ex.StandFirm(actor="boss", ability="Strength"))
    t.do(ex.EndTurn(actor="boss"))
    t.do(pistol(), faces=[3, 3, 5, 1, 1])  # doubles: 5 SP
    # Luwe's Strength 1 (no Might) against the Boss's Strength 3: 10 + 1 = 11 against 9 + 3 = 12.
    [e] = t.do(ex.SpendStunt(actor="luwe", stunt="Knock Prone"), faces=[2, 3, 5, 2, 3, 4])
    assert e.opposed.held and not t.f("boss").prone and t.f("luwe").sp == 3
    assert "Boss stands firm (12 against 11) and does not budge" in ex.describe(t.state, e)
    t = begun(("boss", "luwe", "furo", "grunt"))
    t.do(ex.StandFirm(actor="boss"))
    t.do(ex.EndTurn(actor="boss"))
    t.do(pistol(), faces=[3, 3, 5, 1, 1])
    [e] = t.do(ex.SpendStunt(actor="luwe", stunt="knock_prone"), faces=[6, 6, 6, 1, 1, 2])
    assert not e.opposed.held and t.f("boss").prone
    t.do(ex.EndTurn(actor="luwe"))
    to_turn(t, "boss")  # Stand Firm lasts until the start of the Boss's next turn
    assert not t.state.effects_on("boss", "stand_firm")


# --- attacks ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("faces,hits", [((1, 2, 4), True), ((1, 2, 3), False), ((6, 5, 4), True)])
def test_an_attack_equal_to_defense_hits(faces, hits):
    t = begun()
    t.do(pistol(), faces=list(faces) + ([1, 1] if hits else []))
    assert last_test(t).success is hits and (len(t.state.hits) == 1) is hits


RANGES = [  # weapon, distance, allowed, penalty (seed's Range table; Thrown is 10 + Strength 1)
    ("pistol", 50, True, 0),
    ("pistol", 51, True, -2),
    ("pistol", 75, True, -2),
    ("pistol", 76, False, 0),
    ("rifle", 200, True, 0),
    ("rifle", 201, True, -2),
    ("rifle", 300, True, -2),
    ("rifle", 301, False, 0),
    ("bow", 100, True, 0),
    ("bow", 150, True, -2),
    ("bow", 151, False, 0),
    ("thrown", 11, True, 0),
    ("thrown", 12, False, 0),
    ("light_melee", 2, True, 0),
    ("light_melee", 3, False, 0),
]


@pytest.mark.parametrize("weapon,distance,allowed,penalty", RANGES)
def test_ranges_from_the_seed(weapon, distance, allowed, penalty):
    t = begun()
    action = "melee_attack" if T.WEAPONS[weapon].kind == "melee" else "ranged_attack"
    command = ex.Attack(actor="luwe", action=action, weapon=weapon, target="boss", distance=distance)
    if not allowed:
        t.refuse(command, "out of range|within 2 m")
        return
    t.do(command, faces=[1, 2, 3])  # misses whatever the bonus
    ability = 3 if action == "ranged_attack" else 1
    focus = 2 if weapon == "pistol" else 0
    assert last_test(t).modifier == ability + focus + penalty


def test_the_long_range_penalty_is_a_setting():
    t = begun(state=encounter(long_range_penalty=0))
    t.do(pistol(distance=60), faces=[1, 2, 3])
    assert last_test(t).modifier == 5


@pytest.mark.parametrize("rating,armour,penalty", [(1, 2, -1), (2, 3, -2), (3, 4, -3)])
def test_cover_adds_armour_against_ranged_attacks_and_hampers_your_own(rating, armour, penalty):
    t = begun()
    t.do(ex.SetCover(target="boss", rating=rating))
    t.do(pistol(), faces=[2, 3, 4, 6, 6])  # 14 + 2 = 14 damage
    [hit] = t.state.hits
    assert hit.cover == armour and hit.after_toughness == 14 - 7 - armour
    t = begun()
    t.do(ex.SetCover(target="luwe", rating=rating))
    t.do(pistol(), faces=[1, 2, 3])
    assert last_test(t).modifier == 5 + penalty


def test_total_cover_blocks_ranged_attacks_both_ways_but_not_close_combat():
    t = begun()
    t.do(ex.SetCover(target="boss", rating=4))
    t.refuse(pistol(), "total cover and cannot be attacked at range")
    t.do(ex.SetCover(target="boss", rating=0))
    t.do(ex.SetCover(target="luwe", rating=4))
    t.refuse(pistol(), "total cover and cannot make ranged attacks")
    t = begun(("furo", "boss", "luwe", "grunt"))
    t.do(ex.SetCover(target="boss", rating=3))
    t.do(punch(), faces=[2, 3, 4, 3])
    assert t.state.hits[0].cover == 0  # cover is armour against ranged attacks only (DEFAULT)
    t = begun(("furo", "boss", "luwe", "grunt"), encounter(cover_vs_melee=True))
    t.do(ex.SetCover(target="boss", rating=3))
    t.do(punch(), faces=[2, 3, 4, 3])
    assert t.state.hits[0].cover == 4


@pytest.mark.parametrize("size", list(T.OBJECT_SIZES))
def test_attacking_objects_uses_the_target_number_table(size):
    tn = T.OBJECT_SIZES[size][2]
    t = begun()
    # dice 12 + Accuracy 3 + focus 2 + the GM's modifier = exactly the target number: a hit, no damage roll
    t.do(
        ex.Attack(actor="luwe", action="ranged_attack", weapon="pistol", object_size=size, modifier=tn - 17),
        faces=[3, 4, 5],
    )
    assert last_test(t).tn == tn and last_test(t).success and not t.state.hits
    t = begun()
    t.do(
        ex.Attack(actor="luwe", action="ranged_attack", weapon="pistol", object_size=size, modifier=tn - 17),
        faces=[2, 4, 5],
    )
    assert not last_test(t).success


def test_object_sizes_are_the_seeds():
    assert [tn for _, _, tn in T.OBJECT_SIZES.values()] == [7, 9, 11, 13, 15, 17, 19, 21]


def test_a_grenade_that_lands_catches_everyone_listed_with_3d6():
    t = begun()
    t.do(ex.Ready(actor="luwe", item="grenade"))
    t.refuse(ex.ThrowGrenade(actor="luwe", targets="boss", distance=12), "throw a grenade 11 m")
    # Accuracy 3, no Throwing focus: 9 + 3 = 12 against TN 11.
    [e] = t.do(ex.ThrowGrenade(actor="luwe", targets="boss, grunt", distance=8), faces=[2, 3, 4, 5, 5, 6])
    assert e.test.tn == 11 and e.test.success and e.test.damage == 16
    hits = {h.target: h for h in t.state.hits}
    assert hits["boss"].after_toughness == 16 - 7 and hits["grunt"].after_toughness == 15
    assert t.f("luwe").in_hand == ""
    assert "it lands on target, catching Boss and Grunt for 16 damage" in ex.describe(t.initial, e)


def test_a_missed_grenade_scatters_1d6_metres_and_the_gm_places_the_blast():
    t = begun()
    t.do(ex.Ready(actor="luwe", item="grenade"))
    [e] = t.do(ex.ThrowGrenade(actor="luwe", targets="boss", distance=8), faces=[1, 2, 4, 4])  # 7 + 3 = 10 < 11
    assert not e.test.success and e.test.scatter == 4 and t.state.blast.scatter == 4 and not t.state.hits
    assert "lands 4 m off in a direction of the GM's choosing" in ex.describe(t.initial, e)
    t.do(ex.Blast(targets="grunt, furo", direction="behind the crates"), faces=[1, 2, 3])
    assert {h.target for h in t.state.hits} == {"grunt", "furo"} and t.state.blast is None
    t.refuse(ex.Blast(targets="grunt"), "No scattered grenade")


# --- damage ----------------------------------------------------------------------------------------------------------

TESTER = dict(abilities={"Fighting": 10, "Accuracy": 10, "Strength": 3, "Dexterity": 2, "Perception": 1})

DAMAGE = [  # weapon, extra attack fields, talents, damage dice (count, sides), faces, damage: the seed's table
    ("unarmed", {}, (), (1, 3), [3], 3 + 3),
    ("unarmed", {}, ("Striking Style",), (1, 6), [6], 6 + 3),
    ("makeshift", {}, (), (1, 6), [5], 5 + 3),
    ("light_melee", {}, (), (1, 6), [4], 4 + 3),
    ("light_melee", {"damage_ability": "Dexterity"}, (), (1, 6), [4], 4 + 2),
    ("heavy_melee", {}, (), (2, 6), [2, 5], 7 + 3),
    ("pistol", {}, (), (2, 6), [6, 6], 12 + 1),
    ("rifle", {}, (), (3, 6), [1, 2, 3], 6 + 1),
    ("bow", {}, (), (1, 6), [4], 4 + 1),
    ("thrown", {}, (), (1, 6), [2], 2 + 3),
    ("pistol", {"stunning": True}, (), (1, 6), [5], 5 + 1),  # stunning: one die fewer ...
    ("rifle", {"stunning": True}, (), (2, 6), [5, 5], 10 + 1),
    ("light_melee", {"stunning": True}, (), (1, 3), [3], 3 + 3),  # ... never below 1d3
    ("unarmed", {"stunning": True}, (), (1, 3), [2], 2 + 3),
    ("makeshift", {"weak": 2}, (), (1, 6), [2], 1 + 3),  # Weak: -2, but the roll stays at least 1
    ("makeshift", {"weak": 1}, (), (1, 6), [6], 5 + 3),
]


@pytest.mark.parametrize("weapon,extra,talents,dice,faces,damage", DAMAGE)
def test_the_damage_table(weapon, extra, talents, dice, faces, damage):
    hero = fighter("hero", "Hero", "pc", 1, TESTER["abilities"], talents=talents, aware_of=("grunt",))
    t = begun(("hero", "grunt"), encounter(hero, grunt()))
    action = "melee_attack" if T.WEAPONS[weapon].kind == "melee" else "ranged_attack"
    t.do(ex.Attack(actor="hero", action=action, weapon=weapon, target="grunt", **extra), faces=[1, 2, 4] + faces)
    assert (last_test(t).damage_dice, last_test(t).damage_sides) == dice
    assert last_test(t).damage == damage
    [hit] = t.state.hits
    penetrating = extra.get("stunning", False)
    assert hit.penetrating is penetrating and hit.after_toughness == damage - (0 if penetrating else 1)


def test_the_grenade_row_is_3d6_with_no_ability():
    assert (T.WEAPONS["grenade"].dice, T.WEAPONS["grenade"].sides, T.WEAPONS["grenade"].damage_abilities) == (3, 6, ())


def test_makeshift_flaws_clumsy_and_fragile():
    hero = fighter("hero", "Hero", "pc", 1, {"Fighting": 0, "Strength": 2}, aware_of=("grunt",))
    t = begun(("hero", "grunt"), encounter(hero, grunt()))
    t.do(ex.Ready(actor="hero", item="makeshift"))
    [e] = t.do(ex.Attack(actor="hero", weapon="makeshift", target="grunt", clumsy=2, fragile=True), faces=[1, 2, 3])
    assert e.test.modifier == -2 and e.test.breaks and t.f("hero").in_hand == ""
    assert ex.describe(t.initial, e).endswith("a miss, and the makeshift weapon breaks.")
    t = begun(("hero", "grunt"), encounter(hero, grunt()))
    t.refuse(ex.Attack(actor="hero", weapon="pistol", action="ranged_attack", target="grunt", weak=1), "makeshift")
    t.refuse(ex.Attack(actor="hero", weapon="makeshift", target="grunt", clumsy=3), "1 or 2")
    [e] = t.do(ex.Attack(actor="hero", weapon="makeshift", target="grunt", fragile=True), faces=[1, 2, 4])  # DD 4
    assert not e.test.breaks


@pytest.mark.parametrize(
    "armour,soak", [("none", 3), ("padding", 4), ("light", 5), ("medium", 7), ("heavy", 9), ("power", 15)]
)
def test_toughness_with_armour_and_penetrating_damage(armour, soak):
    target = boss(armour=armour)
    t = begun(("luwe", "boss"), encounter(luwe(), target))
    t.do(pistol(), faces=[2, 3, 4, 6, 6])  # 14 damage
    assert t.state.hits[0].after_toughness == max(0, 14 - soak)
    assert T.ARMOUR_BONUS[armour] == soak - 3
    t = begun(("luwe", "boss"), encounter(luwe(), target))
    t.do(pistol(stunning=True), faces=[2, 3, 4, 6])  # 1d6 + 2 = 8, penetrating
    assert t.state.hits[0].after_toughness == 8


def test_armour_penalties_match_the_seed():
    assert T.ARMOUR_PENALTY == {"none": 0, "padding": 0, "light": -1, "medium": -2, "heavy": -3, "power": 0}
    assert {k: v[1] for k, v in T.SHIELDS.items()} == {"none": 0, "riot_shield": 2, "ballistic_shield": 3}


def test_a_ballistic_shield_in_hand_gives_three_defense_in_play():
    t = begun(("luwe", "boss", "furo", "grunt"))
    [readied] = t.do(ex.Ready(actor="luwe", item="ballistic_shield"))
    assert ex.describe(t.initial, readied) == "Luwe readies ballistic shield."
    assert t.f("luwe").shield == "ballistic_shield" and ex.defense(t.state, t.f("luwe")) == 13 + 3
    t.do(ex.EndTurn(actor="luwe"))
    heavy = ex.Attack(actor="boss", action="melee_attack", weapon="heavy_melee", target="luwe")
    [miss] = t.do(heavy, faces=[4, 4, 4])  # 12 + Fighting 3 = 15: it would hit Defense 13, not 16
    assert miss.test.tn == 16 and not miss.test.success and not t.state.hits
    assert "15 against Defense 16, a miss" in ex.describe(t.state, miss, gm=False)
    bare = begun(("boss", "luwe", "furo", "grunt"))
    [hit] = bare.do(heavy, faces=[4, 4, 4, 6, 5])  # the same roll against Luwe without the shield
    assert hit.test.tn == 13 and hit.test.success and len(bare.state.hits) == 1
    # Equal to the shielded Defense still hits; a sheet's shield counts from the start.
    t = begun(("boss", "luwe", "furo", "grunt"), encounter(luwe(shield="ballistic_shield"), furo(), boss(), grunt()))
    [hit] = t.do(heavy, faces=[4, 4, 5, 6, 5])
    assert hit.test.tn == 16 and hit.test.success and len(t.state.hits) == 1
    # Put away, the shield gives nothing; the riot shield beside it gives +2.
    t = begun(state=encounter(luwe(shield="ballistic_shield"), furo(), boss(), grunt()))
    t.do(ex.Ready(actor="luwe", stow="shield"))
    assert t.f("luwe").shield == "none" and ex.defense(t.state, t.f("luwe")) == 13
    t.do(ex.Ready(actor="luwe", item="riot_shield"))
    assert ex.defense(t.state, t.f("luwe")) == 13 + 2


def boss_hits_luwe(damage_faces=(6, 5), **kw):
    """The Boss hits Luwe with a heavy weapon: 2d6 + Strength 3 against Toughness 2."""
    t = begun(("boss", "luwe", "furo", "grunt"), kw.pop("state", None))
    t.do(
        ex.Attack(actor="boss", action="melee_attack", weapon="heavy_melee", target="luwe", **kw),
        faces=[4, 5, 6, *damage_faces],
    )
    return t


def test_fortune_is_spent_one_for_one_by_the_player_after_the_hit():
    t = boss_hits_luwe()
    [hit] = t.state.hits
    assert hit.remaining == 12 and hit.stage == "fortune"
    t.refuse(ex.SpendFortune(actor="luwe", points=13), "0 to 12 Fortune")
    t.refuse(ex.SpendFortune(actor="furo", points=1), "no damage waiting")
    before = t.state
    [e] = t.do(ex.SpendFortune(actor="luwe", points=12))
    assert t.f("luwe").fortune == 8 and not t.state.hits[0].open
    assert ex.describe(before, e) == "Luwe spends 12 Fortune on the damage; none gets through."
    t = boss_hits_luwe(state=encounter(luwe(fortune=5), boss(), furo(), grunt()))
    t.refuse(ex.SpendFortune(actor="luwe", points=6), "0 to 5 Fortune")


def test_injured_then_wounded_then_taken_out():
    t = boss_hits_luwe()
    t.do(ex.SpendFortune(actor="luwe", points=5))  # 7 left
    t.refuse(ex.SpendFortune(actor="luwe", points=1), "already decided")
    before = t.state
    [e] = t.do(ex.AcceptCondition(actor="luwe"), faces=[4])
    assert e.condition == "Injured" and t.state.hits[0].remaining == 3
    assert ex.describe(before, e) == "Luwe takes the Injured condition, which absorbs 4 damage (1d6); 3 damage remains."
    [wounded, out] = t.do(ex.AcceptCondition(actor="luwe"), faces=[2])
    assert wounded.condition == "Wounded" and out.kind == "taken_out"
    luwe_ = t.f("luwe")
    assert luwe_.conditions == ("Injured", "Wounded", "Taken out") and luwe_.out and not t.state.hits[0].open
    t.refuse(ex.RollOver(actor="luwe", condition="Wounded"), "already out")


def test_conditions_can_cover_the_rest_and_a_held_injury_goes_straight_to_wounded():
    t = boss_hits_luwe(damage_faces=(1, 2))  # 6 - 2 = 4
    [spent, injured] = t.do(ex.AcceptCondition(actor="luwe"), faces=[5])  # no Fortune: 0 is said for the player
    assert spent.points == 0 and injured.condition == "Injured" and not t.state.hits[0].open
    assert not t.f("luwe").out
    t = boss_hits_luwe(damage_faces=(1, 2), state=encounter(luwe(conditions=("Injured",)), boss(), furo(), grunt()))
    [_, e] = t.do(ex.AcceptCondition(actor="luwe"), faces=[5])
    assert e.condition == "Wounded"


def test_with_both_conditions_held_remaining_damage_takes_you_out():
    state = encounter(luwe(conditions=("Injured", "Wounded")), boss(), furo(), grunt())
    t = boss_hits_luwe(state=state)
    [spent, out] = t.do(ex.SpendFortune(actor="luwe", points=11))
    assert out.kind == "taken_out" and t.f("luwe").out


def test_choosing_to_be_taken_out_and_stunning_knocks_unconscious():
    t = boss_hits_luwe(stunning=True, damage_faces=(6,))  # 1d6 + 3 = 9, penetrating
    assert t.state.hits[0].remaining == 9
    [_, out] = t.do(ex.AcceptCondition(actor="luwe", choice="taken_out"))
    assert out.condition == "Unconscious" and set(t.f("luwe").conditions) == {"Taken out", "Unconscious"}
    assert ex.describe(t.state, out) == "Luwe is taken out and knocked unconscious."


def test_rolling_over_needs_the_gm_and_comes_before_being_taken_out():
    t = boss_hits_luwe()
    t.refuse(ex.RollOver(actor="luwe", condition="Taken out"), "Choose the condition")
    t.do(ex.RollOver(actor="luwe", condition="Wounded"))
    t.refuse(ex.RollOver(actor="luwe", condition="Wounded"), "already asked")
    assert not t.f("luwe").out
    t.do(ex.ApproveRollOver(fighter="luwe", approve=False))
    assert not t.f("luwe").out and not t.f("luwe").roll_over_asked
    t.do(ex.RollOver(actor="luwe", condition="Wounded"))
    t.do(ex.ApproveRollOver(fighter="luwe"))
    luwe_ = t.f("luwe")
    assert luwe_.rolled_over and luwe_.out and "Wounded" in luwe_.conditions and "Taken out" not in luwe_.conditions
    assert not t.state.hits[0].open  # the pending damage no longer matters
    assert luwe_.id not in [e.fighter for e in [next_turn(t.state)] if e]


def test_breathers_restore_fortune_and_end_the_encounter():
    state = encounter(luwe(fortune=4), furo(fortune=14), boss(fortune=0), grunt())
    t = Table(state)
    [e] = t.do(ex.Breathers(), faces=[3, 6, 2, 1])
    gains = {r.fighter: r.gain for r in e.rolls}
    assert gains == {"luwe": 3 + 2 + 3, "furo": 1, "boss": 2 + 0 + 1, "grunt": 0}  # capped at the maximum
    assert t.f("luwe").fortune == 12 and t.f("furo").fortune == 15 and t.state.ended
    t.refuse(ex.NextTurn(), "has ended")
    assert ex.write_back(t.state)["luwe"] == {"fortune": 12, "conditions": []}


def test_write_back_keeps_fortune_and_conditions():
    t = boss_hits_luwe()
    t.do(ex.SpendFortune(actor="luwe", points=5))
    t.do(ex.AcceptCondition(actor="luwe"), faces=[6])
    t.do(ex.SetCondition(target="furo", condition="Prone"))
    back = ex.write_back(t.state)
    assert back["luwe"] == {"fortune": 15, "conditions": ["Injured"]}
    assert back["furo"] == {"fortune": 15, "conditions": ["Prone"]}
    assert set(back) == {"luwe", "furo"}  # NPC sheets (often shared templates) are left alone


def test_an_ability_test_is_a_major_a_minor_or_free_and_resistance_earns_no_stunt_points():
    t = begun()
    [e] = t.do(ex.AbilityTest(actor="luwe", ability="Intelligence", tn=11, note="patch the hull"), faces=[4, 4, 5])
    assert e.test.success and t.f("luwe").sp == 5 and t.state.turn_actions == ("other_major",)
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Lightning Attack"), "follows an attack")
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Knock Prone"), "needs the combatant this test was against")
    assert ex.describe(t.state, e) == (
        "Luwe makes an Intelligence test to patch the hull: 4, 4 and Drama Die 5 + 0 "
        "= 13 against TN 11, a success earning 5 stunt points."
    )
    t.refuse(ex.AbilityTest(actor="luwe", ability="Intelligence", tn=11), "already taken a major action")
    [e] = t.do(ex.AbilityTest(actor="furo", ability="Constitution", tn=9, action="free", resist=True), faces=[3, 3, 3])
    assert e.slot == "none" and e.test.success and t.f("furo").sp == 0 and t.f("luwe").sp == 5
    t.do(ex.AbilityTest(actor="luwe", ability="Dexterity", focus="Initiative", tn=11, action="minor"), faces=[1, 2, 3])
    assert last_test(t).modifier == 5 and t.state.turn_actions == ("other_major", "activate")
    t.refuse(ex.AbilityTest(actor="luwe", ability="Luck", tn=11), "Choose one of the abilities")


def test_outcome():
    t = begun()
    assert ex.outcome(t.state) == ""
    t.do(ex.SetCondition(target="boss", condition="Taken out"))
    t.do(ex.SetCondition(target="grunt", condition="Unconscious"))
    assert ex.outcome(t.state) == "Victory"
    t = begun()
    t.do(ex.SetCondition(target="luwe", condition="Taken out"))
    t.do(ex.SetCondition(target="furo", condition="Taken out"))
    assert ex.outcome(t.state) == "Defeat"


# --- stunt points ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("faces,sp", [((3, 3, 4), 4), ((2, 5, 5), 5), ((6, 1, 6), 6), ((1, 2, 4), 0), ((1, 1, 2), 0)])
def test_doubles_on_a_success_earn_the_drama_die_in_stunt_points(faces, sp):
    t = begun()
    hit = sum(faces) + 5 >= 12
    t.do(pistol(), faces=list(faces) + ([1, 1] if hit else []))
    assert t.f("luwe").sp == sp == last_test(t).sp


def test_stunts_stay_within_the_budget_and_cost_range():
    t = begun(state=encounter(luwe(fortune=15), furo(), boss(), grunt()))
    t.do(pistol(), faces=[3, 3, 4, 1, 1])  # 4 SP
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Momentum", points=4), "Momentum costs 1-3 SP")
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Fly Away", points=1), "not on this encounter's list")
    t.do(ex.SpendStunt(actor="luwe", stunt="Duck and Weave", points=3))
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Knock Prone"), "only 1 stunt point")
    t.do(ex.SpendStunt(actor="luwe", stunt="adrenaline_rush", points=1))
    assert t.f("luwe").fortune == 16 and t.f("luwe").sp == 0
    assert ex.defense(t.state, t.f("luwe")) == 16
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Take Cover", points=1), "no stunt points")


def test_each_stunt_once_per_round():
    t = begun()
    t.do(pistol(), faces=[3, 3, 6, 1, 1])  # 6 SP
    t.do(ex.SpendStunt(actor="luwe", stunt="Lightning Attack"))
    t.do(ex.SpendStunt(actor="luwe", stunt="Take Cover", points=1))
    t.do(pistol(free=True), faces=[4, 4, 5, 1, 1])  # the extra attack: 5 SP
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Take Cover", points=1), "already used Take Cover this round")
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Lightning Attack"), "already used Lightning Attack this round")
    t.do(ex.SpendStunt(actor="luwe", stunt="Duck and Weave", points=1))
    to_turn(t, "grunt")
    t.do(ex.EndTurn(actor="grunt"))
    assert t.state.round == 2 and t.state.turn == "luwe" and t.f("luwe").stunts_used == ()
    t.do(pistol(), faces=[3, 3, 6, 1, 1])
    t.do(ex.SpendStunt(actor="luwe", stunt="Take Cover", points=1))


def test_unspent_stunt_points_are_lost_at_the_end_of_the_turn():
    t = begun()
    t.do(pistol(), faces=[5, 5, 6, 1, 1])
    [ended, _] = t.do(ex.EndTurn(actor="luwe"))
    assert ended.sp_lost == 6 and t.f("luwe").sp == 0
    assert ex.describe(t.initial, ended) == "Luwe ends their turn, losing 6 unspent stunt points."
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Take Cover", points=1), "no stunt points")


def test_a_stunt_attack_earns_one_point_and_no_damage_and_damaging_stunts_need_doubles():
    t = begun(state=encounter(luwe(fortune=15), furo(), boss(), grunt()))
    [e] = t.do(pistol(action="stunt_attack"), faces=[1, 2, 4])
    assert e.test.success and t.f("luwe").sp == 1 and not t.state.hits
    t.do(ex.AddStunt(stunt="Hamstring", cost=1, max_cost=1, damaging=True))
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Hamstring"), "Without doubles")
    t.do(ex.SpendStunt(actor="luwe", stunt="Adrenaline Rush", points=1))
    t = begun()
    t.do(pistol(action="stunt_attack"), faces=[2, 2, 5])  # 1 + Drama Die 5
    assert t.f("luwe").sp == 6 and not t.state.hits
    t.do(ex.SpendStunt(actor="luwe", stunt="Lightning Attack"))
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Injure"), "needs an attack that did damage")


def test_lightning_attack_and_double_team_are_extra_attacks_not_actions():
    t = begun(("luwe", "boss", "furo", "grunt"))
    t.do(pistol(), faces=[3, 3, 6, 1, 1])  # 6 SP
    t.refuse(pistol(free=True), "no extra attack")
    t.do(ex.SpendStunt(actor="luwe", stunt="Double-Team", ally="furo"))
    t.do(ex.SpendStunt(actor="luwe", stunt="Lightning Attack"))
    t.refuse(punch(target="grunt", free=True), "must go against Boss")
    t.do(punch(free=True), faces=[1, 2, 4, 1])  # Furo attacks at once, outside his turn
    t.do(pistol(target="grunt", free=True), faces=[1, 2, 4, 1, 1])
    assert t.state.turn_actions == ("ranged_attack",) and t.state.free_attacks == ()
    t.do(ex.Move(actor="luwe", metres=2))


def test_injure_needs_half_fortune_lost_and_damage_past_toughness():
    t = begun(state=encounter(luwe(), furo(), boss(fortune=6), grunt()))
    t.do(pistol(), faces=[3, 3, 6, 6, 6])  # 14 damage against 7
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Injure"), "lost half their Fortune")
    t = begun(state=encounter(luwe(), furo(), boss(fortune=5), grunt()))
    t.do(pistol(), faces=[3, 3, 6, 6, 6])
    t.do(ex.SpendStunt(actor="luwe", stunt="Injure"))
    assert "Injured" in t.f("boss").conditions and t.state.hits[0].remaining == 7  # it does not reduce damage
    t.do(ex.SpendFortune(actor="boss", points=0))
    [e, out] = t.do(ex.AcceptCondition(actor="boss"), faces=[6])  # Wounded absorbs 6 of 7: the rest takes it out
    assert e.condition == "Wounded" and out.kind == "taken_out"
    t = begun(state=encounter(luwe(), furo(), boss(fortune=5), grunt()))
    t.do(pistol(), faces=[3, 3, 6, 1, 1])  # 4 damage does not beat Toughness 7
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Injure"), "beat Boss's Toughness")


def test_overcome_toughness_makes_fresh_damage_ignore_toughness():
    t = begun()
    t.do(pistol(), faces=[3, 3, 6, 1, 2])  # 5 damage, Toughness 7: nothing gets through yet
    assert not t.state.hits[0].open
    t.do(ex.SpendStunt(actor="luwe", stunt="Overcome Toughness"))
    assert t.state.hits[0].remaining == 5 and t.state.hits[0].open
    t = begun()
    t.do(pistol(), faces=[3, 3, 6, 6, 6])
    t.do(ex.SpendFortune(actor="boss", points=1))
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Overcome Toughness"), "already taken that damage")


def test_guardian_angel_takes_damage_meant_for_an_ally():
    t = begun(("furo", "boss", "luwe", "grunt"))
    t.do(punch(), faces=[4, 4, 3, 1])  # 3 SP
    t.do(ex.SpendStunt(actor="furo", stunt="Guardian Angel", points=3, ally="luwe"))
    t.do(ex.EndTurn(actor="furo"))
    t.do(ex.Attack(actor="boss", action="melee_attack", weapon="heavy_melee", target="luwe"), faces=[4, 5, 6, 6, 5])
    [moved, spent] = t.do(ex.SpendFortune(actor="luwe", points=2))
    assert moved.points == 3 and spent.points == 2
    luwe_hit, furo_hit = t.state.hits[-2:]
    assert luwe_hit.remaining == 12 - 3 - 2 and furo_hit.target == "furo" and furo_hit.remaining == 3
    assert not t.state.effects_on("luwe", "guardian")


def test_group_tactics_moves_an_ally_2_m_per_2_sp_at_no_cost_to_the_allys_turn():
    t = begun(("luwe", "boss", "furo", "grunt"))
    t.do(pistol(), faces=[5, 5, 6, 1, 1])  # doubles: 6 SP
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Group Tactics", ally="luwe"), "Choose an ally of Luwe's")
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Group Tactics", ally="boss"), "Choose an ally of Luwe's")
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Group Tactics", points=1, ally="furo"), "costs 2\\+ SP")
    [e] = t.do(ex.SpendStunt(actor="luwe", stunt="Group Tactics", points=3, ally="furo"))
    assert (e.stunt, e.points, e.ally) == ("group_tactics", 3, "furo")
    # 2 m per 2 SP: the odd third point buys nothing.
    assert ex.describe(t.initial, e) == "Luwe spends 3 stunt points on Group Tactics: Furo moves 2 m."
    assert ex.describe(t.initial, e, gm=False) == ex.describe(t.initial, e)
    assert t.f("luwe").sp == 3 and t.f("luwe").stunts_used == ("group_tactics",)
    t.refuse(
        ex.SpendStunt(actor="luwe", stunt="Group Tactics", points=2, ally="furo"),
        "already used Group Tactics this round",
    )
    # The move is the stunt's: it spends none of Furo's actions, and his whole turn is still his.
    assert t.f("furo").sp == 0 and t.f("furo").stunts_used == () and t.state.turn_actions == ("ranged_attack",)
    t.do(ex.EndTurn(actor="luwe"))
    to_turn(t, "furo")
    t.do(ex.Move(actor="furo", metres=4))
    t.do(punch(), faces=[2, 3, 4, 1])
    assert t.state.turn_actions == ("move", "melee_attack")  # a minor and a major: Furo's turn was whole
    t = begun(state=encounter(luwe(), furo(conditions=(T.TAKEN_OUT,)), boss(), grunt()))
    t.do(pistol(), faces=[5, 5, 6, 1, 1])
    t.refuse(ex.SpendStunt(actor="luwe", stunt="Group Tactics", points=4, ally="furo"), "Furo is out of the encounter")
    t = begun(("boss", "luwe", "furo", "grunt"))
    t.do(
        ex.Attack(actor="boss", action="melee_attack", weapon="heavy_melee", target="luwe"), faces=[4, 4, 6, 1, 1]
    )  # doubles: the Boss has 6 SP for his own side
    [e] = t.do(ex.SpendStunt(actor="boss", stunt="Group Tactics", points=6, ally="grunt"))
    assert ex.describe(t.initial, e, gm=False) == "Boss spends 6 stunt points on Group Tactics: Grunt moves 6 m."


def test_take_cover_skirmish_and_whatevers_handy():
    t = begun()
    t.do(pistol(), faces=[5, 5, 6, 1, 1])  # 6 SP
    t.do(ex.SpendStunt(actor="luwe", stunt="Take Cover", points=3))
    t.do(ex.SpendStunt(actor="luwe", stunt="Skirmish", points=2, moves="target"))
    t.do(ex.SpendStunt(actor="luwe", stunt="Whatever's Handy"))
    assert t.f("luwe").cover == 3 and t.f("luwe").in_hand == "makeshift" and t.f("luwe").sp == 0


def test_gm_stunts_by_command_and_by_setting():
    t = begun(state=encounter(extra_stunts="Feint 1-3; Hostage 4+"))
    assert t.state.stunt("feint").cost_label == "1-3" and t.state.stunt("Hostage").max_cost == 0
    t.do(ex.AddStunt(stunt="Called Shot", cost=4, max_cost=4, text="The damage becomes penetrating."))
    t.refuse(ex.AddStunt(stunt="called shot", cost=2), "already a stunt")
    t.refuse(ex.AddStunt(stunt="Zap", cost=2, effect="teleport"), "engine's effects")
    t.do(pistol(), faces=[5, 5, 6, 1, 1])
    [e] = t.do(ex.SpendStunt(actor="luwe", stunt="Called Shot", note="to the knee"))
    assert e.points == 4
    t.do(ex.SpendStunt(actor="luwe", stunt="Feint", points=2))
    with pytest.raises(RuleError, match="needs a name and a cost"):
        encounter(extra_stunts="Feint")
    with pytest.raises(RuleError, match="already a stunt called Injure"):
        encounter(extra_stunts="Injure 3")


def test_the_stunt_list_is_data():
    names = [s.name for s in T.STUNTS]
    assert names == [
        "Adrenaline Rush",
        "Momentum",
        "Duck and Weave",
        "Take Cover",
        "Guardian Angel",
        "Skirmish",
        "Whatever's Handy",
        "Group Tactics",
        "Double-Team",
        "Injure",
        "Knock Prone",
        "Lightning Attack",
        "Overcome Toughness",
    ]
    assert all(s.effect in T.EFFECTS for s in T.STUNTS)


# --- weapon capacity ------------------------------------------------------------------------------------------


def test_a_missed_gun_attack_with_drama_die_six_jams_and_a_minor_action_clears_it():
    t = begun()
    [e] = t.do(pistol(modifier=-5), faces=[1, 1, 6])  # 8 + 0 = 8: a miss with Drama Die 6
    assert e.test.jams and t.f("luwe").jammed == ("pistol",)
    assert "the pistol jams or runs dry (Drama Die 6)" in ex.describe(t.initial, e)
    t.do(ex.EndTurn(actor="luwe"))
    to_turn(t, "luwe")
    t.refuse(pistol(), "jammed or out of ammunition")
    t.do(ex.ClearJam(actor="luwe"))
    assert t.f("luwe").jammed == ()
    t.do(pistol(), faces=[1, 2, 4, 1, 1])


@pytest.mark.parametrize(
    "attack,faces,jams",
    [
        (lambda: pistol(modifier=-5), [1, 2, 5], False),  # a miss, Drama Die 5
        (lambda: pistol(), [1, 2, 6, 1, 1], False),  # a hit with Drama Die 6
        (lambda: ex.Attack(actor="luwe", weapon="light_melee", target="boss", modifier=-5), [1, 1, 6], False),
        (
            lambda: ex.Attack(actor="luwe", action="ranged_attack", weapon="bow", target="boss", modifier=-5),
            [1, 1, 6],
            False,
        ),
        (
            lambda: ex.Attack(actor="luwe", action="ranged_attack", weapon="rifle", target="boss", modifier=-5),
            [1, 1, 6],
            True,
        ),
    ],
)
def test_only_missed_gun_attacks_jam(attack, faces, jams):
    t = begun()
    t.do(attack(), faces=faces)
    assert bool(t.f("luwe").jammed) is jams


def test_clear_jam_needs_a_jammed_weapon():
    t = begun()
    t.refuse(ex.ClearJam(actor="luwe"), "no jammed or empty weapon")


# --- Fortune changing a die ---------------------------------------------------------------------------------------


def test_fortune_changes_a_die_and_the_outcome_follows():
    t = begun()
    t.do(pistol(), faces=[1, 2, 3])  # 11: a miss
    [e] = t.do(ex.ChangeDie(actor="luwe", die=0, face=2), faces=[3, 4])  # 2, 2, 3: 12 hits with doubles
    assert e.cost == 2 and t.f("luwe").fortune == 18
    assert last_test(t).success and t.f("luwe").sp == 3 and t.state.hits[0].damage == 9
    t.do(ex.ChangeDie(actor="luwe", die=2, face=6))  # the Drama Die costs 3: 6 SP
    assert t.f("luwe").fortune == 15 and t.f("luwe").sp == 6 and len(t.state.hits) == 1
    t.do(ex.SpendFortune(actor="boss", points=0))
    t.refuse(ex.ChangeDie(actor="luwe", die=1, face=6), "Too late")


def test_changing_a_die_can_undo_a_jam_and_is_a_setting():
    t = begun()
    t.do(pistol(modifier=-5), faces=[1, 1, 6])
    assert t.f("luwe").jammed
    t.do(ex.ChangeDie(actor="luwe", die=0, face=6), faces=[1, 1])  # 13 + 0: a hit
    assert not t.f("luwe").jammed and len(t.state.hits) == 1
    t = begun(state=encounter(fortune_die_cost=0))
    t.do(pistol(), faces=[1, 2, 3])
    t.refuse(ex.ChangeDie(actor="luwe", die=0, face=6), "cannot change that die")
    t.refuse(ex.ChangeDie(actor="luwe", die=2, face=3), "already shows 3")
    t = begun(state=encounter(luwe(fortune=1), furo(), boss(), grunt()))
    t.do(pistol(), faces=[1, 2, 3])
    t.refuse(ex.ChangeDie(actor="luwe", die=0, face=6), "costs 2 Fortune and Luwe has 1")


# --- Churn -----------------------------------------------------------------------------------------------------------


def test_churn_is_off_by_default():
    t = begun()
    t.do(pistol(), faces=[1, 2, 6, 1, 1])
    assert t.state.churn == 0
    t.refuse(ex.AdjustChurn(change=1), "does not use Churn")
    assert ex.SETTINGS[0].key == "churn" and ex.SETTINGS[0].default is False


def test_churn_triggers():
    t = begun(state=encounter(churn=True))
    t.do(pistol(), faces=[2, 6, 6, 1, 1])  # success with Drama Die 6 (6 SP)
    assert t.state.churn == 1
    t.do(ex.SpendStunt(actor="luwe", stunt="Skirmish", points=4))  # 4+ SP on one stunt
    assert t.state.churn == 2
    t.do(ex.SpendStunt(actor="luwe", stunt="Take Cover", points=1))
    assert t.state.churn == 2
    t = begun(state=encounter(churn=True))
    t.do(pistol(), faces=[1, 2, 3])
    t.do(ex.ChangeDie(actor="luwe", die=1, face=3), faces=[1, 1])  # Fortune altered a roll
    assert t.state.churn == 1
    t.do(ex.Breathers(), faces=[1, 1, 1, 1])  # the end of the encounter
    assert t.state.churn == 2


@pytest.mark.parametrize("start,level,after", [(9, 10, 10), (19, 20, 20), (29, 30, 0)])
def test_churn_thresholds(start, level, after):
    t = begun(state=replace(encounter(churn=True), churn=start))
    events = t.do(pistol(), faces=[1, 2, 6, 1, 1] + ([4] if level < 30 else []))  # 1d6 on the Churn Over table
    [reached] = [e for e in events if isinstance(e, ex.ChurnReached)]
    assert reached.level == level and reached.reset is (level == 30) and t.state.churn == after
    assert reached.roll == (4 if level < 30 else 0) and t.state.churn_due == (reached.severity,)
    assert ex.describe(t.state, reached, gm=False) is None and "Churn reaches" in ex.describe(t.state, reached)
    t2 = begun(state=replace(encounter(churn=True), churn=start - 1))
    events = t2.do(pistol(), faces=[1, 2, 6, 1, 1])
    assert not [e for e in events if isinstance(e, ex.ChurnReached)]


def test_the_gm_spends_churn_to_jam_a_missed_firearm():
    t = begun(state=replace(encounter(churn=True), churn=2))
    t.do(pistol(), faces=[1, 2, 3])
    t.do(ex.ChurnJam(fighter="luwe"))
    assert t.f("luwe").jammed == ("pistol",) and t.state.churn == 1
    t.refuse(ex.ChurnJam(fighter="luwe"), "already jammed")
    t = begun(state=replace(encounter(churn=True), churn=2))
    t.do(pistol(), faces=[1, 2, 4, 1, 1])
    t.refuse(ex.ChurnJam(fighter="luwe"), "not a missed firearm attack")


# --- the log and the codec --------------------------------------------------------------------------------------------


def scenario():
    t = Table(encounter())
    t.do(ex.RollInitiative(), faces=[6, 5, 4, 1, 2, 3, 3, 3, 1, 1, 1, 2])  # Luwe, Boss, Furo, Grunt
    t.do(ex.NextTurn())
    t.do(pistol(), faces=[3, 3, 5, 6, 6])  # 16 hits, 14 damage (7 past Toughness), 5 SP
    t.do(ex.SpendStunt(actor="luwe", stunt="Knock Prone"))
    t.do(ex.SpendStunt(actor="luwe", stunt="Adrenaline Rush", points=3))
    t.do(ex.SpendFortune(actor="boss", points=3))
    t.do(ex.AcceptCondition(actor="boss"), faces=[2])
    t.do(ex.AcceptCondition(actor="boss", choice="condition"), faces=[3])
    t.do(ex.AdjustFortune(target="boss", change=2))
    t.do(ex.EndTurn(actor="luwe"))
    t.do(ex.GuardUp(actor="boss", bonus=1))  # the Boss is wounded (-2) and guarded up (-1)
    t.do(ex.Attack(actor="boss", action="melee_attack", weapon="heavy_melee", target="furo"), faces=[4, 5, 6, 6, 6])
    t.do(ex.SpendFortune(actor="furo", points=4))  # the Boss's attack is settled and both actions used: turn over
    assert t.state.turn == "furo"
    t.do(ex.Prepare(actor="furo", action="melee_attack"))
    t.do(ex.Ready(actor="grunt", item="grenade"))
    t.do(ex.ThrowGrenade(actor="grunt", targets="luwe, furo", distance=6), faces=[1, 1, 2, 5])
    t.do(ex.Blast(targets="luwe", direction="to the left"), faces=[2, 2, 2])
    t.do(ex.SetCover(target="luwe", rating=2))
    t.do(ex.RollOver(actor="furo", condition="Wounded"))
    t.do(ex.ApproveRollOver(fighter="furo"))
    t.do(ex.Breathers(), faces=[1, 2, 3, 4])
    return t


def test_every_event_reads_as_one_sentence_and_players_never_see_npc_numbers():
    t = scenario()
    state = t.initial
    gm_text, player_text = [], []
    for item in t.log:
        gm_text.append(ex.describe(state, item.event))
        player_text.append(ex.describe(state, item.event, gm=False))
        state = ex.evolve(state, item.event)
    for sentence in gm_text + [p for p in player_text if p is not None]:
        assert sentence.endswith(".") and sentence[0].isupper() and "\n" not in sentence
        assert sentence.count(". ") == 0, sentence
    joined_gm, joined_players = " ".join(gm_text), " ".join(p for p in player_text if p)
    npc_numbers = [
        "against Defense 12",  # the Boss's Defense
        "Toughness 7 leaves",  # the Boss's Toughness with armour
        "Boss spends 3 Fortune",
        "Fortune rises by 2 to",  # the Boss's Fortune
        "Boss regains",
    ]
    for secret in npc_numbers:
        assert secret in joined_gm, secret  # the GM's log has it (so the check below can fail) ...
        assert secret not in joined_players, secret  # ... the players' log does not
    assert (
        "Luwe makes a Ranged Attack with a pistol at Boss: 3, 3 and Drama Die 5 + 5 = 16, a hit for 14 damage"
        in joined_players
    )
    assert (
        "Boss makes a Melee Attack with a heavy melee weapon at Furo: 4, 5 and Drama Die 6 + 0 = 15 against "
        "Defense 11, a hit for 15 damage (Toughness 5 leaves 10)" in joined_players
    )
    assert "Boss spends Fortune on the damage." in player_text
    assert (
        "Grunt throws a grenade: 1, 1 and Drama Die 2 + 1 = 5 against TN 11, it misses and lands 5 m off"
        in joined_players
    )
    assert "Luwe regains" in joined_players


def test_unseen_enemies_stay_unnamed_for_players():
    hidden = grunt()
    state = encounter(luwe(aware_of=("boss",)), furo(aware_of=("boss",)), boss(), hidden, attack_reveals=False)
    t = begun(("grunt", "luwe", "boss", "furo"), state)
    [e] = t.do(ex.Attack(actor="grunt", action="ranged_attack", weapon="pistol", target="luwe"), faces=[1, 2, 3])
    assert ex.describe(t.state, e, gm=False).startswith("Someone unseen makes a Ranged Attack")
    assert ex.describe(t.state, e).startswith("Grunt makes")


def test_players_read_a_pcs_numbers_in_the_log_even_before_a_player_takes_it():
    """The log asks the core's Sight, like the table: a PC's Fortune is open to everyone, an enemy's is not."""
    state = encounter(replace(luwe(), owner=None), furo(), boss(), grunt())
    t = boss_hits_luwe(state=state)
    before = t.state
    [e] = t.do(ex.SpendFortune(actor="luwe", points=5))
    assert ex.describe(before, e, gm=False) == "Luwe spends 5 Fortune on the damage; 7 damage remains."


def test_state_events_and_commands_round_trip_through_json():
    t = scenario()
    for state in (t.initial, t.state, replay(ex.evolve, t.initial, t.log[:8])):
        assert from_json(ex.State, json.loads(json.dumps(to_json(state)))) == state
    for item in t.log:
        payload = json.loads(json.dumps(ex.CODEC.event_to_json(item.event)))
        assert ex.CODEC.event_from_json(payload) == item.event
    for cls in ex.COMMANDS:
        assert from_json(cls, json.loads(json.dumps(to_json(cls())))) == cls()
    assert len({c.name for c in ex.COMMANDS}) == len(ex.COMMANDS)
    assert len({e.kind for e in ex.EVENTS}) == len(ex.EVENTS)


@pytest.mark.parametrize(
    "name,data",
    [
        ("teleport", {}),
        ("attack", {"actor": 5}),
        ("attack", "junk"),
        ("spend_fortune", {"points": "x"}),
    ],
)
def test_malformed_commands_are_refused_with_a_sentence(name, data):
    with pytest.raises(RuleError):
        ex.CODEC.command_from_json(name, data)


def test_who_may_issue_each_command():
    who = {c.name: c.who for c in ex.COMMANDS}
    for gm_only in (
        "roll_initiative",
        "break_tie",
        "next_turn",
        "interrupt",
        "blast",
        "also_in_blast",
        "approve_roll_over",
        "add_stunt",
        "breathers",
        "churn_jam",
        "adjust_churn",
        "set_condition",
        "adjust_fortune",
    ):
        assert who[gm_only] == "gm", gm_only
    for owner in (
        "attack",
        "spend_fortune",
        "spend_stunt",
        "change_die",
        "accept_condition",
        "end_turn",
        "roll_over",
        "guard_up",
        "prepare",
        "interrupt_self",
    ):
        assert who[owner] == "owner", owner


def test_settings_declare_every_open_question_with_its_default():
    defaults = {s.key: s.default for s in ex.SETTINGS}
    assert defaults == {
        "churn": False,
        "churn_over": "roll",
        "churn_public": False,
        "injury_penalties": "worst",
        "wounded_is_last": False,
        "fortune_die_cost": 2,
        "fortune_drama_cost": 3,
        "injured_penalty": 1,
        "wounded_penalty": 2,
        "armour_penalty": True,
        "long_range_penalty": 2,
        "gm_widens_blast": True,
        "cover_vs_melee": False,
        "penetrating_ignores_cover": True,
        "run_ends_turn": True,
        "prepare_interrupt": "gm",
        "churn_jam_cost": 1,
        "extra_stunts": "",
        "entered_dice": False,
        "attack_reveals": True,
        "weapons_at_start": "in_hand",
    }


@pytest.mark.parametrize(
    "conditions,penalty", [((), 0), (("Injured",), -1), (("Wounded",), -2), (("Injured", "Wounded"), -2)]
)
def test_injury_penalties_apply_to_tests(conditions, penalty):
    t = begun(state=encounter(luwe(conditions=conditions), furo(), boss(), grunt()))
    t.do(pistol(), faces=[1, 1, 2])
    assert last_test(t).modifier == 5 + penalty


def test_fighter_from_sheet_reads_the_expanse_stats():
    from combat.rules.expanse.stats import STATS

    stats = {
        **STATS.defaults(),
        "accuracy": 3,
        "dexterity": 2,
        "focuses": ["Accuracy (Pistols)", "Striking Style"],
        "armour": "light",
        "fortune": 12,
        "fortune_max": 10,
        "conditions": ["Injured", "Bored"],
        "level": 4,
    }
    f = ex.fighter_from_sheet("p1", "Ana", "pc", 7, stats, ("e1",))
    assert f.abilities["Accuracy"] == 3 and f.has_focus("Accuracy", "Pistols") and f.talents == ("Striking Style",)
    assert f.fortune == 10 and f.conditions == ("Injured",) and f.armour == "light" and f.level == 4
    assert ex.toughness(f) == 1 + 2
    with pytest.raises(RuleError, match="at least one player character"):
        ex.initial_state((boss(),), {})


# --- invariants ------------------------------------------------------------------------------------------------------


class SeededDice(Dice):
    """Reproducible dice for property tests (the engine itself only ever sees the Dice interface)."""

    def __init__(self, seed):
        self._rng = random.Random(seed)


PLAY = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "attack",
                "attack",
                "stunt",
                "fortune",
                "condition",
                "defend",
                "aim",
                "guard",
                "move",
                "prepare",
                "interrupt",
                "change",
                "end",
                "next",
                "grenade",
                "clear",
                "undo",
                "rollover",
                "free",
                "ready",
                "give",
                "churn",
            ]
        ),
        st.integers(0, 3),
        st.integers(0, 10_000),
    ),
    max_size=45,
)
WHO = ["luwe", "furo", "boss", "grunt"]
TARGETS = {"luwe": ["boss", "grunt"], "furo": ["boss", "grunt"], "boss": ["luwe", "furo"], "grunt": ["luwe", "furo"]}


def _random_command(s, what, who, seed):
    rng = random.Random(seed)
    actor = s.turn or WHO[who]
    if what == "free":
        return random_free_roll(["luwe", "furo"], seed)
    if what == "churn":  # the pool grows to its thresholds; the GM applies what comes due
        if s.churn_due:
            effect = rng.choice(["fail", "narrate", "fortune", "condition"])
            return ex.ApplyChurn(
                effect=effect,
                target=WHO[who],
                note=rng.choice(["", "the lights go out"]),
                points=rng.randint(0, 5),
                condition=rng.choice(["Prone", "Fatigued", "Taken out"]),
            )
        return ex.AdjustChurn(change=rng.randint(1, 12))
    if what == "attack":
        weapon = rng.choice([w for w in T.WEAPONS if w != "grenade"])
        action = "melee_attack" if T.WEAPONS[weapon].kind == "melee" else "ranged_attack"
        action = rng.choice([action, "stunt_attack", "all_out_attack" if action == "melee_attack" else action])
        free = any(a.fighter == WHO[who] for a in s.free_attacks)
        return ex.Attack(
            actor=WHO[who] if free else actor,
            action=action,
            weapon=weapon,
            target=rng.choice(TARGETS[WHO[who] if free else actor]),
            distance=rng.randint(0, 3),
            stunning=rng.random() < 0.2,
            fragile=weapon == "makeshift" and rng.random() < 0.5,
            free=free,
        )
    if what == "stunt":
        holders = [f for f in s.fighters if f.sp] or [s.fighter(actor)]
        spender = holders[0]
        stunt = rng.choice(s.stunts)
        allies = [f.id for f in s.fighters if f.side == spender.side and f.id != spender.id] or WHO
        points = rng.randint(stunt.cost, max(stunt.cost, spender.sp))
        return ex.SpendStunt(
            actor=spender.id,
            stunt=stunt.key,
            points=points,
            ally=rng.choice(allies),
            moves=rng.choice(["self", "target"]),
        )
    if what == "fortune":
        hurt = [h.target for h in s.hits if h.open] or [WHO[who]]
        return ex.SpendFortune(actor=hurt[0], points=rng.randint(0, 8))
    if what == "condition":
        hurt = [h.target for h in s.hits if h.open] or [WHO[who]]
        return ex.AcceptCondition(actor=hurt[0], choice=rng.choice(["condition", "condition", "taken_out"]))
    if what == "defend":
        return ex.Defend(actor=actor)
    if what == "aim":
        return ex.Aim(actor=actor)
    if what == "guard":
        return ex.GuardUp(actor=actor, bonus=rng.choice([1, 2]))
    if what == "move":
        return ex.Move(actor=actor, metres=rng.randint(0, 6))
    if what == "prepare":
        return ex.Prepare(actor=actor, action=rng.choice(["ranged_attack", "defend", "melee_attack"]))
    if what == "interrupt":
        return ex.Interrupt(fighter=WHO[who])
    if what == "change":
        return ex.ChangeDie(actor=actor, die=rng.randint(0, 2), face=rng.randint(1, 6))
    if what == "end":
        return ex.EndTurn(actor=actor)
    if what == "next":
        return ex.NextTurn() if s.initiative_rolled else ex.RollInitiative()
    if what == "grenade":
        if s.fighter(actor).in_hand != "grenade":
            return ex.Ready(actor=actor, item="grenade")
        return ex.ThrowGrenade(actor=actor, targets=",".join(rng.sample(WHO, 2)), distance=3)
    if what == "clear":
        if s.landed and rng.random() < 0.5:  # the GM adds someone else the grenade caught
            return ex.AlsoInBlast(targets=",".join(rng.sample(WHO, rng.randint(0, 2))))
        return ex.Blast(targets=rng.choice(WHO)) if s.blast else ex.ClearJam(actor=actor)
    if what == "ready":
        item = rng.choice([*T.WEAPONS, "riot_shield", "a hand terminal", ""])
        return ex.Ready(actor=actor, item=item, stow=rng.choice(["", "", "pistol", "makeshift", "shield"]))
    if what == "give":
        return ex.GiveWeapon(target=WHO[who], weapon=rng.choice(list(T.WEAPONS)), stow=rng.random() < 0.5)
    if what == "rollover":
        if s.fighter(WHO[who]).roll_over_asked:
            return ex.ApproveRollOver(fighter=WHO[who], approve=rng.random() < 0.2)
        return ex.RollOver(actor=WHO[who], condition="Wounded")
    raise AssertionError(what)


def check_invariants(t):
    s = t.state
    assert replay(ex.evolve, t.initial, t.log) == s  # replaying the log gives the live state
    for f in s.fighters:
        assert 0 <= f.fortune <= f.fortune_max, f
        assert f.sp >= 0
        assert len(set(f.stunts_used)) == len(f.stunts_used)
        assert not f.in_hand or f.in_hand not in f.broken  # a broken weapon is never in hand
    assert s.majors_taken <= 1 and len(s.turn_actions) <= 2, s.turn_actions
    assert all(h.remaining >= 0 for h in s.hits)
    assert s.churn >= 0
    assert not s.turn or s.fighter(s.turn).can_act or s.ended


@settings(max_examples=examples(200), deadline=None)
@given(PLAY, st.booleans(), st.sampled_from(["in_hand", "stowed", "free"]))
def test_random_play_keeps_every_invariant(actions, churn, weapons_at_start):
    t = begun(state=encounter(churn=churn, weapons_at_start=weapons_at_start))
    for what, who, seed in actions:
        if what == "undo":
            if t.log:
                t.undo_last()
            check_invariants(t)
            continue
        before, snapshot, logged = t.state, to_json(t.state), len(t.log)
        try:
            command = _random_command(t.state, what, who, seed)
            events = ex.decide(t.state, command, SeededDice(seed))
        except RuleError as exc:
            assert str(exc) and str(exc)[0].isupper() and str(exc).endswith(".")  # a refusal is a sentence ...
            # ... and changes nothing: neither the state (not even a dict inside it) nor the log.
            assert (t.state, to_json(t.state), len(t.log)) == (before, snapshot, logged)
            check_invariants(t)
            continue
        for event in events:
            assert isinstance(ex.describe(t.state, event), str)  # every event can be told to the GM ...
            player = ex.describe(t.state, event, gm=False)  # ... and to players, or is the GM's alone
            assert player is None and event.audience == "gm" or isinstance(player, str)
            t.log.append(Logged(seq=len(t.log) + 1, event=event))
            t.state = ex.evolve(t.state, event)
        check_invariants(t)


@settings(max_examples=examples(120), deadline=None)
@given(PLAY)
def test_undo_restores_the_state_before_the_undone_event(actions):
    t = begun()
    states = [t.state]
    batches = []
    for what, who, seed in actions:
        if what == "undo":
            continue
        try:
            events = ex.decide(t.state, _random_command(t.state, what, who, seed), SeededDice(seed))
        except RuleError:
            continue
        before = t.state
        for event in events:
            t.log.append(Logged(seq=len(t.log) + 1, event=event))
            t.state = ex.evolve(t.state, event)
            states.append(t.state)
        batches.append((before, tuple(item.seq for item in t.log[-len(events) :])))
    if not batches:
        return
    after = t.state
    t.undo_last()
    assert t.state == states[-2]  # undoing the last event restores the state before it
    before, seqs = batches[-1]
    t.log.append(Logged(seq=len(t.log) + 1, event=Undone(seqs=seqs)))
    assert replay(ex.evolve, t.initial, t.log) == before  # undoing the last command's events restores before it
    # A command that wrote events changed the fight, except a free roll: it is only a line in the log.
    free_roll = all(isinstance(t.log[seq - 1].event, DiceRolled) for seq in seqs)
    assert after != before or not seqs or free_roll


# --- physical dice, the sheet's weapons, Guard Up once ------------------------------------------------------------


def test_physical_dice_decide_a_test_and_its_damage_when_the_gm_allows_them():
    t = begun(state=encounter(entered_dice=True))
    [e] = t.do(pistol(entered=(3, 3, 6), damage_entered=(1, 2)))  # no die rolled by the server
    assert e.test.faces == (3, 3, 6) and e.test.entered and e.test.damage_faces == (1, 2) and e.test.damage_entered
    assert t.f("luwe").sp == 6
    assert "3, 3 and Drama Die 6 + 5 = 17 (physical dice) against Defense 12" in ex.describe(t.initial, e)
    t = begun(state=encounter(entered_dice=True))
    [e] = t.do(pistol(entered=(1, 2, 3), damage_entered=(6, 6)))  # a miss: the damage dice are not used
    assert not e.test.success and e.test.damage_faces == ()
    t.do(ex.EndTurn(actor="luwe"))
    [e] = t.do(
        ex.Attack(actor="boss", action="melee_attack", weapon="heavy_melee", target="luwe", entered=(6, 5, 4)),
        faces=[2, 2],
    )  # typed test, server-rolled damage
    assert e.test.entered and not e.test.damage_entered and e.test.damage_faces == (2, 2)


@pytest.mark.parametrize(
    "fields,match",
    [
        ({"entered": (3, 3)}, "Enter the three dice"),
        ({"entered": (0, 3, 3)}, "face from 1 to 6"),
        ({"damage_entered": (3,)}, "The damage is 2d6: enter 2 dice or none"),
        ({"damage_entered": (3, 7)}, "Each damage die shows a face from 1 to 6"),
    ],
)
def test_physical_dice_are_checked(fields, match):
    t = begun(state=encounter(entered_dice=True))
    t.refuse(pistol(**fields), match)


def test_physical_dice_need_the_setting_for_every_kind_of_test():
    t = begun()
    t.refuse(pistol(entered=(3, 3, 6)), "server roll the dice")
    t.refuse(pistol(damage_entered=(3, 3)), "server roll the dice")
    t.refuse(ex.AbilityTest(actor="luwe", ability="Intelligence", entered=(4, 4, 4)), "server roll the dice")
    t = begun(state=encounter(entered_dice=True))
    [e] = t.do(ex.AbilityTest(actor="luwe", ability="Intelligence", tn=11, entered=(4, 4, 5)))
    assert e.test.entered and e.test.sp == 5
    t = begun(state=encounter(entered_dice=True))
    t.do(ex.Ready(actor="luwe", item="grenade"))
    [e] = t.do(
        ex.ThrowGrenade(actor="luwe", targets="boss,grunt", distance=5, entered=(4, 5, 6), damage_entered=(1, 2, 3))
    )
    assert e.test.entered and e.test.damage_faces == (1, 2, 3) and len(t.state.hits) == 2


def test_guard_up_once_a_turn():
    t = begun()
    t.do(ex.GuardUp(actor="luwe", bonus=1))
    t.refuse(ex.GuardUp(actor="luwe", bonus=1), "already guarded up this turn")


def test_the_sheet_names_the_weapons_the_builder_offers():
    f = ex.fighter_from_sheet("k", "Kim", "pc", 1, {"weapons": ["Pistol", "heavy melee weapon", "Laser"]}, ())
    assert f.weapons == ("pistol", "heavy_melee")
    from combat.rules.expanse import stats

    assert tuple(w.label for w in T.WEAPONS.values()) == stats.WEAPONS  # the sheet's list is the damage table's
    assert ex.initial_state((luwe(),), {}).phase == 0  # AGE rounds have no phases (the review groups by turn)


@settings(max_examples=examples(150), deadline=None)
@given(PLAY)
def test_stunt_points_spent_never_exceed_those_earned(actions):
    """For every test, the stunt points spent on it stay within what it earned (doubles on a success)."""
    t = begun()
    earned: dict[int, int] = {}
    spent: dict[int, int] = {}
    for what, who, seed in actions:
        if what == "undo":
            continue
        try:
            events = ex.decide(t.state, _random_command(t.state, what, who, seed), SeededDice(seed))
        except RuleError:
            continue
        for event in events:
            if isinstance(event, ex.StuntSpent):
                test_id = t.state.fighter(event.fighter).sp_test
                spent[test_id] = spent.get(test_id, 0) + event.points
            t.state = ex.evolve(t.state, event)
            for test in t.state.tests:
                earned[test.id] = test.sp  # Fortune may still change a die (and the points) until a stunt locks it
            if isinstance(event, ex.Tested) and not event.test.resist:
                assert (
                    event.test.sp == 0
                    or (event.test.doubles and event.test.success)
                    or (event.test.kind == "stunt_attack" and event.test.success)
                )
        for test_id, points in spent.items():
            assert points <= earned.get(test_id, 0), (test_id, points, earned)
