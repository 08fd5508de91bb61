"""HERO System held actions that wait for their moment, moving by RUN, and Presence attacks (issue 19), with
scripted dice. Each test quotes the seed passage (../shared/seeds/002_6562889590a1d57a.txt) it checks.

Ana: DEX 18, SPD 4; Bo: DEX 14, SPD 3; the Ogre: DEX 11, SPD 2. Turn 1 opens in segment 12: Ana, Bo, the Ogre.
"""

import pytest

from combat.rules import hero as h
from combat.rules.core import RuleError
from tests.combat.test_hero_rules import ana, bo, ogre, said, sheet, started

HOLD = (
    "You can delay it until a lower DEX or later segment, or you can specify a trigger that will start your action, "
    "for example, when the bad guy raises his head. But you must act before your next phase"
)


# --- held actions: the moment comes -------------------------------------------------------------------------


def test_a_hold_until_dex_is_enforced_and_offered_when_that_dex_comes_round():
    """Seed: "You can delay it until a lower DEX" — not before: Bo (DEX 14) still acts ahead of a hold to DEX 12,
    and when the Ogre (DEX 11) is next the engine offers Ana the action and the Ogre waits."""
    t = started()
    t.do(h.Hold(actor="ana", until="dex", dex=12))
    with pytest.raises(RuleError, match="Ana holds until DEX 12: Bo acts first, at DEX 14."):
        t.do(h.Release(actor="ana"))
    [acted, offer] = t.do(h.Act(actor="bo", kind="full", text="runs"))
    assert offer == h.HoldOffered(fighter="ana", why="dex") and t.state.offers == ("ana",)
    assert said(t, offer, gm=False) == "Ana's held action: its moment has come (DEX 12); act now or keep holding."
    assert t.state.active == "ogre"
    with pytest.raises(RuleError, match="Waiting for Ana: the held action's moment has come"):
        t.do(h.Attack(actor="ogre", target="bo"))
    with pytest.raises(RuleError, match="Waiting for Ana"):
        t.do(h.EndPhase(actor="ogre"))
    t.do(h.Release(actor="ana"))
    assert t.state.offers == () and t.state.floor == "ana"
    t.do(h.Attack(actor="ana", target="ogre", dice=0), faces=[6, 6, 6])
    assert t.state.floor == "ogre" and t.state.fighter("ana").mark(12) == "acted"


def test_a_dex_hold_cannot_win_a_dex_roll_against_a_faster_phase_either():
    """Seed: "delay it until a lower DEX": a held action at DEX 5 does not collide with a phase at DEX 14."""
    t = started(hold_collision="roll")
    t.do(h.Hold(actor="ana", until="dex", dex=5))
    with pytest.raises(RuleError, match="Ana holds until DEX 5: Bo acts first, at DEX 14."):
        t.do(h.ContestHold(holder="ana"))


def test_a_holder_offered_the_moment_may_keep_holding_and_is_not_asked_again():
    """Seed: "you must act before your next phase (the next segment where you can act) or you lose the action":
    keeping on holding is allowed until then."""
    t = started()
    t.do(h.Hold(actor="ana", until="dex", dex=12))
    t.do(h.EndPhase(actor="bo"))
    [kept] = t.do(h.KeepHolding(actor="ana"))
    assert said(t, kept) == "Ana keeps holding the action." and t.state.offers == ()
    with pytest.raises(RuleError, match="Ana has no held action waiting on an answer."):
        t.do(h.KeepHolding(actor="ana"))
    [ended] = t.do(h.EndPhase(actor="ogre"))  # the segment's phases are done: no second offer
    assert t.state.offers == () and t.f("ana").held is not None
    [recovered, start] = t.do(h.NextSegment())  # Ana's next phase: segment 3 of turn 2
    assert (start.segment, start.lost_holds) == (3, ("ana",))


