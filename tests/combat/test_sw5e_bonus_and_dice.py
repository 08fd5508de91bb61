"""SW5e, the rest of issue 18, with scripted dice: a bonus action names any action its feature grants (a menu
action or the feature's own, like Second Wind), and a rolled shield or hull die adds the ship's modifier.

Seed: ../shared/seeds/001_a9fbea53989230b2.txt; notes: ../shared/rules/sw5e-starships.md."""

import json

from combat.rules import sw5e as sw
from combat.rules.sw5e import review
from combat.tables import sw5e as sw_table
from tests.combat.test_sw5e_rules import _state_before, begin

SECOND_WIND = {"bonus_action": True, "bonus_action_for": "  second   Wind "}

# --- 1. a bonus action is whatever its feature grants ---------------------------------------------------------------


def test_a_feature_s_own_action_is_the_bonus_action_the_sheet_names():
    """Seed: "Various class or deployment features, powers, and other abilities let you take an additional action
    on your turn called a bonus action. You can only take a bonus action if some feature gives you one"."""
    t = begin(crew_over={"dex": SECOND_WIND})
    assert t.state.fighter("dex").bonus_for == "second Wind"  # spaces tidied, written as on the sheet
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="dex"))
    t.refused(sw.TakeAction(actor="dex", action="detect", slot="bonus"), "Dex's bonus action is for second Wind only")
    t.refused(sw.TakeAction(actor="dex", action="second wind"), "not on the menu")  # the feature grants no action
    [taken] = t.do(sw.TakeAction(actor="dex", action="Second Wind", slot="bonus"))
    assert (taken.action, taken.label, taken.slot) == ("custom:second wind", "second Wind", "bonus")
    assert sw.describe(t.state, taken) == "Dex takes second Wind as a bonus action."
    t.refused(sw.TakeAction(actor="dex", action="Second Wind", slot="bonus"), "already taken a bonus action")
    t.do(sw.TakeAction(actor="dex", action="detect"))  # the action is still Dex's own
    hawk = t.state.ship("hawk")
    assert hawk.actions == ("custom:second wind", "detect")
    assert sw_table._taken_label(t.state, "custom:second wind") == "second Wind"


def test_a_feature_s_own_bonus_action_counts_once_per_round_per_ship_unless_the_gm_lets_it_repeat():
    """Seed: "any action taken by a player with your ship can only be taken once per round unless otherwise stated.
    For example, although two different crewmembers could both cast the same force power ... they could not both
    take an action granted by a ship modification"; notes: a free-text action "still counts against 'once per round
    per ship' by name"."""
    t = begin(crew_over={"dex": SECOND_WIND, "mira": SECOND_WIND})
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="dex"))
    t.do(sw.TakeAction(actor="dex", action="second wind", slot="bonus"))
    t.do(sw.EndCrewTurn(actor="dex"))
    t.do(sw.StartCrewTurn(actor="mira"))
    t.refused(
        sw.TakeAction(actor="mira", action="second wind", slot="bonus"),
        "Someone aboard Ebon Hawk has already taken second Wind this round",
    )
    assert sw_table.bonus_offer(t.state, t.state.ship("hawk"), t.state.fighter("mira"), ()) is None
    t.do(sw.AllowAction(action="Second Wind", repeat=True))  # the GM: a force power, several may use it
    offer = sw_table.bonus_offer(t.state, t.state.ship("hawk"), t.state.fighter("mira"), _open(t, "mira"))
    assert offer is not None and (offer.label, offer.note) == ("Second Wind", "may repeat")
    [taken] = t.do(sw.TakeAction(actor="mira", action=offer.value, slot="bonus"))
    assert taken.label == "Second Wind"


def test_a_menu_action_is_named_by_its_key_or_its_label_in_any_case():
    t = begin(crew_over={"kira": {"bonus_action_for": "boost SHIELDS"}})
    assert t.state.fighter("kira").bonus_for == "boost_shields"
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="kira"))
    offer = sw_table.bonus_offer(t.state, t.state.ship("hawk"), t.state.fighter("kira"), _open(t, "kira"))
    assert offer is not None and (offer.value, offer.label) == ("boost_shields", "Boost Shields")
    [taken] = t.do(sw.TakeAction(actor="kira", action="Boost Shields", slot="bonus"))
    assert taken.action == "boost_shields" and t.state.ship("hawk").boosts == ("boost_shields",)


