"""Burn Bryte rules core with scripted dice: the seed's worked examples, the round, and invariants."""

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules import burn_bryte as bb
from combat.rules.core import MARKERS, Ended, Logged, RuleError, Undone, active_events, from_json, replay, to_json
from combat.rules.dice import ScriptedDice
from combat.rules.free_roll import FreeRoll
from tests.combat.free_rolls import dice_in, random_free_roll
from tests.conftest import examples


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
        self.commands = []  # every command the rules accepted, in order
        self.batches = {}  # seq -> the seqs of every event its command made (undo takes back the whole command)

    def do(self, command, faces=()):
        dice = ScriptedDice(faces)
        events = bb.decide(self.state, command, dice)
        assert dice.left == 0, "every scripted die is used"
        self.commands.append(command)
        batch = tuple(range(len(self.log) + 1, len(self.log) + 1 + len(events)))
        for event in events:
            self.log.append(Logged(seq=len(self.log) + 1, event=event))
            self.batches[self.log[-1].seq] = batch
            self.state = bb.evolve(self.state, event)
        return events

    def undo_last(self):
        last = self.log[-1].seq
        seqs = self.batches.get(last, (last,))
        self.log.append(Logged(seq=len(self.log) + 1, event=Undone(seqs=seqs)))
        self.state = replay(bb.evolve, self.initial, self.log)


def declare_all(t):
    t.do(bb.Declare(enemy="boss", target="balla", text="laser sword"))
    t.do(bb.Declare(enemy="captain", target="luwe", text="laser pistol"))
    t.do(bb.Declare(enemy="grunt", target="balla", text="knife"))
    t.do(bb.StartPlayers())


def skip_the_rest(t):
    """The GM skips every PC yet to act this round (their players are away), so Phase 3 may start."""
    for f in t.state.pcs_left():
        t.do(bb.SkipTurn(pc=f.id))


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
    skip_the_rest(t)
    t.do(bb.StartEnemies())
    [r] = t.do(bb.Resolve(declaration=grunt_attack.id, outcome="hit"))
    assert r.outcome == "skipped" and t.state.fighter("balla").health == 3


def test_a_pc_at_zero_gains_the_least_severe_condition(start):
    t = Table(start)
    declare_all(t)
    skip_the_rest(t)
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


@pytest.mark.parametrize(
    "name,data",
    [
        ("teleport", {}),
        ("skill_roll", {"actor": 5}),
        ("skill_roll", "junk"),
        ("resolve", {"declaration": "x"}),
    ],
)
def test_malformed_commands_are_refused_with_a_sentence(name, data):
    with pytest.raises(RuleError):
        bb.CODEC.command_from_json(name, data)


# --- invariants -------------------------------------------------------------------------------------


def turns_taken_twice(log):
    """(round, PC) for every PC whose turn started more than once in one round, and (round, PC) for every turn
    that started while another was still running, read from the active log (undone entries do not count)."""
    round_, running = 1, ""
    started: dict[tuple[int, str], int] = {}
    problems = []
    for item in active_events(log):
        event = item.event
        if isinstance(event, bb.PhaseStarted):
            round_ = event.round
        elif isinstance(event, bb.TurnStarted):
            key = (round_, event.fighter)
            started[key] = started.get(key, 0) + 1
            if started[key] > 1:
                problems.append(("twice", *key))
            if running:
                problems.append(("overlap", round_, event.fighter))
            running = event.fighter
        elif isinstance(event, bb.TurnEnded):
            running = ""
    return problems


def _logged(*events):
    return [Logged(seq=i, event=e) for i, e in enumerate(events, start=1)]