def test_a_hold_until_a_segment_cannot_act_early_and_is_offered_when_the_segment_begins():
    """Seed: "You can delay it until ... later segment"."""
    t = started()
    t.go_to(2, 3)
    t.do(h.Hold(actor="ana", until="segment", segment=5))
    [start] = t.next()
    assert start.segment == 4
    with pytest.raises(RuleError, match="Ana holds until segment 5 of turn 2; it has not come yet."):
        t.do(h.Release(actor="ana"))
    [start, offer] = t.next()
    assert start.segment == 5 and offer == h.HoldOffered(fighter="ana", why="segment")
    t.do(h.Release(actor="ana"))
    assert t.state.acting == "ana"


def test_a_trigger_on_an_attack_offers_the_interrupt_right_after_it_and_is_logged():
    """Seed: "you can specify a trigger that will start your action, for example, when the bad guy raises his
    head" — here, when the Ogre attacks."""
    t = started()
    [held] = t.do(h.Hold(actor="ana", until="trigger", on="attacks", whom="ogre"))
    assert said(t, held, gm=False) == "Ana holds the action until Ogre attacks."
    t.do(h.EndPhase(actor="bo"))
    assert t.state.offers == ()  # the Ogre's phase opening is not an attack
    attacked, offer = t.do(h.Attack(actor="ogre", target="bo", dice=0), faces=[6, 6, 6])
    assert offer == h.HoldOffered(fighter="ana", why="attacks")
    assert said(t, offer) == "Ana's held action: its moment has come (Ogre attacks); act now or keep holding."
    with pytest.raises(RuleError, match="Waiting for Ana"):
        t.do(h.NextSegment())
    t.do(h.Release(actor="ana"))
    t.do(h.Attack(actor="ana", target="ogre", dice=0), faces=[6, 6, 6])
    assert t.state.floor == "" and t.f("ana").held is None


def test_a_trigger_on_someones_phase_stops_it_and_the_dex_roll_setting_settles_the_collision():
    """Seed: "specify a trigger that will start your action"; the notes: a held action colliding with another
    action — both roll DEX, the larger margin first (a GM setting)."""
    t = started(hold_collision="roll")
    t.do(h.Hold(actor="ana", until="trigger", on="acts", whom="ogre"))
    [ended, offer] = t.do(h.EndPhase(actor="bo"))
    assert offer.why == "acts" and t.state.active == "ogre"
    # Ana DEX 18 needs 13 and rolls 18; the Ogre DEX 11 needs 11 and rolls 3: the Ogre goes first.
    [contest] = t.do(h.ContestHold(holder="ana"), faces=[6, 6, 6, 1, 1, 1])
    assert contest.winner == "ogre" and t.state.offers == () and t.f("ana").held is not None
    t.do(h.Act(actor="ogre", kind="half", text="roars"))  # the Ogre acts; Ana is not asked again this phase
    assert t.state.offers == ()


def test_a_trigger_on_a_move_interrupts_the_rest_of_the_movers_phase():
    """Seed: a trigger starts the held action; moving half the RUN or less is a half phase action, so the mover
    still has half a phase after the holder acts."""
    t = started()
    t.do(h.EndPhase(actor="ana"))
    t.do(h.Hold(actor="bo", until="trigger", on="moves", whom="ogre"))
    moved, offer = t.do(h.Move(actor="ogre", metres=4))
    assert offer == h.HoldOffered(fighter="bo", why="moves")
    t.do(h.Release(actor="bo"))
    t.do(h.Act(actor="bo", kind="full", text="tackles"))
    assert t.state.floor == "ogre" and t.state.halves == 1


