"""SW5e ships at 0 hull points (issue 18), with scripted dice: disabled or destroyed, system damage, destruction
saves, stabilising, and what a disabled ship's crew may still do.

Rules notes (../shared/rules/sw5e-starships.md): "At 0 hull points: destroyed if the remaining damage ≥ max hull,
else disabled with system damage and destruction saves (d20 ≥ 10; three successes stabilise)." Passages quoted
as "SotG" are facts of the public SW5e "Starships of the Galaxy" text (chapter 9, Dropping to 0 Hull Points;
appendix A, System Damage and Disabled), in our words."""

import json

from combat.rules import sw5e as sw
from combat.rules.core import replay
from combat.rules.sw5e import disabled, review
from tests.combat.test_sw5e_rules import begin, crew_turn


def hawk_down(settings=None, hawk_weapons=(), **frigate_over):
    """The Hawk's turn in round 1: its power stored, then 10 damage takes it from 10 hull (no shields) to 0."""
    hawk = {"hull": 10, "shields": 0, **({"weapons": list(hawk_weapons)} if hawk_weapons else {})}
    t = begin(settings, hawk_over=hawk, frigate_over=frigate_over or None)
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.Damage(ship="hawk", amount=10))
    return t


def frigate_turn_then_hawk(t, save, then=()):
    """End the Hawk's turn (the frigate's power core rolls 2), the frigate's crew pass, and the Hawk's next turn
    begins with its destruction save showing `save` (None: no save is due); `then`: dice rolled after it."""
    t.do(sw.EndShipTurn(actor="kira"), faces=[2])
    t.do(sw.DistributePower())
    for who in ("vrask", "tolo"):
        crew_turn(t, who)
    return t.do(sw.EndShipTurn(), faces=([] if save is None else [save]) + list(then))


def before_last(t):
    return replay(sw.evolve, t.initial, t.log[: -len(t.batches[-1])])


def words(t, gm=True):
    """Each event of the last batch in words, against the state it was applied to."""
    state, out = before_last(t), []
    for item in t.log[-len(t.batches[-1]) :]:
        out.append(sw.describe(state, item.event, gm=gm))
        state = sw.evolve(state, item.event)
    return out


# --- dropping to 0 hull points ---------------------------------------------------------------------------------------


def test_a_ship_dropped_to_0_hull_points_is_disabled_with_one_level_of_system_damage():
    """SotG: "If the ship is not instantly destroyed, the ship suffers 1 level of system damage and becomes
    disabled"; level 1: disadvantage on ability checks."""
    t = begin(hawk_over={"hull": 10, "shields": 0})
    damaged, hurt = t.do(sw.Damage(ship="hawk", amount=10))
    assert isinstance(damaged, sw.ShipDamaged) and hurt == sw.SystemDamaged(ship="hawk", levels=1, cause="zero")
    hawk = t.state.ship("hawk")
    assert (hawk.status, hawk.hull, hawk.system_damage, hawk.saves_failed) == ("disabled", 0, 1, 0)
    assert words(t)[1] == (
        "Ebon Hawk is disabled at 0 hull points: system damage level 1 (disadvantage on ability checks)."
    )


def test_damage_left_over_at_least_the_maximum_hull_destroys_the_ship_outright():
    """Notes: "destroyed if the remaining damage ≥ max hull"."""
    t = begin(hawk_over={"hull": 10, "shields": 0})
    [damaged] = t.do(sw.Damage(ship="hawk", amount=40))  # 30 left over, the Hawk's maximum
    assert t.state.ship("hawk").status == "destroyed" and t.state.ship("hawk").system_damage == 0


def test_under_the_explode_setting_an_npc_ship_at_0_hull_points_is_destroyed_at_once():
    """SotG: "Most GMs have an NPC ship explode the instant it drops to 0 hull points" (setting npc_at_zero)."""
    t = begin({"npc_at_zero": "destroyed"})
    _, exploded = t.do(sw.Damage(ship="frigate", amount=23 + 47))
    assert exploded == sw.ShipExploded(ship="frigate") and t.state.ship("frigate").status == "destroyed"
    assert words(t, gm=False)[1] == "Imperial frigate explodes at 0 hull points (the GM's rule for NPC ships)."
    default = begin()
    default.do(sw.Damage(ship="frigate", amount=23 + 47))
    assert default.state.ship("frigate").status == "disabled"