def test_the_one_turn_per_round_checker_can_fail():
    p2 = bb.PhaseStarted(round=1, phase=2)
    luwe, ended = bb.TurnStarted(fighter="luwe"), bb.TurnEnded(fighter="luwe")
    assert turns_taken_twice(_logged(p2, luwe, ended, bb.TurnStarted(fighter="furo"))) == []
    assert turns_taken_twice(_logged(p2, luwe, ended, luwe, ended)) == [("twice", 1, "luwe")]
    assert turns_taken_twice(_logged(p2, luwe, bb.TurnStarted(fighter="furo"))) == [("overlap", 1, "furo")]
    # A new round gives every PC a turn again; an undone start does not count.
    next_round = (bb.PhaseStarted(round=2, phase=1), bb.PhaseStarted(round=2, phase=2))
    assert turns_taken_twice(_logged(p2, luwe, ended, *next_round, luwe, ended)) == []
    undone = _logged(p2, luwe) + [Logged(seq=3, event=Undone(seqs=(2,)))] + [Logged(seq=4, event=luwe)]
    assert turns_taken_twice(undone) == []
    # ...and the engine itself refuses a second claim in the same round.
    t = Table(bb.initial_state((pc("luwe", "Luwe", Melee=8), enemy("boss", "Boss")), 3, {"surprise": "pcs"}))
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.EndTurn(actor="luwe"))
    with pytest.raises(RuleError, match="Luwe has already taken a turn this round."):
        t.do(bb.ClaimTurn(actor="luwe"))
    with pytest.raises(RuleError, match="Luwe has already taken a turn this round."):
        t.do(bb.PickNext(next="luwe"))


# Claims, picks and ends come often enough that a PC coming back for a second turn in a round is tried in most runs.
ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                *("roll", "move", "end", "end", "fail_ok", "adv", "undo", "phase"),
                *("claim", "claim", "claim", "pick", "pick", "skip", "hurt", "heal", "nova", "use_adv", "free"),
                *("place", "goto", "enemy_move", "roll_move"),  # positions on a grid (positions.py)
            ]
        ),
        st.integers(0, 2),
        st.integers(0, 10_000),
    ),
    min_size=8,
    max_size=60,
)


@settings(max_examples=examples(150), deadline=None)
@given(ACTIONS)
def test_random_play_keeps_every_invariant(actions):
    fighters = (
        pc("luwe", "Luwe", Melee=8, Knowledge=6),
        pc("balla", "Ballallanava", Presence=10),
        pc("furo", "Furo", Athletics=4),
        enemy("boss", "Nivick boss", health=3),
    )
    t = Table(bb.initial_state(fighters, livability=2, settings={}))
    pcs = ["luwe", "balla", "furo"]
    import random as _r  # tests only: picks faces for scripted dice

    for what, who, seed in actions:
        rng = _r.Random(seed)
        s, logged = t.state, len(t.log)
        try:
            if what == "claim":
                t.do(bb.ClaimTurn(actor=pcs[who]))
            elif what == "pick":
                t.do(bb.PickNext(actor=s.picker if s.chain else "", next=pcs[who]))
            elif what == "roll" and s.turn:
                f = s.fighter(s.turn)
                skill = sorted(f.skills)[seed % len(f.skills)]
                n = s.complexity(f, skill)
                before = s.turn_rolls
                [e] = t.do(
                    bb.SkillRoll(
                        actor=s.turn, skill=skill, intent=["attack", "advantage", "other"][who], target="boss"
                    ),
                    faces=[rng.randint(1, f.skills[skill]) for _ in range(n)],
                )
                assert len(e.roll.faces) == before + 2  # the k-th roll of a turn uses k+1 dice
            elif what == "move" and s.turn:
                t.do(bb.FreeMove(actor=s.turn, squares=1 + seed % 5))
            elif what == "place":
                t.do(bb.Place(fighter=(pcs + ["boss"])[seed % 4], to=f"{'ABCDEFGH'[seed % 8]}{1 + who + seed % 6}"))
            elif what == "goto" and s.turn:
                t.do(bb.FreeMove(actor=s.turn, to=f"{'ABCDEFGH'[seed % 8]}{1 + seed % 8}"))
            elif what == "roll_move" and s.turn:
                f = s.fighter(s.turn)
                skill = sorted(f.skills)[0]
                n = s.complexity(f, skill)
                faces = [1 + i % f.skills[skill] for i in range(n)]  # doubles once the dice outnumber the faces
                t.do(bb.SkillRoll(actor=s.turn, skill=skill, intent="move"), faces=faces)
            elif what == "enemy_move":
                t.do(bb.MoveEnemy(enemy="boss", to=f"{'ABCDEFGH'[seed % 8]}{1 + seed % 8}"))
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
            elif what == "nova" and s.turn:
                t.do(bb.SpendNova(actor=s.turn, points=1, roll=True))
            elif what == "use_adv":
                t.do(bb.UseAdvantages(actor=pcs[who], points=1))
            elif what == "skip":
                t.do(bb.SkipTurn(pc=pcs[who]))
            elif what == "free":  # a free roll, any time: it changes nothing
                roll = random_free_roll(pcs, seed)
                t.do(roll, faces=[rng.randint(1, 4) for _ in range(dice_in(roll.notation))])
                assert t.state == s
            elif what in ("hurt", "heal"):
                t.do(bb.AdjustHealth(target=pcs[who], change=-1 - seed % 3 if what == "hurt" else 1))
            elif what == "undo" and t.log:
                t.undo_last()
                continue
        except RuleError:
            assert len(t.log) != logged or t.state == s  # a refused command changes nothing
        st_ = t.state
        assert 0 <= st_.advantages <= st_.livability
        assert st_.collapse >= 0
        for f in st_.fighters:
            assert 0 <= f.health <= f.health_max
            assert 0 <= f.nova_points <= st_.livability
            assert 0 <= f.moved <= f.speed  # an enemy moves at most its speed in a Phase 3
        assert st_.moves_left >= 0
        assert replay(bb.evolve, t.initial, t.log) == st_  # replay of the log equals the live state
        # A PC at 0 Health Levels takes no actions: their turn is over unless a failed roll awaits the GM.
        assert not st_.turn or not st_.fighter(st_.turn).down or st_.pending_failure
        # Phase 3 starts only once every PC able to act has had a turn (or was skipped).
        if st_.phase == 3 and s.phase == 2:
            assert not s.pcs_left()
        # One turn per PC per round, and a started turn finishes before the next begins.
        assert turns_taken_twice(t.log) == []


