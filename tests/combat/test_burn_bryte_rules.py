"""Burn Bryte rules core with scripted dice: the seed's worked examples, the round, and invariants."""

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules.burn_bryte import engine as bb
from combat.rules.core import Logged, RuleError, Undone, from_json, replay, to_json
from combat.rules.dice import ScriptedDice


def pc(id, name, owner=1, **skills):
    return bb.Fighter(id=id, name=name, side="pc", owner=owner, skills=skills, aware_of=("boss", "captain", "grunt"))


def enemy(id, name, health=2, aware=("luwe", "balla", "furo")):
    return bb.Fighter(id=id, name=name, side="enemy", health=health, health_max=health, aware_of=aware)


@pytest.fixture
def start():
    fighters = (
        pc("luwe", "Luwe", Melee=8, Ranged=10, Stealth=6, Knowledge=8),
        pc("balla", "Ballallanava", owner=2, Presence=10, Athletics=6),
        pc("furo", "Furo", owner=3, Athletics=8, Melee=6),
        enemy("boss", "Nivick boss", health=3),
        enemy("captain", "Pirate captain"),
        enemy("grunt", "Pirate grunt", health=1),
    )
    return bb.initial_state(fighters, livability=3, settings={"surprise": "none"})


class Table:
    """Runs commands through decide/evolve and keeps the log, like the service does."""

    def __init__(self, state):
        self.initial = state
        self.state = state
        self.log = []

    def do(self, command, faces=()):
        dice = ScriptedDice(faces)
        events = bb.decide(self.state, command, dice)
        assert dice.left == 0, "every scripted die is used"
        for event in events:
            self.log.append(Logged(seq=len(self.log) + 1, event=event))
            self.state = bb.evolve(self.state, event)
        return events

    def undo_last(self):
        self.log.append(Logged(seq=len(self.log) + 1, event=Undone(seqs=(self.log[-1].seq,))))
        self.state = replay(bb.evolve, self.initial, self.log)


def declare_all(t):
    t.do(bb.Declare(enemy="boss", target="balla", text="laser sword"))
    t.do(bb.Declare(enemy="captain", target="luwe", text="laser pistol"))
    t.do(bb.Declare(enemy="grunt", target="balla", text="knife"))
    t.do(bb.StartPlayers())


def test_luwe_presses_her_luck(start):
    """Seed: 2d8 (1, 7) hits, 3d10 (10, 8, 2) hits, 4d6 (6, 5, 5, 3) fails; the GM takes a Collapse point."""
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    [e] = t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[1, 7])
    assert e.roll.complexity == 2 and e.roll.succeeded
    assert t.state.fighter("boss").health == 2
    [e] = t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="captain"), faces=[10, 8, 2])
    assert e.roll.complexity == 3 and e.roll.succeeded
    assert t.state.fighter("captain").health == 1
    [e] = t.do(bb.SkillRoll(actor="luwe", skill="Stealth", intent="other"), faces=[6, 5, 5, 3])
    assert e.roll.complexity == 4 and not e.roll.succeeded
    with pytest.raises(RuleError, match="turn is over"):
        t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="other"))
    t.do(bb.ResolveFailure(choice="collapse"))
    assert t.state.collapse == 3
    assert t.state.fighter("luwe").took_turn and t.state.turn == ""