# --- destruction saves -----------------------------------------------------------------------------------------------


def test_a_disabled_ship_rolls_a_destruction_save_as_its_turn_starts_and_three_successes_stabilise_it():
    """Notes: "destruction saves (d20 ≥ 10; three successes stabilise)"; SotG: a failure is 1 level of system
    damage; a stable ship makes no destruction saves."""
    t = hawk_down()
    events = frigate_turn_then_hawk(t, save=10)
    save = next(e for e in events if isinstance(e, sw.DestructionSaveRolled))
    started = events[-1]
    assert save == sw.DestructionSaveRolled(ship="hawk", face=10)
    assert isinstance(started, sw.ShipTurnStarted) and started.produced == 0  # a disabled reactor makes no power
    assert t.state.ship_turn == "hawk" and t.state.stage == "start" and t.state.ship("hawk").saves_made == 1
    assert "Ebon Hawk's destruction save: the d20 shows 10: a success (1 of 3)." in words(t)
    t.do(sw.EndShipTurn(actor="kira"), faces=[2])  # nobody has to act aboard a disabled ship
    t.do(sw.DistributePower())
    for who in ("vrask", "tolo"):
        crew_turn(t, who)
    t.do(sw.EndShipTurn(), faces=[9])  # a failure: system damage level 2
    hawk = t.state.ship("hawk")
    assert (hawk.saves_made, hawk.saves_failed, hawk.system_damage) == (1, 1, 2)
    assert words(t)[-2] == (
        "Ebon Hawk's destruction save: the d20 shows 9: a failure (1 so far); system damage level 2 (1 slowed level)."
    )
    frigate_turn_then_hawk(t, save=15)
    frigate_turn_then_hawk(t, save=19)
    hawk = t.state.ship("hawk")
    assert hawk.stable and hawk.status == "disabled" and (hawk.saves_made, hawk.saves_failed) == (0, 0)
    assert "a third success, and it is stable" in " ".join(words(t))
    events = frigate_turn_then_hawk(t, save=None)  # stable: no save, the turn starts
    assert not any(isinstance(e, sw.DestructionSaveRolled) for e in events)


def test_three_failed_destruction_saves_destroy_the_ship_and_a_1_counts_as_two():
    """SotG: "When you make a destruction saving throw and roll a 1 on the d20, it counts as two failures, causing
    2 levels of system damage"; setting destroyed_by, default "Three failed destruction saves"."""
    t = hawk_down()
    frigate_turn_then_hawk(t, save=1)
    hawk = t.state.ship("hawk")
    assert (hawk.saves_failed, hawk.system_damage) == (2, 3)
    assert "a 1 counts as two failures (2 so far)" in " ".join(words(t))
    # At system damage level 3 the save has disadvantage (two d20s, the lower counts); the Hawk is out: the
    # frigate's power core rolls next.
    events = frigate_turn_then_hawk(t, save=4, then=[12, 2])
    assert t.state.ship("hawk").status == "destroyed" and sw.outcome(t.state) == "Defeat"
    assert (
        "Ebon Hawk's destruction save: the d20 shows 4 (disadvantage from system damage: the other d20 showed 12): "
        "its primary systems fail and it is destroyed."
    ) in words(t)
    assert isinstance(events[-1], sw.ShipTurnStarted) and events[-1].ship == "frigate"  # the Hawk is out


def test_under_the_level_six_setting_only_system_damage_level_6_destroys_the_ship():
    """SotG system damage level 6: "catastrophic power failure. All primary systems fail"."""
    t = hawk_down({"destroyed_by": "level_six"})
    for face, other in ((2, ()), (3, ()), (4, (15,)), (5, (15,))):  # levels 2 to 5; from level 3 with disadvantage
        frigate_turn_then_hawk(t, save=face, then=other)
        assert t.state.ship("hawk").status == "disabled"
    hawk = t.state.ship("hawk")
    assert (hawk.saves_failed, hawk.system_damage) == (4, 5)
    frigate_turn_then_hawk(t, save=6, then=[15, 2])
    assert t.state.ship("hawk").status == "destroyed" and t.state.ship("hawk").system_damage == 6


