"""HERO System speed-chart engine with scripted dice: the chart, the turn, actions, abort, hold, damage, invariants."""

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules import hero as h
from combat.rules.core import Logged, RuleError, Undone, active_events, from_json, replay, to_json
from combat.rules.dice import Dice, ScriptedDice
from combat.rules.free_roll import FreeRoll
from tests.combat.free_rolls import random_free_roll
from tests.combat.record_hero_logs import sheet
from tests.conftest import examples

# The speed chart exactly as the reference notes print it (/work/shared/rules/hero-speed-chart.md).
NOTES_CHART = """
| 1 | 7 |
| 2 | 6, 12 |
| 3 | 4, 8, 12 |
| 4 | 3, 6, 9, 12 |
| 5 | 3, 5, 8, 10, 12 |
| 6 | 2, 4, 6, 8, 10, 12 |
| 7 | 2, 4, 6, 7, 9, 11, 12 |
| 8 | 2, 3, 5, 6, 8, 9, 11, 12 |
| 9 | 2, 3, 4, 6, 7, 8, 10, 11, 12 |
| 10 | 2, 3, 4, 5, 6, 8, 9, 10, 11, 12 |
| 11 | 2 – 12 |
| 12 | 1 – 12 |
"""


def _notes_chart() -> dict[int, tuple[int, ...]]:
    chart = {}
    for line in NOTES_CHART.strip().splitlines():
        spd, segments = (cell.strip() for cell in line.strip("|").split("|"))
        if "–" in segments:
            low, high = (int(x) for x in segments.split("–"))
            chart[int(spd)] = tuple(range(low, high + 1))
        else:
            chart[int(spd)] = tuple(int(x) for x in segments.split(","))
    return chart


CHART = _notes_chart()


def ana(**kw):
    stats = dict(
        spd=4,
        dex=18,
        initiative_dex=18,
        con=15,
        rec=6,
        ocv=7,
        dcv=6,
        stun=30,
        stun_max=30,
        body=12,
        body_max=12,
        end=40,
        end_max=40,
    )
    return sheet("ana", "Ana", **{**stats, **kw})


def bo(**kw):
    stats = dict(
        spd=3,
        dex=14,
        initiative_dex=14,
        con=10,
        rec=4,
        ocv=5,
        dcv=5,
        stun=25,
        stun_max=25,
        body=10,
        body_max=10,
        end=30,
        end_max=30,
    )
    return sheet("bo", "Bo", owner=2, **{**stats, **kw})


def ogre(**kw):
    stats = dict(
        spd=2,
        dex=11,
        initiative_dex=11,
        con=20,
        rec=8,
        ocv=5,
        dcv=4,
        stun=40,
        stun_max=40,
        body=15,
        body_max=15,
        end=50,
        end_max=50,
    )
    return sheet("ogre", "Ogre", side="enemy", aware=("ana", "bo"), **{**stats, **kw})


class Table:
    """Runs commands through decide/evolve and keeps the log in batches, like the service does."""

    def __init__(self, state):
        self.initial = state
        self.state = state
        self.log = []
        self.batches = []  # (seqs, state before)

    def do(self, command, faces=()):
        dice = ScriptedDice(faces)
        events = self.run(command, dice)
        assert dice.left == 0, "every scripted die is used"
        return events

    def run(self, command, dice):
        events = h.decide(self.state, command, dice)
        before, seqs = self.state, []
        for event in events:
            self.log.append(Logged(seq=len(self.log) + 1, event=event))
            seqs.append(len(self.log))
            self.state = h.evolve(self.state, event)
        self.batches.append((tuple(seqs), before))
        return events

    def undo(self):
        seqs, before = self.batches.pop()
        self.log.append(Logged(seq=len(self.log) + 1, event=Undone(seqs=seqs)))
        self.state = replay(h.evolve, self.initial, self.log)
        return before

    def f(self, fid):
        return self.state.fighter(fid)

    def finish_segment(self):
        """Everyone still to act this segment lets the phase go by (and a holder offered the moment waits on)."""
        while self.state.floor or self.state.offers:
            if self.state.offers:
                self.do(h.KeepHolding(actor=self.state.offers[0]))
            else:
                self.do(h.EndPhase(actor=self.state.floor))

    def next(self, faces=()):
        self.finish_segment()
        return self.do(h.NextSegment(), faces)

    def go_to(self, turn, segment):
        while (self.state.turn, self.state.segment) != (turn, segment):
            assert (self.state.turn, self.state.segment) < (turn, segment), "went past the segment"
            self.next()


def table(*fighters, **setting_values):
    return Table(h.initial_state(fighters or (ana(), bo(), ogre()), setting_values))


def started(*fighters, **setting_values):
    t = table(*fighters, **setting_values)
    t.do(h.NextSegment())
    return t


def put(t, fid, **changes):
    """Set up a fighter directly (a position the tests want to start from)."""
    fighter = replace(t.state.fighter(fid), **changes)
    state = replace(t.state, fighters=tuple(fighter if f.id == fid else f for f in t.state.fighters))
    t.initial = t.state = state
    t.log, t.batches = [], []


def said(t, event, gm=True):
    """The log's sentence for `event`, read against the state just before it (as the log view does)."""
    state = t.initial
    for item in active_events(t.log):
        if item.event is event:
            return h.describe(state, event, gm=gm)
        state = h.evolve(state, item.event)
    raise AssertionError(f"{event!r} is not in the log")


def of_kind(events, cls):
    return [e for e in events if isinstance(e, cls)]


# --- the speed chart ------------------------------------------------------------------------------------


@pytest.mark.parametrize("spd", range(1, 13))
def test_every_spd_gets_its_phases_from_the_chart(spd):
    assert h.SPEED_CHART[spd] == CHART[spd]
    t = started(ana(spd=spd))
    visited, previous = [], 0
    while t.state.turn < 3:
        [start] = of_kind(t.next(), h.SegmentStarted)
        if start.turn == 2:
            assert start.skipped == tuple(range(previous + 1, start.segment))  # nobody acts in between
            assert start.order == ("ana",) and t.state.active == "ana"
            assert t.state.strip("ana") == tuple(
                "phase" if s in CHART[spd] and s >= start.segment else "passed" if s in CHART[spd] else ""
                for s in range(1, 13)
            )
            visited.append(start.segment)
            previous = start.segment
    assert tuple(visited) == CHART[spd]
    assert t.f("ana").phases == CHART[spd]  # turn 3 again


@pytest.mark.parametrize("spd", [0, 13, -1])
def test_spd_outside_1_to_12_is_refused_with_a_sentence(spd):
    with pytest.raises(RuleError, match="SPD must be from 1 to 12"):
        ana(spd=spd)
    t = started()
    with pytest.raises(RuleError, match="SPD must be from 1 to 12"):
        t.do(h.ChangeSpd(target="bo", spd=spd))


def test_combat_opens_in_segment_12_with_everyone_even_spd_1():
    t = table(ana(), bo(spd=1), ogre())
    assert (t.state.turn, t.state.segment, t.state.started) == (1, 12, False)
    with pytest.raises(RuleError, match="Combat has not begun"):
        t.do(h.Act(actor="ana", kind="half"))
    [start] = t.do(h.NextSegment())
    assert (start.turn, start.segment, start.order) == (1, 12, ("ana", "bo", "ogre"))
    assert said(t, start) == "Combat begins in segment 12 of turn 1: Ana, then Bo, then Ogre, in DEX order."
    assert t.state.strip("bo") == ("",) * 11 + ("phase",)
    t.go_to(2, 7)
    assert "bo" in t.state.order


