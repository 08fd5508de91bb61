"""Burn Bryte turn order fixes (issue 18) with scripted dice: every PC acts before Phase 3, a PC at 0 Health Levels
takes no actions, extra attacks never vanish with a skipped Phase 3, and any player spends the shared pool."""

from dataclasses import replace

import pytest

from combat.rules import burn_bryte as bb
from combat.rules.core import RuleError
from tests.combat.test_burn_bryte_rules import Table, declare_all, start  # noqa: F401 (start is a fixture)


def test_phase_three_waits_until_every_pc_has_had_a_turn(start):
    """Seed: "the GM selects one character to go first then that character chooses the next to act, and so on
    until all the characters have taken a turn.\""""
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[1, 7])
    t.do(bb.EndTurn(actor="luwe"))
    before = t.state
    with pytest.raises(RuleError, match=r"^Every PC takes a turn before Phase 3: Ballallanava, Furo still to act"):
        t.do(bb.StartEnemies())
    assert t.state == before and t.state.phase == 2
    t.do(bb.ClaimTurn(actor="furo"))
    t.do(bb.EndTurn(actor="furo"))
    with pytest.raises(RuleError, match="Ballallanava still to act"):
        t.do(bb.StartEnemies())
    [skipped] = t.do(bb.SkipTurn(pc="balla"))  # Ballallanava's player is away tonight
    assert bb.describe(before, skipped) == "The GM skips Ballallanava's turn this round."
    assert bb.describe(before, skipped, gm=False) == "The GM skips Ballallanava's turn this round."
    t.do(bb.StartEnemies())
    assert t.state.phase == 3
    # A new round gives the skipped PC a turn again.
    for d in t.state.declarations:
        if not d.outcome and not t.state.fighter(d.enemy).down:
            t.do(bb.Resolve(declaration=d.id, outcome="missed"))
    t.do(bb.NextRound())
    assert not t.state.fighter("balla").took_turn


def test_a_skip_is_refused_when_it_means_nothing(start):
    """Seed: "Each player character may only take one turn per round." A skip stands in for that one turn."""
    t = Table(start)
    with pytest.raises(RuleError, match="PCs are skipped in Phase 2"):
        t.do(bb.SkipTurn(pc="luwe"))
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    with pytest.raises(RuleError, match="Luwe is still taking their turn."):
        t.do(bb.SkipTurn(pc="furo"))
    t.do(bb.EndTurn(actor="luwe"))
    before = t.state
    with pytest.raises(RuleError, match="Luwe has already had a turn this round."):
        t.do(bb.SkipTurn(pc="luwe"))
    with pytest.raises(RuleError, match="Only player characters"):
        t.do(bb.SkipTurn(pc="boss"))
    assert t.state == before
    t.do(bb.SkipTurn(pc="furo"))
    with pytest.raises(RuleError, match="Furo has already taken a turn this round."):
        t.do(bb.ClaimTurn(actor="furo"))


def test_a_pc_dropped_to_zero_on_their_own_turn_stops_acting(start):
    """Seed: "player characters who have 0 health levels cannot spend Nova points"; notes: "At 0 Health Levels a
    creature takes no actions." The GM's consequence drops Furo mid-turn: his turn ends there."""
    furo = replace(start.fighter("furo"), nova_points=1)
    t = Table(replace(start, fighters=tuple(furo if f.id == "furo" else f for f in start.fighters)))
    declare_all(t)
    t.do(bb.PickNext(next="furo"))  # the GM picks: from now on the finisher picks
    t.do(bb.FreeMove(actor="furo", squares=2))
    events = t.do(bb.AdjustHealth(target="furo", change=-3))
    assert [type(e) for e in events] == [bb.HealthAdjusted, bb.TurnEnded] and events[1].down
    assert t.state.turn == "" and t.state.fighter("furo").took_turn
    assert t.state.picker == ""  # he cannot pick who goes next: the GM does
    before = t.state
    with pytest.raises(RuleError, match="It is not Furo's turn."):
        t.do(bb.SkillRoll(actor="furo", skill="Melee", intent="attack", target="boss"), faces=[1, 2])
    with pytest.raises(RuleError, match="Furo is at 0 Health Levels and cannot spend Nova points."):
        t.do(bb.SpendNova(actor="furo", points=1))
    assert t.state == before
    t.do(bb.PickNext(next="luwe"))  # the GM picks for him
    assert t.state.turn == "luwe"
    state = t.initial
    words = []
    for item in t.log:
        words.append(bb.describe(state, item.event))
        state = bb.evolve(state, item.event)
    assert "Furo's turn ends: at 0 Health Levels they take no actions." in words