def test_a_trigger_names_someone_else_the_holder_knows_of():
    t = started(ana(), bo(), ogre(), sheet("lurker", "Lurker", side="enemy", aware=("ana",)))
    with pytest.raises(RuleError, match="Wait for someone's phase, their attack or their move."):
        t.do(h.Hold(actor="ana", until="trigger", on="sneezes", whom="ogre"))
    with pytest.raises(RuleError, match="Ana cannot wait for their own action."):
        t.do(h.Hold(actor="ana", until="trigger", on="acts", whom="ana"))
    with pytest.raises(RuleError, match="Ana is not aware of Lurker."):
        t.do(h.Hold(actor="ana", until="trigger", on="acts", whom="lurker"))
    with pytest.raises(RuleError, match="That combatant is not in this encounter."):
        t.do(h.Hold(actor="ana", until="trigger", on="acts", whom="nobody"))


# --- moving ------------------------------------------------------------------------------------------------------


def test_half_a_run_or_less_is_a_half_move_that_leaves_the_attack():
    """Seed: "Half Phase Action ... Examples: Moving half your run or less" and "Attack Action ... It is only a
    half phase but it ends your phase"."""
    t = started(ana(run=12), bo(), ogre())
    [moved] = t.do(h.Move(actor="ana", metres=6, text="to the ledge"))
    assert (moved.full, moved.ends_phase, t.state.floor) == (False, False, "ana")
    assert said(t, moved) == (
        "Ana moves 6 m (to the ledge): a half move (half of RUN 12 m or less); half a phase is left."
    )
    t.do(h.Attack(actor="ana", target="ogre", dice=0), faces=[6, 6, 6])
    assert t.state.floor == "bo"


def test_more_than_half_a_run_is_a_full_move_that_ends_the_phase():
    """Seed: "Full Phase Action - This action takes your entire phase ... Examples: Moving more than half your
    RUN"."""
    t = started(ana(run=12), bo(), ogre())
    [moved] = t.do(h.Move(actor="ana", metres=7))
    assert moved.full and moved.ends_phase and t.state.floor == "bo"
    assert said(t, moved, gm=False).endswith("a full move (more than half of RUN 12 m); the phase ends.")


def test_two_half_moves_end_the_phase_and_a_full_move_cannot_follow_a_half():
    """Seed: "you can do 2 of these per phase. Once you have done the second, your phase is over"."""
    t = started(ana(run=10), bo(), ogre())
    t.do(h.Act(actor="ana", kind="half", text="draws"))
    with pytest.raises(RuleError, match="Ana has half a phase left: a half move of at most 5 m, or an attack."):
        t.do(h.Move(actor="ana", metres=6))
    [moved] = t.do(h.Move(actor="ana", metres=5))
    assert moved.ends_phase and not moved.full and t.state.floor == "bo"


def test_a_move_stays_within_the_run_from_the_sheet():
    assert h.fighter_from_sheet("x", "X", "pc", 1, {}, ()).run == 12  # HERO 6e's RUN of 12 m by default
    t = started(ana(run=8), bo(run=0), ogre())
    for metres in (0, 9, -3):
        with pytest.raises(RuleError, match="Ana runs 1 to 8 m in a phase."):
            t.do(h.Move(actor="ana", metres=metres))
    with pytest.raises(RuleError, match="It is not Bo's phase."):
        t.do(h.Move(actor="bo", metres=1))
    t.do(h.EndPhase(actor="ana"))
    with pytest.raises(RuleError, match="Bo has no RUN to move with."):
        t.do(h.Move(actor="bo", metres=1))


def test_an_enemys_move_tells_players_no_run():
    t = started()
    t.do(h.EndPhase(actor="ana"))
    t.do(h.EndPhase(actor="bo"))
    [moved] = t.do(h.Move(actor="ogre", metres=9))
    assert said(t, moved, gm=False) == "Ogre moves 9 m: a full move (more than half); the phase ends."