def test_spd_1_waits_for_segment_7_when_the_setting_says_so():
    t = started(ana(), bo(spd=1), ogre(), spd1_opening=False)
    assert t.state.order == ("ana", "ogre")
    assert t.f("bo").phases == ()
    t.go_to(2, 7)
    assert t.state.order == ("bo",)


# --- DEX order and ties ---------------------------------------------------------------------------------


def test_phases_go_in_initiative_dex_order_not_plain_dex():
    t = started(ana(), bo(initiative_dex=22), ogre(dex=30, initiative_dex=11))
    assert t.state.order == ("bo", "ana", "ogre")
    t.do(h.Act(actor="bo", kind="full"))
    assert t.state.active == "ana"


def test_the_gm_orders_dex_ties_by_default():
    cy = sheet("cy", "Cy", spd=4, initiative_dex=15)
    di = sheet("di", "Di", spd=4, initiative_dex=15)
    t = started(ana(), cy, di, ogre())
    assert t.state.order == ("ana", "cy", "di", "ogre")
    assert t.state.tied_groups() == (("cy", "di"),)
    with pytest.raises(RuleError, match="Only characters tied on DEX"):
        t.do(h.OrderTies(order=("di", "ana")))
    t.do(h.Act(actor="ana", kind="full"))
    assert t.state.active == "cy"
    [e] = t.do(h.OrderTies(order=("di", "cy")))
    assert t.state.order == ("ana", "di", "cy", "ogre") and t.state.active == "di"
    assert said(t, e) == "The GM orders the characters tied on DEX: Di, then Cy."
    t.do(h.Act(actor="di", kind="zero"))
    with pytest.raises(RuleError, match="Di has already taken the phase"):
        t.do(h.OrderTies(order=("cy", "di")))


def test_dex_ties_roll_off_each_segment_when_set():
    cy = sheet("cy", "Cy", spd=2, initiative_dex=15)
    di = sheet("di", "Di", spd=2, initiative_dex=15)
    ed = sheet("ed", "Ed", spd=2, initiative_dex=15)
    t = table(cy, di, ed, dex_ties="roll")
    [start] = t.do(h.NextSegment(), faces=[4, 6, 4, 2, 5])  # Di 6; Cy and Ed tie on 4 and roll again: 2, 5
    assert start.order == ("di", "ed", "cy")
    assert {r.fighter: r.faces for r in start.rolloff} == {"di": (6,), "ed": (4, 5), "cy": (4, 2)}
    assert "DEX ties rolled off (Di 6, Ed 4/5, Cy 4/2)" in said(t, start)
    assert t.state.active == "di"
    with pytest.raises(RuleError, match="rolled off"):
        t.do(h.OrderTies(order=("cy", "di")))
    t.finish_segment()
    [_, start] = t.do(h.NextSegment(), faces=[1, 2, 3])  # segment 6 of turn 2: a fresh roll-off
    assert (start.turn, start.segment, start.order) == (2, 6, ("ed", "di", "cy"))


# --- the turn ---------------------------------------------------------------------------------------------


def test_segments_with_nobody_to_act_are_skipped_and_named():
    t = started()
    events = t.next()
    [start] = of_kind(events, h.SegmentStarted)
    assert (start.turn, start.segment, start.skipped, start.order) == (2, 3, (1, 2), ("ana",))
    assert said(t, start) == "Turn 2, segment 3: Ana acts; segments 1–2 skipped with nobody to act."
    assert [e.segment for e in of_kind(t.next(), h.SegmentStarted)] == [4]
    [start] = t.next()
    assert (start.segment, start.skipped, start.order) == (6, (5,), ("ana", "ogre"))


def test_next_segment_waits_for_every_phase_in_it():
    t = started()
    with pytest.raises(RuleError, match="Ana still has a phase in this segment"):
        t.do(h.NextSegment())
    t.do(h.EndPhase(actor="ana"))
    with pytest.raises(RuleError, match="Bo still has a phase"):
        t.do(h.NextSegment())


def test_a_hold_to_a_segment_keeps_that_segment_from_being_skipped():
    t = started()
    t.go_to(2, 3)
    t.do(h.Hold(actor="ana", until="segment", segment=5))
    t.go_to(2, 4)
    [start, offer] = t.next()
    assert (start.segment, start.order) == (5, ())
    assert offer == h.HoldOffered(fighter="ana", why="segment")
    t.do(h.Release(actor="ana"))
    t.do(h.Act(actor="ana", kind="full", text="runs to the door"))
    assert t.state.strip("ana")[2] == "acted"
    [start] = t.next()
    assert start.segment == 6


def test_post_segment_12_recovery_caps_and_respects_the_gm_flag():
    t = started(ana(stun=20, end=36), bo(stun=10, end=10), ogre(stun=1, end=50))
    t.finish_segment()
    put(t, "ogre", stunned=True)
    t.do(h.SetNoRecovery(target="bo"))
    events = t.do(h.NextSegment())
    [post] = of_kind(events, h.Recovered)
    assert post.reason == "post12" and post.left_out == ("bo",)
    assert (t.f("ana").stun, t.f("ana").end) == (26, 40)  # END capped at its maximum
    assert (t.f("bo").stun, t.f("bo").end) == (10, 10)
    assert t.f("ogre").stun == 9 and t.f("ogre").end == 50  # Stunned characters recover too
    assert said(t, post, gm=False) == (
        "After segment 12 of turn 1, everyone recovers: Ana regains 6 STUN "
        "and 4 END; Ogre recovers; no free recovery for Bo."
    )
    assert "Ogre regains 8 STUN" in said(t, post)
    t.do(h.SetNoRecovery(target="bo", excluded=False))
    t.go_to(3, 3)
    assert t.f("bo").stun == 14 and t.f("ana").stun == 30


# --- acting in a phase -----------------------------------------------------------------------------------


def test_a_full_phase_action_ends_the_phase():
    t = started()
    [e] = t.do(h.Act(actor="ana", kind="full", text="runs"))
    assert e.ends_phase and t.state.active == "bo"
    assert t.state.strip("ana")[11] == "acted"
    assert said(t, e) == "Ana takes a full phase action: runs; the phase ends."


def test_two_half_phase_actions_end_the_phase_and_a_full_one_cannot_follow_a_half():
    t = started()
    [e] = t.do(h.Act(actor="ana", kind="half"))
    assert not e.ends_phase and t.state.active == "ana" and t.state.halves == 1
    with pytest.raises(RuleError, match="half a phase left"):
        t.do(h.Act(actor="ana", kind="full"))
    with pytest.raises(RuleError, match="half a phase left"):
        t.do(h.TakeRecovery(actor="ana"))
    [e] = t.do(h.Act(actor="ana", kind="half"))
    assert e.ends_phase and t.state.active == "bo" and t.state.halves == 0


def test_an_attack_ends_the_phase_even_after_only_a_half():
    t = started()
    t.do(h.Act(actor="ana", kind="half"))
    t.do(h.Attack(actor="ana", target="ogre"), faces=[6, 6, 6])
    assert t.state.active == "bo"
    t.do(h.Attack(actor="bo", target="ogre"), faces=[6, 6, 6])
    assert t.state.active == "ogre"


def test_zero_phase_actions_come_before_the_end_and_no_time_actions_come_any_time():
    t = started()
    for _ in range(3):
        [e] = t.do(h.Act(actor="ana", kind="zero", text="turns on a force field"))
        assert not e.ends_phase
    assert t.state.active == "ana" and t.state.halves == 0
    [e] = t.do(h.Act(actor="ogre", kind="none", text="roars a threat"))
    assert t.state.active == "ana" and t.f("ogre").acted_at == 0
    with pytest.raises(RuleError, match="It is not Bo's phase"):
        t.do(h.Act(actor="bo", kind="zero"))
    t.do(h.Act(actor="ana", kind="full"))
    with pytest.raises(RuleError, match="It is not Ana's phase"):
        t.do(h.Act(actor="ana", kind="zero"))
    t.do(h.Act(actor="ana", kind="none", text="shouts"))  # still fine after the phase
    with pytest.raises(RuleError, match="Choose a full phase"):
        t.do(h.Act(actor="bo", kind="double"))