def test_a_gm_setting_lets_a_pc_at_zero_spend_nova_points(start):
    """Seed: "...cannot spend Nova points (unless an ability specifies otherwise)": the GM may allow it."""
    furo = replace(start.fighter("furo"), nova_points=1, health=0)
    fighters = tuple(furo if f.id == "furo" else f for f in start.fighters)
    t = Table(bb.initial_state(fighters, 3, {"nova_at_zero": True}))
    t.do(bb.SpendNova(actor="furo", points=1, note="Last Stand"))
    assert t.state.fighter("furo").nova_points == 0


def test_a_pc_dropped_with_a_failed_roll_waiting_ends_on_the_gms_choice(start):
    """Seed: "the player character's turn ends immediately, and the GM can either invoke a failure effect as normal
    or gain 1 Collapse point": the failure still asks the GM, then the turn is over."""
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[4, 4])
    [hurt] = t.do(bb.AdjustHealth(target="luwe", change=-3))
    assert t.state.turn == "luwe" and t.state.pending_failure
    t.do(bb.ResolveFailure(choice="consequence", note="knocked out"))
    assert t.state.turn == "" and t.state.fighter("luwe").down


def test_an_extra_attack_is_refused_when_round_one_has_no_phase_three(start):
    """Seed notes: "PCs catch all enemies unaware → skip Phases 1 and 3 in round 1." An extra attack bought then
    would cost a Collapse point and never resolve: refused, and the point stays with the GM."""
    t = Table(bb.initial_state(start.fighters, 3, {"surprise": "pcs"}))
    assert t.state.phase == 2
    before = t.state
    with pytest.raises(RuleError, match="round 1 has no Phase 3 for an extra attack"):
        t.do(bb.Declare(enemy="boss", target="luwe", extra=True))
    assert t.state == before and t.state.collapse == 2
    for who in ("luwe", "balla", "furo"):
        t.do(bb.ClaimTurn(actor=who))
        t.do(bb.EndTurn(actor=who))
    t.do(bb.StartEnemies())
    assert (t.state.round, t.state.phase) == (2, 1)
    t.do(bb.Declare(enemy="boss", target="luwe", extra=True))  # from round 2 on it resolves in Phase 3
    assert t.state.collapse == 1


def test_any_pc_may_rescue_the_acting_pcs_failed_roll(start):
    """Seed: "These Advantages are kept in a shared pool and can be used by any player during an encounter."
    Furo (who has had his turn) spends one on Luwe's failed roll: 4, 4 becomes 4, 7 and hits."""
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="furo"))
    t.do(bb.SkillRoll(actor="furo", skill="Athletics", intent="advantage"), faces=[1, 2])
    t.do(bb.EndTurn(actor="furo"))
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[4, 4])
    failed = t.state
    [spent] = t.do(bb.SpendAdvantage(actor="furo", die=1), faces=[7])
    assert bb.describe(failed, spent) == "Furo spends an Advantage to reroll die 2 of Luwe's roll: it shows 7."
    assert t.state.advantages == 0 and not t.state.pending_failure and t.state.turn == "luwe"
    assert t.state.fighter("boss").health == 2


# --- Advantages on abilities, Nova abilities with a roll, the Nova cap ----------------------------------------


