"""The table's dice roller (issue 19, "A dice roller for the table (all models)"): the notation, and the shared
FreeRoll command every model accepts at any time without changing the fight.

Issue 19: "Anyone can make a free roll from a phone (dice notation like `3d6+2`, `2d10`, `k+1` dice for Burn Bryte
skills), visible to all, to the GM only, or to self; the GM can roll secretly. [...] Notation is parsed with clear
errors for bad input and limits (no 10,000d10000)."
"""

import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from combat.rules import burn_bryte as bb
from combat.rules import expanse as ex
from combat.rules import hero as h
from combat.rules import notation
from combat.rules import sw5e as sw
from combat.rules.core import Logged, RuleError, replay, wording
from combat.rules.dice import Dice, ScriptedDice
from combat.rules.free_roll import NOT_HERE, DiceRolled, FreeRoll, own_sentence
from tests.combat import test_burn_bryte_rules as bbt
from tests.combat import test_expanse_rules as ext
from tests.combat import test_hero_rules as ht
from tests.combat import test_sw5e_rules as swt

# --- the notation ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("3d6+2", "3d6+2"),
        ("2d10", "2d10"),
        ("d20", "1d20"),
        (" 2D6 + 1d4 - 1 ", "2d6+1d4-1"),
        ("d%", "1d100"),
        ("4d8", "4d8"),
    ],
)
def test_notation_is_read_and_written_back_plainly(text, written):
    assert notation.normal(notation.parse(text)) == written


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("", "Type the dice to roll, for example 2d6+1."),
        ("two dice", "That is not dice notation: write it like 2d6+1, 3d8 or d20."),
        ("3d6*2", "That is not dice notation"),
        ("2d6++1", "That is not dice notation"),
        ("5", "A roll needs at least one die, for example 1d20+3."),
        ("10000d10000", "Numbers in a roll go up to 1000."),
        ("101d6", "A roll has at most 100 dice."),
        ("60d6+41d6", "A roll has at most 100 dice."),
        ("1d1001", "A die has 2 to 1000 sides."),
        ("2d1", "A die has 2 to 1000 sides."),
        ("0d6", "Roll at least one die of each kind."),
        ("1d20-1d4", "Dice are added, not taken away"),
        ("+".join(["d6"] * 11), "A roll has at most 10 parts."),
        ("1d6+" * 30, "That is too long to be a roll"),
    ],
)
def test_bad_notation_is_refused_with_a_sentence(text, sentence):
    with pytest.raises(RuleError, match=re.escape(sentence)):
        notation.parse(text)


TERMS = st.lists(
    st.one_of(
        st.tuples(st.just(1), st.integers(1, 10), st.integers(2, 1000)),
        st.tuples(st.sampled_from([1, -1]), st.integers(0, 1000), st.just(0)),
    ),
    min_size=1,
    max_size=notation.MAX_LENGTH // len("+10d1000"),  # the longest term written: a roll that fits the length limit
).filter(lambda ts: any(s for _, _, s in ts))


@given(TERMS, st.integers(0, 2**32))
def test_every_roll_totals_within_its_bounds_and_every_face_fits_its_die(terms, seed):
    text = "".join(("-" if sign < 0 else "+") + (f"{n}d{s}" if s else str(n)) for sign, n, s in terms).lstrip("+")
    parsed = notation.parse(text)
    assert notation.parse(notation.normal(parsed)) == parsed  # the log's notation reads back the same
    state = h.initial_state(ht.FIGHTERS, {})

    class Seeded(Dice):
        def __init__(self):
            self._rng = random.Random(seed)

    [event] = h.decide(state, FreeRoll(notation=text), Seeded())
    low, high = notation.bounds(parsed)
    assert low <= event.total <= high
    for term, faces in zip([t for t in parsed if t.sides], notation.split(parsed, event.faces), strict=True):
        assert len(faces) == term.count and all(1 <= f <= term.sides for f in faces)


# --- every model takes a roll at any time, and nothing changes ----------------------------------------------------


def hero_states():
    before = h.initial_state(ht.FIGHTERS, {})
    [begun] = [replay(h.evolve, before, _logged(h.decide(before, h.NextSegment(), ScriptedDice([])), before))]
    return h, before, begun


def _logged(events, state):
    return [Logged(seq=i, event=e) for i, e in enumerate(events, start=1)]