@settings(max_examples=examples(100), deadline=None)
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
    skip_the_rest(t)
    t.do(bb.StartEnemies())
    sentences = []
    state = t.initial
    for item in t.log:
        sentences.append(bb.describe(state, item.event))
        state = bb.evolve(state, item.event)
    assert (
        "Luwe rolls Melee to attack Nivick boss at complexity 3: 3d8 show 3, 3, 1; the roll fails on doubles."
        in sentences
    )
    assert "Luwe spends an Advantage to reroll die 1: it shows 5." in sentences
    assert "Luwe's turn ends on a failed roll with a consequence: drops her pistol." in sentences
    assert "Nivick boss declares: claw against Luwe (an extra attack for 1 Collapse point)." in sentences
    assert "Luwe starts their turn (picked by the GM)." in sentences
    for sentence in sentences:
        assert sentence.endswith(".") and sentence[0].isupper() and "\n" not in sentence


def test_registry_declares_settings_and_who_may_issue_commands():
    from combat.rules import registry

    model = registry.get("burn_bryte")
    assert model.engine is bb
    assert {s.key for s in model.settings} >= {"change_cost", "entered_dice", "surprise"}
    who = model.command_who()
    assert who["skill_roll"] == "owner" and who["declare"] == "gm" and who["resolve_failure"] == "gm"


def test_dropping_to_zero_is_spelled_out_and_left_to_the_gm_when_all_conditions_are_held(start):
    t = Table(start)
    [e] = t.do(bb.AdjustHealth(target="balla", change=-3))
    assert bb.describe(start, e).endswith("Ballallanava drops to 0 Health Levels and gains a minor negative condition.")
    worn = replace(
        start.fighter("balla"), conditions=bb.Conditions(neg_minor="Melee", neg_moderate="Social", neg_significant=True)
    )
    state = replace(start, fighters=tuple(worn if f.id == "balla" else f for f in start.fighters))
    [e] = bb.decide(state, bb.AdjustHealth(target="balla", change=-3), ScriptedDice([]))
    assert "holding every negative condition: the GM decides what happens." in bb.describe(state, e)
    after = bb.evolve(state, e)
    assert after.fighter("balla").health == 0 and after.fighter("balla").conditions == worn.conditions


def test_a_health_change_that_would_change_nothing_is_refused_with_a_sentence(start):
    t = Table(start)
    balla = start.fighter("balla")
    with pytest.raises(RuleError, match="Ballallanava is already at full Health Levels."):
        t.do(bb.AdjustHealth(target="balla", change=1))
    t.do(bb.AdjustHealth(target="balla", change=-balla.health))
    with pytest.raises(RuleError, match="Ballallanava has no Health Levels left to lose."):
        t.do(bb.AdjustHealth(target="balla", change=-1))
    t.do(bb.AdjustHealth(target="balla", change=20))  # more than the maximum heals to it
    assert t.state.fighter("balla").health == balla.health_max