def test_a_natural_20_gives_the_ship_back_1_hull_point_and_its_turn_goes_on_as_usual():
    """SotG: "If you roll a 20 on the d20, your ship regains 1 hull point."."""
    t = hawk_down()
    events = frigate_turn_then_hawk(t, save=20)
    hawk = t.state.ship("hawk")
    assert (hawk.status, hawk.hull, hawk.system_damage) == ("active", 1, 1)  # system damage stays until maintenance
    assert events[-1].produced == 1 and t.state.stage == "power"  # the reactor works again
    assert "Ebon Hawk's destruction save: the d20 shows 20: it regains 1 hull point and is no longer disabled." in (
        words(t)
    )


def test_damage_at_0_hull_points_is_a_failed_save_and_a_level_of_system_damage_two_from_a_critical_hit():
    """SotG: "If your ship takes any damage while it has 0 hull points, it suffers 1 level of system damage. If the
    damage is from a critical hit, it suffers 2 levels of system damage instead"; a stable ship stops being stable
    when it takes damage."""
    t = hawk_down(weapons=["turbolaser (+4 2d10)"])
    t.do(sw.Damage(ship="hawk", amount=3))
    hawk = t.state.ship("hawk")
    assert (hawk.saves_failed, hawk.system_damage) == (1, 2)
    assert words(t)[1] == (
        "Damage at 0 hull points: Ebon Hawk suffers 1 level of system damage, now system damage level 2 "
        "(1 slowed level), and 1 failed destruction save."
    )
    t.do(sw.EndShipTurn(actor="kira"), faces=[2])
    t.do(sw.DistributePower())
    t.do(sw.StartCrewTurn(actor="tolo"))
    shot = t.do(sw.TakeAction(actor="tolo", action="fire", weapon="turbolaser", target="hawk"), faces=[20, 1, 1, 1, 1])
    assert shot[-1] == sw.SystemDamaged(ship="hawk", levels=2, failures=2, cause="critical")
    assert t.state.ship("hawk").status == "destroyed"  # three failures
    assert words(t)[-1].endswith("and 3 failed destruction saves; it is destroyed.")


def test_repairs_above_0_hull_points_end_the_disabled_state_and_clear_the_tally():
    """Notes: Patch "spend a hull die"; SotG: "Repairs that raise a ship above 0 ..." the ship is no longer
    disabled (the tally restarts if it drops again)."""
    t = hawk_down()
    frigate_turn_then_hawk(t, save=5)
    t.do(sw.StartCrewTurn(actor="mira"))
    taken, patched, recovered = t.do(sw.TakeAction(actor="mira", action="patch"), faces=[4])
    assert isinstance(patched, sw.HullPatched) and recovered == sw.ShipRecovered(ship="hawk")
    hawk = t.state.ship("hawk")
    assert (hawk.status, hawk.hull, hawk.saves_failed, hawk.system_damage) == ("active", 5, 0, 2)
    assert words(t)[-1] == (
        "Ebon Hawk is above 0 hull points again: no longer disabled, its destruction saves cleared."
    )
    t.do(sw.AdjustShip(ship="hawk", what="hull", value=0))  # the GM's correction: disabled, no new system damage
    assert t.state.ship("hawk").status == "disabled" and t.state.ship("hawk").system_damage == 2
    [adjusted, recovered] = t.do(sw.AdjustShip(ship="hawk", what="hull", value=3))
    assert recovered == sw.ShipRecovered(ship="hawk")


# --- the crew of a disabled ship -------------------------------------------------------------------------------------


def test_a_disabled_ships_crew_may_patch_direct_and_try_to_stabilise_it_but_nothing_else():
    """SotG appendix A: "A disabled ship can't take actions or reactions"; chapter 9: "A crewmember can use their
    action to attempt repairs on a disabled ship" (setting disabled_crew, default repairs and Direct)."""
    t = hawk_down()
    frigate_turn_then_hawk(t, save=12)
    t.refused(sw.RegenerateShields(actor="kira"), "disabled")
    t.refused(sw.SpendPower(actor="kira", system="engines"), "disabled")
    t.do(sw.StartCrewTurn(actor="kira"))
    t.refused(sw.TakeAction(actor="kira", action="evade"), "its crew can only Patch or Direct, or try to stabilise")
    t.refused(sw.TakeAction(actor="kira", action="fire", weapon="ion cannon"), "can only Patch or Direct")
    t.refused(sw.TakeAction(actor="dex", action="direct", slot="reaction"), "can't take reactions")
    t.do(sw.TakeAction(actor="kira", action="direct"))
    t.do(sw.EndCrewTurn(actor="kira"))
    t.do(sw.StartCrewTurn(actor="dex"))
    t.do(sw.TakeAction(actor="dex", action="direct"))  # Direct may repeat
    patch_only = hawk_down({"disabled_crew": "patch"})
    frigate_turn_then_hawk(patch_only, save=12)
    patch_only.do(sw.StartCrewTurn(actor="kira"))
    patch_only.refused(sw.TakeAction(actor="kira", action="direct"), "can only Patch, or try to stabilise")