def test_ballallanava_defends_twice(start):
    """Seed: Presence 2d10 (3, 7) stops the knife; a second defense would be complexity 3."""
    t = Table(start)
    declare_all(t)
    knife = next(d for d in t.state.declarations if d.enemy == "grunt")
    sword = next(d for d in t.state.declarations if d.enemy == "boss")
    t.do(bb.ClaimTurn(actor="balla"))
    t.do(bb.SkillRoll(actor="balla", skill="Presence", intent="defend", target=str(knife.id)), faces=[3, 7])
    assert t.state.declaration(knife.id).defended
    [e] = t.do(bb.SkillRoll(actor="balla", skill="Presence", intent="defend", target=str(sword.id)), faces=[9, 6, 2])
    assert e.roll.complexity == 3 and t.state.declaration(sword.id).defended
    t.do(bb.EndTurn(actor="balla"))
    for other in ("luwe", "furo"):
        t.do(bb.ClaimTurn(actor=other))
        t.do(bb.EndTurn(actor=other))
    t.do(bb.StartEnemies())
    [r] = t.do(bb.Resolve(declaration=knife.id, outcome="hit"))
    assert r.outcome == "cancelled"
    assert t.state.fighter("balla").health == 3


def test_furo_moves_free_then_rolls_to_move_again(start):
    """Seed: free move of 5 squares, an attack at complexity 2, then Athletics 3d8 (7, 6, 3) to move again."""
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="furo"))
    t.do(bb.FreeMove(actor="furo", squares=5))
    [e] = t.do(bb.SkillRoll(actor="furo", skill="Melee", intent="attack", target="grunt"), faces=[2, 5])
    assert e.roll.complexity == 2  # the free move did not raise complexity
    assert t.state.fighter("grunt").health == 0
    with pytest.raises(RuleError, match="already used the free move"):
        t.do(bb.FreeMove(actor="furo", squares=5))
    [e] = t.do(bb.SkillRoll(actor="furo", skill="Athletics", intent="move"), faces=[7, 6, 3])
    assert e.roll.complexity == 3 and e.roll.succeeded


def test_an_enemy_at_zero_does_not_resolve(start):
    t = Table(start)
    declare_all(t)
    grunt_attack = next(d for d in t.state.declarations if d.enemy == "grunt")
    t.do(bb.ClaimTurn(actor="furo"))
    t.do(bb.SkillRoll(actor="furo", skill="Melee", intent="attack", target="grunt"), faces=[1, 2])
    t.do(bb.EndTurn(actor="furo"))
    t.do(bb.StartEnemies())
    [r] = t.do(bb.Resolve(declaration=grunt_attack.id, outcome="hit"))
    assert r.outcome == "skipped" and t.state.fighter("balla").health == 3


def test_a_pc_at_zero_gains_the_least_severe_condition(start):
    t = Table(start)
    declare_all(t)
    t.do(bb.StartEnemies())
    sword = next(d for d in t.state.declarations if d.enemy == "boss")
    t.do(bb.Resolve(declaration=sword.id, outcome="hit", damage=3))
    balla = t.state.fighter("balla")
    assert balla.health == 0 and balla.conditions.neg_minor == "?"
    with pytest.raises(RuleError, match="0 Health Levels"):
        t.do(bb.SpendNova(actor="balla", points=1))


def test_one_turn_per_pc_and_the_chain_of_picks(start):
    t = Table(start)
    declare_all(t)
    t.do(bb.PickNext(next="luwe"))  # the GM picks; from now on the finishing PC picks
    with pytest.raises(RuleError, match="still taking their turn"):
        t.do(bb.ClaimTurn(actor="furo"))
    t.do(bb.EndTurn(actor="luwe"))
    with pytest.raises(RuleError, match="just finished picks"):
        t.do(bb.ClaimTurn(actor="furo"))
    with pytest.raises(RuleError, match="not this character's pick"):
        t.do(bb.PickNext(actor="furo", next="furo"))
    with pytest.raises(RuleError, match="already taken a turn"):
        t.do(bb.PickNext(actor="luwe", next="luwe"))
    t.do(bb.PickNext(actor="luwe", next="furo"))
    assert t.state.turn == "furo"


def test_complexity_follows_conditions_but_never_below_two(start):
    t = Table(start)
    luwe = t.state.fighter("luwe")
    hindered = replace(luwe, conditions=bb.Conditions(neg_minor="Melee", neg_significant=True))
    helped = replace(luwe, conditions=bb.Conditions(pos_moderate="Physical", pos_significant=True))
    assert t.state.complexity(hindered, "Melee") == 4
    assert t.state.complexity(hindered, "Ranged") == 3
    assert t.state.complexity(helped, "Melee") == 2