def test_end_is_spent_per_action_one_per_ten_active_points():
    assert [h.end_cost(ap) for ap in (0, 5, 10, 14, 15, 16, 25, 26, 60)] == [0, 1, 1, 1, 1, 2, 2, 3, 6]
    assert h.end_cost(0, strength=15) == 1 and h.end_cost(0, strength=15, str_per_end=5) == 3
    assert h.end_cost(30, strength=20) == 5
    t = started(ana(end=5), ogre())
    [e] = t.do(h.Act(actor="ana", kind="zero", active_points=45))
    assert e.end == 4 and t.f("ana").end == 1
    with pytest.raises(RuleError, match="Ana has 1 END and this costs 2"):
        t.do(h.Attack(actor="ana", target="ogre", active_points=20))
    t = started(str_end=5)
    [e] = t.do(h.Attack(actor="ana", target="ogre", strength=20), faces=[6, 6, 6])
    assert e.end == 4 and t.f("ana").end == 36


# --- abort ----------------------------------------------------------------------------------------------


def test_an_abort_off_phase_costs_the_next_phase():
    t = started()
    t.go_to(2, 3)
    [e] = t.do(h.Abort(actor="ogre", action="dodge"))
    assert e.loses == h.tick(2, 6) and t.f("ogre").forfeit
    assert said(t, e) == "Ogre aborts to Dodge, giving up the next phase (segment 6 of turn 2)."
    t.go_to(2, 6)
    t.do(h.Act(actor="ana", kind="full"))
    assert t.state.active == "" and t.state.strip("ogre")[5] == "aborted"
    assert not t.f("ogre").forfeit
    t.go_to(2, 12)
    assert t.state.order == ("ana", "bo", "ogre")


def test_an_abort_goes_ahead_of_a_faster_attacker_in_the_same_segment():
    t = started()
    t.go_to(2, 6)
    assert t.state.order == ("ana", "ogre") and t.state.active == "ana"
    [e] = t.do(h.Abort(actor="ogre", action="block", text="raises the club"))
    assert e.loses == h.tick(2, 6)
    events = t.do(h.Attack(actor="ana", target="ogre"), faces=[6, 6, 6])
    [spent] = of_kind(events, h.PhaseSpent)
    assert (spent.fighter, spent.how) == ("ogre", "aborted") and t.state.active == ""
    assert said(t, spent) == "Ogre's phase in segment 6 was already spent on an abort."


def test_aborts_are_refused_with_the_reason():
    t = started()
    with pytest.raises(RuleError, match="It is Ana's phase: act instead of aborting"):
        t.do(h.Abort(actor="ana"))
    t.do(h.Act(actor="ana", kind="full"))
    with pytest.raises(RuleError, match="Ana has already acted in this segment"):
        t.do(h.Abort(actor="ana"))
    t.finish_segment()
    t.do(h.Abort(actor="ogre", action="dive"))
    assert t.f("ogre").forfeit
    t.do(h.NextSegment())
    with pytest.raises(RuleError, match="Ogre has already aborted: the next phase is spent"):
        t.do(h.Abort(actor="ogre"))
    with pytest.raises(RuleError, match="the GM allows anything else"):
        t.do(h.Abort(actor="bo", action="other"))
    with pytest.raises(RuleError, match="Say what"):
        t.do(h.AbortOther(actor="bo"))
    [e] = t.do(h.AbortOther(actor="bo", text="shoves the civilian clear"))
    assert e.action == "other" and t.f("bo").forfeit
    put(t, "bo", stunned=True, forfeit=False, acted_at=0)
    with pytest.raises(RuleError, match="Bo is Stunned and cannot abort"):
        t.do(h.Abort(actor="bo"))
    put(t, "bo", stun=0, stunned=False)
    with pytest.raises(RuleError, match="Bo is knocked out"):
        t.do(h.Abort(actor="bo"))
    assert h.Abort.who == "owner" and h.AbortOther.who == "gm"


def test_a_holding_character_aborts_by_spending_the_held_action_and_keeps_the_next_phase():
    t = started()
    t.go_to(2, 4)
    t.do(h.Hold(actor="bo", until="trigger", trigger="the ogre charges"))
    t.go_to(2, 6)
    [e] = t.do(h.Abort(actor="bo", action="dodge", active_points=0))
    assert e.spent_held and e.loses == 0
    assert t.f("bo").held is None and not t.f("bo").forfeit
    assert t.state.strip("bo")[3] == "aborted"
    assert said(t, e) == "Bo aborts to Dodge, using the held action."
    t.go_to(2, 8)
    assert t.state.active == "bo"


# --- hold ------------------------------------------------------------------------------------------------


def test_a_held_action_is_lost_when_the_segment_of_the_next_phase_begins():
    t = started()
    t.go_to(2, 3)
    [e] = t.do(h.Hold(actor="ana", until="trigger", trigger="the ogre moves"))
    assert said(t, e) == "Ana holds the action until the ogre moves."
    assert t.state.active == "" and t.f("ana").held.trigger == "the ogre moves"
    assert t.state.strip("ana")[2] == "held"
    [start] = t.next()
    assert start.segment == 4 and t.f("ana").held is not None
    [start] = t.next()
    assert (start.segment, start.lost_holds) == (6, ("ana",))
    assert t.f("ana").held is None and t.state.strip("ana")[2] == "lost" and t.state.active == "ana"
    assert said(t, start).endswith("held action lost: Ana.")


def test_hold_until_a_lower_dex_or_a_segment_before_the_next_phase():
    t = started()
    t.go_to(2, 3)
    with pytest.raises(RuleError, match="lower than Ana's 18"):
        t.do(h.Hold(actor="ana", until="dex", dex=18))
    with pytest.raises(RuleError, match=r"lost when Ana's next phase begins \(segment 6 of turn 2\)"):
        t.do(h.Hold(actor="ana", until="segment", segment=6))
    with pytest.raises(RuleError, match="Say what the held action waits for"):
        t.do(h.Hold(actor="ana", until="trigger", trigger="  "))
    with pytest.raises(RuleError, match="Bo can hold only the phase now open"):
        t.do(h.Hold(actor="bo"))
    [e, offer] = t.do(h.Hold(actor="ana", until="dex", dex=8))
    assert e.held.dex == 8 and said(t, e) == "Ana holds the action until DEX 8."
    assert offer.fighter == "ana"  # nobody else acts in segment 3: DEX 8 comes round at once


def test_the_holder_or_the_gm_releases_and_the_held_action_interrupts_the_phase_in_order():
    t = started()
    t.go_to(2, 3)
    t.do(h.Hold(actor="ana", until="trigger", trigger="Bo moves"))
    t.next()
    assert t.state.active == "bo"
    t.do(h.Act(actor="bo", kind="half", text="moves"))
    with pytest.raises(RuleError, match="Bo is not holding an action"):
        t.do(h.Release(actor="bo"))
    [e] = t.do(h.Release(actor="ana"))  # the player taps it, or the GM does: `who` is "owner"
    assert h.Release.who == "owner"
    with pytest.raises(RuleError, match="Ana has already acted in this segment"):
        t.do(h.Abort(actor="ana"))
    assert t.state.floor == "ana" and t.state.acting == "ana"
    with pytest.raises(RuleError, match="It is not Bo's phase"):
        t.do(h.Act(actor="bo", kind="half"))
    t.do(h.Attack(actor="ana", target="ogre"), faces=[6, 6, 6])
    assert t.state.acting == "" and t.state.floor == "bo" and t.state.halves == 1
    assert t.state.strip("ana")[2] == "acted"
    [e] = t.do(h.Act(actor="bo", kind="half"))
    assert e.ends_phase  # Bo's half from before the interruption still counts