def bb_states():
    fighters = (bbt.pc("luwe", "Luwe", Melee=8), bbt.pc("balla", "Balla", owner=2, Presence=10), bbt.enemy("boss", "B"))
    before = bb.initial_state(fighters, livability=2, settings={})
    t = bbt.Table(bb.initial_state(fighters, 2, {"surprise": "pcs"}))
    t.do(bb.ClaimTurn(actor="luwe"))
    return bb, before, t.state


def expanse_states():
    return ex, ext.encounter(), ext.begun().state


def sw5e_states():
    return sw, swt.table(), swt.fresh_combat(1).state


MODELS = {"hero": hero_states, "burn_bryte": bb_states, "expanse": expanse_states, "sw5e": sw5e_states}


def _state(value):
    return getattr(value, "state", value)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("when", [1, 2])
def test_every_model_takes_a_roll_before_and_during_the_fight_and_nothing_changes(model, when):
    engine, *states = MODELS[model]()
    state = _state(states[when - 1])
    pc = state.pcs()[0]
    [event] = engine.decide(state, FreeRoll(actor=pc.id, notation="2d6+1"), ScriptedDice([3, 5]))
    assert event == DiceRolled(roller=pc.id, notation="2d6+1", faces=(3, 5), total=9, show="all")
    assert engine.evolve(state, event) == state
    gm_text, players_text = wording(engine.describe, state, event)
    doubles = " — no doubles" if model == "burn_bryte" else ""
    assert players_text == gm_text == f"{pc.name} rolls 2d6+1: 2d6 (3, 5) + 1 = 9{doubles}."
    assert engine.CODEC.event_from_json(engine.CODEC.event_to_json(event)) == event  # stored and read back


@pytest.mark.parametrize("model", MODELS)
def test_a_roll_to_the_gm_and_a_self_roll_never_reach_other_players(model):
    engine, _, begun = MODELS[model]()
    state = _state(begun)
    pc = state.pcs()[0]
    [to_gm] = engine.decide(state, FreeRoll(actor=pc.id, notation="1d20", show="gm"), ScriptedDice([17]))
    assert to_gm.audience == "gm"
    assert wording(engine.describe, state, to_gm) == (f"{pc.name} rolls for the GM: 1d20: 1d20 (17) = 17.", "")
    [own] = engine.decide(state, FreeRoll(actor=pc.id, notation="1d20", show="self"), ScriptedDice([4]))
    assert own.audience == "gm"
    # The GM learns only that a roll was made; its roller reads the result on their own phone.
    assert wording(engine.describe, state, own) == (f"{pc.name} rolled dice for their own eyes only.", "")
    assert own_sentence(own) == "You rolled for yourself: 1d20: 1d20 (4) = 4."
    [secret] = engine.decide(state, FreeRoll(notation="d%", show="gm"), ScriptedDice([42]))
    assert wording(engine.describe, state, secret) == ("The GM rolls in secret: 1d100: 1d100 (42) = 42.", "")


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(
    ("actor", "show", "sentence"),
    [
        ("", "self", "Choose who sees the GM's roll: everyone, or no one but the GM."),
        ("pc", "nobody", "Choose who sees the roll: everyone, you and the GM, or only you."),
        ("enemy", "all", "Only a player character rolls in its own name; the GM rolls as the GM."),
    ],
)
def test_a_roll_with_a_wrong_audience_or_roller_is_refused(model, actor, show, sentence):
    engine, _, begun = MODELS[model]()
    state = _state(begun)
    ids = {"": "", "pc": state.pcs()[0].id, "enemy": next(f.id for f in state.fighters if f.side != "pc")}
    with pytest.raises(RuleError, match=sentence):
        engine.decide(state, FreeRoll(actor=ids[actor], notation="1d6", show=show), ScriptedDice([1]))


def test_burn_bryte_says_whether_a_skill_roll_shows_doubles():
    """Rules notes, Skill rolls: "A roll of complexity N rolls N dice of the skill's size. It succeeds iff no two
    dice show the same face." A free 3d8 is such a roll: the log says doubles or no doubles."""
    _, _, state = bb_states()
    [twice] = bb.decide(state, FreeRoll(actor="luwe", notation="3d8"), ScriptedDice([2, 5, 5]))
    assert bb.describe(state, twice) == "Luwe rolls 3d8: 3d8 (2, 5, 5) = 12 — doubles."
    [clean] = bb.decide(state, FreeRoll(actor="luwe", notation="3d8"), ScriptedDice([2, 5, 7]))
    assert bb.describe(state, clean) == "Luwe rolls 3d8: 3d8 (2, 5, 7) = 14 — no doubles."


