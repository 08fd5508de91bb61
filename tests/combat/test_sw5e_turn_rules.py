"""SW5e turn rules fixed for issue 18, with scripted dice: GM-allowed actions that may repeat, the Regenerate
Shields action, surprise cleared for one crew member, one helm per round, bonus actions that name their action.

Seed: ../shared/seeds/001_a9fbea53989230b2.txt; notes: ../shared/rules/sw5e-starships.md."""

import json
from dataclasses import replace as fighter_with

from combat.rules import sw5e as sw
from combat.rules.core import replay
from combat.rules.sw5e import review
from combat.rules.sw5e.state import put_fighter
from combat.rules.sw5e.stats import BONUS_ACTIONS
from combat.tables import sw5e as sw_table
from tests.combat.test_sw5e_rules import Table, begin, crew_turn, frigate, hawk, table, to_next_round

# --- 1. an allowed action says whether it may repeat ---------------------------------------------------------------


def test_an_action_the_gm_allows_to_repeat_may_be_taken_by_several_crew_members_a_round():
    """Seed: "any action taken by a player with your ship can only be taken once per round unless otherwise
    stated. For example, although two different crewmembers could both cast the same force power or make an
    ability check with the Medicine skill, they could not both take an action granted by a ship modification"."""
    t = begin()
    t.do(sw.DistributePower(actor="kira"))
    [allowed] = t.do(sw.AllowAction(action="Medicine check", repeat=True))
    assert sw.describe(t.state, allowed) == (
        "The GM allows a new action: Medicine check (several crew members may take it each round)."
    )
    t.do(sw.AllowAction(action="Ship modification"))  # counts by name, as before
    crew_turn(
        t,
        "dex",
        sw.TakeAction(actor="dex", action="medicine check"),
        sw.TakeAction(actor="mira", action="ship modification", slot="reaction"),
    )
    t.do(sw.StartCrewTurn(actor="mira"))
    t.do(sw.TakeAction(actor="mira", action="Medicine check"))
    t.refused(sw.TakeAction(actor="kira", action="ship modification", slot="reaction"), "already taken Ship mod")
    t.do(sw.TakeAction(actor="kira", action="Medicine check", slot="reaction"))
    assert t.state.ship("hawk").actions == ("custom:ship modification",)
    offered = {a.label: a.note for a in sw_table.available_actions(t.state, t.state.ship("hawk"))}
    assert offered["Medicine check"] == "may repeat" and "Ship modification" not in offered


# --- 2. the Regenerate Shields action ------------------------------------------------------------------------------


def test_the_regenerate_shields_action_spends_and_rolls_a_shield_die_once_per_ship_turn():
    """Notes, common actions: "Regenerate Shields (spend a shield die)"; action economy: "Regenerate Shields once
    per ship turn". The Hawk is Medium: its shield die is a d8."""
    t = begin()
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="dex"))
    taken, rolled = t.do(sw.TakeAction(actor="dex", action="Regenerate Shields"), faces=[3])
    assert taken.action == "regenerate_shields" and (rolled.sides, rolled.face) == (8, 3)
    hawk = t.state.ship("hawk")
    assert (hawk.shields, hawk.shield_dice) == (19, 5)
    assert sw.describe(t.state, taken) == "Dex takes Regenerate Shields as an action."
    before = _state_before(t)
    assert (
        sw.describe(before, rolled) == "Dex spends a shield die: d8 shows 3, restoring 3 shield points (shields 19/20)."
    )
    assert review.facts(before, rolled).rolls[0].faces == (3,)
    t.do(sw.EndCrewTurn(actor="dex"))
    t.do(sw.StartCrewTurn(actor="mira"))
    t.refused(sw.TakeAction(actor="mira", action="regenerate_shields"), "already been used on Ebon Hawk this ship turn")
    assert "regenerate_shields" not in [a.value for a in sw_table.available_actions(t.state, t.state.ship("hawk"))]
    t.do(sw.EndCrewTurn(actor="mira"))
    to_next_round(t)
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="mira"))
    t.do(sw.TakeAction(actor="mira", action="regenerate_shields"), faces=[8])  # a new ship turn: 19 + 8, capped
    assert (t.state.ship("hawk").shields, t.state.ship("hawk").shield_dice) == (20, 4)