def test_a_released_held_action_is_the_segments_one_action_even_if_it_does_nothing():
    t = started()
    t.go_to(2, 3)
    t.do(h.Hold(actor="ana"))
    t.next()
    t.do(h.Release(actor="ana"))
    [e] = t.do(h.EndPhase(actor="ana"))
    assert t.state.floor == "bo" and t.state.strip("ana")[2] == "acted"
    with pytest.raises(RuleError, match="Ana has already acted in this segment"):
        t.do(h.Abort(actor="ana"))


def test_a_held_half_phase_leaves_only_half_a_phase():
    t = started()
    t.go_to(2, 3)
    t.do(h.Act(actor="ana", kind="half", text="draws"))
    [e] = t.do(h.Hold(actor="ana"))
    assert e.held.half
    t.next()
    t.do(h.Release(actor="ana"))
    with pytest.raises(RuleError, match="Ana has half a phase left"):
        t.do(h.Act(actor="ana", kind="full"))
    [e] = t.do(h.Act(actor="ana", kind="half"))
    assert e.ends_phase and t.state.floor == "bo"


def test_held_action_collisions_roll_dex_when_set_and_stay_with_the_gm_otherwise():
    t = started()
    t.go_to(2, 3)
    t.do(h.Hold(actor="ana"))
    t.next()
    with pytest.raises(RuleError, match="The GM decides who goes first"):
        t.do(h.ContestHold(holder="ana"))
    t = started(hold_collision="roll")
    t.go_to(2, 3)
    t.do(h.Hold(actor="ana"))
    t.next()
    # Ana DEX 18 rolls against 13: 10 makes it by 3; Bo DEX 14 against 12: 11 makes it by 1.
    [contest, released] = t.do(h.ContestHold(holder="ana"), faces=[3, 3, 4, 4, 4, 3])
    assert (contest.holder_target, contest.other_target, contest.winner) == (13, 12, "ana")
    assert isinstance(released, h.Released) and t.state.acting == "ana"
    t.do(h.EndPhase(actor="ana"))
    assert t.state.floor == "bo"
    t2 = started(hold_collision="roll")
    t2.go_to(2, 3)
    t2.do(h.Hold(actor="ana"))
    t2.next()
    [contest] = t2.do(h.ContestHold(holder="ana"), faces=[6, 6, 6, 1, 1, 1])
    assert contest.winner == "bo" and t2.f("ana").held is not None and t2.state.floor == "bo"
    assert said(t2, contest).endswith("Bo goes first.")


# --- SPD changes -------------------------------------------------------------------------------------------


def test_a_spd_drop_after_acting_waits_for_the_later_next_phase():
    t = started()
    t.go_to(2, 6)
    t.do(h.Act(actor="ana", kind="full"))
    [e] = t.do(h.ChangeSpd(target="ana", spd=3))
    assert e.next_phase == h.tick(2, 9)  # old SPD 4: segment 9; new SPD 3: segment 8; the later wins
    assert t.f("ana").phases == (3, 6, 9, 12)
    assert said(t, e) == "Ana's SPD changes from 4 to 3; the next phase is in segment 9 of turn 2."
    [start] = t.next()
    assert (start.segment, start.order) == (8, ("bo",))
    t.go_to(2, 9)
    assert t.state.order == ("ana",)
    t.go_to(3, 4)
    assert t.f("ana").phases == (4, 8, 12)


def test_a_spd_rise_at_segment_12_locks_the_first_phase_of_the_next_turn():
    t = started()
    t.go_to(2, 12)
    t.do(h.Act(actor="ana", kind="full"))
    t.do(h.Act(actor="bo", kind="full"))
    [e] = t.do(h.ChangeSpd(target="bo", spd=4))
    assert e.next_phase == h.tick(3, 4)  # old SPD 3: segment 4; new SPD 4: segment 3
    [start] = of_kind(t.next(), h.SegmentStarted)
    assert (start.turn, start.segment, start.order) == (3, 3, ("ana",))
    assert t.f("bo").phases == (4, 6, 9, 12)
    [start] = t.next()
    assert (start.segment, start.order) == (4, ("bo",))
    t.go_to(4, 3)
    assert t.state.order == ("ana", "bo")  # from turn 4 on, plain SPD 4


def test_a_spd_drop_before_dex_in_the_segment_locks_out_that_phase():
    t = started()
    t.go_to(2, 6)
    [drop] = t.do(h.ChangeSpd(target="ogre", spd=1))
    assert drop.next_phase == h.tick(2, 7) and t.f("ogre").phases == (7,)
    assert t.state.order == ("ana",)
    assert said(t, drop, gm=False) == "Ogre's SPD changes; the next phase is in segment 7 of turn 2."
    [e] = t.do(h.ChangeSpd(target="ana", spd=3))  # Ana's open phase, untouched: next phase 8
    assert e.next_phase == h.tick(2, 8) and t.state.active == "" and t.state.order == ()
    assert t.f("ana").phases == (3, 8, 12)
    [start] = t.next()
    assert (start.segment, start.order) == (7, ("ogre",))


def test_spd_changes_can_wait_for_the_next_turn():
    t = started(spd_change="next_turn")
    t.go_to(2, 3)
    [e] = t.do(h.ChangeSpd(target="ana", spd=2))
    assert e.next_phase == 0 and t.f("ana").phases == (3, 6, 9, 12)
    assert said(t, e) == "Ana's SPD changes from 4 to 2, taking effect next turn."
    t.go_to(2, 9)
    assert "ana" in t.state.order
    t.go_to(3, 6)
    assert t.f("ana").phases == (6, 12)


# --- STUN, BODY, END ------------------------------------------------------------------------------------


@pytest.mark.parametrize("face,body", [(1, 0), (2, 1), (3, 1), (4, 1), (5, 1), (6, 2)])
def test_body_is_counted_per_die(face, body):
    assert h.body_of(face) == body


def test_normal_damage_subtracts_defence_from_stun_and_body():
    t = started()
    [e] = t.do(h.Attack(actor="ana", target="ogre", dice=6, defence=5), faces=[3, 3, 3, 1, 2, 3, 4, 5, 6])
    assert e.hit and (e.stun_rolled, e.body_rolled) == (21, 6)
    assert (e.stun, e.body) == (16, 1) and not e.stunned
    assert (t.f("ogre").stun, t.f("ogre").body) == (24, 14)
    [e] = t.do(h.Attack(actor="bo", target="ogre", dice=1, defence=10), faces=[3, 3, 3, 6])
    assert (e.stun, e.body) == (0, 0) and t.f("ogre").stun == 24


def test_the_targets_pd_or_ed_from_the_sheet_adds_to_the_defence_given():
    t = started(ana(), bo(), ogre(pd=4, ed=9))
    # 6d6: 21 STUN, 6 BODY. PD 4 plus 2 more given: 15 STUN, 0 BODY.
    [e] = t.do(h.Attack(actor="ana", target="ogre", dice=6, defence=2, against="pd"), faces=[3, 3, 3, 1, 2, 3, 4, 5, 6])
    assert (e.defence, e.stun, e.body) == (6, 15, 0)
    assert "after 6 defence Ogre takes 15 STUN and 0 BODY" in said(t, e)
    t.go_to(2, 9)  # Ana's next phase: an energy attack against ED 9
    with pytest.raises(RuleError, match="Choose physical"):
        h.decide(t.state, h.Attack(actor="ana", target="ogre", dice=3, against="flash"), ScriptedDice([]))
    [e] = t.do(h.Attack(actor="ana", target="ogre", dice=3, against="ed"), faces=[3, 3, 3, 6, 6, 6])
    assert (e.defence, e.stun, e.body) == (9, 9, 0)


