"""Burn Bryte positions and ranges with scripted dice (issue 18): squares on a grid, a PC's free and rolled moves,
an attack's reach, an enemy's Phase 3 movement and out-of-range declared attacks, and a Burst's area. Each test
cites ../shared/rules/burn-bryte.md; without positions nothing is checked (the stored logs replay unchanged)."""

from dataclasses import replace

import pytest

from combat.rules import burn_bryte as bb
from combat.rules.burn_bryte import positions
from combat.rules.core import RuleError, replay
from tests.combat.test_burn_bryte_rules import Table, enemy, pc

UNARMED = bb.Weapon()


def fight(*places, luwe_weapon=UNARMED, extra=(), **settings):
    """Luwe (Melee d8, Ranged d10, Presence d10, Athletics d8, speed 5) and Furo against a boss and a grunt, the
    PCs surprising them so Luwe's turn starts at once; `places` are (who, square) the GM sets first."""
    luwe = replace(pc("luwe", "Luwe", Melee=8, Ranged=10, Presence=10, Athletics=8), weapon=luwe_weapon)
    fighters = (luwe, pc("furo", "Furo", owner=2, Athletics=8), enemy("boss", "Boss", 3), enemy("grunt", "Grunt"))
    t = Table(bb.initial_state(fighters + tuple(extra), 3, {"surprise": "pcs", **settings}))
    for who, square in places:
        t.do(bb.Place(fighter=who, to=square))
    t.do(bb.ClaimTurn(actor="luwe"))
    return t


def words(t, gm=True):
    state = replay(bb.evolve, t.initial, t.log[:-1])
    return bb.describe(state, t.log[-1].event, gm)


def refused(t, command, sentence, faces=()):
    before = t.state
    with pytest.raises(RuleError) as error:
        t.do(command, faces)
    assert str(error.value) == sentence
    assert t.state == before  # a refused command changes nothing


def test_squares_are_a_column_letter_and_a_row_number():
    assert positions.parse_square(" c 5 ") == (3, 5) and positions.square_name(3, 5) == "C5"
    for bad in ("", "5C", "C0", "C100", "?3"):
        with pytest.raises(RuleError, match="e.g. C5"):
            positions.parse_square(bad)


def test_the_gm_places_and_moves_anyone_and_it_is_logged_and_undone():
    """Brief: the GM places combatants, logged and undoable like other events."""
    t = fight(("luwe", "A1"))
    t.do(bb.Place(fighter="boss", to="D4"))
    assert words(t) == "The GM places Boss on D4."
    assert (t.state.fighter("boss").col, t.state.fighter("boss").row) == (4, 4)
    refused(t, bb.Place(fighter="grunt", to="d4"), "D4 is taken by Boss.")
    t.undo_last()
    assert not positions.placed(t.state.fighter("boss"))
    t.do(bb.Place(fighter="luwe", to=""))
    assert words(t) == "The GM takes Luwe off the grid."


def test_the_free_move_reaches_the_pcs_speed_and_names_the_square():
    """Notes: "Free movement once per turn: up to speed (default 5 squares)". Diagonals count 1 (the default)."""
    t = fight(("luwe", "A1"))
    refused(
        t,
        bb.FreeMove(actor="luwe", to="G7"),
        "G7 is 6 squares away; Luwe's free move reaches 5 (roll a skill to move further).",
    )
    t.do(bb.FreeMove(actor="luwe", to="E5"))  # 4 across, 4 down: 4 squares on the diagonal
    assert words(t) == "Luwe moves 4 squares to E5 (free move)."
    refused(
        t,
        bb.FreeMove(actor="luwe", to="E6"),
        "Luwe has already used the free move this turn; roll a skill to move again.",
    )


def test_a_move_roll_grants_extra_squares_and_a_move_beyond_them_is_refused():
    """Notes: "extra movement needs a skill roll" (the next complexity of the turn); default setting extra_move: the
    PC's speed again."""
    t = fight(("luwe", "A1"))
    t.do(bb.FreeMove(actor="luwe", to="A6"))
    t.do(bb.SkillRoll(actor="luwe", skill="Athletics", intent="move"), faces=[2, 7])
    assert t.state.moves_left == 5
    refused(t, bb.FreeMove(actor="luwe", to="A12"), "A12 is 6 squares away; the move roll left Luwe 5 squares.")
    t.do(bb.FreeMove(actor="luwe", to="A9"))
    assert words(t) == "Luwe moves 3 squares to A9 (rolled movement)."
    assert t.state.moves_left == 2
    refused(t, bb.FreeMove(actor="luwe", to="A12"), "A12 is 3 squares away; the move roll left Luwe 2 squares.")
    t.do(bb.EndTurn(actor="luwe"))
    assert t.state.moves_left == 0  # what a roll granted ends with the turn


