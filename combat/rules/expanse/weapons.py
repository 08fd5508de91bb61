"""The Expanse (AGE) weapons in hand: what each combatant holds, what they carry stowed, and what broke.

Seed 004 says what is tracked here:
- Ready (a minor action): "You draw a weapon, pull out a device, or otherwise ready a stowed item. As part of this
  action, you can put away something already in hand. You could holster a pistol and pull out a grenade with the
  same Ready action, for example."
- Fragile makeshift weapons: "When an attack misses and the Drama Die is 3 or less, the object breaks and becomes
  useless as a weapon." A broken weapon stays broken until the GM gives a new one (`GiveWeapon`) or a Whatever's
  Handy stunt finds another makeshift weapon.
- Explosives: "Use the Ready Action to have the grenade in your hand and then make a ranged attack action to throw
  it." A thrown grenade is gone from the hand (one grenade, one throw); readying another needs one carried.

A combatant holds one item (`Fighter.in_hand`; a shield has its own slot) and carries the weapon types its sheet
names (`Fighter.weapons`; a sheet naming none carries any type). Unarmed attacks need nothing in hand.

The GM's setting `weapons_at_start` (the notes leave it open): "in_hand" (DEFAULT: everyone holds the first weapon
their sheet names), "stowed" (everyone readies a weapon before attacking with it) or "free" (hands are not
tracked: any carried weapon attacks; a broken one stays broken). A fight begun before the setting existed has no
value for it and keeps the old rules: nothing here applies, so its stored log replays as it always did.

Like `combat/rules/free_roll.py`, this module holds its command, its event, and the decider, evolver and
describer for them; the rest of the package calls the checks and helpers below.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from combat.rules.core import Command, Event, RuleError, Setting, Sight, require
from combat.rules.dice import Dice
from combat.rules.expanse import rulebook as book
from combat.rules.expanse.state import Fighter, State, TestRecord, article, put

KEY = "weapons_at_start"
IN_HAND, STOWED, FREE = "in_hand", "stowed", "free"
SETTING = Setting(
    KEY,
    "Weapons when the fight starts",
    IN_HAND,
    choices=(
        (IN_HAND, "In hand: each combatant holds the first weapon on their sheet"),
        (STOWED, "Stowed: each combatant readies a weapon (a minor action) before attacking with it"),
        (FREE, "Not tracked: any weapon on the sheet attacks without readying"),
    ),
    help="Grenades always need the Ready action, and a broken makeshift weapon stays broken until the GM gives "
    "a new one.",
)
NO_HANDS = ("unarmed",)  # attacks that need nothing in hand


# --- what the settings say ------------------------------------------------------------------------------------------


def tracks_breaks(state: State) -> bool:
    """Broken weapons stay broken in every fight begun with the setting (not in older ones)."""
    return KEY in state.settings


def tracks_hands(state: State) -> bool:
    """An attack needs its weapon in hand."""
    return state.settings.get(KEY) in (IN_HAND, STOWED)


# --- what a combatant carries ------------------------------------------------------------------------------------


def label(weapon: str) -> str:
    """ "pistol" -> "pistol"; a free-text item (a device) as typed."""
    return book.WEAPONS[weapon].label.lower() if weapon in book.WEAPONS else weapon


def carries(f: Fighter, weapon: str) -> bool:
    """Whether `f` has one: a sheet naming no weapon carries any type."""
    return not f.weapons or weapon in f.weapons


def stowed(f: Fighter) -> tuple[str, ...]:
    """The weapons `f` carries and may ready: named on the sheet, not in hand, not broken."""
    return _not_in_hand(f, f.weapons)


def readies(state: State, f: Fighter) -> tuple[str, ...]:
    """The weapons the Ready form offers `f`: what it carries stowed (any type, for a sheet naming none)."""
    if not tracks_breaks(state):
        return tuple(k for k in book.WEAPONS if k not in NO_HANDS)
    return _not_in_hand(f, f.weapons or tuple(book.WEAPONS))


def _not_in_hand(f: Fighter, keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(w for w in keys if w in book.WEAPONS and w not in NO_HANDS + (f.in_hand,) + f.broken)


def first_in_hand(f: Fighter) -> str:
    """What `f` holds when the fight starts "in hand": the first weapon its sheet names (not a grenade, which is
    readied to be thrown)."""
    return next((w for w in f.weapons if w not in NO_HANDS + ("grenade",)), "")


def at_start(fighters: tuple[Fighter, ...], settings: dict[str, object]) -> tuple[Fighter, ...]:
    """The combatants as the fight starts: with their first weapon in hand when the setting says so."""
    if settings.get(KEY) != IN_HAND:
        return fighters
    return tuple(f if f.in_hand else replace(f, in_hand=first_in_hand(f)) for f in fighters)


def wieldable(state: State, f: Fighter, weapon: str) -> bool:
    """Whether `f` may attack with `weapon` now as far as hands and breaks go (jams and cover are checked apart)."""
    if weapon in f.broken:
        return False
    return not tracks_hands(state) or weapon in NO_HANDS or f.in_hand == weapon


# --- checks the deciders call -------------------------------------------------------------------------------------


def check_attack(state: State, f: Fighter, weapon: str) -> None:
    """An attack needs its weapon whole and, when hands are tracked, in hand."""
    require(
        weapon not in f.broken,
        f"{f.name}'s {label(weapon)} broke and is useless as a weapon until the GM gives a new one.",
    )
    if wieldable(state, f, weapon):
        return
    holding = f"has {article(label(f.in_hand))} in hand" if f.in_hand else "has nothing in hand"
    raise RuleError(f"{f.name} {holding}: Ready the {label(weapon)} first (a minor action).")


def check_ready(state: State, f: Fighter, item: str, stow: str) -> str:
    """What `f` puts away with this Ready ("" for nothing), once the item is one `f` may ready.

    With hands tracked, drawing a weapon puts away what was in hand (one item in hand)."""
    if not tracks_breaks(state):
        return stow
    if item in book.WEAPONS:
        require(
            item not in f.broken,
            f"{f.name}'s {label(item)} broke and is useless as a weapon until the GM gives a new one.",
        )
        require(carries(f, item), f"{f.name} carries no {label(item)}; the GM can give one.")
        require(item != f.in_hand, f"{f.name} already has the {label(item)} in hand.")
    if not tracks_hands(state):
        return stow
    if stow and stow not in ("shield", f.shield):
        require(stow == f.in_hand, f"{f.name} has no {label(stow)} in hand to put away.")
    if item and item not in book.SHIELDS and not stow:
        return f.in_hand
    return stow


# --- the GM gives a weapon -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GiveWeapon(Command):
    """The GM hands a combatant a weapon: a new one for one that broke, or one picked up. In hand unless `stow`."""

    name: ClassVar[str] = "give_weapon"
    label: ClassVar[str] = "Give a weapon"
    target: str = ""
    weapon: str = ""
    stow: bool = False


@dataclass(frozen=True)
class WeaponGiven(Event):
    kind: ClassVar[str] = "weapon_given"
    target: str = ""
    weapon: str = ""
    stow: bool = False


def decide_give_weapon(state: State, c: GiveWeapon, dice: Dice) -> list[Event]:
    f = state.fighter(c.target)
    require(tracks_breaks(state), "This fight began before weapons were tracked; its weapons are not kept.")
    require(c.weapon in book.WEAPONS and c.weapon not in NO_HANDS, "Choose one of the weapon types.")
    require(not f.out, f"{f.name} is out of the encounter.")
    if c.stow:
        require(
            c.weapon in f.broken or bool(f.weapons) and c.weapon not in f.weapons,
            f"{f.name} already carries a {label(c.weapon)}.",
        )
    else:
        require(c.weapon != f.in_hand or c.weapon in f.broken, f"{f.name} already has the {label(c.weapon)} in hand.")
    return [WeaponGiven(target=f.id, weapon=c.weapon, stow=c.stow)]


def evolve_weapon_given(state: State, event: WeaponGiven) -> State:
    f = take_up(state, state.fighter(event.target), event.weapon)
    if event.stow:
        f = replace(f, in_hand=state.fighter(event.target).in_hand)
    return put(state, f)


def describe_weapon_given(state: State, event: WeaponGiven, sight: Sight) -> str:
    where = "stowed" if event.stow else "in hand"
    return f"The GM gives {sight.name(event.target)} {article(label(event.weapon))} ({where})"


# --- what events do to hands ---------------------------------------------------------------------------------------


def take_up(state: State, f: Fighter, weapon: str) -> Fighter:
    """`f` with a new `weapon` in hand (given by the GM, or found with Whatever's Handy): whole and carried."""
    f = replace(f, in_hand=weapon)
    if not tracks_breaks(state):
        return f
    carried = f.weapons + (weapon,) if f.weapons and weapon not in f.weapons else f.weapons
    return replace(f, weapons=carried, broken=tuple(w for w in f.broken if w != weapon))


def broke(state: State, test: TestRecord) -> State:
    """A fragile weapon that broke on this test leaves the hand and stays broken."""
    if not (test.breaks and tracks_breaks(state)):
        return state
    f = state.fighter(test.fighter)
    hand = "" if f.in_hand == test.weapon else f.in_hand
    broken = f.broken if test.weapon in f.broken else f.broken + (test.weapon,)
    return put(state, replace(f, in_hand=hand, broken=broken))


def mended(state: State, test: TestRecord) -> State:
    """Take back `broke` for a test whose dice are about to change (Fortune): the weapon is whole and in hand."""
    if not (test.breaks and tracks_breaks(state)):
        return state
    f = state.fighter(test.fighter)
    hand = test.weapon if tracks_hands(state) and not f.in_hand else f.in_hand
    return put(state, replace(f, in_hand=hand, broken=tuple(w for w in f.broken if w != test.weapon)))