def test_the_regenerate_shields_action_restarts_downed_shields_but_not_full_ones():
    """Notes: "At 0 shield points passive regeneration stops (only actions, recharge or refit restore them)"."""
    t = begin(hawk_over={"shields": 0})
    t.do(sw.DistributePower(actor="kira"))
    t.refused(sw.RegenerateShields(actor="kira"), "shields are down")
    t.do(sw.StartCrewTurn(actor="dex"))
    t.do(sw.TakeAction(actor="dex", action="regenerate_shields"), faces=[5])
    assert t.state.ship("hawk").shields == 5
    full = begin(hawk_over={"shields": 20})
    full.do(sw.DistributePower(actor="kira"))
    full.do(sw.StartCrewTurn(actor="dex"))
    full.refused(sw.TakeAction(actor="dex", action="regenerate_shields"), "shields are already full")
    empty = begin(hawk_over={"shield_dice": 0})
    empty.do(sw.DistributePower(actor="kira"))
    empty.do(sw.StartCrewTurn(actor="dex"))
    empty.refused(sw.TakeAction(actor="dex", action="regenerate_shields"), "no shield dice left")


def test_the_regenerate_shields_action_is_taken_on_the_ships_own_turn_and_hides_npc_numbers():
    t = begin()
    t.do(sw.DistributePower(actor="kira"))
    for who in ("kira", "dex", "mira"):
        crew_turn(t, who)
    t.do(sw.EndShipTurn(actor="kira"), faces=[2])
    t.do(sw.DistributePower())
    t.refused(sw.TakeAction(actor="dex", action="regenerate_shields", slot="reaction"), "the ship's own turn")
    t.do(sw.StartCrewTurn(actor="vrask"))
    _, rolled = t.do(sw.TakeAction(actor="vrask", action="regenerate_shields"), faces=[7])
    before = _state_before(t)
    assert sw.describe(before, rolled, gm=False) == "Captain Vrask regenerates Imperial frigate's shields."
    assert review.facts(before, rolled, gm=False).rolls == ()
    assert "shows 7" in sw.describe(before, rolled, gm=True)


def _state_before(t):
    """The state the last event was applied to (to word it as the log does)."""
    return replay(sw.evolve, t.initial, t.log[:-1])


# --- 3. a crew member cleared of surprise aboard a surprised ship ---------------------------------------------------


def test_a_crew_member_cleared_of_surprise_acts_on_a_surprised_ship():
    """Seed: "Any ship that doesn't notice a threat is surprised at the start of the encounter. ... A member of a
    group can be surprised even if the other members aren't."."""
    t = table(frigate_over={"surprised": True})
    [cleared] = t.do(sw.SetSurprise(target="tolo", surprised=False))
    assert sw.describe(t.state, cleared) == "Tolo is not surprised."
    assert not t.state.surprised_now(t.state.fighter("tolo"))
    assert t.state.surprised_now(t.state.fighter("vrask"))
    rows = {r.key: r.surprised for r in sw_table._gm_view(t.state)["fighters"]}
    assert rows["tolo"] is False and rows["vrask"] is True  # the GM's set-up list shows who is surprised
    for who in ("kira", "dex", "mira"):
        t.do(sw.RollInitiative(actor=who), faces=[10])
    t.do(sw.SetShipInitiative(ship="frigate", value=15))
    t.do(sw.StartCombat(), faces=[2])
    t.refused(sw.TakeAction(actor="vrask", action="detect", slot="reaction"), "surprised")
    t.do(sw.DistributePower(central=1))
    [started, ended] = t.do(sw.StartCrewTurn(actor="vrask"))
    assert started.surprised and ended.skipped
    [started] = t.do(sw.StartCrewTurn(actor="tolo"))
    assert not started.surprised
    t.do(sw.TakeAction(actor="tolo", action="detect"))