def test_a_crew_member_stabilises_the_ship_with_a_dc_10_mechanics_kit_check():
    """SotG: stabilising "requires a successful DC 10 Intelligence (Mechanic's Kit) check"; "A stable ship doesn't
    make destruction saving throws ... but it does remain disabled"."""
    t = hawk_down()
    t.refused(sw.Stabilise(actor="kira", modifier=3), "not Kira's turn")
    frigate_turn_then_hawk(t, save=3)
    t.do(sw.StartCrewTurn(actor="mira"))
    t.refused(sw.Stabilise(actor="mira", modifier=30), "from -5 to")
    [tried] = t.do(sw.Stabilise(actor="mira", modifier=2), faces=[7])  # 9: not enough
    assert not t.state.ship("hawk").stable
    assert words(t) == ["Mira tries to stabilise Ebon Hawk (d20 shows 7 + 2 = 9 against DC 10): it is not."]
    t.refused(sw.Stabilise(actor="mira", modifier=2), "already taken an action", faces=[])
    t.do(sw.EndCrewTurn(actor="mira"))
    t.do(sw.StartCrewTurn(actor="dex"))
    t.do(sw.Stabilise(actor="dex", modifier=0), faces=[10])
    hawk = t.state.ship("hawk")
    assert hawk.stable and hawk.status == "disabled" and (hawk.saves_made, hawk.saves_failed) == (0, 0)
    assert "it is stable" in words(t)[0]
    t.do(sw.EndCrewTurn(actor="dex"))
    t.do(sw.StartCrewTurn(actor="kira"))
    t.refused(sw.Stabilise(actor="kira"), "already stable")
    facts = review.facts(before_last(t), tried)
    assert facts.action and facts.rolls[0].succeeded is False


def test_stabilising_is_refused_aboard_a_ship_that_is_not_disabled():
    t = begin()
    t.do(sw.DistributePower(actor="kira"))
    t.do(sw.StartCrewTurn(actor="kira"))
    t.refused(sw.Stabilise(actor="kira"), "not disabled")


# --- what players read -----------------------------------------------------------------------------------------------


def test_players_read_an_npc_ships_saves_but_not_its_system_damage_or_tally():
    t = begin()
    t.do(sw.Damage(ship="frigate", amount=23 + 47))
    assert words(t, gm=False)[1] is None and "system damage level 1" in words(t, gm=True)[1]
    t.do(sw.DistributePower(actor="kira"))
    for who in ("kira", "dex", "mira"):
        crew_turn(t, who)
    t.do(sw.EndShipTurn(actor="kira"), faces=[8])
    players = [w for w in words(t, gm=False) if w]
    assert "Imperial frigate's destruction save: the d20 shows 8: a failure." in players
    assert "system damage" not in " ".join(players)
    gm = review.facts(before_last(t), t.log[-3].event, gm=False)
    assert gm.rolls == ()  # its numbers are the GM's: the die is left out of the players' review


def test_system_damage_effects_add_up_level_by_level():
    """SotG: "A ship suffers the effect of its current level of system damage as well as all lower levels"."""
    assert disabled.effects(0) == ()
    assert disabled.effects(2) == ("disadvantage on ability checks", "1 slowed level")
    assert len(disabled.effects(9)) == 6


def test_the_new_events_and_command_round_trip_through_json():
    events = [
        sw.SystemDamaged(ship="hawk", levels=2, failures=2, cause="critical"),
        sw.DestructionSaveRolled(ship="hawk", face=1),
        sw.StabiliseAttempted(fighter="mira", ship="hawk", face=12, modifier=3),
        sw.ShipRecovered(ship="hawk"),
        sw.ShipExploded(ship="frigate"),
    ]
    for event in events:
        assert sw.CODEC.event_from_json(json.loads(json.dumps(sw.CODEC.event_to_json(event)))) == event
    command = sw.Stabilise(actor="mira", modifier=3)
    assert sw.CODEC.command_from_json("stabilise", {"actor": "mira", "modifier": 3}) == command


