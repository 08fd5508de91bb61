"""The Expanse (AGE) combat: initiative with the Drama Die, major and minor actions, attacks against Defense,
damage through Toughness, Fortune, injured, wounded and taken out, stunt points, weapon capacity, Churn.

The seed (`/work/shared/seeds/004_…`) is the authority; its tables live as data in `expanse.rulebook`.
Every test is 3d6 where the third die is the Drama Die. Every die rolled is stored in its event.
"""

from __future__ import annotations

from dataclasses import replace

from combat.rules.core import Command, Event, EventCodec, RuleError
from combat.rules.core import require as _require
from combat.rules.dice import Dice
from combat.rules.expanse import rulebook as T
from combat.rules.expanse.commands import (
    COMMANDS,
    AbilityTest,
    AcceptCondition,
    Activate,
    AddStunt,
    AdjustChurn,
    AdjustFortune,
    Aim,
    ApproveRollOver,
    Attack,
    Blast,
    BreakTie,
    Breathers,
    ChangeDie,
    ChurnJam,
    ClearJam,
    Defend,
    EndTurn,
    GuardUp,
    Interrupt,
    InterruptSelf,
    Move,
    NextTurn,
    Prepare,
    PressTheAttack,
    Pursue,
    Ready,
    RollInitiative,
    RollOver,
    Run,
    SetCondition,
    SetCover,
    SpendFortune,
    SpendStunt,
    StandFirm,
    ThrowGrenade,
)
from combat.rules.expanse.describe import describe
from combat.rules.expanse.events import (
    EVENTS,
    Activated,
    Aimed,
    Blasted,
    BreatherRoll,
    BreathersTaken,
    ChurnAdjusted,
    ChurnJammed,
    ChurnReached,
    ConditionSet,
    ConditionTaken,
    CoverSet,
    Defended,
    DieChanged,
    FortuneAdjusted,
    FortuneSpent,
    GuardedUp,
    GuardTransferred,
    InitiativeRolled,
    InitRoll,
    Interrupted,
    JamCleared,
    Moved,
    Opposed,
    Prepared,
    Pressed,
    Pursued,
    Ran,
    Readied,
    RolledOver,
    RollOverAsked,
    StoodFirm,
    StuntAdded,
    StuntSpent,
    TakenOut,
    Tested,
    TieBroken,
    TurnEnded,
    TurnStarted,
)
from combat.rules.expanse.evolve import evolve
from combat.rules.expanse.setup import (
    KEY,
    SETTINGS,
    fighter_from_sheet,
    initial_state,
    outcome,
    parse_stunts,
    write_back,
)
from combat.rules.expanse.state import (
    CANNOT_ACT,
    Effect,
    Fighter,
    FreeAttack,
    Hit,
    PendingBlast,
    State,
    TestRecord,
    ability,
    condition_penalty,
    cover_bonus,
    damage_dice,
    defense,
    speed,
    test_bonus,
    toughness,
    weapon_range,
)
from combat.rules.expanse.state import order_for_round as _order_for_round
from combat.rules.expanse.state import plural as _plural
from combat.rules.expanse.state import slug as _slug
from combat.rules.expanse.stats import ABILITIES, CONDITIONS

CODEC = EventCodec(EVENTS, COMMANDS)


# --- decide ----------------------------------------------------------------------------------------------------------



def _note(text: str, limit: int = 200) -> str:
    return " ".join(str(text).split())[:limit]



def _test_faces(state: State, entered: tuple[int, ...], dice: Dice) -> tuple[tuple[int, ...], bool]:
    """The three dice of a test: typed in from physical dice (when the GM allows it) or rolled by the server."""
    if not entered:
        return dice.roll(3, 6), False
    _require(bool(state.settings.get("entered_dice")), "The GM has the server roll the dice in this encounter.")
    _require(len(entered) == 3, "Enter the three dice of the test, the Drama Die last.")
    _require(all(1 <= face <= 6 for face in entered), "Each die of a test shows a face from 1 to 6.")
    return tuple(entered), True


def _check_damage_entry(state: State, entered: tuple[int, ...], count: int, sides: int) -> None:
    """Typed-in damage dice are checked before anything is rolled, hit or miss."""
    if not entered:
        return
    _require(bool(state.settings.get("entered_dice")), "The GM has the server roll the dice in this encounter.")
    _require(len(entered) == count, f"The damage is {count}d{sides}: enter {count} {'die' if count == 1 else 'dice'} or none.")
    _require(all(1 <= face <= sides for face in entered), f"Each damage die shows a face from 1 to {sides}.")


def _damage_faces(entered: tuple[int, ...], count: int, sides: int, dice: Dice) -> tuple[tuple[int, ...], bool]:
    return (tuple(entered), True) if entered else (dice.roll(count, sides), False)


def decide(state: State, command: Command, dice: Dice) -> list[Event]:
    _require(not state.ended, "This encounter has ended.")
    handler = _DECIDERS.get(type(command))
    if handler is None:
        raise RuleError("That is not an action in The Expanse.")
    events = handler(state, command, dice)
    return _follow_up(state, events)