# --- Presence attacks --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "faces,level,words",
    [
        ([1, 1, 1, 1], 0, "Ogre is not impressed"),
        ([3, 3, 2, 2], 1, "Ogre is impressed: hesitates"),
        ([5, 5, 5, 5], 2, "Ogre is very impressed: hesitates as above and takes only a half phase action"),
        ([6, 6, 6, 6], 2, "Ogre is very impressed"),
    ],
)
def test_a_presence_attack_rolls_a_d6_per_5_pre_against_the_targets_pre(faces, level, words):
    """Seed: "Actions That Take No Time - These can be done at any time, even on segments where you don't have an
    action. Examples are talking and presence attacks." PRE 20 rolls 4d6 against the Ogre's PRE 10: 10 impresses,
    20 very much."""
    t = started(ana(pre=20), bo(), ogre(pre=10))
    t.do(h.EndPhase(actor="ana"))  # off-phase: it takes no time
    [attack] = t.do(h.PresenceAttack(actor="ana", target="ogre", text="Surrender!"), faces=faces)
    assert (len(attack.roll), attack.against, attack.level) == (4, 10, level)
    lead = f"Ana makes a Presence attack on Ogre (Surrender!): {sum(faces)} on 4d6"
    assert said(t, attack, gm=False).startswith(lead)
    assert words in said(t, attack, gm=False)
    assert t.state.floor == "bo" and t.f("ana").acted_at != t.state.now  # it used no phase


def test_presence_levels_run_to_awed_and_cowed_at_20_and_30_over():
    """The effect levels (HERO 6e): the target's PRE, +10, +20, +30."""
    t = started(ana(pre=40), bo(), ogre(pre=5))
    [awed] = t.do(h.PresenceAttack(actor="ana", target="ogre"), faces=[4, 4, 4, 4, 4, 4, 1, 1])
    assert awed.level == 3 and "Ogre is awed: does not act for one full phase" in said(t, awed)
    [cowed] = t.do(h.PresenceAttack(actor="ana", target="ogre"), faces=[5, 5, 5, 5, 5, 5, 5, 5])
    assert cowed.level == 4 and "Ogre is cowed: may surrender, run away or faint" in said(t, cowed)


def test_the_gm_sets_what_a_presence_attack_is_measured_against_and_the_dice_for_circumstances():
    t = started(ana(pre=15), bo(), ogre(pre=10, ego=18), presence_against="higher")
    [attack] = t.do(h.PresenceAttack(actor="ana", target="ogre", dice_mod=2), faces=[3, 3, 3, 3, 3])
    assert (len(attack.roll), attack.against, attack.level) == (5, 18, 0)
    t = started(ana(pre=15), bo(), ogre(pre=10, ego=18), presence_against="ego")
    [attack] = t.do(h.PresenceAttack(actor="ana", target="ogre"), faces=[6, 6, 6])
    assert (attack.against, attack.level) == (18, 1)


def test_presence_attacks_are_refused_with_a_sentence():
    t = started(ana(pre=4), bo(), ogre(), sheet("lurker", "Lurker", side="enemy", aware=("ana",)))
    with pytest.raises(RuleError, match="Ana's Presence attack needs 1 to 40 dice"):
        t.do(h.PresenceAttack(actor="ana", target="ogre"))
    with pytest.raises(RuleError, match="Ana is not aware of Lurker."):
        t.do(h.PresenceAttack(actor="ana", target="lurker", dice_mod=1))
    with pytest.raises(RuleError, match="Choose someone else to impress."):
        t.do(h.PresenceAttack(actor="ana", target="ana", dice_mod=1))
    with pytest.raises(RuleError, match="at most 10 dice"):
        t.do(h.PresenceAttack(actor="ana", target="ogre", dice_mod=11))
    t.do(h.SetStunned(target="bo"))
    with pytest.raises(RuleError, match="Bo is Stunned and can take no actions."):
        t.do(h.PresenceAttack(actor="bo", target="ogre"))