def test_a_crew_member_set_surprised_again_is_surprised():
    t = table(frigate_over={"surprised": True})
    t.do(sw.SetSurprise(target="tolo", surprised=False))
    t.do(sw.SetSurprise(target="tolo", surprised=True))
    assert t.state.surprised_now(t.state.fighter("tolo"))


# --- 4. only one crew member takes helm actions in a round -----------------------------------------------------------


def test_a_new_helm_mid_round_takes_no_helm_action_until_the_next_round():
    """Seed: "In a larger craft, however, only one player can take helm actions." and "Only the crewmember at
    the helm can take helm actions"."""
    t = begin()
    t.do(sw.DistributePower(actor="kira"))
    crew_turn(t, "kira", sw.TakeAction(actor="kira", action="evade"))
    t.do(sw.AssignCrew(fighter="mira", ship="hawk", station="pilot"))  # the GM hands the helm over mid-round
    t.do(sw.StartCrewTurn(actor="mira"))
    t.refused(
        sw.TakeAction(actor="mira", action="fly"),
        "Only one crew member can take helm actions aboard Ebon Hawk in a round: Kira already has this round.",
    )
    controls = sw_table.crew_controls(t.state, t.state.fighter("mira"))
    assert not [a for a in controls.actions if a.kind == "helm"]  # the phone offers her no helm option
    t.do(sw.TakeAction(actor="mira", action="detect"))
    t.do(sw.EndCrewTurn(actor="mira"))
    to_next_round(t)
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="mira"))
    [fly] = t.do(sw.TakeAction(actor="mira", action="fly"))
    assert fly.helm


# --- 5. a granted bonus action names the action it allows ------------------------------------------------------------


def test_a_bonus_action_allows_only_the_action_its_feature_names():
    """Seed: "Various class or deployment features, powers, and other abilities let you take an additional
    action on your turn called a bonus action. You can only take a bonus action if some feature gives you one"."""
    t = begin()
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="kira"))  # Kira's sheet: a bonus action for Boost Engines
    t.refused(sw.TakeAction(actor="kira", action="direct", slot="bonus"), "Kira's bonus action is for Boost Engines")
    controls = sw_table.crew_controls(t.state, t.state.fighter("kira"))
    assert controls.bonus_left and controls.bonus_for == "Boost Engines"
    [e] = t.do(sw.TakeAction(actor="kira", action="boost_engines", slot="bonus"))
    assert sw.describe(t.state, e).startswith("Kira takes Boost Engines as a bonus action")


def test_a_bonus_action_naming_no_action_is_refused_with_a_sentence():
    fighter = sw.fighter_from_sheet("dex", "Dex", "pc", 2, {"bonus_action": True})
    assert fighter.bonus_action and fighter.bonus_for == ""
    t = begin()
    t.state = put_fighter(t.state, fighter_with(t.state.fighter("dex"), bonus_action=True))  # an older sheet
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="dex"))
    t.refused(sw.TakeAction(actor="dex", action="direct", slot="bonus"), "names no action yet")
    controls = sw_table.crew_controls(t.state, t.state.fighter("dex"))
    assert controls.bonus and not controls.bonus_left


def test_the_sheets_bonus_action_choices_are_the_action_menu():
    assert BONUS_ACTIONS == tuple((a.key, a.label) for a in sw.ACTION_MENU)
    fighter = sw.fighter_from_sheet("k", "K", "pc", 1, {"bonus_action": True, "bonus_action_for": "evade"})
    assert fighter.bonus_for == "evade"