def test_physical_dice_need_the_setting_and_the_right_count_and_are_marked_in_the_log():
    t = started()
    attack = h.Attack(actor="ana", target="ogre", dice=2, entered=(2, 2, 2), damage_entered=(6, 5))
    with pytest.raises(RuleError, match="The GM has the server roll the dice"):
        h.decide(t.state, attack, ScriptedDice([]))
    t = table(ana(), bo(), ogre(), entered_dice=True)
    t.do(h.NextSegment())
    for bad, sentence in (((2, 2), "Enter the three dice"), ((0, 2, 2), "shows a face from 1 to 6")):
        with pytest.raises(RuleError, match=sentence):
            h.decide(t.state, replace(attack, entered=bad), ScriptedDice([]))
    with pytest.raises(RuleError, match="The damage is 2d6: enter 2 dice or none"):
        h.decide(t.state, replace(attack, damage_entered=(6,)), ScriptedDice([]))
    [e] = t.do(attack)  # no die of the server's is used
    assert e.entered and e.damage_entered and e.roll == (2, 2, 2) and e.damage == (6, 5)
    assert "6 on 3d6 (physical dice)" in said(t, e) and "2d6 (physical dice) roll 11 STUN" in said(t, e)
    [miss] = t.do(h.Attack(actor="bo", target="ogre", dice=2, entered=(6, 6, 6), damage_entered=(1, 1)))
    assert not miss.hit and miss.damage == () and not miss.damage_entered  # an 18 misses: no damage is kept


@pytest.mark.parametrize(
    "ocv_mod,dcv_mod,faces,hit",
    [
        (-30, 30, [1, 1, 1], True),  # needed far below 3: a 3 still hits
        (-30, 30, [1, 1, 2], False),
        (30, -30, [6, 6, 6], False),  # needed far above 18: an 18 still misses
        (30, -30, [6, 6, 5], True),
        (0, 0, [4, 5, 5], True),  # 11 + 7 - 4 = 14 exactly
        (0, 0, [5, 5, 5], False),
    ],
)
def test_the_attack_roll_is_3d6_against_11_plus_ocv_minus_dcv(ocv_mod, dcv_mod, faces, hit):
    t = started()
    [e] = t.do(h.Attack(actor="ana", target="ogre", ocv_mod=ocv_mod, dcv_mod=dcv_mod), faces=faces)
    assert e.needed == 11 + 7 + ocv_mod - max(0, 4 + dcv_mod)
    assert e.hit is hit and e.damage == ()


def test_attack_hits_bounds():
    assert h.attack_hits(3, -10) and not h.attack_hits(18, 40)
    assert h.attack_hits(11, 11) and not h.attack_hits(12, 11)


def test_stunned_halves_dcv_stops_actions_and_spends_the_next_phase_recovering():
    t = started()
    t.do(h.EndPhase(actor="ana"))
    t.do(h.EndPhase(actor="bo"))
    [e] = t.do(h.Attack(actor="ogre", target="bo", dice=4, defence=2), faces=[3, 3, 3, 6, 6, 5, 4])
    assert (e.stun, e.body, e.stunned) == (19, 4, True)  # 19 STUN > CON 10
    bo_ = t.f("bo")
    assert bo_.stunned and bo_.current_dcv == 3 and bo_.stun == 6
    assert said(t, e, gm=False).endswith("Bo takes 19 STUN and 4 BODY; Bo is Stunned.")
    with pytest.raises(RuleError, match="Bo is Stunned and can take no actions"):
        t.do(h.Act(actor="bo", kind="none"))
    [start] = of_kind(t.next(), h.SegmentStarted)
    t.do(h.Attack(actor="ana", target="bo", ocv_mod=-7), faces=[6, 6, 6])
    assert t.log[-1].event.needed == 11 - 3  # halved DCV 5 -> 3 (a half rounds for the character)
    events = t.next()
    [spent] = of_kind(events, h.PhaseSpent)
    assert (spent.fighter, spent.segment, spent.how) == ("bo", 4, "stunned")
    assert not t.f("bo").stunned and t.state.active == "" and t.state.strip("bo")[3] == "stunned"
    t.go_to(2, 8)
    assert t.state.active == "bo"
    t.do(h.Act(actor="bo", kind="full"))


@pytest.mark.parametrize("faces,stunned", [([5, 5], False), ([5, 6], True)])
def test_stunned_takes_more_stun_than_con_from_one_attack(faces, stunned):
    t = started()
    t.do(h.EndPhase(actor="ana"))
    t.do(h.EndPhase(actor="bo"))
    [e] = t.do(h.Attack(actor="ogre", target="bo", dice=2), faces=[3, 3, 3, *faces])
    assert e.stun == sum(faces) and e.stunned is stunned and t.f("bo").stunned is stunned  # Bo's CON is 10


def test_a_stunned_character_in_the_middle_of_a_phase_loses_the_rest_of_it():
    t = started()
    t.go_to(2, 3)
    t.do(h.Hold(actor="ana"))
    t.next()
    t.do(h.Act(actor="bo", kind="half"))
    t.do(h.Release(actor="ana"))
    events = t.do(h.Attack(actor="ana", target="bo", dice=4), faces=[3, 3, 3, 6, 6, 6, 6])
    [ended] = of_kind(events, h.PhaseEnded)
    assert (ended.fighter, ended.reason) == ("bo", "stunned") and t.state.floor == ""
    assert t.f("bo").stunned  # the phase was already under way: recovering takes the next one
    assert said(t, ended) == "Bo's phase ends: Bo is Stunned."


def test_a_recovery_lands_at_the_end_of_the_segment_and_damage_voids_it():
    t = started(ana(stun=10, end=20), bo(), ogre())
    t.do(h.TakeRecovery(actor="ana"))
    assert t.state.recovering == ("ana",) and t.f("ana").stun == 10
    t.finish_segment()
    events = t.do(h.NextSegment())
    action = [e for e in of_kind(events, h.Recovered) if e.reason == "action"]
    assert action and action[0].gains == (h.Gain("ana", 6, 6),)
    assert t.f("ana").stun == 22  # 10 + 6 from the Recovery, + 6 after segment 12
    t.go_to(2, 6)
    t.do(h.TakeRecovery(actor="ana"))
    t.do(h.Attack(actor="ogre", target="ana", dice=1), faces=[3, 3, 3, 2])
    assert t.state.recovering == ()
    events = t.next()
    assert not [e for e in of_kind(events, h.Recovered) if e.reason == "action"]
    put(t, "ana", no_recovery=True)
    t.go_to(t.state.turn, 9)
    with pytest.raises(RuleError, match="cannot recover now"):
        t.do(h.TakeRecovery(actor="ana"))


def test_recovery_actions_never_raise_stun_or_end_past_the_maxima():
    t = started(ana(stun=28, end=39), bo(), ogre())
    t.do(h.TakeRecovery(actor="ana"))
    t.finish_segment()
    [action, post, _] = t.do(h.NextSegment())
    assert action.gains == (h.Gain("ana", 2, 1),) and post.gains == ()
    assert (t.f("ana").stun, t.f("ana").end) == (30, 40)