# --- Burn Bryte's k+1 skill rolls -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "offset"),
    [("k", 0), ("k+1", 1), (" K + 2 ", 2), ("k-1", -1), ("k+1d6", None), ("kk", None), ("2d6", None), ("k+1000", None)],
)
def test_k_notation_is_read_as_what_it_adds_to_k(text, offset):
    assert notation.skill_offset(text) == offset


def test_a_k_plus_1_roll_takes_its_dice_from_the_character_and_the_turn():
    """Seed 000 (Burn Bryte, via seeds/README.md: "k-th roll of a turn = k+1 dice, any doubles fails") and its
    example: "She rolls 2d8 [...] She rolls 3d10 as this is the second action during her turn." The player writes
    k+1 and picks the skill; the server counts k and reads the skill's die size from the sheet."""
    _, before, state = bb_states()  # before: Phase 1; state: Luwe's turn has begun, no skill roll made yet
    assert state.turn == "luwe" and state.turn_rolls == 0
    [first] = bb.decide(state, FreeRoll(actor="luwe", notation="k+1", skill="Melee"), ScriptedDice([1, 7]))
    assert (first.notation, first.faces, first.skill) == ("2d8", (1, 7), "Melee")
    assert bb.describe(state, first) == "Luwe rolls Melee 2d8: 2d8 (1, 7) = 8 — no doubles."
    # After her first skill roll of the turn, k is 2: k+1 is 3 dice, and a free roll leaves the count alone.
    rolled = bb.evolve(
        state, *bb.decide(state, bb.SkillRoll(actor="luwe", skill="Melee", intent="other"), ScriptedDice([1, 7]))
    )
    assert bb.evolve(rolled, first) == rolled
    [second] = bb.decide(rolled, FreeRoll(actor="luwe", notation="k+1", skill="Melee"), ScriptedDice([8, 6, 6]))
    assert (second.notation, second.total) == ("3d8", 20)
    assert bb.describe(rolled, second) == "Luwe rolls Melee 3d8: 3d8 (8, 6, 6) = 20 — doubles."
    [k] = bb.decide(rolled, FreeRoll(actor="luwe", notation="k", skill="Melee", show="self"), ScriptedDice([3, 4]))
    assert own_sentence(k, doubles=True) == "You rolled for yourself: Melee 2d8: 2d8 (3, 4) = 7 — no doubles."
    # Outside their turn (here Ballallanava's in Phase 2, and anyone's in Phase 1) a roll is the turn's first.
    [other] = bb.decide(rolled, FreeRoll(actor="balla", notation="k+1", skill="Presence"), ScriptedDice([9, 2]))
    assert other.notation == "2d10"
    [early] = bb.decide(before, FreeRoll(actor="luwe", notation="k+2", skill="Melee"), ScriptedDice([1, 2, 3]))
    assert early.notation == "3d8"
    assert bb.CODEC.event_from_json(bb.CODEC.event_to_json(second)) == second


@pytest.mark.parametrize(
    ("actor", "text", "skill", "sentence"),
    [
        ("luwe", "k+1", "Presence", "Luwe has no Presence skill."),
        ("luwe", "k+1", "Piloting", "Choose one of Luwe's skills."),
        ("luwe", "k+1", "", "Choose the skill to roll k dice for."),
        ("", "k+1", "Melee", "Roll k dice as your character: the dice come from their skill."),
        ("luwe", "k-1", "Melee", "Roll at least one die of each kind."),
        ("luwe", "k+999", "Melee", "A roll has at most 100 dice."),
        ("luwe", "k+1+2", "Melee", "That is not dice notation"),
    ],
)
def test_a_wrong_k_roll_is_refused_with_a_sentence(actor, text, skill, sentence):
    _, _, state = bb_states()
    with pytest.raises(RuleError, match=re.escape(sentence)):
        bb.decide(state, FreeRoll(actor=actor, notation=text, skill=skill), ScriptedDice([]))


@pytest.mark.parametrize("model", ["hero", "expanse", "sw5e"])
def test_other_models_say_only_burn_bryte_rolls_k_dice(model):
    engine, _, begun = MODELS[model]()
    state = _state(begun)
    with pytest.raises(RuleError, match=re.escape(NOT_HERE)):
        engine.decide(state, FreeRoll(actor=state.pcs()[0].id, notation="k+1", skill="Melee"), ScriptedDice([]))
