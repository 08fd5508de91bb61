"""`decide(state, command, dice) -> events`: a Burn Bryte command checked against the rules.

Each decider checks its command against the round, the phase and whose turn it is, and returns the events it
makes or raises `RuleError` with a sentence. Dice are rolled here (or typed in from physical dice when the GM
allows it) and kept in the events, so replaying never rolls again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from combat.rules.burn_bryte import positions
from combat.rules.burn_bryte.commands import (
    COMMANDS,
    EXTRA_DAMAGE_MAX,
    INTENTS,
    AdjustHealth,
    AdjustNova,
    ChangeDeclaration,
    ClaimTurn,
    DamageShip,
    Declare,
    EndTurn,
    FreeMove,
    MoveEnemy,
    NextRound,
    PickNext,
    Place,
    PlaceBurst,
    RechargeShield,
    Resolve,
    ResolveFailure,
    SetCondition,
    SkillRoll,
    SkipTurn,
    SpendAdvantage,
    SpendCollapse,
    SpendNova,
    StartEnemies,
    StartPlayers,
    UseAdvantages,
)
from combat.rules.burn_bryte.events import (
    AdvantageSpent,
    AdvantagesUsed,
    BurstPlaced,
    CollapseSpent,
    ConditionSet,
    DeclarationChanged,
    Declared,
    HealthAdjusted,
    Moved,
    NovaAdjusted,
    NovaSpent,
    PhaseStarted,
    Resolved,
    ShieldRecharged,
    ShipDamaged,
    SkillRolled,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
)
from combat.rules.burn_bryte.gear import Weapon, absorb, drain_cost, enemy_hit_damage, hit_damage, recharged
from combat.rules.burn_bryte.state import Declaration, Fighter, Roll, State
from combat.rules.burn_bryte.stats import SKILL_CATEGORIES, SKILLS
from combat.rules.core import Command, Event, Reveal, RuleError, decide_reveal, revealed_by_attack
from combat.rules.core import require as _require
from combat.rules.dice import Dice
from combat.rules.free_roll import FreeRoll, decide_free_roll


def decide(state: State, command: Command, dice: Dice) -> list[Event]:
    if isinstance(command, FreeRoll):  # any time, in any phase; it changes nothing, so nothing follows
        return _free_roll(state, command, dice)
    _require(not state.ended, "This encounter has ended.")
    handler = DECIDERS.get(type(command))
    if handler is None:
        if type(command) in COMMANDS:
            raise TypeError(f"Burn Bryte has no decider for the command {type(command).__name__}.")
        raise RuleError("That is not an action in Burn Bryte.")
    return handler(state, command, dice)


# --- shared checks -----------------------------------------------------------------------------------------------


def _text(raw: str, default: str = "") -> str:
    """Words typed for the log: one line, at most 200 characters."""
    return " ".join(raw.split())[:200] or default


def _still_taking_turn(state: State) -> str:
    return f"{state.fighter(state.turn).name if state.turn else 'Someone'} is still taking their turn."


def _plural(n: int) -> str:
    return "s" if n != 1 else ""


def _roll_faces(
    state: State, count: int, sides: int, entered: tuple[int, ...], dice: Dice
) -> tuple[tuple[int, ...], bool]:
    if entered:
        _require(bool(state.settings.get("entered_dice")), "The GM has the server roll the dice in this encounter.")
        _require(len(entered) == count, f"Enter exactly {count} dice.")
        _require(all(1 <= face <= sides for face in entered), f"Each die must show a face from 1 to {sides}.")
        return tuple(entered), True
    return dice.roll(count, sides), False


# --- Phase 1: enemies declare -----------------------------------------------------------------------------------------


def _free_roll(state: State, c: FreeRoll, dice: Dice) -> list[Event]:
    """The table's dice roller, with skill rolls written `k+1` for one of the PC's skills (_skill_pool)."""
    return decide_free_roll(state, c, dice, skill_dice=_skill_pool)


def _skill_pool(state: State, pc: Fighter, skill: str) -> tuple[int, int]:
    """k and the die size of a free `k+1` roll: "the k-th roll of a turn = k+1 dice" (seed 000; "the first skill
    roll of a turn is complexity 2, each further skill roll that turn +1"), so k is the number of `pc`'s next skill
    roll in their turn (1 outside it), and the dice are the size of `skill` on their sheet."""
    if skill not in pc.skills:
        raise RuleError(f"{pc.name} has no {skill} skill." if skill in SKILLS else f"Choose one of {pc.name}'s skills.")
    k = state.turn_rolls + 1 if state.phase == 2 and state.turn == pc.id else 1
    return k, pc.skills[skill]


def _declare(state: State, c: Declare, dice: Dice) -> list[Event]:
    enemy = state.fighter(c.enemy)
    target = state.fighter(c.target)
    _require(enemy.side == "enemy", "Only enemies declare actions.")
    _require(target.side == "pc", "Enemies target player characters.")
    _require(not enemy.down, f"{enemy.name} is at 0 Health Levels and cannot act.")
    _require(target.id in enemy.aware_of, f"{enemy.name} is not aware of {target.name}.")
    text = _text(c.text, "attacks")
    if c.extra:
        _require(state.collapse >= 1, "An extra enemy attack costs 1 Collapse point and the GM has none.")
        _require(
            not (state.round == 1 and state.surprise == "pcs"),
            "The enemies are caught unaware: round 1 has no Phase 3 for an extra attack to resolve in.",
        )
        _require(
            state.phase == 1 or (state.phase == 2 and bool(state.pcs_left())),
            "Extra attacks are bought in Phase 1, or in Phase 2 while a PC still has a turn.",
        )
    else:
        _require(state.phase == 1, "Enemies declare their actions in Phase 1.")
        _require(
            not any(d.enemy == enemy.id and not d.extra for d in state.declarations),
            f"{enemy.name} has already declared its action this round.",
        )
    weapon = "" if c.unarmed else enemy.weapon.name
    return [
        Declared(id=state.next_declaration, enemy=enemy.id, target=target.id, text=text, extra=c.extra, weapon=weapon)
    ]


def _change_declaration(state: State, c: ChangeDeclaration, dice: Dice) -> list[Event]:
    declaration = state.declaration(c.declaration)
    _require(state.phase in (1, 2), "Declared actions can be changed before Phase 3.")
    _require(not declaration.outcome, "That action has already been resolved.")
    # Seed, Active Defense: "If the skill roll succeeds, the targeted character avoids the attack": a defended
    # attack does nothing in Phase 3, so changing it would spend Collapse points on nothing.
    enemy = state.fighter(declaration.enemy)
    _require(
        not declaration.defended,
        f"{enemy.name}'s {declaration.text} was already defended against: it does nothing in Phase 3, so it "
        "cannot be changed.",
    )
    cost = int(state.settings.get("change_cost", 1))
    _require(state.collapse >= cost, f"Changing a declared action costs {cost} Collapse point{_plural(cost)}.")
    target = state.fighter(c.target or declaration.target)
    _require(target.side == "pc", "Enemies target player characters.")
    _require(target.id in enemy.aware_of, f"{enemy.name} is not aware of {target.name}.")
    text = _text(c.text, declaration.text)
    return [DeclarationChanged(id=declaration.id, target=target.id, text=text, cost=cost)]


def _start_players(state: State, c: StartPlayers, dice: Dice) -> list[Event]:
    _require(state.phase == 1, "Phase 2 starts after Phase 1.")
    missing = [
        e.name
        for e in state.enemies()
        if not e.down and e.aware_of and not any(d.enemy == e.id and not d.extra for d in state.declarations)
    ]
    _require(not missing, f"Declare one action for {', '.join(missing)} first.")
    if state.round == 1 and state.surprise == "enemies":
        return [PhaseStarted(round=state.round, phase=3, skipped=(2,))]
    return [PhaseStarted(round=state.round, phase=2)]


# --- Phase 2: the player characters' turns ----------------------------------------------------------------------------


def _claim_turn(state: State, c: ClaimTurn, dice: Dice) -> list[Event]:
    _require(state.phase == 2, "Player characters take their turns in Phase 2.")
    pc = state.fighter(c.actor)
    _require(pc.side == "pc", "Only player characters take turns in Phase 2.")
    _require(not state.turn, _still_taking_turn(state))
    _require(not state.chain, "The PC who just finished picks who goes next.")
    _require(not pc.took_turn, f"{pc.name} has already taken a turn this round.")
    _require(not pc.down, f"{pc.name} is at 0 Health Levels and cannot act.")
    return [TurnStarted(fighter=pc.id)]


def _pick_next(state: State, c: PickNext, dice: Dice) -> list[Event]:
    _require(state.phase == 2, "Player characters take their turns in Phase 2.")
    _require(not state.turn, _still_taking_turn(state))
    if c.actor:
        _require(state.chain and state.picker == c.actor, "It is not this character's pick.")
        picker = state.fighter(c.actor)
        _require(not picker.down, f"{picker.name} is at 0 Health Levels: the GM picks who goes next.")
    nxt = state.fighter(c.next)
    _require(nxt.side == "pc", "Only player characters take turns in Phase 2.")
    _require(not nxt.took_turn, f"{nxt.name} has already taken a turn this round.")
    _require(not nxt.down, f"{nxt.name} is at 0 Health Levels and cannot act.")
    return [TurnStarted(fighter=nxt.id, picked_by=c.actor or "gm", chain=True)]


def _own_turn(state: State, actor: str) -> Fighter:
    pc = state.fighter(actor)
    _require(state.phase == 2 and state.turn == pc.id, f"It is not {pc.name}'s turn.")
    _require(not pc.down, f"{pc.name} is at 0 Health Levels and takes no actions.")
    return pc


def _skill_roll(state: State, c: SkillRoll, dice: Dice) -> list[Event]:
    pc = _own_turn(state, c.actor)
    _require(not state.pending_failure, "The last roll failed: the turn is over once the GM decides what follows.")
    _require(c.skill in pc.skills, "Choose one of your skills.")
    _require(c.intent in INTENTS, "Choose what the roll is for: attack, defend, create an advantage, move or other.")
    _require(1 <= c.damage <= 10, "Damage must be between 1 and 10.")
    _require(
        c.damage == 1 or bool(state.settings.get("typed_damage")),
        f"Damage comes from {pc.name}'s weapon ({pc.weapon.label()}), not typed: add an ability's or Nova's extra "
        f"damage instead (up to {EXTRA_DAMAGE_MAX}).",
    )
    _require(
        0 <= c.extra_damage <= EXTRA_DAMAGE_MAX,
        f"Extra damage from an ability or Nova is from 0 to {EXTRA_DAMAGE_MAX}.",
    )
    _require(not c.extra_damage or c.intent == "attack", "Extra damage from an ability or Nova adds to an attack.")
    target, out_of_range, point = "", 0, (0, 0)
    if c.intent == "attack" and pc.weapon.burst:  # one roll for an area: a target is only where it is aimed
        _require(state.pending_burst is None, "The GM has yet to say who is in the last Burst's area.")
    if c.at:  # a Burst aimed at a square (positions.py)
        point, out_of_range = positions.burst_point(state, pc, c)
    if c.intent == "attack" and (c.target or not pc.weapon.burst):
        enemy = state.fighter(c.target)
        _require(enemy.side == "enemy", "Attack an enemy.")
        _require(enemy.id in pc.aware_of, f"{pc.name} is not aware of {enemy.name}.")
        _require(not enemy.down, f"{enemy.name} is already at 0 Health Levels.")
        target = enemy.id
        out_of_range = positions.attack_out_of_range(state, pc, enemy, c.skill)
    elif c.intent == "defend":
        try:
            declaration = state.declaration(int(c.target))
        except ValueError:
            raise RuleError("Choose the declared attack to defend against.") from None
        _require(not declaration.defended and not declaration.outcome, "That attack is already dealt with.")
        target = str(declaration.id)
    sides = pc.skills[c.skill]
    complexity = state.complexity(pc, c.skill)
    gear = _attack_gear(state, pc, c, complexity) if c.intent == "attack" else {"damage": 0}
    faces, entered = _roll_faces(state, complexity, sides, c.entered, dice)
    roll = Roll(
        fighter=pc.id,
        skill=c.skill,
        sides=sides,
        complexity=complexity,
        faces=faces,
        intent=c.intent,
        target=target,
        entered=entered,
        out_of_range=out_of_range,
        at_col=point[0],
        at_row=point[1],
        **gear,
    )
    return [SkillRolled(roll=roll, note=_text(c.note)), *_drained_to_zero(state, roll)]


def _free_move(state: State, c: FreeMove, dice: Dice) -> list[Event]:
    pc = _own_turn(state, c.actor)
    _require(not state.pending_failure, "The last roll failed: the turn is over.")
    if c.to:
        return positions.decide_move(state, pc, c)  # to a square: checked on the grid
    _require(not positions.placed(pc), f"{pc.name} is on the grid: name the square to move to (e.g. C5).")
    _require(
        not state.free_move_used, f"{pc.name} has already used the free move this turn; roll a skill to move again."
    )
    _require(1 <= c.squares <= pc.speed, f"{pc.name} can move from 1 to {pc.speed} squares.")
    return [Moved(fighter=pc.id, squares=c.squares)]


def _spend_advantage(state: State, c: SpendAdvantage, dice: Dice) -> list[Event]:
    """The pool is the party's: the roller, or any other PC able to act, may spend it on the turn's failed roll."""
    pc = state.fighter(c.actor)
    _require(pc.side == "pc", "Only player characters spend the party's Advantages.")
    _require(not pc.down, f"{pc.name} is at 0 Health Levels and cannot act.")
    roll = state.last_roll
    _require(
        state.phase == 2 and state.pending_failure and roll is not None and roll.fighter == state.turn,
        "Advantages reroll a die of a failed roll.",
    )
    assert roll is not None  # (just checked)
    roller = state.fighter(roll.fighter)
    _require(not roller.down, f"{roller.name} is at 0 Health Levels: the failed roll stands.")
    _require(state.advantages >= 1, "The party has no Advantages left.")
    _require(0 <= c.die < len(roll.faces), "Choose one of the dice of the failed roll.")
    faces, entered = _roll_faces(state, 1, roll.sides, c.entered, dice)
    rerolled = replace(roll, faces=tuple(faces[0] if i == c.die else f for i, f in enumerate(roll.faces)))
    paid = bool(state.settings.get("draining_on_miss"))  # the failed roll has paid Draining's cost already
    after = [] if paid else _drained_to_zero(state, rerolled)
    return [AdvantageSpent(fighter=pc.id, die=c.die, face=faces[0], entered=entered), *after]


def _end_turn(state: State, c: EndTurn, dice: Dice) -> list[Event]:
    pc = _own_turn(state, c.actor)
    _require(
        not state.pending_failure, "The roll failed: the GM chooses a consequence or a Collapse point to end the turn."
    )
    return [TurnEnded(fighter=pc.id)]


def _skip_turn(state: State, c: SkipTurn, dice: Dice) -> list[Event]:
    pc = state.fighter(c.pc)
    _require(state.phase == 2, "PCs are skipped in Phase 2, when they would take their turn.")
    _require(pc.side == "pc", "Only player characters take turns in Phase 2.")
    _require(not state.turn, _still_taking_turn(state))
    _require(not pc.took_turn, f"{pc.name} has already had a turn this round.")
    _require(not pc.down, f"{pc.name} is at 0 Health Levels and has no turn to skip.")
    return [TurnSkipped(fighter=pc.id)]


def _resolve_failure(state: State, c: ResolveFailure, dice: Dice) -> list[Event]:
    _require(state.pending_failure and bool(state.turn), "No failed roll is waiting for the GM.")
    _require(c.choice in ("collapse", "consequence"), "Choose a consequence or a Collapse point.")
    return [TurnEnded(fighter=state.turn, failure=c.choice, note=_text(c.note))]


# --- Phase 3: declared actions resolve, and the next round ------------------------------------------------------------


def _start_enemies(state: State, c: StartEnemies, dice: Dice) -> list[Event]:
    _require(state.phase == 2, "Phase 3 follows Phase 2.")
    _require(not state.turn, _still_taking_turn(state))
    _require_burst_placed(state, "Phase 3")
    # Seed: "...and so on until all the characters have taken a turn": the GM skips an absent player's PC.
    left = [f.name for f in state.pcs_left()]
    _require(not left, f"Every PC takes a turn before Phase 3: {', '.join(left)} still to act (or skip them).")
    if state.round == 1 and state.surprise == "pcs":
        return [PhaseStarted(round=2, phase=1, skipped=(3,))]
    return [PhaseStarted(round=state.round, phase=3)]


def _resolve(state: State, c: Resolve, dice: Dice) -> list[Event]:
    _require(state.phase == 3, "Declared actions resolve in Phase 3.")
    declaration = state.declaration(c.declaration)
    _require(not declaration.outcome, "That action has already been resolved.")
    enemy = state.fighter(declaration.enemy)
    if enemy.down:
        return [Resolved(id=declaration.id, outcome="skipped")]
    if declaration.defended:
        return [Resolved(id=declaration.id, outcome="cancelled")]
    _require(c.outcome in ("hit", "missed"), "Choose hit, or missed because the target is out of range.")
    _require(0 <= c.damage <= 10, "Damage must be between 0 and 10.")
    gear = _enemy_gear(state, enemy, declaration, c)
    revealed = revealed_by_attack(state, enemy.id)  # the attack gives an unseen enemy away, if the GM says so
    # Out of the enemy's reach the attack does nothing "(GM confirms)": the GM may still resolve it; the log says so.
    away = positions.declared_out_of_range(state, declaration)
    return [*revealed, Resolved(id=declaration.id, outcome=c.outcome, out_of_range=away, **gear)]


def _next_round(state: State, c: NextRound, dice: Dice) -> list[Event]:
    _require(state.phase == 3, "A new round begins after Phase 3.")
    waiting = [d for d in state.declarations if not d.outcome and not state.fighter(d.enemy).down and not d.defended]
    _require(not waiting, "Resolve every declared action first.")
    _require_burst_placed(state, "the next round")
    return [PhaseStarted(round=state.round + 1, phase=1)]


# --- any time: Nova and Collapse points, the GM's changes -------------------------------------------------------------


def _spend_nova(state: State, c: SpendNova, dice: Dice) -> list[Event]:
    pc = state.fighter(c.actor)
    _require(pc.side == "pc", "Only player characters have Nova points.")
    _require(
        not pc.down or bool(state.settings.get("nova_at_zero")),
        f"{pc.name} is at 0 Health Levels and cannot spend Nova points.",
    )
    _require(1 <= c.points <= pc.nova_points, f"{pc.name} has {pc.nova_points} Nova point{_plural(pc.nova_points)}.")
    if c.roll:
        # Seed: "Nova abilities that require a skill roll can only be used during the activating character's turn."
        _require(
            state.phase == 2 and state.turn == pc.id,
            f"A Nova ability that needs a skill roll is used on {pc.name}'s own turn.",
        )
        _require(not state.pending_failure, "The last roll failed: the turn is over.")
    return [NovaSpent(fighter=pc.id, points=c.points, note=_text(c.note), roll=c.roll)]


def _use_advantages(state: State, c: UseAdvantages, dice: Dice) -> list[Event]:
    pc = state.fighter(c.actor)
    _require(pc.side == "pc", "Only player characters spend the party's Advantages.")
    _require(not pc.down, f"{pc.name} is at 0 Health Levels and cannot act.")
    has = f"The party has {state.advantages} Advantage{_plural(state.advantages)}."
    _require(1 <= c.points <= state.advantages, has)
    return [AdvantagesUsed(fighter=pc.id, points=c.points, note=_text(c.note))]


def _spend_collapse(state: State, c: SpendCollapse, dice: Dice) -> list[Event]:
    enemy = state.fighter(c.enemy)
    _require(enemy.side == "enemy", "Collapse points power enemy abilities.")
    _require(1 <= c.points <= state.collapse, f"The GM has {state.collapse} Collapse point{_plural(state.collapse)}.")
    return [CollapseSpent(enemy=enemy.id, points=c.points, note=_text(c.note))]


def _adjust_health(state: State, c: AdjustHealth, dice: Dice) -> list[Event]:
    target = state.fighter(c.target)
    _require(c.change != 0 and -20 <= c.change <= 20, "Change Health Levels by 1 to 20, up or down.")
    # Health Levels stay from 0 to the maximum (evolve clamps a change): one that changes nothing is refused.
    _require(c.change < 0 or target.health < target.health_max, f"{target.name} is already at full Health Levels.")
    _require(c.change > 0 or target.health > 0, f"{target.name} has no Health Levels left to lose.")
    events: list[Event] = [HealthAdjusted(target=target.id, change=c.change)]
    # "At 0 Health Levels a creature takes no actions": a PC dropped on their own turn ends it there. With a
    # failed roll waiting, the GM's choice of consequence or Collapse point ends it instead.
    dropped = target.health + c.change <= 0
    if dropped and state.phase == 2 and state.turn == target.id and not state.pending_failure:
        events.append(TurnEnded(fighter=target.id, down=True))
    return events


def _adjust_nova(state: State, c: AdjustNova, dice: Dice) -> list[Event]:
    target = state.fighter(c.target)
    _require(target.side == "pc", "Only player characters have Nova points.")
    _require(c.change != 0 and -20 <= c.change <= 20, "Change Nova points by 1 to 20, up or down.")
    now, cap = target.nova_points + c.change, state.room
    _require(now >= 0, f"{target.name} has {target.nova_points} Nova point{_plural(target.nova_points)}.")
    has = f"{target.name} has {target.nova_points}"
    _require(c.change < 0 or now <= cap, f"The ship's Livability Rating caps Nova points at {cap}; {has}.")
    return [NovaAdjusted(target=target.id, change=c.change)]


_SLOTS = {
    "neg_minor": "skill",
    "neg_moderate": "category",
    "neg_significant": "flag",
    "pos_minor": "skill",
    "pos_moderate": "category",
    "pos_significant": "flag",
}


def _set_condition(state: State, c: SetCondition, dice: Dice) -> list[Event]:
    target = state.fighter(c.target)
    kind = _SLOTS.get(c.slot)
    _require(kind is not None, "Choose a minor, moderate or significant condition.")
    if kind == "skill":
        _require(c.value in ("",) + SKILLS, "A minor condition names one skill.")
    elif kind == "category":
        _require(c.value in ("",) + tuple(SKILL_CATEGORIES), "A moderate condition names Mental, Physical or Social.")
    else:
        _require(c.value in ("", "yes"), "A significant condition is either held or not.")
    return [ConditionSet(target=target.id, slot=c.slot, value=c.value)]


# --- gear: weapons, Burst areas and the ship (gear.py) ----------------------------------------------------------------


def _attack_gear(state: State, pc: Fighter, c: SkillRoll, dice: int) -> dict[str, Any]:
    """The Roll's damage fields for an attack: worked out from the sheet's weapon, or typed when the GM plays so
    (`typed_damage`), plus any extra damage the player adds for an ability or Nova (seed: "Unless an attack has its
    damage boosted by a weapon, special ability, or Nova ability, it deals 1 damage")."""
    weapon = pc.weapon
    _require(not c.drain or weapon.draining, f"{pc.name}'s {weapon.name or 'attack'} is not Draining.")
    if state.settings.get("typed_damage"):
        damage, drained = c.damage, 1 if c.drain else 0
    else:
        damage, drained = hit_damage(weapon, dice, c.drain)
    gear = {"burst": weapon.burst, "drained": drained, "weapon": weapon.name, "extra": c.extra_damage}
    return {"damage": damage + c.extra_damage, **gear}


def _drained_to_zero(state: State, roll: Roll) -> list[Event]:
    """A hit whose Draining cost takes the attacker to 0 Health Levels ends their turn there ("At 0 Health Levels a
    creature takes no actions"); a failed roll waits for the GM's choice instead, which ends it."""
    attacker = state.fighter(roll.fighter)
    if roll.intent != "attack" or not roll.drained or not roll.succeeded or attacker.health > roll.drained:
        return []
    return [TurnEnded(fighter=attacker.id, down=True)]


def _enemy_weapon(enemy: Fighter, declaration: Declaration) -> Weapon:
    """The weapon a declared action names: the enemy's (its stat block's), or none (1 damage, no traits)."""
    return enemy.weapon if declaration.weapon else Weapon()


def _enemy_gear(state: State, enemy: Fighter, declaration: Declaration, c: Resolve) -> dict[str, Any]:
    """The Resolved event's damage, Burst area and Draining cost, worked out from the declared weapon the way a
    PC's attack is (gear.py), or typed by the GM when the GM plays so (`typed_damage`, or a value other than 1)."""
    weapon = _enemy_weapon(enemy, declaration)
    _require(not c.drain or weapon.draining, f"{enemy.name}'s {weapon.name or 'attack'} is not Draining.")
    _require(not c.targets or bool(weapon.burst), "Only a Burst weapon hits an area.")
    hit = c.outcome == "hit"
    if state.settings.get("typed_damage") or c.damage != 1:
        damage, drained = c.damage, 1 if c.drain else 0
    else:
        damage, drained = enemy_hit_damage(weapon, c.drain)
    if not drain_cost(hit, bool(state.settings.get("draining_on_miss"))):
        drained = 0
    targets = tuple(c.targets) if hit else ()
    _require(len(set(targets)) == len(targets), "Name each creature in the area once.")
    for key in targets:
        _require(not state.fighter(key).down, f"{state.fighter(key).name} is already at 0 Health Levels.")
    if targets == (declaration.target,):
        targets = ()  # the declared target alone, as a one-target attack stores it
    return {"damage": damage if hit else 0, "targets": targets, "drained": drained}


def _recharge_shield(state: State, c: RechargeShield, dice: Dice) -> list[Event]:
    target = state.fighter(c.target)
    _require(0 <= c.points <= 20, "Recharge a shield by 1 to 20 points, or to full.")
    _require(target.shield_max > 0, f"{target.name} has no personal shield.")
    points = recharged(target.shield, target.shield_max, c.points)
    _require(points > 0, f"{target.name}'s shield is already full.")
    return [ShieldRecharged(target=target.id, points=points)]


def _place_burst(state: State, c: PlaceBurst, dice: Dice) -> list[Event]:
    roll = state.pending_burst
    _require(roll is not None, "No Burst attack is waiting for its area.")
    assert roll is not None  # (just checked)
    _require(len(set(c.targets)) == len(c.targets), "Name each creature in the area once.")
    for key in c.targets:
        _require(not state.fighter(key).down, f"{state.fighter(key).name} is already at 0 Health Levels.")
    events: list[Event] = [BurstPlaced(fighter=roll.fighter, targets=tuple(c.targets), damage=roll.damage)]
    # A roller caught in their own Burst and dropped to 0 on their turn: "At 0 Health Levels a creature takes no
    # actions", so the turn ends there (as a drop by the GM's Health Levels change does).
    roller = state.fighter(roll.fighter)
    caught = roller.id in c.targets and absorb(roller.shield, roll.damage)[1] >= roller.health
    if caught and state.phase == 2 and state.turn == roller.id and not state.pending_failure:
        events.append(TurnEnded(fighter=roller.id, down=True))
    return events


def _require_burst_placed(state: State, what: str) -> None:
    """A Burst that hit waits for the GM to say who is in its area before the round moves on."""
    roll = state.pending_burst
    if roll is not None:
        name = state.fighter(roll.fighter).name
        raise RuleError(f"{name}'s Burst is waiting for the GM to say who is in its area: apply it before {what}.")


def _damage_ship(state: State, c: DamageShip, dice: Dice) -> list[Event]:
    _require(bool(state.ship_name), "No ship is in this encounter: the GM picks one when setting it up.")
    _require(c.change != 0 and -20 <= c.change <= 20, "Change MI Health Levels by 1 to 20, up or down.")
    _require(c.change < 0 or state.ship_health < state.ship_health_max, "The ship's MI is at full Health Levels.")
    _require(c.change > 0 or state.ship_health > 0, "The ship has already gone dark.")
    return [ShipDamaged(change=c.change)]


DECIDERS: dict[type[Command], Callable[[State, Any, Dice], list[Event]]] = {
    FreeRoll: _free_roll,  # decide() runs it first: in any phase, and nothing follows it
    Declare: _declare,
    ChangeDeclaration: _change_declaration,
    StartPlayers: _start_players,
    ClaimTurn: _claim_turn,
    PickNext: _pick_next,
    SkillRoll: _skill_roll,
    FreeMove: _free_move,
    SpendAdvantage: _spend_advantage,
    EndTurn: _end_turn,
    SkipTurn: _skip_turn,
    ResolveFailure: _resolve_failure,
    StartEnemies: _start_enemies,
    Resolve: _resolve,
    NextRound: _next_round,
    SpendNova: _spend_nova,
    UseAdvantages: _use_advantages,
    SpendCollapse: _spend_collapse,
    AdjustHealth: _adjust_health,
    AdjustNova: _adjust_nova,
    SetCondition: _set_condition,
    PlaceBurst: _place_burst,
    DamageShip: _damage_ship,
    RechargeShield: _recharge_shield,
    Place: lambda state, c, dice: positions.decide_place(state, c),
    MoveEnemy: lambda state, c, dice: positions.decide_move_enemy(state, c),
    Reveal: lambda state, c, dice: decide_reveal(state, c),
}