def test_advantage_rerolls_rescue_a_failed_roll(start):
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage"), faces=[1, 2])
    assert t.state.advantages == 1
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[4, 4, 1])
    assert t.state.pending_failure and t.state.fighter("boss").health == 3
    t.do(bb.SpendAdvantage(actor="luwe", die=1), faces=[7])
    assert not t.state.pending_failure and t.state.advantages == 0
    assert t.state.fighter("boss").health == 2
    with pytest.raises(RuleError, match="reroll a die of a failed roll"):
        t.do(bb.SpendAdvantage(actor="luwe", die=0))


def test_advantages_are_capped_by_livability(start):
    t = Table(replace(start, livability=1))
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage"), faces=[1, 2])
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage"), faces=[1, 2, 3])
    assert t.state.advantages == 1


def test_nova_boxes_fill_to_a_point(start):
    t = Table(start)
    luwe = replace(t.state.fighter("luwe"), skills={"A": 4, "B": 6, "C": 8, "D": 10, "E": 12})
    t = Table(replace(start, fighters=(luwe,) + start.fighters[1:], phase=2))
    t.do(bb.ClaimTurn(actor="luwe"))
    faces = [[1, 2], [1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6]]
    for skill, f in zip("ABCDE", faces, strict=True):
        t.do(bb.SkillRoll(actor="luwe", skill=skill), faces=f)
    assert t.state.fighter("luwe").nova_points == 1 and t.state.fighter("luwe").nova_boxes == ()


def test_declarations_follow_awareness_and_phase(start):
    t = Table(start)
    unaware = replace(start.fighter("captain"), aware_of=("luwe",))
    t = Table(replace(start, fighters=tuple(unaware if f.id == "captain" else f for f in start.fighters)))
    with pytest.raises(RuleError, match="not aware of Ballallanava"):
        t.do(bb.Declare(enemy="captain", target="balla"))
    t.do(bb.Declare(enemy="captain", target="luwe"))
    with pytest.raises(RuleError, match="already declared"):
        t.do(bb.Declare(enemy="captain", target="luwe"))
    with pytest.raises(RuleError, match="Declare one action for"):
        t.do(bb.StartPlayers())
    t.do(bb.Declare(enemy="captain", target="luwe", extra=True))
    assert t.state.collapse == 1


def test_surprise_skips_phases_in_round_one(start):
    t = Table(replace(start, surprise="enemies"))
    declare_all(t)
    assert t.state.phase == 3
    pcs_first = bb.initial_state(start.fighters, 3, {"surprise": "pcs"})
    t = Table(pcs_first)
    assert t.state.phase == 2
    for who in ("luwe", "balla", "furo"):
        t.do(bb.ClaimTurn(actor=who))
        t.do(bb.EndTurn(actor=who))
    t.do(bb.StartEnemies())
    assert (t.state.round, t.state.phase) == (2, 1)


def test_entered_dice_need_the_setting(start):
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    with pytest.raises(RuleError, match="server roll"):
        t.do(bb.SkillRoll(actor="luwe", skill="Melee", entered=(1, 2)))
    t = Table(replace(t.state, settings={"entered_dice": True}))
    with pytest.raises(RuleError, match="exactly 2 dice"):
        t.do(bb.SkillRoll(actor="luwe", skill="Melee", entered=(1,)))
    with pytest.raises(RuleError, match="from 1 to 8"):
        t.do(bb.SkillRoll(actor="luwe", skill="Melee", entered=(1, 9)))
    [e] = t.do(bb.SkillRoll(actor="luwe", skill="Melee", entered=(1, 2)))
    assert e.roll.entered