def test_the_gm_may_let_a_bonus_action_be_any_action_but_only_with_a_feature():
    """Setting "bonus_actions": the seed's default is the action the feature names; the GM may loosen that for an
    encounter. A crew member whose sheet grants no bonus action still takes none."""
    named = begin(crew_over={"dex": {"bonus_action": True}})
    named.do(sw.DistributePower(actor="kira"))
    named.do(sw.StartCrewTurn(actor="dex"))
    named.refused(sw.TakeAction(actor="dex", action="direct", slot="bonus"), "names no action yet")
    assert sw_table.crew_controls(named.state, named.state.fighter("dex")).bonus_state == (
        "no action named on the sheet"
    )
    loose = begin({"bonus_actions": "any"}, crew_over={"dex": {"bonus_action": True}})
    loose.do(sw.DistributePower(actor="kira"))
    loose.do(sw.StartCrewTurn(actor="dex"))
    controls = sw_table.crew_controls(loose.state, loose.state.fighter("dex"))
    assert controls.bonus_any and controls.bonus_offer is None and controls.bonus_state == "ready"
    [taken] = loose.do(sw.TakeAction(actor="dex", action="direct", slot="bonus"))
    assert taken.slot == "bonus"
    loose.do(sw.EndCrewTurn(actor="dex"))
    loose.do(sw.StartCrewTurn(actor="mira"))  # no feature on Mira's sheet
    loose.refused(sw.TakeAction(actor="mira", action="direct", slot="bonus"), "no feature that grants a bonus action")


def _open(t, who):
    f = t.state.fighter(who)
    return sw_table.available_actions(t.state, t.state.ship(f.ship), f)


# --- 2. a rolled shield die adds the ship's Strength modifier -------------------------------------------------------


def test_the_regenerate_shields_action_adds_the_ship_s_strength_modifier_to_the_die():
    """Notes: shield points are worked out "with shield dice and Str mod", as hull points with hull dice and the
    Constitution modifier; the Regenerate Shields action "spend[s] a shield die" and rolls it. The Hawk (Str +2) is
    Medium: a d8."""
    t = begin(hawk_over={"str_mod": 2, "shields": 10})
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="dex"))
    _, rolled = t.do(sw.TakeAction(actor="dex", action="regenerate_shields"), faces=[3])
    assert (rolled.sides, rolled.face, rolled.bonus, rolled.points) == (8, 3, 2, 5)
    assert (t.state.ship("hawk").shields, t.state.ship("hawk").shield_dice) == (15, 5)
    assert sw.describe(_state_before(t), rolled) == (
        "Dex spends a shield die: d8 shows 3 + 2, restoring 5 shield points (shields 15/20)."
    )
    assert review.facts(_state_before(t), rolled).rolls[0].faces == (3,)


def test_a_negative_strength_modifier_never_takes_shield_points_away():
    t = begin(hawk_over={"str_mod": -2, "shields": 10})
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="dex"))
    _, rolled = t.do(sw.TakeAction(actor="dex", action="regenerate_shields"), faces=[1])
    assert rolled.points == 0 and t.state.ship("hawk").shields == 10
    assert sw.describe(_state_before(t), rolled).endswith("d8 shows 1 − 2, restoring 0 shield points (shields 10/20).")


def test_the_gm_may_have_the_shield_die_add_nothing():
    t = begin({"shield_die_mod": "none"}, hawk_over={"str_mod": 2, "shields": 10})
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="dex"))
    _, rolled = t.do(sw.TakeAction(actor="dex", action="regenerate_shields"), faces=[3])
    assert (rolled.bonus, t.state.ship("hawk").shields) == (0, 13)
    numbers = sw_table._numbers(t.state, t.state.ship("hawk"))
    assert (numbers.patch_roll, numbers.shield_roll) == ("d8 + 1", "d8")  # what the ship's numbers say


def test_a_shield_die_stored_before_the_modifier_counted_replays_as_it_was():
    stored = {"kind": "shield_die_rolled", "data": {"fighter": "dex", "ship": "hawk", "sides": 8, "face": 3}}
    event = sw.CODEC.event_from_json(json.loads(json.dumps(stored)))
    assert isinstance(event, sw.ShieldDieRolled) and (event.bonus, event.points) == (0, 3)


def test_the_start_of_turn_regeneration_stays_the_die_maximum_times_the_multiplier():
    """Notes: "spend one shield die without rolling and regain (die maximum × regeneration multiplier)": no
    modifier there."""
    t = begin(hawk_over={"str_mod": 3, "shields": 10})
    t.do(sw.DistributePower(actor="kira"))
    [regen] = t.do(sw.RegenerateShields(actor="kira"))
    assert regen.points == 8 and t.state.ship("hawk").shields == 18


# --- 3. a hull die spent by Patch adds the Constitution modifier -----------------------------------------------------


def test_patch_adds_the_constitution_modifier_and_a_negative_one_never_takes_hull_away():
    """SW5e Starships, recharging: "Whenever a Hull Die is spent to regain hull points, a crewmember rolls the die
    and adds the ship's Constitution modifier to it"; notes: "Patch (spend a hull die)"."""
    t = begin(hawk_over={"con_mod": -3, "hull": 20})
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="mira"))
    _, patched = t.do(sw.TakeAction(actor="mira", action="patch"), faces=[2])
    assert (patched.bonus, patched.points, t.state.ship("hawk").hull) == (-3, 0, 20)
    t.do(sw.TakeAction(actor="dex", action="patch", slot="reaction"), faces=[7])
    assert t.state.ship("hawk").hull == 24