def test_any_pc_spends_the_partys_advantages_on_an_ability(start):
    """Notes: "Some abilities cost Advantages"; seed: the pool "can be used by any player during an encounter"."""
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage"), faces=[1, 2])
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="advantage"), faces=[1, 2, 3])
    assert t.state.advantages == 2
    before = t.state
    with pytest.raises(RuleError, match=r"^The party has 2 Advantages\.$"):
        t.do(bb.UseAdvantages(actor="furo", points=3))
    assert t.state == before
    [used] = t.do(bb.UseAdvantages(actor="furo", points=2, note="Coordinated Strike"))  # out of his turn
    assert t.state.advantages == 0 and t.state.turn == "luwe"
    assert bb.describe(before, used) == "Furo spends 2 of the party's Advantages on an ability: Coordinated Strike."


def test_a_nova_ability_with_a_skill_roll_waits_for_the_owners_turn(start):
    """Seed: "Nova abilities that require a skill roll can only be used during the activating character's turn";
    others "can be activated at any time in combat including on other player characters' turns"."""
    furo = replace(start.fighter("furo"), nova_points=2)
    t = Table(replace(start, fighters=tuple(furo if f.id == "furo" else f for f in start.fighters)))
    declare_all(t)
    before = t.state
    with pytest.raises(RuleError, match="A Nova ability that needs a skill roll is used on Furo's own turn."):
        t.do(bb.SpendNova(actor="furo", points=1, roll=True, note="Star Lance"))
    assert t.state == before
    t.do(bb.SpendNova(actor="furo", points=1, note="Shimmer"))  # no roll: any time, here in Phase 2 before his turn
    t.do(bb.ClaimTurn(actor="furo"))
    [spent] = t.do(bb.SpendNova(actor="furo", points=1, roll=True, note="Star Lance"))
    assert t.state.fighter("furo").nova_points == 0
    assert bb.describe(t.state, spent) == "Furo spends 1 Nova point on an ability with a skill roll: Star Lance."
    t.do(bb.SkillRoll(actor="furo", skill="Melee", intent="attack", target="boss", extra_damage=1), faces=[2, 5])
    assert t.state.fighter("boss").health == 1  # Star Lance's extra damage on top of the unarmed 1


def test_at_the_nova_cap_a_full_set_of_boxes_waits_for_room(start):
    """Notes: "when all five are ticked, +1 Nova point and clear the boxes. [...] capped at the ship's Livability
    Rating." At the cap the point is not lost: the boxes stay ticked (the default) until a point is spent."""
    luwe = replace(start.fighter("luwe"), nova_points=1, nova_boxes=(4, 6, 8, 10), skills={"Ranged": 12})
    fighters = tuple(luwe if f.id == "luwe" else f for f in start.fighters)
    t = Table(bb.initial_state(fighters, 1, {"nova_at_cap": "hold", "surprise": "pcs"}))
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[3, 9])
    assert (t.state.fighter("luwe").nova_points, t.state.fighter("luwe").nova_boxes) == (1, (4, 6, 8, 10, 12))
    before = t.state
    [spent] = t.do(bb.SpendNova(actor="luwe", points=1, note="Blink"))
    assert (t.state.fighter("luwe").nova_points, t.state.fighter("luwe").nova_boxes) == (1, ())
    assert bb.describe(before, spent).endswith("Their five ticked Nova boxes now give 1 Nova point.")
    # The other choice clears the boxes at the cap and the point is lost (what old fights replay to).
    t = Table(bb.initial_state(fighters, 1, {"nova_at_cap": "clear", "surprise": "pcs"}))
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[3, 9])
    assert (t.state.fighter("luwe").nova_points, t.state.fighter("luwe").nova_boxes) == (1, ())


def test_a_failed_roll_of_a_pc_at_zero_cannot_be_rescued(start):
    """Notes: "At 0 Health Levels a creature takes no actions": the failed roll stands and the GM ends the turn."""
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage"), faces=[1, 2])
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[4, 4, 1])
    t.do(bb.AdjustHealth(target="luwe", change=-3))
    before = t.state
    with pytest.raises(RuleError, match="Luwe is at 0 Health Levels: the failed roll stands."):
        t.do(bb.SpendAdvantage(actor="furo", die=0), faces=[7])
    assert t.state == before
    t.do(bb.ResolveFailure(choice="collapse"))
    assert t.state.turn == "" and t.state.advantages == 1