def test_a_first_move_that_needs_a_roll_loses_the_free_move():
    """Notes: "If the first move itself needs a roll ... it is a skill action and the free move is lost." The
    half-speed setting grants 3 of speed 5."""
    t = fight(("luwe", "A1"), extra_move="half")
    t.do(bb.SkillRoll(actor="luwe", skill="Athletics", intent="move", note="jumps the pit"), faces=[1, 2])
    assert t.state.free_move_used and t.state.moves_left == 3
    refused(t, bb.FreeMove(actor="luwe", to="A5"), "A5 is 4 squares away; the move roll left Luwe 3 squares.")
    t.do(bb.FreeMove(actor="luwe", to="A4"))
    refused(
        t,
        bb.FreeMove(actor="luwe", to="A5"),
        "Luwe has already used the free move this turn; roll a skill to move again.",
    )


def test_a_failed_move_roll_grants_nothing():
    """Notes: "On a failed roll the turn ends at once"."""
    t = fight(("luwe", "A1"))
    t.do(bb.SkillRoll(actor="luwe", skill="Athletics", intent="move"), faces=[4, 4])
    assert t.state.moves_left == 0 and t.state.pending_failure


def test_a_placed_pc_names_its_square_and_cannot_end_on_a_creature():
    """Our call: one creature above 0 Health Levels a square; one at 0 does not block."""
    t = fight(("luwe", "A1"), ("grunt", "B1"))
    refused(t, bb.FreeMove(actor="luwe", squares=3), "Luwe is on the grid: name the square to move to (e.g. C5).")
    refused(t, bb.FreeMove(actor="luwe", to="B1"), "B1 is taken by Grunt.")
    t.do(bb.AdjustHealth(target="grunt", change=-2))
    t.do(bb.FreeMove(actor="luwe", to="B1"))
    assert positions.square_name(t.state.fighter("luwe").col, t.state.fighter("luwe").row) == "B1"


def test_a_melee_attack_reaches_adjacent_squares_only():
    """Notes: "Physical ones adjacent ... — GM adjudicates"; default setting range_check: refuse, naming the
    distance."""
    t = fight(("luwe", "A1"), ("boss", "C3"), ("grunt", "B2"))
    refused(
        t,
        bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"),
        "Boss is 2 squares away: Luwe's Melee attack reaches adjacent squares.",
    )
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="grunt"), faces=[1, 2])
    assert t.state.fighter("grunt").health == 1


def test_ranged_mental_and_social_attacks_reach_five_squares_unless_the_weapon_says_more():
    """Notes: "Mental/Social attacks reach 5 squares, Physical ones adjacent (thrown Ranged 5 squares)"; the sheet's
    weapon range counts for Physical attacks."""
    t = fight(("luwe", "A1"), ("boss", "F1"), ("grunt", "G1"))
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[1, 2])
    t.do(bb.SkillRoll(actor="luwe", skill="Presence", intent="attack", target="boss"), faces=[1, 2, 3])
    refused(
        t,
        bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="grunt"),
        "Grunt is 6 squares away: Luwe's Ranged attack reaches 5 squares.",
    )
    t = fight(("luwe", "A1"), ("grunt", "G1"), luwe_weapon=bb.Weapon(name="long rifle", range=8))
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="grunt"), faces=[1, 2])
    assert t.state.fighter("grunt").health == 1


def test_the_gm_may_only_warn_or_not_check_range_at_all():
    """Setting range_check: "warn" rolls and the log keeps the distance; "off" checks nothing."""
    t = fight(("luwe", "A1"), ("boss", "J1"), range_check="warn")
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[1, 2])
    assert words(t) == (
        "Luwe rolls Ranged to attack Boss at complexity 2: 2d10 show 1, 2; the roll succeeds (out of range at 9 "
        "squares: the GM adjudicates)."
    )
    t = fight(("luwe", "A1"), ("boss", "J1"), range_check="off")
    [event] = t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[1, 2])
    assert event.roll.out_of_range == 0 and "out of range" not in words(t)


def test_without_positions_nothing_is_range_checked():
    """Old fights have no squares: an attack and a move are what they always were."""
    t = fight(("boss", "J9"))  # Luwe is not on the grid
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[1, 2])
    t.do(bb.FreeMove(actor="luwe", squares=5))
    assert words(t) == "Luwe moves 5 squares (free move)."


def test_manhattan_counting_has_no_diagonals():
    """Setting grid_distance: "manhattan" counts across plus along."""
    t = fight(("luwe", "A1"), ("grunt", "B2"), grid_distance="manhattan")
    refused(
        t,
        bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="grunt"),
        "Grunt is 2 squares away: Luwe's Melee attack reaches adjacent squares.",
    )