def test_knocked_out_at_0_to_minus_10_recovers_every_phase_and_after_segment_12():
    t = started(ana(), ogre(rec=4, stun=5))
    t.finish_segment()  # (Ogre's opening phase passes first)
    put(t, "ogre", stun=-9)
    events = t.next()
    assert of_kind(events, h.Recovered)[0].gains[-1] == h.Gain("ogre", 4, 0)
    assert t.f("ogre").stun == -5
    t.go_to(2, 6)
    events = t.do(h.Act(actor="ana", kind="full"))
    [spent] = of_kind(events, h.PhaseSpent)
    assert (spent.how, spent.stun) == ("knocked out", 4) and t.f("ogre").stun == -1
    assert said(t, spent, gm=False) == "Ogre, knocked out, recovers in the phase."
    t.go_to(2, 12)
    t.finish_segment()
    assert t.f("ogre").stun == 3 and not t.f("ogre").knocked_out  # wakes once STUN is above 0
    t.do(h.NextSegment())
    assert t.f("ogre").stun == 7


def test_knocked_out_at_minus_11_to_minus_20_recovers_only_after_segment_12():
    t = started(ana(), ogre(rec=4))
    t.finish_segment()
    put(t, "ogre", stun=-15)
    t.next()
    assert t.f("ogre").stun == -11
    t.go_to(2, 6)
    events = t.do(h.Act(actor="ana", kind="full"))
    [spent] = of_kind(events, h.PhaseSpent)
    assert spent.stun == 0 and t.f("ogre").stun == -11
    assert said(t, spent) == "Ogre is knocked out through the phase in segment 6."


def test_knocked_out_at_minus_21_to_minus_30_recovers_once_a_minute_and_deeper_is_the_gms_call():
    t = started(ana(), ogre(rec=4), sheet("imp", "Imp", side="enemy", aware=("ana",), rec=4, spd=2))
    t.finish_segment()
    put(t, "ogre", stun=-25)
    put(t, "imp", stun=-31)
    seen = []
    while t.state.turn < 7:
        t.next()
        seen.append((t.state.turn, t.f("ogre").stun))
    assert (5, -25) in seen and (6, -21) in seen  # one recovery, after segment 12 of turn 5
    assert t.f("ogre").stun == -21 and t.f("imp").stun == -31
    t.do(h.AdjustPools(target="imp", stun=40))
    assert t.f("imp").stun == 9


def test_knocked_out_characters_are_left_out_of_recovery_by_the_gm_flag():
    t = started(ana(), ogre(rec=4))
    t.finish_segment()
    put(t, "ogre", stun=-5, no_recovery=True)
    t.go_to(2, 6)
    events = t.do(h.Act(actor="ana", kind="full"))
    assert of_kind(events, h.PhaseSpent)[0].stun == 0
    assert t.f("ogre").stun == -5


def test_damage_that_knocks_out_says_so_and_drops_a_held_action():
    t = started()
    t.go_to(2, 3)
    t.do(h.Hold(actor="ana"))
    put(t, "ana", stun=3)
    t.next()
    t.do(h.Attack(actor="bo", target="ana", dice=1), faces=[3, 3, 3, 4])
    [e] = of_kind([x.event for x in t.log], h.Attacked)
    assert e.knocked_out and t.f("ana").held is None and t.f("ana").knocked_out
    assert said(t, e).endswith("Ana is knocked out.")


# --- GM tools, sentences, write-back ------------------------------------------------------------------------


def test_adjusting_pools_caps_at_maxima_and_is_refused_when_it_changes_nothing():
    t = started()
    [e] = t.do(h.AdjustPools(target="ana", stun=-5, end=10))
    assert (e.stun, e.end) == (-5, 0)
    assert said(t, e) == "The GM adjusts Ana: STUN -5."
    with pytest.raises(RuleError, match="changes nothing"):
        t.do(h.AdjustPools(target="ana", end=3))
    [e] = t.do(h.AdjustPools(target="ana", end=-55))
    assert e.end == -40 and t.f("ana").end == 0
    [e] = t.do(h.AdjustPools(target="ogre", body=-2))
    assert said(t, e, gm=False) == "The GM adjusts Ogre's STUN, BODY or END."


def test_the_gm_sets_and_clears_stunned_once_each_and_undo_takes_it_back():
    t = started()
    [e] = t.do(h.SetStunned(target="ogre"))
    assert t.f("ogre").stunned and t.f("ogre").current_dcv == 2  # Stunned halves DCV 4
    assert said(t, e) == said(t, e, gm=False) == "Ogre is Stunned (GM)."
    with pytest.raises(RuleError, match="Ogre is already Stunned."):
        t.do(h.SetStunned(target="ogre"))
    [e] = t.do(h.SetStunned(target="ogre", stunned=False))
    assert not t.f("ogre").stunned and said(t, e) == "Ogre is no longer Stunned (GM)."
    with pytest.raises(RuleError, match="Ogre is not Stunned."):
        t.do(h.SetStunned(target="ogre", stunned=False))
    t.undo()
    assert t.f("ogre").stunned
    t.undo()
    assert not t.f("ogre").stunned


def test_stunned_by_the_gm_loses_a_held_action_and_a_knocked_out_character_cannot_be_stunned():
    t = started()
    t.do(h.Hold(actor="ana"))
    assert t.f("ana").held is not None
    t.do(h.SetStunned(target="ana"))
    assert t.f("ana").held is None
    put(t, "bo", stun=0)
    with pytest.raises(RuleError, match="Bo is knocked out, which is more than Stunned."):
        t.do(h.SetStunned(target="bo"))


def test_the_gms_stunned_of_an_unseen_enemy_is_not_told_to_players():
    t = started(ana(aware=()), bo(aware=()), ogre())
    [e] = t.do(h.SetStunned(target="ogre"))
    assert said(t, e) == "Ogre is Stunned (GM)." and said(t, e, gm=False) is None


def test_players_read_a_pcs_numbers_but_never_an_enemys():
    t = started()
    [hit] = t.do(
        h.Attack(actor="ana", target="ogre", dice=5, defence=3, active_points=25), faces=[3, 3, 3, 6, 6, 6, 6, 2]
    )
    gm_text = said(t, hit, gm=True)
    player_text = said(t, hit, gm=False)
    assert gm_text == (
        "Ana attacks Ogre (2 END): 9 on 3d6 (needed 14 or less), a hit; 5d6 roll 26 STUN and 9 BODY, "
        "and after 3 defence Ogre takes 23 STUN and 6 BODY; Ogre is Stunned."
    )
    assert player_text == "Ana attacks Ogre (2 END): 9 on 3d6, a hit; Ogre is Stunned."
    assert "23" not in player_text and "26" not in player_text
    t = started()
    t.do(h.EndPhase(actor="ana"))
    t.do(h.EndPhase(actor="bo"))
    [hit] = t.do(h.Attack(actor="ogre", target="bo", dice=2, active_points=30), faces=[3, 3, 3, 1, 4])
    assert said(t, hit, gm=False) == (
        "Ogre attacks Bo: 9 on 3d6, a hit; 2d6 roll 5 STUN and 1 BODY, and after 0 defence Bo takes 5 STUN and 1 BODY."
    )
    assert "(3 END)" in said(t, hit, gm=True)


def test_an_enemy_no_pc_knows_of_stays_out_of_the_players_log():
    lurker = sheet("lurker", "Lurker", side="enemy", aware=("ana",), spd=2, initiative_dex=30)
    t = started(ana(), bo(), ogre(), lurker, attack_reveals=False)  # its attack leaves it unseen
    [start] = of_kind([x.event for x in t.log], h.SegmentStarted)
    assert "Lurker" in said(t, start) and "Lurker" not in said(t, start, gm=False)
    [hit] = t.do(h.Attack(actor="lurker", target="ana", dice=1), faces=[2, 2, 2, 2])
    assert said(t, hit, gm=False).startswith("Someone unseen attacks Ana")
    [e] = t.do(h.Act(actor="lurker", kind="none", text="laughs"))
    assert said(t, e, gm=False) is None
    with pytest.raises(RuleError, match="Ana is not aware of Lurker"):
        t.do(h.Attack(actor="ana", target="lurker"))