# --- 6. surprise worked out from Stealth against passive Perception ------------------------------------------------


def stealthy(settings=None):
    """Kira, Dex and Mira (passive Perception 14, 10, 12) aboard the Hawk; Vrask (+2) and Tolo (+0) hide."""
    f = sw.fighter_from_sheet
    fighters = (
        f("kira", "Kira", "pc", 1, {"passive_perception": 14}),
        f("dex", "Dex", "pc", 2, {"passive_perception": 10}),
        f("mira", "Mira", "pc", 3, {"passive_perception": 12}),
        f("vrask", "Captain Vrask", "enemy", None, {"stealth_mod": 2}),
        f("tolo", "Tolo", "enemy", None, {}),
    )
    return Table(sw.initial_state([hawk(), frigate()], fighters, settings))


def test_the_server_works_out_surprise_from_stealth_against_passive_perception():
    """Seed: "the GM compares the Dexterity (Stealth) checks of anyone hiding with the passive Wisdom (Perception)
    score of each creature on the opposing side. Any ship that doesn't notice a threat is surprised ... A member
    of a group can be surprised even if the other members aren't."."""
    t = stealthy()
    events = t.do(sw.WorkOutSurprise(hiders=("frigate",)), faces=[11, 14])  # Vrask 13, Tolo 14
    rolled = [e for e in events if isinstance(e, sw.StealthRolled)]
    assert [(e.fighter, e.total) for e in rolled] == [("vrask", 13), ("tolo", 14)]
    surprised = {f.id: t.state.surprised_now(f) for f in t.state.crew("hawk")}
    assert surprised == {"kira": False, "dex": True, "mira": True}  # only Kira's 14 beats Vrask's 13
    assert not t.state.ship("hawk").surprised and not t.state.ship("frigate").surprised
    words = [sw.describe(t.state, e, gm=False) for e in events]
    assert words[:2] == [None, None]  # the NPC crew's rolls are the GM's
    assert sw.describe(t.state, rolled[0], gm=True) == "Captain Vrask rolls Dexterity (Stealth): 11 + 2 = 13."
    assert review.facts(t.state, rolled[0], gm=True).rolls[0].faces == (11,)
    assert review.facts(t.state, rolled[0], gm=False).rolls == ()
    for event in events:  # stored and read back as the log does
        assert sw.CODEC.event_from_json(json.loads(json.dumps(sw.CODEC.event_to_json(event)))) == event
    t.do(sw.SetSurprise(target="dex", surprised=False))  # setting it by hand stays
    assert not t.state.surprised_now(t.state.fighter("dex"))


def test_a_whole_crew_that_notices_no_one_leaves_its_ship_surprised_and_ties_follow_the_setting():
    t = stealthy()
    t.do(sw.WorkOutSurprise(hiders=("frigate",)), faces=[12, 18])  # Vrask 14 ties Kira's passive 14
    assert t.state.ship("hawk").surprised
    assert all(t.state.surprised_now(f) for f in t.state.crew("hawk"))
    noticed = stealthy({"stealth_ties": "noticed"})
    noticed.do(sw.WorkOutSurprise(hiders=("frigate",)), faces=[12, 18])
    assert not noticed.state.surprised_now(noticed.state.fighter("kira"))
    assert not noticed.state.ship("hawk").surprised


def test_working_out_surprise_is_refused_with_a_sentence():
    t = stealthy()
    t.refused(sw.WorkOutSurprise(), "Choose the ships that hide")
    t.refused(sw.WorkOutSurprise(hiders=("nowhere",)), "That ship is not in this encounter")
    for who in ("vrask", "tolo"):
        t.do(sw.AssignCrew(fighter=who, ship="", station=""))
    t.refused(sw.WorkOutSurprise(hiders=("frigate",)), "Nobody is aboard the hiding ships")
    started = begin()
    started.refused(sw.WorkOutSurprise(hiders=("frigate",)), "already started")