def test_chance_of_success_is_exact():
    assert bb.chance_of_success(2, 6) == pytest.approx(5 / 6)
    assert bb.chance_of_success(4, 6) == pytest.approx(6 * 5 * 4 * 3 / 6**4)
    assert bb.chance_of_success(5, 4) == 0


def test_state_events_and_commands_round_trip_through_json(start):
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[4, 4])
    state = t.state
    assert from_json(bb.State, json.loads(json.dumps(to_json(state)))) == state
    for item in t.log:
        payload = json.loads(json.dumps(bb.CODEC.event_to_json(item.event)))
        assert bb.CODEC.event_from_json(payload) == item.event
    for cls in bb.COMMANDS:
        assert from_json(cls, json.loads(json.dumps(to_json(cls())))) == cls()


@pytest.mark.parametrize("name,data", [
    ("teleport", {}), ("skill_roll", {"actor": 5}), ("skill_roll", "junk"), ("resolve", {"declaration": "x"}),
])
def test_malformed_commands_are_refused_with_a_sentence(name, data):
    with pytest.raises(RuleError):
        bb.CODEC.command_from_json(name, data)


# --- invariants -------------------------------------------------------------------------------------

ACTIONS = st.lists(st.tuples(st.sampled_from(["roll", "move", "end", "fail_ok", "adv", "undo", "phase", "claim"]),
                             st.integers(0, 2), st.integers(0, 10_000)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(ACTIONS)
def test_random_play_keeps_every_invariant(actions):
    fighters = (pc("luwe", "Luwe", Melee=8, Knowledge=6), pc("balla", "Ballallanava", Presence=10),
                pc("furo", "Furo", Athletics=4), enemy("boss", "Nivick boss", health=3))
    t = Table(bb.initial_state(fighters, livability=2, settings={}))
    pcs = ["luwe", "balla", "furo"]
    turns_this_round: list[str] = []
    round_seen = 1
    import random as _r  # tests only: picks faces for scripted dice

    for what, who, seed in actions:
        rng = _r.Random(seed)
        s = t.state
        if s.round != round_seen:
            turns_this_round, round_seen = [], s.round
        try:
            if what == "claim":
                t.do(bb.ClaimTurn(actor=pcs[who]))
                turns_this_round.append(pcs[who])
            elif what == "roll" and s.turn:
                f = s.fighter(s.turn)
                skill = sorted(f.skills)[seed % len(f.skills)]
                n = s.complexity(f, skill)
                before = s.turn_rolls
                [e] = t.do(bb.SkillRoll(actor=s.turn, skill=skill, intent=["attack", "advantage", "other"][who],
                                        target="boss"), faces=[rng.randint(1, f.skills[skill]) for _ in range(n)])
                assert len(e.roll.faces) == before + 2  # the k-th roll of a turn uses k+1 dice
            elif what == "move" and s.turn:
                t.do(bb.FreeMove(actor=s.turn, squares=1 + seed % 5))
            elif what == "end" and s.turn:
                t.do(bb.EndTurn(actor=s.turn))
            elif what == "fail_ok":
                t.do(bb.ResolveFailure(choice=["collapse", "consequence"][who % 2]))
            elif what == "adv" and s.turn and s.last_roll:
                t.do(bb.SpendAdvantage(actor=s.turn, die=0), faces=[rng.randint(1, s.last_roll.sides)])
            elif what == "phase":
                if s.phase == 1:
                    if not any(d.enemy == "boss" for d in s.declarations):
                        t.do(bb.Declare(enemy="boss", target=pcs[who]))
                    t.do(bb.StartPlayers())
                elif s.phase == 2:
                    t.do(bb.StartEnemies())
                else:
                    for d in s.declarations:
                        if not d.outcome:
                            t.do(bb.Resolve(declaration=d.id, outcome="hit"))
                    t.do(bb.NextRound())
            elif what == "undo" and t.log:
                t.undo_last()
                continue
        except RuleError:
            pass
        st_ = t.state
        assert 0 <= st_.advantages <= st_.livability
        assert st_.collapse >= 0
        for f in st_.fighters:
            assert 0 <= f.health <= f.health_max
            assert 0 <= f.nova_points <= st_.livability
        assert replay(bb.evolve, t.initial, t.log) == st_  # replay of the log equals the live state
        taken = [f.id for f in st_.pcs() if f.took_turn]
        assert len(taken) == len(set(taken))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 8), min_size=2, max_size=2), st.lists(st.integers(1, 8), min_size=3, max_size=3))