def phase_three(*places):
    """Round 1 with nobody surprised: the boss declares against Luwe (the grunt against Furo), both PCs' turns pass."""
    luwe = pc("luwe", "Luwe", Melee=8)
    fighters = (luwe, pc("furo", "Furo", owner=2), enemy("boss", "Boss", 3), replace(enemy("grunt", "Grunt"), speed=3))
    t = Table(bb.initial_state(fighters, 3, {}))
    for who, square in places:
        t.do(bb.Place(fighter=who, to=square))
    t.do(bb.Declare(enemy="boss", target="luwe", text="claw"))
    t.do(bb.Declare(enemy="grunt", target="furo", text="knife"))
    t.do(bb.StartPlayers())
    t.do(bb.SkipTurn(pc="luwe"))
    t.do(bb.SkipTurn(pc="furo"))
    t.do(bb.StartEnemies())
    return t


def test_an_enemy_splits_its_movement_around_its_action_up_to_its_speed():
    """Notes, Phase 3: every enemy "moves (it may split movement before and after its action, total at most its
    speed)"."""
    t = phase_three(("luwe", "A1"), ("furo", "A3"), ("boss", "D1"), ("grunt", "F3"))
    t.do(bb.MoveEnemy(enemy="grunt", to="D3"))
    assert words(t) == "Grunt moves 2 squares to D3."
    refused(
        t, bb.MoveEnemy(enemy="grunt", to="B3"), "B3 is 2 squares away; Grunt has 1 of its speed 3 left this round."
    )
    t.do(bb.Resolve(declaration=2, outcome="hit"))
    t.do(bb.MoveEnemy(enemy="grunt", to="C3"))  # the last square, after its action
    refused(t, bb.MoveEnemy(enemy="grunt", to="B3"), "B3 is 1 square away; Grunt has 0 of its speed 3 left this round.")
    t.do(bb.Resolve(declaration=1, outcome="hit"))
    t.do(bb.NextRound())
    assert t.state.fighter("grunt").moved == 0  # a new round, a new Phase 3


def test_enemies_move_only_in_phase_three():
    t = fight(("boss", "D1"))
    refused(t, bb.MoveEnemy(enemy="boss", to="D2"), "Enemies move in Phase 3 (the GM places anyone at any time).")


def test_a_declared_attack_out_of_range_does_nothing_unless_the_gm_resolves_it_anyway():
    """Notes: "A declared attack does nothing if ... its target is out of range (GM confirms)". The boss (no weapon,
    Ranged not below Melee) reaches 5 squares; Luwe is 7 away. The GM confirms the miss, or resolves it anyway."""
    t = phase_three(("luwe", "A1"), ("furo", "A3"), ("boss", "H1"), ("grunt", "B3"))
    assert positions.declared_out_of_range(t.state, t.state.declaration(1)) == 7
    assert positions.declared_out_of_range(t.state, t.state.declaration(2)) == 0
    t.do(bb.Resolve(declaration=1, outcome="missed"))
    assert words(t) == "Boss's claw misses Luwe (out of range: 7 squares)."
    assert t.state.fighter("luwe").health == 3
    t.undo_last()
    t.do(bb.Resolve(declaration=1, outcome="hit"))
    assert (
        words(t) == "Boss's claw hits Luwe for 1 Health Level (out of range at 7 squares: the GM resolved it anyway)."
    )
    assert t.state.fighter("luwe").health == 2


def test_a_burst_area_is_every_creature_within_n_squares_of_the_point():
    """Notes: "Burst N: every creature within N squares of a point" (the GM's form preselects them)."""
    t = fight(("luwe", "A1"), ("furo", "E5"), ("boss", "E3"), ("grunt", "F4"))
    e3 = positions.parse_square("E3")
    assert set(positions.within(t.state, e3, 1)) == {"boss", "grunt"}
    assert set(positions.within(t.state, e3, 2)) == {"boss", "grunt", "furo"}
    assert positions.within(t.state, e3, 9) == ("luwe", "furo", "boss", "grunt")


def test_a_burst_aimed_at_a_square_is_checked_like_an_attack():
    """Notes: "Burst N: every creature within N squares of a point, one roll"; the point is within the attack's reach
    ("thrown Ranged 5 squares")."""
    grenade = bb.Weapon(name="grenade", burst=1)
    t = fight(("luwe", "A1"), ("boss", "D4"), luwe_weapon=grenade)
    refused(
        t,
        bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", at="G7"),
        "G7 is 6 squares away: Luwe's Ranged attack reaches 5 squares.",
    )
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", at="e5"), faces=[1, 2])
    assert (t.state.pending_burst.at_col, t.state.pending_burst.at_row) == (5, 5)
    assert words(t).startswith("Luwe rolls Ranged to attack the area around E5 with grenade at complexity 2")
    refused(
        t,
        bb.SkillRoll(actor="luwe", skill="Melee", intent="other", at="B1"),
        "Only a Burst attack aims at a square.",
    )


def test_a_move_onto_an_unseen_enemy_is_refused_without_naming_it():
    """Players never learn an unseen enemy's name (core.Sight); the square is still taken."""
    t = fight(("luwe", "A1"), ("sniper", "B1"), extra=(enemy("sniper", "Hidden sniper", aware=()),))
    refused(t, bb.FreeMove(actor="luwe", to="B1"), "B1 is taken by someone unseen.")