def test_an_enemys_presence_attack_keeps_its_dice_from_players():
    t = started(ana(pre=10), bo(), ogre(pre=25), presence_effects=False)
    [attack] = t.do(h.PresenceAttack(actor="ogre", target="ana"), faces=[6, 6, 6, 6, 6])
    assert said(t, attack) == (
        "Ogre makes a Presence attack on Ana: 30 on 5d6 against 10; Ana is awed: does not act for one full phase "
        "and is at half DCV."
    )
    assert said(t, attack, gm=False) == (
        "Ogre makes a Presence attack on Ana; Ana is awed: does not act for one full phase and is at half DCV."
    )


# --- Presence attack effects (the GM's setting, on by default) ---------------------------------------------------


def test_awed_loses_the_next_phase_at_half_dcv_and_cowed_is_at_0_dcv():
    """The effect levels (HERO 6e): awed "will not act for 1 full phase" at half DCV; cowed at 0 DCV."""
    t = started(ana(pre=40), bo(dcv=5), ogre())
    [awe] = t.do(h.PresenceAttack(actor="ana", target="bo"), faces=[6] * 8)  # 48 against 10: cowed
    assert awe.level == 4 and t.f("bo").current_dcv == 0
    assert t.f("bo").presence == 4
    with pytest.raises(RuleError, match="Bo is awed by a Presence attack and cannot abort."):
        t.do(h.Abort(actor="bo"))
    [ended, spent] = t.do(h.EndPhase(actor="ana"))
    assert spent == h.PhaseSpent(fighter="bo", segment=12, how="awed")
    assert said(t, spent) == "Bo, awed by a Presence attack, does not act in the phase in segment 12."
    assert t.f("bo").presence == 0 and t.f("bo").current_dcv == 5 and t.state.floor == "ogre"
    t = started(ana(pre=30), bo(dcv=5), ogre())
    t.do(h.PresenceAttack(actor="ana", target="bo"), faces=[6, 6, 6, 4, 4, 4])  # 30 against 10: awed
    assert t.f("bo").presence == 3 and t.f("bo").current_dcv == 3


def test_impressed_hesitates_so_the_attacker_acts_first_in_this_segment():
    """The seed leaves a Presence attack's effect open ("Actions That Take No Time ... presence attacks"); the GM's
    setting `presence_effects` applies HERO 6e's table: impressed, the target "hesitates", so the attacker acts first
    in the target's next phase. Segment 12: Ana (DEX 18), Bo (14), Ogre (11); the Ogre impresses Bo."""
    t = started(ana(), bo(pre=10), ogre(pre=20))
    [attack] = t.do(h.PresenceAttack(actor="ogre", target="bo"), faces=[3, 3, 2, 2])  # 10 against 10: impressed
    assert attack.level == 1 and t.state.order == ("ana", "ogre", "bo")
    t.do(h.EndPhase(actor="ana"))
    assert t.state.floor == "ogre"
    t.do(h.EndPhase(actor="ogre"))
    assert t.state.floor == "bo" and t.f("bo").hesitant == ""


def test_impressed_after_its_phase_hesitates_in_the_next_segment_it_shares_with_the_attacker():
    """Ana (SPD 4: 3, 6, 9, 12) is impressed in segment 3 by the Ogre (SPD 2: 6, 12), which has no phase there: in
    segment 6 the Ogre (DEX 11) acts before Ana (DEX 18)."""
    t = started(ana(pre=10), bo(), ogre(pre=20))
    for who in ("ana", "bo", "ogre"):
        t.do(h.EndPhase(actor=who))
    t.do(h.NextSegment())
    assert t.state.segment == 3
    t.do(h.EndPhase(actor="ana"))
    t.do(h.PresenceAttack(actor="ogre", target="ana"), faces=[3, 3, 2, 2])
    assert t.f("ana").hesitant == "ogre"
    t.do(h.NextSegment())
    assert t.state.segment == 4 and t.f("ana").hesitant == "ogre"  # Bo's segment: not Ana's phase
    t.do(h.EndPhase(actor="bo"))
    t.do(h.NextSegment())
    assert t.state.segment == 6 and t.state.order == ("ogre", "ana") and t.f("ana").hesitant == ""