def test_undo_then_replay_equals_the_state_before(first, second):
    t = Table(bb.initial_state((pc("luwe", "Luwe", Melee=8), enemy("boss", "Boss", health=9)), 3, {"surprise": "pcs"}))
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=first)
    before = t.state
    if before.pending_failure:
        return
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=second)
    t.undo_last()
    assert t.state == before


def test_every_event_reads_as_one_sentence(start):
    t = Table(start)
    declare_all(t)
    t.do(bb.Declare(enemy="boss", target="luwe", extra=True, text="claw"))
    t.do(bb.PickNext(next="luwe"))
    t.do(bb.FreeMove(actor="luwe", squares=3))
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage"), faces=[1, 2])
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[3, 3, 1])
    t.do(bb.SpendAdvantage(actor="luwe", die=0), faces=[5])
    t.do(bb.SkillRoll(actor="luwe", skill="Stealth", intent="other"), faces=[6, 5, 5, 3])
    t.do(bb.ResolveFailure(choice="consequence", note="drops her pistol"))
    t.do(bb.SpendCollapse(enemy="boss", points=1, note="frenzy"))
    t.do(bb.StartEnemies())
    sentences = []
    state = t.initial
    for item in t.log:
        sentences.append(bb.describe(state, item.event))
        state = bb.evolve(state, item.event)
    assert "Luwe rolls Melee to attack Nivick boss at complexity 3: 3d8 show 3, 3, 1; the roll fails on doubles." in sentences
    assert "Luwe spends an Advantage to reroll die 1: it shows 5." in sentences
    assert "Luwe's turn ends on a failed roll with a consequence: drops her pistol." in sentences
    assert "Nivick boss declares: claw against Luwe (an extra attack for 1 Collapse point)." in sentences
    assert "Luwe starts their turn (picked by the GM)." in sentences
    for sentence in sentences:
        assert sentence.endswith(".") and sentence[0].isupper() and "\n" not in sentence


def test_registry_declares_settings_and_who_may_issue_commands():
    from combat.rules import registry

    model = registry.get("burn_bryte")
    assert model.playable
    assert {s.key for s in model.settings} >= {"change_cost", "entered_dice", "surprise"}
    who = model.command_who()
    assert who["skill_roll"] == "owner" and who["declare"] == "gm" and who["resolve_failure"] == "gm"


def test_dropping_to_zero_is_spelled_out_and_left_to_the_gm_when_all_conditions_are_held(start):
    t = Table(start)
    [e] = t.do(bb.AdjustHealth(target="balla", change=-3))
    assert bb.describe(start, e).endswith("Ballallanava drops to 0 Health Levels and gains a minor negative condition.")
    worn = replace(start.fighter("balla"), conditions=bb.Conditions(neg_minor="Melee", neg_moderate="Social",
                                                                     neg_significant=True))
    state = replace(start, fighters=tuple(worn if f.id == "balla" else f for f in start.fighters))
    [e] = bb.decide(state, bb.AdjustHealth(target="balla", change=-3), ScriptedDice([]))
    assert "holding every negative condition: the GM decides what happens." in bb.describe(state, e)
    after = bb.evolve(state, e)
    assert after.fighter("balla").health == 0 and after.fighter("balla").conditions == worn.conditions