# --- paths the audit of issue 3 found untested ------------------------------------------------------------


def _with(state, *fighters):
    """`state` with these fighters put in place of the ones with the same ids."""
    by_id = {f.id: f for f in fighters}
    return replace(state, fighters=tuple(by_id.get(f.id, f) for f in state.fighters))


def _five_sizes(state, **changes):
    """Luwe with one skill of every die size, so five rolls can tick all five Nova boxes."""
    luwe = replace(state.fighter("luwe"), skills={"A": 4, "B": 6, "C": 8, "D": 10, "E": 12}, **changes)
    return replace(_with(state, luwe), phase=2)


def test_nova_points_stay_capped_at_livability_when_the_boxes_fill(start):
    # Below the cap a fifth box still pays out: the control that the capped case below can tell apart.
    t = Table(_five_sizes(start, nova_points=2, nova_boxes=(4, 6, 8, 10)))
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="E"), faces=[1, 2])
    assert t.state.fighter("luwe").nova_points == 3 and t.state.fighter("luwe").nova_boxes == ()
    # At the cap (Livability 3) the fifth box clears the boxes as usual but adds no point.
    t = Table(_five_sizes(start, nova_points=3, nova_boxes=(4, 6, 8, 10)))
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="E"), faces=[1, 2])
    luwe = t.state.fighter("luwe")
    assert luwe.nova_points == 3 == t.state.livability
    assert luwe.nova_boxes == ()
    # Further rolls tick boxes again from empty; the points never pass the cap.
    for skill, faces in zip("ABCD", [[1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6]], strict=True):
        t.do(bb.SkillRoll(actor="luwe", skill=skill), faces=faces)
    assert t.state.fighter("luwe").nova_boxes == (4, 6, 8, 10)
    assert t.state.fighter("luwe").nova_points == 3
    # A sheet that carries more Nova points than this ship's Livability is capped on entry.
    over = replace(start.fighter("luwe"), nova_points=5)
    assert bb.initial_state((over,) + start.fighters[1:], livability=2, settings={}).fighter("luwe").nova_points == 2


@given(livability=st.integers(1, 6), changes=st.lists(st.integers(-4, 4), max_size=12))
def test_the_gms_nova_changes_never_take_points_past_livability_or_below_zero(livability, changes):
    """Nova points are "capped at the ship's Livability Rating" (rules notes): a GM's change that would pass the cap
    or go below 0 is refused whole; every other one lands exactly."""
    t = Table(bb.initial_state((pc("luwe", "Luwe"),), livability=livability, settings={}))
    for change in changes:
        before = t.state.fighter("luwe").nova_points
        try:
            t.do(bb.AdjustNova(target="luwe", change=change))
        except RuleError:
            assert t.state.fighter("luwe").nova_points == before
            assert change == 0 or not 0 <= before + change <= livability
            continue
        assert t.state.fighter("luwe").nova_points == before + change
        assert 0 <= t.state.fighter("luwe").nova_points <= livability


def test_changing_a_declaration_costs_the_collapse_setting(start):
    t = Table(start)
    declare_all(t)
    sword = next(d for d in t.state.declarations if d.enemy == "boss")
    before = t.state
    [e] = t.do(bb.ChangeDeclaration(declaration=sword.id, target="furo", text="plasma whip"))
    assert e == bb.DeclarationChanged(id=sword.id, target="furo", text="plasma whip", cost=1)
    changed = t.state.declaration(sword.id)
    assert (changed.target, changed.text, changed.enemy) == ("furo", "plasma whip", "boss")
    assert t.state.collapse == 1
    assert bb.describe(before, e) == "The GM changes a declared action to: plasma whip against Furo (1 Collapse)."
    assert bb.describe(before, e, gm=False) == "The GM changes a declared action to: plasma whip against Furo."
    # The cost is the setting's, and the GM must hold it.
    pricey = Table(bb.initial_state(start.fighters, 3, {"change_cost": 2}))
    declare_all(pricey)
    sword = next(d for d in pricey.state.declarations if d.enemy == "boss")
    [e] = pricey.do(bb.ChangeDeclaration(declaration=sword.id, text="lunges"))
    assert e.cost == 2 and pricey.state.collapse == 0
    assert pricey.state.declaration(sword.id).target == "balla"  # no new target: the old one stays
    with pytest.raises(RuleError, match=r"^Changing a declared action costs 2 Collapse points\.$"):
        pricey.do(bb.ChangeDeclaration(declaration=sword.id, text="retreats"))
    assert pricey.state.declaration(sword.id).text == "lunges"
    free = Table(replace(bb.initial_state(start.fighters, 3, {"change_cost": 0}), collapse=0))
    declare_all(free)
    [e] = free.do(bb.ChangeDeclaration(declaration=1, text="feints"))
    assert e.cost == 0 and free.state.collapse == 0


