"""The Expanse (AGE) deciders for the actions that are not tests: Defend and Run (major actions), the minor
actions (Move, Activate, Aim, Guard Up, Prepare, Press the Attack, Ready, Stand Firm, clearing a jam), and the
interrupts and pursuits that come out of Prepare and Press the Attack.
"""

from __future__ import annotations

from combat.rules.core import Event, RuleError, require
from combat.rules.dice import Dice
from combat.rules.expanse import rulebook as book
from combat.rules.expanse import weapons
from combat.rules.expanse.commands import (
    Activate,
    Aim,
    ClearJam,
    Defend,
    GuardUp,
    Interrupt,
    InterruptSelf,
    Move,
    Prepare,
    PressTheAttack,
    Pursue,
    Ready,
    Run,
    StandFirm,
)
from combat.rules.expanse.decide_checks import acting, action_slot, note
from combat.rules.expanse.events import (
    Activated,
    Aimed,
    Defended,
    GuardedUp,
    Interrupted,
    JamCleared,
    Moved,
    Prepared,
    Pressed,
    Pursued,
    Ran,
    Readied,
    StoodFirm,
)
from combat.rules.expanse.state import Fighter, State, speed, test_bonus


def defend(state: State, c: Defend, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    slot = action_slot(state, f, "defend")
    if slot == "turn":
        require("guard_up" not in state.turn_actions, f"{f.name} used Guard Up this turn and cannot also Defend.")
    return [Defended(fighter=f.id, slot=slot)]


def run(state: State, c: Run, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    slot = action_slot(state, f, "run")
    require(not f.prone, f"{f.name} is prone and must stand up with a Move first.")
    if slot == "turn" and state.settings.get("run_ends_turn"):
        require(not state.turn_actions, "Run takes the whole turn in this encounter, so it must be the only action.")
    top = 2 * speed(state, f)
    require(0 < c.metres <= top, f"{f.name} can run up to twice their Speed: {top} m.")
    require(0 <= c.cover <= book.TOTAL_COVER, "Cover is rated 0 to 3, or 4 for total cover.")
    return [Ran(fighter=f.id, metres=c.metres, cover=c.cover, slot=slot)]


def move(state: State, c: Move, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    action_slot(state, f, "move")
    require(not (c.stand_up and c.drop_prone), "Stand up or drop prone, not both.")
    require(not c.stand_up or f.prone, f"{f.name} is not prone.")
    require(not c.drop_prone or not f.prone, f"{f.name} is already prone.")
    full = speed(state, f)
    extras = sum((c.stand_up, c.drop_prone, c.vehicle))
    left = full - extras * (full // 2)
    require(0 <= c.metres <= left, f"{f.name} can move {left} m" + (" after the rest of this move." if extras else "."))
    require(0 <= c.cover <= book.TOTAL_COVER, "Cover is rated 0 to 3, or 4 for total cover.")
    return [
        Moved(
            fighter=f.id,
            metres=c.metres,
            stand_up=c.stand_up,
            drop_prone=c.drop_prone,
            vehicle=c.vehicle,
            cover=c.cover,
        )
    ]


def activate(state: State, c: Activate, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    action_slot(state, f, "activate")
    return [Activated(fighter=f.id, what=note(c.what, 120))]


def aim(state: State, c: Aim, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    action_slot(state, f, "aim")
    return [Aimed(fighter=f.id)]


def guard_up(state: State, c: GuardUp, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    action_slot(state, f, "guard_up")
    require(c.bonus in book.GUARD_UP_CHOICES, "Guard Up adds +1 or +2 to Defense.")
    require("guard_up" not in state.turn_actions, f"{f.name} has already guarded up this turn: +1 or +2, once.")
    require("defend" not in state.turn_actions, f"{f.name} took Defend this turn and cannot also Guard Up.")
    require(state.majors_taken == 0, f"Guard Up must come before any major action on {f.name}'s turn.")
    return [GuardedUp(fighter=f.id, bonus=c.bonus)]


def prepare(state: State, c: Prepare, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    action_slot(state, f, "prepare")
    require(c.action in book.PREPARABLE, "Prepare one of the major actions.")
    require(
        not state.turn_actions,
        f"Prepare postpones {f.name}'s major action, so it needs both of this turn's actions free.",
    )
    return [Prepared(fighter=f.id, action=c.action)]


def press_the_attack(state: State, c: PressTheAttack, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    action_slot(state, f, "press_the_attack")
    target = state.fighter(c.target)
    struck = any(
        t.fighter == f.id and t.target == target.id and t.action in book.MELEE_FAMILY and t.success for t in state.tests
    )
    require(struck, f"{f.name} can press the attack only after striking {target.name} with a melee attack this turn.")
    return [Pressed(fighter=f.id, target=target.id)]


def ready(state: State, c: Ready, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    action_slot(state, f, "ready")
    item = note(c.item, 60)
    require(bool(item or c.stow), "Say what you ready or put away.")
    stow = weapons.check_ready(state, f, item, note(c.stow, 60))
    return [Readied(fighter=f.id, item=item, stow=stow)]


def stand_firm(state: State, c: StandFirm, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    action_slot(state, f, "stand_firm")
    choice = c.ability
    if not choice:
        might = test_bonus(state, f, "Strength", ("Might",))[0]
        acrobatics = test_bonus(state, f, "Dexterity", ("Acrobatics",))[0]
        choice = "Strength" if might >= acrobatics else "Dexterity"
    require(choice in ("Strength", "Dexterity"), "Stand Firm resists with Strength (Might) or Dexterity (Acrobatics).")
    return [StoodFirm(fighter=f.id, ability=choice)]


def clear_jam(state: State, c: ClearJam, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    weapon = c.weapon or (f.jammed[0] if f.jammed else "")
    require(weapon in f.jammed, f"{f.name} has no jammed or empty weapon.")
    action_slot(state, f, "clear_jam")
    return [JamCleared(fighter=f.id, weapon=weapon)]


def _interrupt_checks(state: State, f: Fighter) -> None:
    require(state.begun, "Combat has not begun.")
    require(bool(f.prepared), f"{f.name} has no prepared action.")
    if state.interrupt:
        raise RuleError(f"{state.fighter(state.interrupt).name} is already interrupting.")
    require(state.turn != f.id, f"It is {f.name}'s own turn.")
    acting(state, f.id)


def interrupt(state: State, c: Interrupt, dice: Dice) -> list[Event]:
    if not c.fighter:
        require(bool(state.interrupt), "Nobody is interrupting.")
        return [Interrupted(fighter="", by="gm")]  # the GM calls the interrupt off
    f = state.fighter(c.fighter)
    _interrupt_checks(state, f)
    return [Interrupted(fighter=f.id, by="gm")]


def interrupt_self(state: State, c: InterruptSelf, dice: Dice) -> list[Event]:
    require(
        state.settings.get("prepare_interrupt") == "player",
        "The GM calls interrupts in this encounter: ask the GM to tap 'interrupt now'.",
    )
    f = state.fighter(c.actor)
    _interrupt_checks(state, f)
    return [Interrupted(fighter=f.id, by="self")]


def pursue(state: State, c: Pursue, dice: Dice) -> list[Event]:
    f = acting(state, c.actor)
    target = state.fighter(c.target)
    press = [e for e in state.effects if e.kind == "press" and e.source == f.id and e.other == target.id]
    require(bool(press), f"{f.name} is not pressing the attack on {target.name}.")
    require(press[0].triggered, f"{target.name} has not moved away, so there is nothing to pursue.")
    top = speed(state, f)
    require(0 < c.metres <= top, f"{f.name} can pursue up to their Speed: {top} m.")
    return [Pursued(fighter=f.id, target=target.id, metres=c.metres)]