def test_every_event_reads_as_one_sentence():
    t = started(ana(), bo(), ogre(), dex_ties="gm", hold_collision="roll")
    t.do(h.Act(actor="ana", kind="zero", text="sets skill levels"))
    t.do(h.Act(actor="ana", kind="half", text="draws"))
    t.do(h.Attack(actor="ana", target="ogre", dice=2), faces=[3, 3, 3, 2, 2])
    t.do(h.Hold(actor="bo", until="dex", dex=5))
    t.do(h.PresenceAttack(actor="ogre", target="bo"), faces=[3, 4])
    t.do(h.EndPhase(actor="ogre"))  # DEX 5 comes round: Bo is offered the moment
    t.do(h.KeepHolding(actor="bo"))
    t.do(h.Release(actor="bo"))
    t.do(h.Move(actor="bo", metres=2))
    t.do(h.PresenceAttack(actor="bo", target="ogre"), faces=[6, 6])
    t.do(h.Act(actor="bo", kind="half"))
    t.do(h.SetNoRecovery(target="ogre"))
    t.do(h.ChangeSpd(target="ogre", spd=3))
    t.next()
    t.do(h.Abort(actor="ogre", action="dodge"))
    t.do(h.AdjustPools(target="bo", end=-3))
    t.do(h.SetStunned(target="ogre"))
    t.do(h.SetStunned(target="ogre", stunned=False))
    for _ in range(3):
        t.next()
    tied = started(ana(), bo(initiative_dex=18), ogre(), hold_collision="roll")
    tied.do(h.OrderTies(order=("bo", "ana")))
    tied.do(h.Hold(actor="bo", until="trigger", trigger="the ogre moves"))
    tied.do(h.ContestHold(holder="bo"), faces=[1, 2, 3, 6, 6, 6])
    hidden = started(ana(), ogre(), sheet("lurker", "Lurker", side="enemy", aware=("ana",)))
    hidden.do(h.Reveal(fighter="lurker"))
    hidden.do(FreeRoll(actor="ana", notation="2d6+1"), faces=[4, 2])
    hidden.do(h.PresenceAttack(actor="ana", target="ogre", dice_mod=2), faces=[6, 6, 6, 6])  # very impressed
    hidden.go_to(2, 9)  # the Ogre's phase in segment 6 opens with only half a phase
    kinds = set()
    for table_ in (t, tied, hidden):
        for item in table_.log:
            for gm in (True, False):
                text = said(table_, item.event, gm=gm)
                if text is not None:
                    assert text[0].isupper() and text.endswith(".") and "\n" not in text, text
                    assert text != item.event.kind
            kinds.add(item.event.kind)
    assert kinds == {e.kind for e in h.EVENTS}


def test_fighters_come_from_the_sheet_and_write_back_stun_body_end():
    f = h.fighter_from_sheet("ana", "Ana", "pc", 7, {"spd": "5", "stun": 50, "stun_max": 30}, ("ogre",))
    assert (f.spd, f.stun, f.dex, f.initiative_dex, f.owner, f.aware_of) == (5, 30, 10, 10, 7, ("ogre",))
    with pytest.raises(RuleError, match="not a whole number"):
        h.fighter_from_sheet("x", "X", "pc", 1, {"dex": "quick"}, ())
    t = started()
    t.do(h.Attack(actor="ana", target="bo", dice=2), faces=[3, 3, 3, 6, 1])
    t.do(h.AdjustPools(target="bo", stun=-200))
    t.do(h.AdjustPools(target="ana", end=-10))
    kept = h.write_back(t.state)
    assert kept == {"ana": {"stun": 30, "body": 12, "end": 30}, "bo": {"stun": -100, "body": 8, "end": 30}}
    assert set(kept) == {"ana", "bo"}  # enemies share NPC sheets: nothing written for them


def test_outcome_follows_who_is_still_standing():
    t = started()
    assert h.outcome(t.state) == ""
    t.do(h.AdjustPools(target="ogre", stun=-40))
    assert h.outcome(t.state) == "Victory"
    t = started()
    t.do(h.AdjustPools(target="ana", body=-12))
    t.do(h.AdjustPools(target="bo", stun=-30))
    assert h.outcome(t.state) == "Defeat"


def test_an_encounter_needs_a_pc_and_clean_settings():
    with pytest.raises(RuleError, match="at least one player character"):
        h.initial_state((ogre(),), {})
    with pytest.raises(RuleError, match="Characters tied on DEX must be one of"):
        h.initial_state((ana(),), {"dex_ties": "coin"})
    state = h.initial_state((ana(),), None)
    assert state.settings == {s.key: s.default for s in h.SETTINGS}
    assert {s.key for s in h.SETTINGS} == {
        "dex_ties",
        "spd1_opening",
        "spd_change",
        "str_end",
        "hold_collision",
        "entered_dice",
        "presence_against",
        "presence_effects",
        "attack_reveals",
    }
    assert [s.default for s in h.SETTINGS] == ["gm", True, "lockout", 10, "gm", False, "pre", True, True]


def test_state_events_and_commands_round_trip_through_json():
    t = started(dex_ties="roll")
    t.do(h.Hold(actor="ana", until="trigger", trigger="the door opens"))
    t.do(h.Attack(actor="bo", target="ogre", dice=3, defence=1), faces=[3, 3, 3, 6, 5, 4])
    t.do(h.Release(actor="ana"))
    t.do(h.Act(actor="ana", kind="half"))
    state = t.state
    assert from_json(h.State, json.loads(json.dumps(to_json(state)))) == state
    for item in t.log:
        payload = json.loads(json.dumps(h.CODEC.event_to_json(item.event)))
        assert h.CODEC.event_from_json(payload) == item.event
    for cls in h.COMMANDS:
        assert from_json(cls, json.loads(json.dumps(to_json(cls())))) == cls()
    command = h.CODEC.command_from_json("order_ties", {"order": ["bo", "ana"]})
    assert command == h.OrderTies(order=("bo", "ana"))


@pytest.mark.parametrize(
    "name,data",
    [
        ("teleport", {}),
        ("attack", {"actor": 5}),
        ("attack", "junk"),
        ("change_spd", {"spd": "fast"}),
        ("order_ties", {"order": "ana"}),
    ],
)
def test_malformed_commands_are_refused_with_a_sentence(name, data):
    with pytest.raises(RuleError):
        h.CODEC.command_from_json(name, data)


def test_the_engine_has_the_shared_interface():
    assert h.KEY == "hero"
    who = {c.name: c.who for c in h.COMMANDS}
    assert who["next_segment"] == "gm" and who["attack"] == "owner" and who["abort_other"] == "gm"
    assert all(hasattr(c(), "actor") for c in h.COMMANDS if c.who == "owner")
    assert len({e.kind for e in h.EVENTS}) == len(h.EVENTS)


# --- invariants -------------------------------------------------------------------------------------------


class SeededDice(Dice):
    """Fair-looking dice from a seed, so hypothesis can replay an example (tests only)."""

    def __init__(self, seed):
        self._rng = random.Random(seed)