def test_a_declaration_cannot_change_to_an_unseen_target_or_in_phase_three(start):
    unaware = replace(start.fighter("captain"), aware_of=("luwe",))
    t = Table(_with(start, unaware))
    t.do(bb.Declare(enemy="captain", target="luwe"))
    with pytest.raises(RuleError, match=r"^Pirate captain is not aware of Furo\.$"):
        t.do(bb.ChangeDeclaration(declaration=1, target="furo"))
    t.do(bb.Declare(enemy="boss", target="balla"))
    t.do(bb.Declare(enemy="grunt", target="balla"))
    t.do(bb.StartPlayers())
    for who in ("luwe", "balla", "furo"):
        t.do(bb.ClaimTurn(actor=who))
        t.do(bb.EndTurn(actor=who))
    t.do(bb.StartEnemies())
    with pytest.raises(RuleError, match="before Phase 3"):
        t.do(bb.ChangeDeclaration(declaration=1, text="flees"))
    assert t.state.collapse == 2


def test_an_extra_attack_is_bought_in_phase_two_only_while_a_pc_has_a_turn(start):
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.EndTurn(actor="luwe"))
    [e] = t.do(bb.Declare(enemy="captain", target="furo", text="grenade", extra=True))
    assert e.extra and t.state.phase == 2 and t.state.collapse == 1
    assert [d.enemy for d in t.state.declarations if d.extra] == ["captain"]
    t.do(bb.ClaimTurn(actor="balla"))
    t.do(bb.EndTurn(actor="balla"))
    # Furo is the last PC with a turn; once he is at 0 Health Levels nobody has a turn left.
    t.do(bb.AdjustHealth(target="furo", change=-3))
    refusal = r"^Extra attacks are bought in Phase 1, or in Phase 2 while a PC still has a turn\.$"
    with pytest.raises(RuleError, match=refusal):
        t.do(bb.Declare(enemy="boss", target="luwe", extra=True))
    t.do(bb.AdjustHealth(target="furo", change=3))
    t.do(bb.ClaimTurn(actor="furo"))
    t.do(bb.EndTurn(actor="furo"))
    with pytest.raises(RuleError, match=refusal):
        t.do(bb.Declare(enemy="boss", target="luwe", extra=True))
    assert t.state.collapse == 1 and len(t.state.declarations) == 4
    # Without a Collapse point there is no extra attack, even in Phase 1.
    broke = Table(replace(start, collapse=0))
    with pytest.raises(RuleError, match="^An extra enemy attack costs 1 Collapse point and the GM has none.$"):
        broke.do(bb.Declare(enemy="boss", target="luwe", extra=True))


def test_a_pc_attacks_only_enemies_it_is_aware_of(start):
    luwe = replace(start.fighter("luwe"), aware_of=("boss",))
    t = Table(_with(start, luwe))
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    with pytest.raises(RuleError, match=r"^Luwe is not aware of Pirate captain\.$"):
        t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="captain"))
    assert t.state.fighter("captain").health == 2 and t.state.turn_rolls == 0  # nothing rolled, nothing ticked
    assert t.state.fighter("luwe").nova_boxes == ()
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[3, 9])
    assert t.state.fighter("boss").health == 2


