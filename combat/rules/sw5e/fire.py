"""Weapon fire: a weapon with stats rolls its attack against the target's AC and, on a hit, its damage, with the
power dice a gunner adds from the coupling; the target's armour reduces the damage (minimum 1).
(../shared/rules/sw5e-starships.md: "Armour ... reduction only on attack-roll hits, minimum 1 damage"; "Central
dice fuel anything; a system's dice fuel only that system's abilities. Spending a die is rolling it".)"""

from __future__ import annotations

from combat.rules.core import Event, RuleError
from combat.rules.core import require as _require
from combat.rules.dice import Dice
from combat.rules.sw5e import disabled, gear
from combat.rules.sw5e.events import PowerSpent, WeaponFired
from combat.rules.sw5e.state import Fighter, Ship, State, power_die


def check_power(ship: Ship, power: int, stats: gear.WeaponStats | None, target: str) -> None:
    """Refuses power dice that cannot be added to this shot."""
    _require(0 <= power <= 20, "Power dice on a shot go from 0 to 20.")
    if not power:
        return
    if stats is None or not target:
        raise RuleError("Power dice add to a weapon's damage: fire a weapon with stats at a target.")
    have = ship.stored("weapons") + ship.stored("central")
    _require(
        power <= have,
        f"{ship.name} has {have} power {'die' if have == 1 else 'dice'} for weapons (weapons and central stores).",
    )


def _spend(state: State, f: Fighter, ship: Ship, count: int, dice: Dice) -> tuple[list[Event], int]:
    """PowerSpent events taking `count` dice from the weapons store, then the central store; and their total."""
    sides = power_die(state, ship)
    events: list[Event] = []
    total = 0
    for store in ("weapons", "central"):
        take = min(count, ship.stored(store))
        if take:
            faces = (1,) * take if sides == 1 else dice.roll(take, sides)
            total += sum(faces)
            events.append(
                PowerSpent(
                    fighter=f.id,
                    ship=ship.id,
                    system="weapons",
                    store=store,
                    sides=sides,
                    faces=faces,
                    note="on the weapon's damage",
                )
            )
            count -= take
    return events, total


def fire(state: State, f: Fighter, ship: Ship, weapon: str, target: str, power: int, dice: Dice) -> list[Event]:
    """The attack (and damage) of `weapon` at `target`: nothing when the weapon has no stats or no target."""
    stats = gear.weapon_stats(ship.weapon_stats.get(weapon, ""))
    if stats is None or not target:
        return []
    aimed = state.ship(target)
    face, other = disabled.d20(dice, disabled.disadvantage(state, ship))
    natural = state.setting("critical") == "double_dice"
    critical = natural and face == 20
    hit = critical or (not (natural and face == 1) and face + stats.attack >= aimed.ac)
    events: list[Event] = []
    added = 0
    if power and (hit or state.setting("fire_power") == "declared"):
        events, added = _spend(state, f, ship, power, dice)
    if not hit:
        added = 0
    faces = dice.roll(stats.count * (2 if critical else 1), stats.sides) if hit else ()
    amount = gear.reduced(sum(faces) + stats.bonus + added, aimed.reduction) if hit else 0
    shot = WeaponFired(
        fighter=f.id,
        ship=ship.id,
        target=aimed.id,
        weapon=weapon,
        face=face,
        other=other,
        attack=stats.attack,
        ac=aimed.ac,
        hit=hit,
        critical=critical,
        sides=stats.sides,
        faces=faces,
        bonus=stats.bonus,
        power=added,
        reduction=aimed.reduction if hit else 0,
        amount=amount,
    )
    return [*events, shot, *disabled.used_save(state, f.id, ship, face, dice)]