def test_when_every_ship_is_out_of_action_the_gm_bringing_one_back_starts_a_new_round():
    """Under the `disabled_crew` setting "nothing" no ship may be left to take a turn; the GM's correction of
    hull points brings the fight back with a new round."""
    t = begin({"disabled_crew": "nothing"}, hawk_over={"hull": 10, "shields": 0})
    t.do(sw.Damage(ship="frigate", amount=23 + 47))
    t.do(sw.Damage(ship="hawk", amount=40))  # 30 left over: destroyed
    t.do(sw.EndShipTurn(actor="kira"), faces=[12])  # the frigate's save; then no ship can take a turn
    assert t.state.ship_turn == "" and t.state.round == 1
    events = t.do(sw.AdjustShip(ship="frigate", what="hull", value=20), faces=[2])
    assert [type(e) for e in events] == [sw.ShipAdjusted, sw.ShipRecovered, sw.RoundStarted, sw.ShipTurnStarted]
    assert t.state.ship_turn == "frigate" and t.state.round == 2


def test_a_stable_ship_that_takes_damage_makes_destruction_saves_again():
    """SotG: "The ship stops being stable, and must start making destruction saving throws again, if it takes any
    damage"."""
    t = hawk_down()
    frigate_turn_then_hawk(t, save=3)
    t.do(sw.StartCrewTurn(actor="mira"))
    t.do(sw.Stabilise(actor="mira", modifier=5), faces=[6])
    assert t.state.ship("hawk").stable
    t.do(sw.EndCrewTurn(actor="mira"))
    t.do(sw.Damage(ship="hawk", amount=2))
    hawk = t.state.ship("hawk")
    assert not hawk.stable and (hawk.saves_failed, hawk.system_damage) == (1, 3)
    events = frigate_turn_then_hawk(t, save=10, then=[14])  # level 3: disadvantage, the lower d20 counts
    assert sw.DestructionSaveRolled(ship="hawk", face=10, other=14) in events


# --- what system damage does to the ship's rolls ----------------------------------------------------------------------


def level_three(settings=None):
    """The Hawk disabled and stabilised at system damage level 3, then patched above 0 hull points by Mira."""
    t = hawk_down(settings, hawk_weapons=["laser cannons (+5 2d6+2)"])
    frigate_turn_then_hawk(t, save=1)  # a 1: two failures, level 3
    t.do(sw.StartCrewTurn(actor="mira"))
    t.do(sw.TakeAction(actor="mira", action="patch"), faces=[6])
    t.do(sw.EndCrewTurn(actor="mira"))
    assert t.state.ship("hawk").active and t.state.ship("hawk").system_damage == 3
    return t


def test_from_system_damage_level_3_the_ships_attacks_and_saves_have_disadvantage():
    """SotG system damage level 3: "Disadvantage on attack rolls and saving throws" (setting system_damage_rolls,
    default applied): two d20s, the lower counts, and the log names the one thrown away."""
    t = level_three({"system_damage_rolls": "applied"})
    t.do(sw.StartCrewTurn(actor="kira"))
    events = t.do(sw.TakeAction(actor="kira", action="fire", weapon="laser cannons", target="frigate"), faces=[18, 3])
    shot = next(e for e in events if isinstance(e, sw.WeaponFired))
    assert (shot.face, shot.other, shot.hit) == (3, 18, False)  # 18 would have hit AC 13; 3 + 5 misses
    assert "d20 shows 3 + 5 = 8 (disadvantage from system damage: the other d20 showed 18)" in words(t)[-1]
    assert review.facts(t.state, shot).rolls[0].faces == (3, 18)  # both d20s count in the dice charts


def test_with_system_damage_only_shown_the_server_rolls_one_d20():
    t = level_three({"system_damage_rolls": "shown"})
    t.do(sw.StartCrewTurn(actor="kira"))
    fire = sw.TakeAction(actor="kira", action="fire", weapon="laser cannons", target="frigate")
    events = t.do(fire, faces=[18, 4, 4])
    shot = next(e for e in events if isinstance(e, sw.WeaponFired))
    assert (shot.face, shot.other, shot.hit) == (18, 0, True)