def test_nova_points_are_spent_at_any_time_but_not_at_zero(start):
    rich = _with(start, replace(start.fighter("luwe"), nova_points=2), replace(start.fighter("balla"), nova_points=2))
    t = Table(rich)
    # Phase 1, nobody's turn: spending is still allowed.
    [e] = t.do(bb.SpendNova(actor="luwe", points=1, note="  overcharge   shields "))
    assert e == bb.NovaSpent(fighter="luwe", points=1, note="overcharge shields")
    assert t.state.fighter("luwe").nova_points == 1 and t.state.phase == 1
    assert bb.describe(rich, e) == "Luwe spends 1 Nova point: overcharge shields."
    with pytest.raises(RuleError, match=r"^Luwe has 1 Nova point\.$"):
        t.do(bb.SpendNova(actor="luwe", points=2))
    with pytest.raises(RuleError, match="Only player characters"):
        t.do(bb.SpendNova(actor="boss", points=1))
    # Ballallanava holds 2 points, but at 0 Health Levels cannot spend them.
    t.do(bb.AdjustHealth(target="balla", change=-3))
    with pytest.raises(RuleError, match=r"^Ballallanava is at 0 Health Levels and cannot spend Nova points\.$"):
        t.do(bb.SpendNova(actor="balla", points=1))
    assert t.state.fighter("balla").nova_points == 2


def test_a_pc_at_zero_health_cannot_take_a_turn(start):
    t = Table(start)
    declare_all(t)
    t.do(bb.AdjustHealth(target="balla", change=-3))
    with pytest.raises(RuleError, match=r"^Ballallanava is at 0 Health Levels and cannot act\.$"):
        t.do(bb.ClaimTurn(actor="balla"))
    with pytest.raises(RuleError, match=r"^Ballallanava is at 0 Health Levels and cannot act\.$"):
        t.do(bb.PickNext(next="balla"))
    assert t.state.turn == ""
    # The others take their turns and Phase 3 can start without her.
    for who in ("luwe", "furo"):
        t.do(bb.ClaimTurn(actor=who))
        t.do(bb.EndTurn(actor=who))
    assert t.state.pcs_left() == ()
    t.do(bb.StartEnemies())
    assert t.state.phase == 3


def test_entered_dice_are_marked_in_the_log(start):
    t = Table(replace(start, settings={"entered_dice": True}))
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage"), faces=[2, 5])  # server dice
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss", entered=(4, 4, 1)))
    t.do(bb.SpendAdvantage(actor="luwe", die=1, entered=(6,)))
    sentences = []
    state = t.initial
    for item in t.log:
        for gm in (True, False):
            sentences.append(bb.describe(state, item.event, gm=gm))
        state = bb.evolve(state, item.event)
    assert "Luwe rolls Knowledge to create an advantage at complexity 2: 2d8 show 2, 5; the roll succeeds." in sentences
    entered_roll = (
        "Luwe rolls Melee to attack Nivick boss at complexity 3: 3d8 show 4, 4, 1 (entered); the roll fails on doubles."
    )
    assert sentences.count(entered_roll) == 2  # the GM's log and the players' log alike
    assert sentences.count("Luwe spends an Advantage to reroll die 2: it shows 6 (entered).") == 2
    assert not any("(entered)" in s for s in sentences if "Knowledge" in s)
    assert t.state.fighter("boss").health == 2  # the entered reroll rescued the attack