def _simulate(state: State, events: list[Event]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def _follow_up(state: State, events: list[Event]) -> list[Event]:
    """What follows by itself: the turn ends when nothing is left; Churn thresholds are announced."""
    after = _simulate(state, events)
    holder_out = bool(after.turn) and not after.fighter(after.turn).can_act
    if after.begun and after.turn and (holder_out or not after.interrupt) and not after.ended and _nothing_left(after):
        more: list[Event] = [TurnEnded(fighter=after.turn, auto=True, sp_lost=after.fighter(after.turn).sp)]
        nxt = _next_turn(evolve(after, more[0]))
        if nxt:
            more.append(nxt)
        events = events + more
        after = _simulate(after, more)
    if after.settings.get("churn") and after.churn > state.churn:
        for level, _ in T.CHURN_THRESHOLDS:
            if state.churn < level <= after.churn:
                events = events + [ChurnReached(level=level, reset=level >= T.CHURN_RESET_AT)]
    return events


def _nothing_left(state: State) -> bool:
    f = state.fighter(state.turn)
    if not f.can_act:
        return True
    if len(state.turn_actions) < 2 or f.sp > 0 or state.free_attacks:
        return False
    return not _changeable_test(state, f)



def _next_turn(state: State) -> TurnStarted | None:
    """The next combatant able to act, wrapping into a new round (whose order reflects Momentum)."""
    if not state.begun:
        order, rnd = state.order, 1
        candidates = [(fid, rnd) for fid in order]
    else:
        current = state.turn or state.last_turn
        position = state.order.index(current) if current in state.order else -1
        rest = [(fid, state.round) for fid in state.order[position + 1:]]
        wrapped = [(fid, state.round + 1) for fid in _order_for_round(state)]
        candidates = rest + wrapped
    for fid, rnd in candidates:
        if state.fighter(fid).can_act:
            return TurnStarted(fighter=fid, round=rnd)
    return None


def _acting(state: State, fighter_id: str) -> Fighter:
    f = state.fighter(fighter_id)
    _require(not f.out, f"{f.name} is out of the encounter.")
    _require(f.can_act, f"{f.name} cannot act while {', '.join(c for c in f.conditions if c in CANNOT_ACT).lower()}.")
    return f


def _slot(state: State, f: Fighter, action: str) -> str:
    """How `f` may take `action` now ("turn" or "prepared"), or a RuleError sentence saying why not."""
    label = T.MAJOR_ACTIONS.get(action) or T.MINOR_ACTIONS.get(action, action)
    if state.interrupt == f.id:
        _require(action == f.prepared,
                 f"{f.name} prepared {T.MAJOR_ACTIONS.get(f.prepared, f.prepared)}, so that is the action to take now.")
        return "prepared"
    _require(state.begun, "Combat has not begun: roll initiative, then begin the first turn.")
    _require(state.turn == f.id, f"It is not {f.name}'s turn.")
    if state.interrupt:
        _require(False, f"{state.fighter(state.interrupt).name} is interrupting with a prepared action; wait for it.")
    _require(len(state.turn_actions) < 2, f"{f.name} has already taken two actions this turn.")
    if action in T.MAJOR_ACTIONS:
        _require(state.majors_taken == 0,
                 f"{f.name} has already taken a major action this turn, so {label} cannot follow; only a minor can.")
    return "turn"


def _free_attack(state: State, f: Fighter, target: str) -> FreeAttack:
    granted = [a for a in state.free_attacks if a.fighter == f.id]
    _require(bool(granted), f"{f.name} has no extra attack from a stunt.")
    fitting = [a for a in granted if not a.target or a.target == target]
    if not fitting:
        raise RuleError(f"{f.name}'s extra attack must go against {state.fighter(granted[0].target).name}.")
    return fitting[0]


def _roll_initiative(state: State, c: RollInitiative, dice: Dice) -> list[Event]:
    _require(not state.initiative_rolled, "Initiative has already been rolled for this encounter.")
    rolls = []
    for f in state.fighters:
        bonus, focus = test_bonus(state, f, "Dexterity", ("Initiative",))
        rolls.append(InitRoll(fighter=f.id, faces=dice.roll(3, 6), bonus=bonus, focus=bool(focus)))
    return [InitiativeRolled(rolls=tuple(rolls))]


def _break_tie(state: State, c: BreakTie, dice: Dice) -> list[Event]:
    _require(state.initiative_rolled, "Roll initiative first.")
    _require(not state.begun, "Initiative ties are settled before the first turn.")
    a, b = state.fighter(c.first), state.fighter(c.second)
    _require(a.id != b.id, "Choose two different combatants.")
    _require((a.initiative, a.drama) == (b.initiative, b.drama),
             f"{a.name} and {b.name} are not tied on both initiative and the Drama Die.")
    return [TieBroken(first=a.id, second=b.id)]


def _next_turn_command(state: State, c: NextTurn, dice: Dice) -> list[Event]:
    _require(state.initiative_rolled, "Roll initiative first.")
    _require(not state.interrupt, "Let the interrupting combatant act first.")
    events: list[Event] = []
    if state.turn:
        f = state.fighter(state.turn)
        events.append(TurnEnded(fighter=f.id, sp_lost=f.sp))
        state = evolve(state, events[0])
    nxt = _next_turn(state)
    _require(nxt is not None or bool(events), "Nobody is able to act.")
    return events + ([nxt] if nxt else [])


def _end_turn(state: State, c: EndTurn, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _require(state.turn == f.id, f"It is not {f.name}'s turn.")
    if state.interrupt:
        raise RuleError(f"{state.fighter(state.interrupt).name} is interrupting; wait for their prepared action.")
    ended = TurnEnded(fighter=f.id, sp_lost=f.sp)
    nxt = _next_turn(evolve(state, ended))
    return [ended] + ([nxt] if nxt else [])


def _focuses(requested: str, defaults: tuple[str, ...]) -> tuple[str, ...]:
    requested = " ".join(requested.split())
    return (requested,) if requested else defaults


def _attack(state: State, c: Attack, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _require(c.action in T.ATTACK_ACTIONS,
             "Choose All-Out Attack, Charge, Melee Attack, Ranged Attack or Stunt Attack.")
    weapon = T.WEAPONS.get(c.weapon)
    _require(weapon is not None, "Choose one of the weapon types.")
    _require(c.weapon != "grenade", "Throw grenades with the grenade action.")
    if c.free:
        _require(c.action in ("melee_attack", "ranged_attack", "stunt_attack"),
                 "A stunt's extra attack is a melee, ranged or stunt attack.")
        _free_attack(state, f, c.target)
        slot = "free"
    else:
        slot = _slot(state, f, c.action)
    label = T.MAJOR_ACTIONS[c.action]
    if c.action in T.MELEE_FAMILY:
        _require(weapon.kind == "melee", f"{label} is made in close combat, not with a {weapon.label.lower()}.")
    elif c.action == "ranged_attack":
        _require(weapon.kind != "melee",
                 f"A ranged attack needs a ranged or thrown weapon, not a {weapon.label.lower()}.")
    _require(c.weapon not in f.jammed,
             f"{f.name}'s {weapon.label.lower()} is jammed or out of ammunition; a minor action fixes it.")
    moved = 0
    if c.action == "charge":
        _require(not f.prone, f"{f.name} is prone and must stand up with a Move first.")
        half = speed(state, f) // 2
        _require(0 <= c.moved <= half, f"{f.name} can charge up to half their Speed: {half} m.")
        moved = c.moved
    makeshift = weapon.makeshift
    for value, flaw in ((c.clumsy, "Clumsy"), (c.weak, "Weak")):
        _require(0 <= value <= T.MAKESHIFT_FLAW_MAX, f"{flaw} is a penalty of 1 or 2.")
        _require(not value or makeshift, f"Only makeshift weapons are {flaw.lower()}.")
    _require(not c.fragile or makeshift, "Only makeshift weapons are fragile.")
    _require(-10 <= c.modifier <= 10, "The GM's modifier must be between -10 and +10.")
    _require(0 <= c.distance <= 10_000, "Distance is a number of metres.")

    target: Fighter | None = None
    if c.object_size:
        size = T.OBJECT_SIZES.get(c.object_size)
        _require(size is not None, "Choose the object's size from the table.")
        tn = size[2]
    else:
        target = state.fighter(c.target)
        _require(target.id != f.id, f"{f.name} cannot attack themselves.")
        _require(target.side != f.side, f"{target.name} is on {f.name}'s side.")
        _require(not target.out, f"{target.name} is already out of the encounter.")
        tn = defense(state, target)

    ranged = weapon.kind != "melee"
    modifier, focus = test_bonus(state, f, weapon.test_ability, _focuses(c.focus, weapon.focuses))
    if ranged:
        short, longest = weapon_range(state, f, weapon)
        _require(c.distance <= longest, f"{target.name if target else 'The object'} is out of range: "
                                        f"the {weapon.label.lower()} reaches {longest} m.")
        if c.distance > short:
            modifier -= int(state.settings.get("long_range_penalty", 2))
        _require(f.cover < T.TOTAL_COVER, f"{f.name} is in total cover and cannot make ranged attacks.")
        modifier += T.COVER.get(f.cover, (0, 0))[1]
        if target:
            _require(target.cover < T.TOTAL_COVER, f"{target.name} is in total cover and cannot be attacked at range.")
    else:
        _require(c.distance <= T.MELEE_REACH, f"Close combat reaches an enemy within {T.MELEE_REACH} m.")
    if f.aim:
        modifier += T.AIM_BONUS
    if c.action == "charge" and c.straight and moved >= T.CHARGE_STRAIGHT_METRES:
        modifier += T.CHARGE_BONUS
    modifier += c.modifier - c.clumsy

    kind = "stunt_attack" if c.action == "stunt_attack" else "attack"
    count, sides = damage_dice(f, c.weapon, c.stunning)
    _check_damage_entry(state, c.damage_entered, count, sides)
    faces, entered = _test_faces(state, c.entered, dice)
    bonus = 0
    if weapon.damage_abilities:
        choices = weapon.damage_abilities
        if c.damage_ability:
            _require(c.damage_ability in choices, f"A {weapon.label.lower()} adds {' or '.join(choices)} to damage.")
            choices = (c.damage_ability,)
        bonus = max(ability(state, f, a) for a in choices)
    if c.action == "all_out_attack":
        bonus += T.ALL_OUT_DAMAGE
    test = TestRecord(
        id=state.next_id, fighter=f.id, kind=kind, action=c.action, ability=weapon.test_ability, focus=focus,
        faces=faces, modifier=modifier, tn=tn, target=target.id if target else "", object_size=c.object_size,
        weapon=c.weapon, damage_sides=sides, damage_dice=count, damage_bonus=bonus, weak=c.weak,
        stunning=c.stunning, fragile=c.fragile, ranged=ranged, entered=entered,
    )
    if test.success and test.damaging:
        damage, typed = _damage_faces(c.damage_entered, count, sides, dice)
        test = replace(test, damage_faces=damage, damage_entered=typed)
    return [Tested(test=test, slot=slot, metres=moved)]


def _parse_targets(state: State, text: str) -> tuple[str, ...]:
    ids = tuple(dict.fromkeys(x.strip() for x in text.replace(";", ",").split(",") if x.strip()))
    for fid in ids:
        _require(not state.fighter(fid).out, f"{state.fighter(fid).name} is already out of the encounter.")
    return ids


def _throw_grenade(state: State, c: ThrowGrenade, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    slot = _slot(state, f, "ranged_attack")
    weapon = T.WEAPONS["grenade"]
    _require(f.in_hand == "grenade", f"{f.name} needs a grenade in hand first: use the Ready action.")
    _require(state.blast is None, "A scattered grenade is still waiting for the GM to place it.")
    _, longest = weapon_range(state, f, weapon)
    _require(0 <= c.distance <= longest, f"{f.name} can throw a grenade {longest} m.")
    _require(f.cover < T.TOTAL_COVER, f"{f.name} is in total cover and cannot make ranged attacks.")
    _require(-10 <= c.modifier <= 10, "The GM's modifier must be between -10 and +10.")
    targets = _parse_targets(state, c.targets)
    modifier, focus = test_bonus(state, f, "Accuracy", weapon.focuses)
    modifier += T.COVER.get(f.cover, (0, 0))[1] + (T.AIM_BONUS if f.aim else 0) + c.modifier
    _check_damage_entry(state, c.damage_entered, weapon.dice, weapon.sides)
    faces, entered = _test_faces(state, c.entered, dice)
    test = TestRecord(id=state.next_id, fighter=f.id, kind="grenade", action="ranged_attack", ability="Accuracy",
                      focus=focus, faces=faces, modifier=modifier, tn=T.GRENADE_TN, targets=targets,
                      weapon="grenade", damage_sides=weapon.sides, damage_dice=weapon.dice, ranged=True,
                      entered=entered)
    if test.success:
        if targets:
            damage, typed = _damage_faces(c.damage_entered, weapon.dice, weapon.sides, dice)
            test = replace(test, damage_faces=damage, damage_entered=typed)
    else:
        test = replace(test, scatter=dice.roll(1, T.GRENADE_SCATTER_SIDES)[0])
    return [Tested(test=test, slot=slot)]


def _blast(state: State, c: Blast, dice: Dice) -> list[Event]:
    _require(state.blast is not None, "No scattered grenade is waiting to be placed.")
    targets = _parse_targets(state, c.targets)
    weapon = T.WEAPONS["grenade"]
    faces = dice.roll(weapon.dice, weapon.sides) if targets else ()
    return [Blasted(thrower=state.blast.thrower, targets=targets, faces=faces, direction=_note(c.direction, 80))]


def _ability_test(state: State, c: AbilityTest, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _require(c.ability in ABILITIES, f"Choose one of the abilities: {', '.join(ABILITIES)}.")
    _require(1 <= c.tn <= 40, "The target number must be between 1 and 40.")
    _require(c.action in ("major", "minor", "free"), "Choose a major, minor or free action.")
    action = {"major": "other_major", "minor": "activate", "free": "free"}[c.action]
    slot = "none" if c.action == "free" else _slot(state, f, action)
    modifier, focus = test_bonus(state, f, c.ability, _focuses(c.focus, ()))
    faces, entered = _test_faces(state, c.entered, dice)
    test = TestRecord(id=state.next_id, fighter=f.id, kind="test", action=action, ability=c.ability, focus=focus,
                      faces=faces, modifier=modifier, tn=c.tn, resist=c.resist, note=_note(c.note, 80),
                      entered=entered)
    return [Tested(test=test, slot=slot)]


def _defend(state: State, c: Defend, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    slot = _slot(state, f, "defend")
    if slot == "turn":
        _require("guard_up" not in state.turn_actions, f"{f.name} used Guard Up this turn and cannot also Defend.")
    return [Defended(fighter=f.id, slot=slot)]


def _run(state: State, c: Run, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    slot = _slot(state, f, "run")
    _require(not f.prone, f"{f.name} is prone and must stand up with a Move first.")
    if slot == "turn" and state.settings.get("run_ends_turn"):
        _require(not state.turn_actions, "Run takes the whole turn in this encounter, so it must be the only action.")
    top = 2 * speed(state, f)
    _require(0 < c.metres <= top, f"{f.name} can run up to twice their Speed: {top} m.")
    _require(0 <= c.cover <= T.TOTAL_COVER, "Cover is rated 0 to 3, or 4 for total cover.")
    return [Ran(fighter=f.id, metres=c.metres, cover=c.cover, slot=slot)]


def _move(state: State, c: Move, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "move")
    _require(not (c.stand_up and c.drop_prone), "Stand up or drop prone, not both.")
    _require(not c.stand_up or f.prone, f"{f.name} is not prone.")
    _require(not c.drop_prone or not f.prone, f"{f.name} is already prone.")
    full = speed(state, f)
    extras = sum((c.stand_up, c.drop_prone, c.vehicle))
    left = full - extras * (full // 2)
    _require(0 <= c.metres <= left,
             f"{f.name} can move {left} m" + (" after the rest of this move." if extras else "."))
    _require(0 <= c.cover <= T.TOTAL_COVER, "Cover is rated 0 to 3, or 4 for total cover.")
    return [Moved(fighter=f.id, metres=c.metres, stand_up=c.stand_up, drop_prone=c.drop_prone, vehicle=c.vehicle,
                  cover=c.cover)]


def _activate(state: State, c: Activate, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "activate")
    return [Activated(fighter=f.id, what=_note(c.what, 120))]


def _aim(state: State, c: Aim, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "aim")
    return [Aimed(fighter=f.id)]


def _guard_up(state: State, c: GuardUp, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "guard_up")
    _require(c.bonus in T.GUARD_UP_CHOICES, "Guard Up adds +1 or +2 to Defense.")
    _require("guard_up" not in state.turn_actions, f"{f.name} has already guarded up this turn: +1 or +2, once.")
    _require("defend" not in state.turn_actions, f"{f.name} took Defend this turn and cannot also Guard Up.")
    _require(state.majors_taken == 0, f"Guard Up must come before any major action on {f.name}'s turn.")
    return [GuardedUp(fighter=f.id, bonus=c.bonus)]


def _prepare(state: State, c: Prepare, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "prepare")
    _require(c.action in T.PREPARABLE, "Prepare one of the major actions.")
    _require(not state.turn_actions,
             f"Prepare postpones {f.name}'s major action, so it needs both of this turn's actions free.")
    return [Prepared(fighter=f.id, action=c.action)]


def _press_the_attack(state: State, c: PressTheAttack, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "press_the_attack")
    target = state.fighter(c.target)
    struck = any(t.fighter == f.id and t.target == target.id and t.action in T.MELEE_FAMILY and t.success
                 for t in state.tests)
    _require(struck, f"{f.name} can press the attack only after striking {target.name} with a melee attack this turn.")
    return [Pressed(fighter=f.id, target=target.id)]


def _ready(state: State, c: Ready, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "ready")
    item = _note(c.item, 60)
    _require(bool(item or c.stow), "Say what you ready or put away.")
    return [Readied(fighter=f.id, item=item, stow=_note(c.stow, 60))]


def _stand_firm(state: State, c: StandFirm, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    _slot(state, f, "stand_firm")
    choice = c.ability
    if not choice:
        might = test_bonus(state, f, "Strength", ("Might",))[0]
        acrobatics = test_bonus(state, f, "Dexterity", ("Acrobatics",))[0]
        choice = "Strength" if might >= acrobatics else "Dexterity"
    _require(choice in ("Strength", "Dexterity"), "Stand Firm resists with Strength (Might) or Dexterity (Acrobatics).")
    return [StoodFirm(fighter=f.id, ability=choice)]


def _clear_jam(state: State, c: ClearJam, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    weapon = c.weapon or (f.jammed[0] if f.jammed else "")
    _require(weapon in f.jammed, f"{f.name} has no jammed or empty weapon.")
    _slot(state, f, "clear_jam")
    return [JamCleared(fighter=f.id, weapon=weapon)]


def _interrupt_checks(state: State, f: Fighter) -> None:
    _require(state.begun, "Combat has not begun.")
    _require(bool(f.prepared), f"{f.name} has no prepared action.")
    if state.interrupt:
        raise RuleError(f"{state.fighter(state.interrupt).name} is already interrupting.")
    _require(state.turn != f.id, f"It is {f.name}'s own turn.")
    _acting(state, f.id)


def _interrupt(state: State, c: Interrupt, dice: Dice) -> list[Event]:
    if not c.fighter:
        _require(bool(state.interrupt), "Nobody is interrupting.")
        return [Interrupted(fighter="", by="gm")]  # the GM calls the interrupt off
    f = state.fighter(c.fighter)
    _interrupt_checks(state, f)
    return [Interrupted(fighter=f.id, by="gm")]


def _interrupt_self(state: State, c: InterruptSelf, dice: Dice) -> list[Event]:
    _require(state.settings.get("prepare_interrupt") == "player",
             "The GM calls interrupts in this encounter: ask the GM to tap 'interrupt now'.")
    f = state.fighter(c.actor)
    _interrupt_checks(state, f)
    return [Interrupted(fighter=f.id, by="self")]


def _pursue(state: State, c: Pursue, dice: Dice) -> list[Event]:
    f = _acting(state, c.actor)
    target = state.fighter(c.target)
    press = [e for e in state.effects if e.kind == "press" and e.source == f.id and e.other == target.id]
    _require(bool(press), f"{f.name} is not pressing the attack on {target.name}.")
    _require(press[0].triggered, f"{target.name} has not moved away, so there is nothing to pursue.")
    top = speed(state, f)
    _require(0 < c.metres <= top, f"{f.name} can pursue up to their Speed: {top} m.")
    return [Pursued(fighter=f.id, target=target.id, metres=c.metres)]


def _spend_stunt(state: State, c: SpendStunt, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _require(f.sp > 0, f"{f.name} has no stunt points to spend.")
    stunt = state.stunt(c.stunt)
    _require(stunt is not None, "That stunt is not on this encounter's list.")
    points = c.points or stunt.cost
    _require(stunt.fits(points), f"{stunt.name} costs {stunt.cost_label} SP.")
    _require(points <= f.sp, f"{f.name} has only {_plural(f.sp, 'stunt point')}.")
    _require(stunt.key not in f.stunts_used, f"{f.name} has already used {stunt.name} this round.")
    test = state.test(f.sp_test)
    _require(test is not None, f"{f.name}'s stunt points are gone.")
    if stunt.damaging and test.kind == "stunt_attack":
        _require(test.doubles, f"Without doubles, a stunt attack's point cannot buy {stunt.name}, which does damage.")
    target = state.fighter(test.target) if test.target else None
    hit = next((h for h in state.hits if h.test == test.id and h.target == (target.id if target else "")), None)
    effect = stunt.effect
    ally = None
    if effect in ("skirmish",) and c.moves == "target" or effect in ("knock_prone", "double_team", "injure",
                                                                        "overcome_toughness"):
        _require(target is not None, f"{stunt.name} needs the combatant this test was against.")
        _require(not target.out, f"{target.name} is already out of the encounter.")
    if effect == "lightning_attack":
        _require(test.kind != "test", f"{stunt.name} follows an attack, not another test.")
    if effect == "skirmish":
        _require(c.moves in ("self", "target"), "Skirmish moves yourself or your target.")
    if effect in ("guardian", "group_tactics", "double_team"):
        ally = state.fighter(c.ally)
        _require(ally.id != f.id and ally.side == f.side, f"Choose an ally of {f.name}'s.")
        _require(not ally.out, f"{ally.name} is out of the encounter.")
        if effect == "double_team":
            _require(ally.can_act, f"{ally.name} cannot act.")
    if effect in ("injure", "overcome_toughness"):
        _require(hit is not None, f"{stunt.name} needs an attack that did damage.")
        _require(hit.fresh, f"{target.name} has already taken that damage.")
    if effect == "injure":
        _require(2 * target.fortune <= target.fortune_max,
                 f"Injure needs {target.name} to have lost half their Fortune or more.")
        _require(hit.damage > hit.soaked, f"Injure needs the damage to beat {target.name}'s Toughness.")
        _require("Injured" not in target.conditions, f"{target.name} is already injured.")
    if effect == "overcome_toughness":
        _require(not hit.penetrating, "That damage already ignores Toughness.")
    opposed = None
    moves_target = effect == "knock_prone" or (effect == "skirmish" and c.moves == "target")
    if moves_target and target.prone and effect == "knock_prone":
        _require(False, f"{target.name} is already prone.")
    firm = state.effects_on(target.id, "stand_firm") if moves_target else ()
    if firm:
        a_bonus, _ = test_bonus(state, f, "Strength", ("Might",))
        d_ability = firm[0].other
        d_bonus, _ = test_bonus(state, target, d_ability, ("Might",) if d_ability == "Strength" else ("Acrobatics",))
        opposed = Opposed(attacker_faces=dice.roll(3, 6), attacker_bonus=a_bonus, defender_faces=dice.roll(3, 6),
                          defender_bonus=d_bonus, defender_ability=d_ability)
    return [StuntSpent(fighter=f.id, stunt=stunt.key, points=points, target=target.id if target else "",
                       ally=ally.id if ally else "", moves=c.moves if effect == "skirmish" else "",
                       hit=hit.id if hit else 0, note=_note(c.note), opposed=opposed)]


def _changeable_test(state: State, f: Fighter) -> TestRecord | None:
    """The fighter's latest test this turn, if Fortune may still change one of its dice."""
    mine = [t for t in state.tests if t.fighter == f.id]
    if not mine or mine[-1].locked:
        return None
    costs = [int(state.settings.get(k, 0)) for k in ("fortune_die_cost", "fortune_drama_cost")]
    affordable = [cost for cost in costs if cost > 0 and cost <= f.fortune]
    return mine[-1] if affordable else None


def _change_die(state: State, c: ChangeDie, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    mine = [t for t in state.tests if t.fighter == f.id]
    _require(bool(mine), f"{f.name} has made no test this turn.")
    test = mine[-1]
    _require(not test.locked, "Too late: something has already followed from that test.")
    _require(c.die in (0, 1, 2), "Choose one of the three dice.")
    _require(1 <= c.face <= 6, "A die shows 1 to 6.")
    _require(test.faces[c.die] != c.face, f"That die already shows {c.face}.")
    cost = int(state.settings.get("fortune_drama_cost" if c.die == 2 else "fortune_die_cost", 0))
    _require(cost > 0, "Fortune cannot change that die in this encounter.")
    _require(f.fortune >= cost, f"Changing that die costs {cost} Fortune and {f.name} has {f.fortune}.")
    faces = tuple(c.face if i == c.die else x for i, x in enumerate(test.faces))
    new = replace(test, faces=faces)
    damage_faces: tuple[int, ...] = ()
    scatter = 0
    if new.success and new.damaging and not test.damage_faces and (new.kind != "grenade" or new.targets):
        damage_faces = dice.roll(new.damage_dice, new.damage_sides)
    if new.kind == "grenade" and not new.success and not test.scatter:
        scatter = dice.roll(1, T.GRENADE_SCATTER_SIDES)[0]
    return [DieChanged(fighter=f.id, test=test.id, die=c.die, face=c.face, cost=cost, damage_faces=damage_faces,
                       scatter=scatter)]


def _open_hit(state: State, f: Fighter, hit_id: int) -> Hit:
    waiting = [h for h in state.hits if h.target == f.id and h.open]
    _require(bool(waiting), f"{f.name} has no damage waiting.")
    if hit_id:
        chosen = [h for h in waiting if h.id == hit_id]
        _require(bool(chosen), "That damage is not waiting for this combatant.")
        return chosen[0]
    return waiting[0]


def _guard_events(state: State, f: Fighter, hit: Hit) -> list[Event]:
    """Guardian Angel: before the ally first deals with fresh damage, the guardian takes their share."""
    if not hit.fresh or hit.remaining == 0:
        return []
    for e in state.effects_on(f.id, "guardian"):
        guardian = state.fighter(e.source)
        if not guardian.out:
            return [GuardTransferred(guardian=guardian.id, ally=f.id, hit=hit.id, points=min(e.points, hit.remaining))]
    return []


def _next_condition(f: Fighter) -> str:
    return next((c for c in T.INJURY_LADDER if c not in f.conditions), "")


def _spend_fortune(state: State, c: SpendFortune, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    hit = _open_hit(state, f, c.hit)
    _require(hit.stage == "fortune", f"{f.name} has already decided how much Fortune to spend on that damage.")
    events = _guard_events(state, f, hit)
    after = _simulate(state, events)
    hit = after.hit(hit.id)
    top = min(f.fortune, hit.remaining)
    _require(0 <= c.points <= top, f"{f.name} can spend 0 to {top} Fortune on this damage.")
    events.append(FortuneSpent(fighter=f.id, hit=hit.id, points=c.points))
    return events + _forced_out(_simulate(after, events[-1:]), f.id, hit.id)


def _forced_out(state: State, fighter_id: str, hit_id: int) -> list[Event]:
    """Damage left with no condition left to take: the combatant is taken out."""
    f, hit = state.fighter(fighter_id), state.hit(hit_id)
    if hit and hit.open and hit.remaining > 0 and not _next_condition(f) and not f.out:
        return [TakenOut(fighter=f.id, hit=hit.id, condition=T.STUNNED_OUT if hit.stunning else "")]
    return []


def _accept_condition(state: State, c: AcceptCondition, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    hit = _open_hit(state, f, c.hit)
    _require(c.choice in ("condition", "taken_out"), "Take a condition, or be taken out.")
    events: list[Event] = []
    if hit.stage == "fortune":  # no Fortune spent: say so first
        events = _guard_events(state, f, hit)
        events.append(FortuneSpent(fighter=f.id, hit=hit.id, points=0))
        after = _simulate(state, events)
        if not after.hit(hit.id).open:
            return events
        forced = _forced_out(after, f.id, hit.id)
        if forced:
            return events + forced
        state, hit = after, after.hit(hit.id)
    if c.choice == "taken_out":
        return events + [TakenOut(fighter=f.id, hit=hit.id, condition=T.STUNNED_OUT if hit.stunning else "")]
    condition = _next_condition(f)
    _require(bool(condition), f"{f.name} is already injured and wounded: they are taken out unless they roll over.")
    events.append(ConditionTaken(fighter=f.id, hit=hit.id, condition=condition, roll=dice.roll(1, T.INJURY_DIE)[0]))
    return events + _forced_out(_simulate(state, events[-1:]), f.id, hit.id)


def _roll_over(state: State, c: RollOver, dice: Dice) -> list[Event]:
    f = state.fighter(c.actor)
    _require(not f.out, f"{f.name} is already out of the encounter.")
    _require(not f.roll_over_asked, f"{f.name} has already asked to roll over; the GM decides.")
    allowed = tuple(x for x in CONDITIONS if x != T.TAKEN_OUT)
    _require(c.condition in allowed, f"Choose the condition to take: {', '.join(allowed)}.")
    return [RollOverAsked(fighter=f.id, condition=c.condition)]


def _approve_roll_over(state: State, c: ApproveRollOver, dice: Dice) -> list[Event]:
    f = state.fighter(c.fighter)
    _require(bool(f.roll_over_asked), f"{f.name} has not asked to roll over.")
    _require(not f.out, f"{f.name} is already out of the encounter.")
    condition = c.condition or f.roll_over_asked
    _require(condition in CONDITIONS and condition != T.TAKEN_OUT, "Choose one of the conditions.")
    return [RolledOver(fighter=f.id, condition=condition, approved=c.approve)]


def _add_stunt(state: State, c: AddStunt, dice: Dice) -> list[Event]:
    name = _note(c.stunt, 40)
    key = _slug(name)
    _require(bool(key), "Name the stunt.")
    _require(state.stunt(name) is None, f"There is already a stunt called {name}.")
    _require(1 <= c.cost <= 20 and (c.max_cost == 0 or c.cost <= c.max_cost <= 20), "A stunt costs 1 to 20 SP.")
    _require(c.effect in ("",) + T.EFFECTS, "Choose one of the engine's effects, or none for a narrated stunt.")
    return [StuntAdded(stunt=T.Stunt(key, name, c.cost, c.max_cost, c.effect, c.damaging, _note(c.text)))]


def _set_condition(state: State, c: SetCondition, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(c.condition in CONDITIONS, f"Choose one of the conditions: {', '.join(CONDITIONS)}.")
    _require((c.condition in f.conditions) != c.on,
             f"{f.name} {'already has' if c.on else 'does not have'} the {c.condition} condition.")
    return [ConditionSet(target=f.id, condition=c.condition, on=c.on)]


def _adjust_fortune(state: State, c: AdjustFortune, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(c.change != 0, "Change Fortune up or down.")
    change = max(-f.fortune, min(f.fortune_max - f.fortune, c.change))
    _require(change != 0, f"{f.name}'s Fortune is already at {'its maximum' if c.change > 0 else '0'}.")
    return [FortuneAdjusted(target=f.id, change=change)]


def _set_cover(state: State, c: SetCover, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    _require(0 <= c.rating <= T.TOTAL_COVER, "Cover is rated 0 to 3, or 4 for total cover.")
    return [CoverSet(target=f.id, rating=c.rating)]


def _churn_jam(state: State, c: ChurnJam, dice: Dice) -> list[Event]:
    _require(bool(state.settings.get("churn")), "This encounter does not use Churn.")
    f = state.fighter(c.fighter)
    cost = int(state.settings.get("churn_jam_cost", 1))
    mine = [t for t in state.tests if t.fighter == f.id]
    last = mine[-1] if mine else None
    _require(last is not None and last.kind in ("attack", "stunt_attack") and not last.success
             and T.WEAPONS[last.weapon].gun, f"{f.name}'s last attack this turn was not a missed firearm attack.")
    _require(last.weapon not in f.jammed, f"{f.name}'s {T.WEAPONS[last.weapon].label.lower()} is already jammed.")
    _require(state.churn >= cost, f"Jamming costs {_plural(cost, 'Churn point')} and the pool has {state.churn}.")
    return [ChurnJammed(fighter=f.id, weapon=last.weapon, cost=cost)]


def _adjust_churn(state: State, c: AdjustChurn, dice: Dice) -> list[Event]:
    _require(bool(state.settings.get("churn")), "This encounter does not use Churn.")
    _require(c.change != 0 and state.churn + c.change >= 0, f"The Churn pool is {state.churn}; it cannot go below 0.")
    return [ChurnAdjusted(change=c.change, reason=_note(c.reason, 120))]


def _breathers(state: State, c: Breathers, dice: Dice) -> list[Event]:
    rolls = []
    for f in state.fighters:
        face = dice.roll(1, T.BREATHER_DIE)[0]
        gain = max(0, min(f.fortune_max - f.fortune, face + f.abilities.get("Constitution", 0) + f.level))
        rolls.append(BreatherRoll(fighter=f.id, face=face, gain=gain))
    return [BreathersTaken(rolls=tuple(rolls))]


_DECIDERS = {
    RollInitiative: _roll_initiative, BreakTie: _break_tie, NextTurn: _next_turn_command, EndTurn: _end_turn,
    Attack: _attack, ThrowGrenade: _throw_grenade, Blast: _blast, AbilityTest: _ability_test, Defend: _defend,
    Run: _run, Move: _move, Activate: _activate, Aim: _aim, GuardUp: _guard_up, Prepare: _prepare,
    PressTheAttack: _press_the_attack, Ready: _ready, StandFirm: _stand_firm, ClearJam: _clear_jam,
    Interrupt: _interrupt, InterruptSelf: _interrupt_self, Pursue: _pursue, SpendStunt: _spend_stunt,
    ChangeDie: _change_die, SpendFortune: _spend_fortune, AcceptCondition: _accept_condition, RollOver: _roll_over,
    ApproveRollOver: _approve_roll_over, AddStunt: _add_stunt, SetCondition: _set_condition,
    AdjustFortune: _adjust_fortune, SetCover: _set_cover, ChurnJam: _churn_jam, AdjustChurn: _adjust_churn,
    Breathers: _breathers,
}


__all__ = [
    "KEY", "SETTINGS", "CODEC", "COMMANDS", "EVENTS", "ABILITIES", "CANNOT_ACT", "initial_state", "parse_stunts",
    "fighter_from_sheet", "write_back", "outcome", "decide", "evolve", "describe", "State", "Fighter", "TestRecord",
    "Hit", "Effect", "FreeAttack", "PendingBlast", "ability", "speed", "condition_penalty", "test_bonus", "defense",
    "toughness", "cover_bonus", "weapon_range", "damage_dice",
    *(c.__name__ for c in COMMANDS), *(e.__name__ for e in EVENTS), "InitRoll", "Opposed", "BreatherRoll",
]