def test_very_impressed_also_hesitates():
    """Very impressed "hesitates as above" (and keeps only half a phase: below)."""
    t = started(ana(), bo(pre=10), ogre(pre=20))
    t.do(h.PresenceAttack(actor="ogre", target="bo"), faces=[5, 5, 5, 5])  # 20 against 10
    assert t.state.order == ("ana", "ogre", "bo") and t.f("bo").presence == 2


def test_with_the_setting_off_impressed_changes_no_order():
    t = started(ana(), bo(pre=10), ogre(pre=20), presence_effects=False)
    t.do(h.PresenceAttack(actor="ogre", target="bo"), faces=[3, 3, 2, 2])
    assert t.state.order == ("ana", "bo", "ogre") and t.f("bo").hesitant == ""


def test_very_impressed_leaves_only_half_the_next_phase():
    """The effect levels (HERO 6e): very impressed "only performs a Half Phase Action during his next Phase"."""
    t = started(ana(pre=20), bo(), ogre())
    t.do(h.PresenceAttack(actor="ana", target="bo"), faces=[5, 5, 5, 5])  # 20 against 10
    [ended, hesitated] = t.do(h.EndPhase(actor="ana"))
    assert hesitated == h.Hesitated(fighter="bo") and t.state.halves == 1
    assert said(t, hesitated, gm=False) == "Bo, very impressed by a Presence attack, has only half a phase."
    with pytest.raises(RuleError, match="Bo has half a phase left"):
        t.do(h.Act(actor="bo", kind="full"))
    [moved] = t.do(h.Move(actor="bo", metres=3))
    assert moved.ends_phase and t.state.floor == "ogre"


def test_awed_in_the_middle_of_a_phase_loses_its_rest_and_a_held_action():
    """A Presence attack takes no time, so it can land in someone's phase: awed, the rest of it is lost."""
    t = started(ana(), bo(), ogre(pre=30))
    t.do(h.Act(actor="ana", kind="half"))
    attack, ended = t.do(h.PresenceAttack(actor="ogre", target="ana"), faces=[6, 6, 6, 6, 6, 1])
    assert attack.level == 3 and ended == h.PhaseEnded(fighter="ana", reason="awed")
    assert said(t, ended) == "Ana's phase ends: Ana is awed." and t.state.floor == "bo"
    assert t.f("ana").presence == 0 and t.f("ana").mark(12) == "acted"
    t.do(h.Hold(actor="bo"))
    t.do(h.PresenceAttack(actor="ogre", target="bo"), faces=[6, 6, 6, 6, 6, 1])
    assert t.f("bo").held is None and t.f("bo").presence == 3


def test_with_the_setting_off_the_effect_is_only_told():
    t = started(ana(pre=40), bo(), ogre(), presence_effects=False)
    [attack] = t.do(h.PresenceAttack(actor="ana", target="bo"), faces=[6] * 8)
    assert attack.level == 4 and t.f("bo").presence == 0 and "Bo is cowed" in said(t, attack)


def test_an_unseen_enemys_presence_attack_gives_it_away_when_attacks_reveal():
    """The GM's setting "An unseen combatant is revealed when it attacks" (on by default) covers Presence attacks."""
    t = started(ana(), bo(), ogre(), sheet("lurker", "Lurker", side="enemy", aware=("ana",), pre=10))
    revealed, attack = t.do(h.PresenceAttack(actor="lurker", target="ana"), faces=[1, 1])
    assert isinstance(revealed, h.Revealed) and "lurker" in t.f("ana").aware_of
    t = started(ana(), bo(), ogre(), sheet("lurker", "Lurker", side="enemy", aware=("ana",)), attack_reveals=False)
    [attack] = t.do(h.PresenceAttack(actor="lurker", target="ana"), faces=[1, 1])
    assert said(t, attack, gm=False) == "Someone unseen makes a Presence attack on Ana; Ana is not impressed."