MOVES = [
    "next",
    "next",
    "act",
    "act",
    "attack",
    "recovery",
    "hold",
    "release",
    "abort",
    "end",
    "spd",
    "ties",
    "adjust",
    "undo",
    "undo",
    "norec",
    "contest",
    "gm_abort",
    "free",
    "move",
    "presence",
    "keep",
    "hold",
]
PLAY = st.lists(st.tuples(st.sampled_from(MOVES), st.integers(0, 3), st.integers(0, 10_000)), max_size=80)
SETTINGS = st.fixed_dictionaries(
    {
        "dex_ties": st.sampled_from(["gm", "roll"]),
        "spd_change": st.sampled_from(["lockout", "next_turn"]),
        "hold_collision": st.sampled_from(["gm", "roll"]),
        "spd1_opening": st.booleans(),
        "str_end": st.sampled_from([5, 10]),
        "presence_against": st.sampled_from(["pre", "ego", "higher"]),
        "presence_effects": st.booleans(),
    }
)


def _play(t, move, pick, seed):
    """One random move; "next" is the GM closing the segment (whoever still has the floor ends it) and moving on.
    Refusals are fine, as long as they are a sentence."""
    dice = SeededDice(seed)
    if move == "next":
        while t.state.floor or t.state.offers:
            if t.state.offers:
                t.run(h.KeepHolding(actor=t.state.offers[0]), dice)
            else:
                t.run(h.EndPhase(actor=t.state.floor), dice)
        command = h.NextSegment()
    else:
        command = _command(t.state, move, pick, seed)
    before, logged = t.state, len(t.log)
    try:
        t.run(command, dice)
    except RuleError as exc:
        assert str(exc) and str(exc)[0].isupper() and str(exc).endswith(".")
        assert (t.state, len(t.log)) == (before, logged)  # a refused command changes nothing


def _command(state, move, pick, seed):
    rng = random.Random(seed)
    ids = [f.id for f in state.fighters]
    someone = ids[pick % len(ids)]
    floor = state.floor or someone
    if move == "free":
        return random_free_roll([f.id for f in state.pcs()], seed)
    if move == "act":
        return h.Act(
            actor=floor,
            kind=rng.choice(["full", "half", "half", "zero", "none"]),
            active_points=rng.choice([0, 0, 10, 35]),
            strength=rng.choice([0, 15]),
        )
    if move == "attack":
        return h.Attack(
            actor=floor,
            target=rng.choice([i for i in ids if i != floor]),
            dice=rng.randint(0, 8),
            defence=rng.randint(0, 6),
            ocv_mod=rng.randint(-3, 3),
            active_points=rng.choice([0, 20]),
        )
    if move == "recovery":
        return h.TakeRecovery(actor=floor)
    if move == "hold":
        until = rng.choice(["", "dex", "segment", "trigger", "trigger"])
        on = rng.choice(["", "", "acts", "attacks", "moves"]) if until == "trigger" else ""
        return h.Hold(
            actor=floor,
            until=until,
            dex=rng.randint(0, 12),
            segment=rng.randint(1, 12),
            trigger="a sign",
            on=on,
            whom=rng.choice(ids) if on else "",
        )
    if move == "move":
        return h.Move(actor=floor, metres=rng.choice([1, 3, 6, 7, 12, 20]))
    if move == "presence":
        return h.PresenceAttack(actor=someone, target=rng.choice(ids), dice_mod=rng.randint(-2, 3))
    if move == "keep":
        return h.KeepHolding(actor=state.offers[0] if state.offers else someone)
    if move == "release":
        holders = [f.id for f in state.fighters if f.held]
        return h.Release(actor=holders[pick % len(holders)] if holders and pick else someone)
    if move == "abort":
        return h.Abort(actor=someone, action=rng.choice(["dodge", "block", "dive", "defence"]))
    if move == "gm_abort":
        return h.AbortOther(actor=someone, text="grabs the ledge")
    if move == "end":
        return h.EndPhase(actor=floor)
    if move == "spd":
        return h.ChangeSpd(target=someone, spd=rng.randint(1, 12))
    if move == "ties":
        groups = state.tied_groups()
        group = list(groups[0]) if groups else ids[:2]
        rng.shuffle(group)
        return h.OrderTies(order=tuple(group))
    if move == "adjust":
        return h.AdjustPools(target=someone, stun=rng.randint(-30, 10), end=rng.randint(-5, 5))
    if move == "norec":
        return h.SetNoRecovery(target=someone, excluded=not state.fighter(someone).no_recovery)
    if move == "contest":
        holders = [f.id for f in state.fighters if f.held]
        return h.ContestHold(holder=holders[0] if holders else someone)
    raise AssertionError(move)


def _phases_used(initial, log):
    """Per (fighter, segment tick), which phases were used: a regular phase, a held one, or an abort."""
    used: dict[tuple[str, int], set] = {}
    state = initial
    for item in active_events(log):
        e = item.event
        actor = getattr(e, "fighter", "")
        key = None
        if isinstance(e, h.Aborted):
            key = "abort"
        elif isinstance(e, h.Released):
            key = ("phase", state.fighter(actor).held.since)
        elif isinstance(e, (h.Acted, h.Attacked, h.Moved)) and not (isinstance(e, h.Acted) and e.action == "none"):
            key = ("phase", state.acting_since if state.acting == actor else state.now)
        if key is not None:
            used.setdefault((actor, state.now), set()).add(key)
        state = h.evolve(state, e)
    return used


FIGHTERS = (
    ana(con=8, rec=5),
    bo(spd=5, initiative_dex=18, con=6),
    ogre(spd=4, con=9),
    sheet(
        "imp",
        "Imp",
        side="enemy",
        aware=("ana", "bo"),
        spd=6,
        initiative_dex=14,
        con=5,
        rec=3,
        stun=12,
        stun_max=12,
        end=15,
        end_max=15,
    ),
)


@settings(max_examples=examples(200), deadline=None)
@given(SETTINGS, PLAY)
def test_random_play_keeps_every_invariant(setting_values, play):
    t = Table(h.initial_state(FIGHTERS, setting_values))
    t.run(h.NextSegment(), SeededDice(0))
    for move, pick, seed in play:
        if move == "undo":
            if len(t.batches) > 1:
                before = t.undo()
                assert t.state == before  # undo restores the state before the undone command
            continue
        _play(t, move, pick, seed)
        s = t.state
        assert replay(h.evolve, t.initial, t.log) == s  # replay of the log equals the live state
        assert s.cursor <= len(s.order)
        assert all(s.fighter(fid).held for fid in s.offers) and len(set(s.offers)) == len(s.offers)
        if s.floor:  # whoever has the floor can act
            f = s.fighter(s.floor)
            assert not f.knocked_out and not f.stunned and f.presence < 3
            assert not (f.forfeit and s.floor == s.active)
        for f in s.fighters:
            assert f.stun <= f.stun_max and f.end <= f.end_max and f.body <= f.body_max
            assert f.end >= 0
            assert {m.segment for m in f.marks} <= set(f.phases)
            assert list(f.phases) == sorted(set(f.phases)) and all(1 <= x <= 12 for x in f.phases)
        for (fid, _), phases in _phases_used(t.initial, t.log).items():
            assert len(phases) <= 1, f"{fid} acted twice in one segment: {phases}"


@settings(max_examples=examples(60), deadline=None)
@given(SETTINGS, PLAY, st.sampled_from([m for m in MOVES if m != "undo"]), st.integers(0, 3), st.integers(0, 10_000))
def test_undo_then_replay_equals_the_state_before(setting_values, play, move, pick, seed):
    t = Table(h.initial_state(FIGHTERS, setting_values))
    t.run(h.NextSegment(), SeededDice(0))
    for m, p, s in play:
        if m == "undo":
            continue
        _play(t, m, p, s)
    before = t.state
    try:
        t.run(_command(t.state, move, pick, seed) if move != "next" else h.NextSegment(), SeededDice(seed))
    except RuleError:
        return
    t.undo()
    assert t.state == before
