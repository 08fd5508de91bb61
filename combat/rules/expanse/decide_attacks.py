"""The Expanse (AGE) deciders for tests and what follows from their dice: attacks, grenades, ability tests,
Fortune changing a die, and spending the stunt points a test earned.
"""

from __future__ import annotations

from dataclasses import replace

from combat.rules.core import Event, require, revealed_by_attack
from combat.rules.dice import Dice
from combat.rules.expanse import rulebook as book
from combat.rules.expanse import weapons
from combat.rules.expanse.commands import (
    AbilityTest,
    AlsoInBlast,
    Attack,
    Blast,
    ChangeDie,
    SpendStunt,
    ThrowGrenade,
)
from combat.rules.expanse.decide_checks import (
    acting,
    action_slot,
    check_damage_entry,
    chosen_focuses,
    damage_roll,
    found,
    free_attack,
    note,
    parse_targets,
    sees,
    test_faces,
)
from combat.rules.expanse.events import Blasted, BlastWidened, DieChanged, Opposed, StuntSpent, Tested
from combat.rules.expanse.state import (
    Fighter,
    State,
    TestRecord,
    ability,
    damage_dice,
    defense,
    plural,
    speed,
    test_bonus,
    weapon_range,
)
from combat.rules.expanse.stats import ABILITIES