def _play_every_kind(start):
    """A short encounter whose log holds every Burn Bryte event and which issues every command."""
    lurker = enemy("lurker", "Lurker", aware=())  # no PC is aware of it until the GM reveals it
    grenade = bb.Weapon(name="grenade", burst=2)  # furo's Burst weapon (gear)
    fighters = tuple(replace(f, weapon=grenade) if f.id == "furo" else f for f in (*start.fighters, lurker))
    fighters = tuple(replace(f, shield_max=2) if f.id == "balla" else f for f in fighters)  # a spent shield
    t = Table(bb.initial_state(fighters, 3, {"entered_dice": True, "typed_damage": True}, ship=("Ark", 3, 3)))
    t.do(bb.Place(fighter="luwe", to="A1"))  # positions: Luwe and the boss adjacent, the rest off the grid
    t.do(bb.Place(fighter="boss", to="B2"))
    declare_all(t)
    t.do(bb.Declare(enemy="boss", target="luwe", text="claw", extra=True))
    t.do(bb.ChangeDeclaration(declaration=1, target="furo", text="plasma whip"))
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.FreeMove(actor="luwe", to="A2"))  # still beside the boss
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage", note="reads the map"), faces=[1, 2])
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss", damage=2, entered=(3, 3, 1)))
    t.do(bb.SpendAdvantage(actor="luwe", die=0), faces=[5])
    t.do(bb.EndTurn(actor="luwe"))
    t.do(bb.PickNext(next="balla"))  # the GM picks; from now on the finishing PC picks
    t.do(bb.SkillRoll(actor="balla", skill="Presence", intent="defend", target="3"), faces=[2, 2])
    t.do(bb.ResolveFailure(choice="collapse"))
    t.do(bb.PickNext(actor="balla", next="furo"))
    t.do(bb.SkillRoll(actor="furo", skill="Athletics", intent="attack", at="C3"), faces=[1, 2])  # a Burst's point
    t.do(bb.PlaceBurst(targets=("captain",)))
    t.do(bb.DamageShip(change=-1))
    t.do(bb.EndTurn(actor="furo"))
    t.do(bb.SpendNova(actor="furo", points=1, note="surge"))
    t.do(bb.SpendCollapse(enemy="captain", points=1, note="smoke bomb"))
    t.do(bb.AdjustHealth(target="balla", change=-1))
    t.do(bb.AdjustNova(target="luwe", change=1))
    t.do(bb.SetCondition(target="balla", slot="neg_moderate", value="Social"))
    t.do(bb.RechargeShield(target="balla", points=1))
    t.do(bb.StartEnemies())
    t.do(bb.MoveEnemy(enemy="boss", to="C3"))
    for d in t.state.declarations:
        t.do(bb.Resolve(declaration=d.id, outcome="missed" if d.enemy == "captain" else "hit"))
    t.do(bb.NextRound())
    t.do(bb.Reveal(fighter="lurker"))
    for e in t.state.enemies():
        if not e.down and e.aware_of:
            t.do(bb.Declare(enemy=e.id, target="luwe"))
    t.do(bb.StartPlayers())
    t.do(bb.SkipTurn(pc="balla"))  # Ballallanava's player is away this round
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SpendNova(actor="luwe", points=1, roll=True, note="star lance"))  # a Nova ability with a roll
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage"), faces=[1, 2])
    t.do(bb.UseAdvantages(actor="furo", points=1, note="rally"))  # out of turn, from the party's pool
    t.do(FreeRoll(actor="luwe", notation="3d8", show="self"), faces=[1, 2, 2])
    return t


def test_every_event_kind_and_command_round_trips_through_json(start):
    """Every class in EVENTS and COMMANDS has a sample here; a new kind without one fails this test."""
    rich = _with(start, replace(start.fighter("furo"), nova_points=1))
    t = _play_every_kind(rich)
    samples = {}
    for item in t.log:
        samples.setdefault(type(item.event), []).append(item.event)
    for cls in bb.EVENTS:
        assert samples.get(cls), f"no {cls.kind} event in the sample play"
        for event in samples[cls]:
            payload = json.loads(json.dumps(bb.CODEC.event_to_json(event)))
            assert payload["kind"] == cls.kind
            back = bb.CODEC.event_from_json(payload)
            assert back == event and type(back) is cls
    assert {e.kind for e in bb.EVENTS} <= set(bb.CODEC.events) and len({e.kind for e in bb.EVENTS}) == len(bb.EVENTS)
    # A sample carries real values, not only defaults (an entered roll, a non-default intent, a chain pick ...).
    [entered] = [e for e in samples[bb.SkillRolled] if e.roll.entered]
    assert entered.roll.faces == (3, 3, 1) and entered.roll.damage == 2
    # The log's own markers round trip through the same codec.
    for marker in (Undone(seqs=(1, 2)), Ended()):
        assert bb.CODEC.event_from_json(json.loads(json.dumps(bb.CODEC.event_to_json(marker)))) == marker
    assert {m.kind for m in MARKERS} == {"undone", "encounter_ended"}

    issued = {}
    for command in t.commands:
        issued.setdefault(type(command), []).append(command)
    for cls in bb.COMMANDS:
        assert issued.get(cls), f"no {cls.name} command in the sample play"
        for command in issued[cls]:
            data = json.loads(json.dumps(to_json(command)))
            assert from_json(cls, data) == command
            assert bb.CODEC.command_from_json(cls.name, data) == command
        assert from_json(cls, json.loads(json.dumps(to_json(cls())))) == cls()
    # The state after all of it, with a live roll, declarations and conditions, round trips as well.
    for state in (t.state, replay(bb.evolve, t.initial, t.log[:8])):
        assert from_json(bb.State, json.loads(json.dumps(to_json(state)))) == state