def attack(state: State, c: Attack, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    require(
        c.action in book.ATTACK_ACTIONS, "Choose All-Out Attack, Charge, Melee Attack, Ranged Attack or Stunt Attack."
    )
    weapon = found(book.WEAPONS.get(c.weapon), "Choose one of the weapon types.")
    require(c.weapon != "grenade", "Throw grenades with the grenade action.")
    if c.free:
        require(
            c.action in ("melee_attack", "ranged_attack", "stunt_attack"),
            "A stunt's extra attack is a melee, ranged or stunt attack.",
        )
        free_attack(state, f, c.target)
        slot = "free"
    else:
        slot = action_slot(state, f, c.action)
    label = book.MAJOR_ACTIONS[c.action]
    if c.action in book.MELEE_FAMILY:
        require(weapon.kind == "melee", f"{label} is made in close combat, not with a {weapon.label.lower()}.")
    elif c.action == "ranged_attack":
        require(
            weapon.kind != "melee", f"A ranged attack needs a ranged or thrown weapon, not a {weapon.label.lower()}."
        )
    require(
        c.weapon not in f.jammed,
        f"{f.name}'s {weapon.label.lower()} is jammed or out of ammunition; a minor action fixes it.",
    )
    weapons.check_attack(state, f, c.weapon)
    moved = 0
    if c.action == "charge":
        require(not f.prone, f"{f.name} is prone and must stand up with a Move first.")
        half = speed(state, f) // 2
        require(0 <= c.moved <= half, f"{f.name} can charge up to half their Speed: {half} m.")
        moved = c.moved
    makeshift = weapon.makeshift
    for value, flaw in ((c.clumsy, "Clumsy"), (c.weak, "Weak")):
        require(0 <= value <= book.MAKESHIFT_FLAW_MAX, f"{flaw} is a penalty of 1 or 2.")
        require(not value or makeshift, f"Only makeshift weapons are {flaw.lower()}.")
    require(not c.fragile or makeshift, "Only makeshift weapons are fragile.")
    require(-10 <= c.modifier <= 10, "The GM's modifier must be between -10 and +10.")
    require(0 <= c.distance <= 10_000, "Distance is a number of metres.")

    target: Fighter | None = None
    if c.object_size:
        size = found(book.OBJECT_SIZES.get(c.object_size), "Choose the object's size from the table.")
        tn = size[2]
    else:
        target = state.fighter(c.target)
        # Seed 004: a ranged attack is made "at one visible enemy"; a PC sees only the enemies it knows of. Checked
        # first, so a refusal never names a combatant the attacker cannot see.
        require(sees(f, target), f"{f.name} cannot see that target.")
        require(target.id != f.id, f"{f.name} cannot attack themselves.")
        require(target.side != f.side, f"{target.name} is on {f.name}'s side.")
        require(not target.out, f"{target.name} is already out of the encounter.")
        tn = defense(state, target)

    ranged = weapon.kind != "melee"
    modifier, focus = test_bonus(state, f, weapon.test_ability, chosen_focuses(c.focus, weapon.focuses))
    if ranged:
        short, longest = weapon_range(state, f, weapon)
        require(
            c.distance <= longest,
            f"{target.name if target else 'The object'} is out of range: "
            f"the {weapon.label.lower()} reaches {longest} m.",
        )
        if c.distance > short:
            modifier -= int(state.settings.get("long_range_penalty", 2))
        require(f.cover < book.TOTAL_COVER, f"{f.name} is in total cover and cannot make ranged attacks.")
        modifier += book.COVER.get(f.cover, (0, 0))[1]
        if target:
            require(
                target.cover < book.TOTAL_COVER, f"{target.name} is in total cover and cannot be attacked at range."
            )
    else:
        require(c.distance <= book.MELEE_REACH, f"Close combat reaches an enemy within {book.MELEE_REACH} m.")
    if f.aim:
        modifier += book.AIM_BONUS
    if c.action == "charge" and c.straight and moved >= book.CHARGE_STRAIGHT_METRES:
        modifier += book.CHARGE_BONUS
    modifier += c.modifier - c.clumsy

    kind = "stunt_attack" if c.action == "stunt_attack" else "attack"
    count, sides = damage_dice(f, c.weapon, c.stunning)
    check_damage_entry(state, c.damage_entered, count, sides)
    faces, entered = test_faces(state, c.entered, dice)
    bonus = 0
    if weapon.damage_abilities:
        choices = weapon.damage_abilities
        if c.damage_ability:
            require(c.damage_ability in choices, f"A {weapon.label.lower()} adds {' or '.join(choices)} to damage.")
            choices = (c.damage_ability,)
        bonus = max(ability(state, f, a) for a in choices)
    if c.action == "all_out_attack":
        bonus += book.ALL_OUT_DAMAGE
    test = TestRecord(
        id=state.next_id,
        fighter=f.id,
        kind=kind,
        action=c.action,
        ability=weapon.test_ability,
        focus=focus,
        faces=faces,
        modifier=modifier,
        tn=tn,
        target=target.id if target else "",
        object_size=c.object_size,
        weapon=c.weapon,
        damage_sides=sides,
        damage_dice=count,
        damage_bonus=bonus,
        weak=c.weak,
        stunning=c.stunning,
        fragile=c.fragile,
        ranged=ranged,
        entered=entered,
    )
    if test.success and test.damaging:
        damage, typed = damage_roll(c.damage_entered, count, sides, dice)
        test = replace(test, damage_faces=damage, damage_entered=typed)
    return [*revealed_by_attack(state, f.id), Tested(test=test, slot=slot, metres=moved)]


def throw_grenade(state: State, c: ThrowGrenade, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    slot = action_slot(state, f, "ranged_attack")
    weapon = book.WEAPONS["grenade"]
    require(f.in_hand == "grenade", f"{f.name} needs a grenade in hand first: use the Ready action.")
    require(state.blast is None, "A scattered grenade is still waiting for the GM to place it.")
    _, longest = weapon_range(state, f, weapon)
    require(0 <= c.distance <= longest, f"{f.name} can throw a grenade {longest} m.")
    require(f.cover < book.TOTAL_COVER, f"{f.name} is in total cover and cannot make ranged attacks.")
    require(-10 <= c.modifier <= 10, "The GM's modifier must be between -10 and +10.")
    targets = parse_targets(state, c.targets, f)
    modifier, focus = test_bonus(state, f, "Accuracy", weapon.focuses)
    modifier += book.COVER.get(f.cover, (0, 0))[1] + (book.AIM_BONUS if f.aim else 0) + c.modifier
    check_damage_entry(state, c.damage_entered, weapon.dice, weapon.sides)
    faces, entered = test_faces(state, c.entered, dice)
    test = TestRecord(
        id=state.next_id,
        fighter=f.id,
        kind="grenade",
        action="ranged_attack",
        ability="Accuracy",
        focus=focus,
        faces=faces,
        modifier=modifier,
        tn=book.GRENADE_TN,
        targets=targets,
        weapon="grenade",
        damage_sides=weapon.sides,
        damage_dice=weapon.dice,
        ranged=True,
        entered=entered,
    )
    if test.success:
        if targets:
            damage, typed = damage_roll(c.damage_entered, weapon.dice, weapon.sides, dice)
            test = replace(test, damage_faces=damage, damage_entered=typed)
    else:
        test = replace(test, scatter=dice.roll(1, book.GRENADE_SCATTER_SIDES)[0])
    return [*revealed_by_attack(state, f.id), Tested(test=test, slot=slot)]


def blast(state: State, c: Blast, dice: Dice) -> list[Event]:
    pending = found(state.blast, "No scattered grenade is waiting to be placed.")
    targets = parse_targets(state, c.targets)
    weapon = book.WEAPONS["grenade"]
    faces = dice.roll(weapon.dice, weapon.sides) if targets else ()
    return [Blasted(thrower=pending.thrower, targets=targets, faces=faces, direction=note(c.direction, 80))]


def also_in_blast(state: State, c: AlsoInBlast, dice: Dice) -> list[Event]:
    """Seed: "Grenades effect everyone within 5 metres." The thrower names only whom they see (parse_targets with a
    thrower); the GM adds the rest, unseen combatants included. They take the blast's damage, rolled now if
    nobody had been caught before."""
    require(bool(state.settings.get("gm_widens_blast")), "In this encounter a grenade hits only whom it was aimed at.")
    landed = found(state.landed, "No grenade has gone off since the thrower's last turn.")
    targets = parse_targets(state, c.targets)
    require(bool(targets), "Choose who else is within 5 m of the blast.")
    for fid in targets:
        require(fid not in landed.targets, f"{state.fighter(fid).name} is already caught in that blast.")
    weapon = book.WEAPONS["grenade"]
    faces = landed.faces or dice.roll(weapon.dice, weapon.sides)
    return [BlastWidened(thrower=landed.thrower, test=landed.test, targets=targets, faces=faces)]


def ability_test(state: State, c: AbilityTest, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    require(c.ability in ABILITIES, f"Choose one of the abilities: {', '.join(ABILITIES)}.")
    require(1 <= c.tn <= 40, "The target number must be between 1 and 40.")
    require(c.action in ("major", "minor", "free"), "Choose a major, minor or free action.")
    action = {"major": "other_major", "minor": "activate", "free": "free"}[c.action]
    slot = "none" if c.action == "free" else action_slot(state, f, action)
    modifier, focus = test_bonus(state, f, c.ability, chosen_focuses(c.focus, ()))
    faces, entered = test_faces(state, c.entered, dice)
    test = TestRecord(
        id=state.next_id,
        fighter=f.id,
        kind="test",
        action=action,
        ability=c.ability,
        focus=focus,
        faces=faces,
        modifier=modifier,
        tn=c.tn,
        resist=c.resist,
        note=note(c.note, 80),
        entered=entered,
    )
    return [Tested(test=test, slot=slot)]


def change_die(state: State, c: ChangeDie, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    mine = [t for t in state.tests if t.fighter == f.id]
    require(bool(mine), f"{f.name} has made no test this turn.")
    test = mine[-1]
    require(not test.locked, "Too late: something has already followed from that test.")
    require(not test.churned, "The Churn made that test fail: no die changes that.")
    require(c.die in (0, 1, 2), "Choose one of the three dice.")
    require(1 <= c.face <= 6, "A die shows 1 to 6.")
    require(test.faces[c.die] != c.face, f"That die already shows {c.face}.")
    cost = int(state.settings.get("fortune_drama_cost" if c.die == 2 else "fortune_die_cost", 0))
    require(cost > 0, "Fortune cannot change that die in this encounter.")
    require(f.fortune >= cost, f"Changing that die costs {cost} Fortune and {f.name} has {f.fortune}.")
    faces = tuple(c.face if i == c.die else x for i, x in enumerate(test.faces))
    new = replace(test, faces=faces)
    damage_faces: tuple[int, ...] = ()
    scatter = 0
    if new.success and new.damaging and not test.damage_faces and (new.kind != "grenade" or new.targets):
        damage_faces = dice.roll(new.damage_dice, new.damage_sides)
    if new.kind == "grenade" and not new.success and not test.scatter:
        scatter = dice.roll(1, book.GRENADE_SCATTER_SIDES)[0]
    return [
        DieChanged(
            fighter=f.id, test=test.id, die=c.die, face=c.face, cost=cost, damage_faces=damage_faces, scatter=scatter
        )
    ]


def spend_stunt(state: State, c: SpendStunt, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    require(f.sp > 0, f"{f.name} has no stunt points to spend.")
    stunt = found(state.stunt(c.stunt), "That stunt is not on this encounter's list.")
    points = c.points or stunt.cost
    require(stunt.fits(points), f"{stunt.name} costs {stunt.cost_label} SP.")
    require(points <= f.sp, f"{f.name} has only {plural(f.sp, 'stunt point')}.")
    require(stunt.key not in f.stunts_used, f"{f.name} has already used {stunt.name} this round.")
    test = found(state.test(f.sp_test), f"{f.name}'s stunt points are gone.")
    if stunt.damaging and test.kind == "stunt_attack":
        require(test.doubles, f"Without doubles, a stunt attack's point cannot buy {stunt.name}, which does damage.")
    target = state.fighter(test.target) if test.target else None
    hit = next((h for h in state.hits if h.test == test.id and h.target == (target.id if target else "")), None)
    effect = stunt.effect
    moves_target = effect == "knock_prone" or (effect == "skirmish" and c.moves == "target")
    foe: Fighter | None = None  # the test's target, when the stunt acts on it
    if moves_target or effect in ("double_team", "injure", "overcome_toughness"):
        foe = found(target, f"{stunt.name} needs the combatant this test was against.")
        require(not foe.out, f"{foe.name} is already out of the encounter.")
    if effect == "lightning_attack":
        require(test.kind != "test", f"{stunt.name} follows an attack, not another test.")
    if effect == "skirmish":
        require(c.moves in ("self", "target"), "Skirmish moves yourself or your target.")
    ally = None
    if effect in ("guardian", "group_tactics", "double_team"):
        ally = state.fighter(c.ally)
        require(ally.id != f.id and ally.side == f.side, f"Choose an ally of {f.name}'s.")
        require(not ally.out, f"{ally.name} is out of the encounter.")
        if effect == "double_team":
            require(ally.can_act, f"{ally.name} cannot act.")
    if foe is not None and effect in ("injure", "overcome_toughness"):
        hit = found(hit, f"{stunt.name} needs an attack that did damage.")
        require(hit.fresh, f"{foe.name} has already taken that damage.")
        if effect == "injure":
            require(
                2 * foe.fortune <= foe.fortune_max, f"Injure needs {foe.name} to have lost half their Fortune or more."
            )
            require(hit.damage > hit.soaked, f"Injure needs the damage to beat {foe.name}'s Toughness.")
            require("Injured" not in foe.conditions, f"{foe.name} is already injured.")
        else:
            require(not hit.penetrating, "That damage already ignores Toughness.")
    opposed = None
    if foe is not None and moves_target:
        require(not (effect == "knock_prone" and foe.prone), f"{foe.name} is already prone.")
        firm = state.effects_on(foe.id, "stand_firm")
        if firm:  # an opposed test: the stunt's Strength (Might) against the ability the foe stands firm with
            a_bonus, _ = test_bonus(state, f, "Strength", ("Might",))
            d_ability = firm[0].other
            d_bonus, _ = test_bonus(state, foe, d_ability, ("Might",) if d_ability == "Strength" else ("Acrobatics",))
            opposed = Opposed(
                attacker_faces=dice.roll(3, 6),
                attacker_bonus=a_bonus,
                defender_faces=dice.roll(3, 6),
                defender_bonus=d_bonus,
                defender_ability=d_ability,
            )
    return [
        StuntSpent(
            fighter=f.id,
            stunt=stunt.key,
            points=points,
            target=target.id if target else "",
            ally=ally.id if ally else "",
            moves=c.moves if effect == "skirmish" else "",
            hit=hit.id if hit else 0,
            note=note(c.note),
            opposed=opposed,
        )
    ]
