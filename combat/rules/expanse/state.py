"""The Expanse (AGE) state: who is in the fight and everything the rules remember between events.

`State` is what `evolve` folds the log into: the combatants (`Fighter`), this turn's tests (`TestRecord`), damage
waiting to be taken (`Hit`), timed modifiers (`Effect`), extra attacks a stunt granted and a grenade waiting for
the GM to place it. Below the dataclasses are the small pure helpers on them: replacing one record, the
initiative order, and the numbers every rule shares (abilities, Speed, Defense, Toughness, ranges, damage dice).
Snapshots are stored as JSON, so a field may be added with a default but never renamed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from combat.rules.core import RuleError
from combat.rules.expanse import rulebook as book

CANNOT_ACT = ("Unconscious", "Helpless")  # conditions that keep a combatant from acting


@dataclass(frozen=True)
class Effect:
    """A modifier that expires on its own: at the start of `source`'s next turn, or at the end of the round."""

    kind: str  # "defend", "all_out", "guard_up", "duck_and_weave", "stand_firm", "press", "guardian"
    fighter: str  # who carries it
    source: str  # whose next turn ends it
    until: str = "next_turn"  # "next_turn" or "round_end"
    defense: int = 0
    tests: int = 0
    points: int = 0
    other: str = ""  # Stand Firm's ability; the pressed foe; the guardian angel
    triggered: bool = False  # Press the Attack: the foe has moved


@dataclass(frozen=True)
class Fighter:
    id: str
    name: str
    side: str  # "pc" or "enemy"
    owner: int | None = None
    abilities: dict[str, int] = field(default_factory=dict)
    focuses: tuple[str, ...] = ()
    talents: tuple[str, ...] = ()
    defense: int = 11
    # What armour's Dexterity penalty took off `defense` on the sheet (2 for medium armour; 0 when the GM set
    # Defense by hand, and in logs from before): the fight gives it back when `armour_penalty` is off.
    defense_armour: int = 0
    toughness: int = 1
    armour: str = "none"
    shield: str = "none"
    speed: int = 11
    fortune: int = 15
    fortune_max: int = 15
    level: int = 1
    conditions: tuple[str, ...] = ()
    aware_of: tuple[str, ...] = ()
    weapons: tuple[str, ...] = ()  # weapon keys from the sheet, for the attack builder ("": any weapon type)
    initiative: int = 0
    drama: int = 0
    cover: int = 0
    aim: bool = False
    in_hand: str = ""
    jammed: tuple[str, ...] = ()
    broken: tuple[str, ...] = ()  # weapons that broke (weapons.py): useless until the GM gives a new one
    prepared: str = ""
    rolled_over: bool = False
    roll_over_asked: str = ""
    sp: int = 0
    sp_test: int = 0
    stunts_used: tuple[str, ...] = ()
    churn_fail: bool = False  # the Churn: this combatant's next test fails automatically

    @property
    def out(self) -> bool:
        return self.rolled_over or book.TAKEN_OUT in self.conditions

    @property
    def can_act(self) -> bool:
        return not self.out and not any(c in self.conditions for c in CANNOT_ACT)

    @property
    def prone(self) -> bool:
        return "Prone" in self.conditions

    @property
    def npc(self) -> bool:
        return self.side != "pc" or self.owner is None

    def has_focus(self, ability: str, focus: str) -> bool:
        wanted = f"{ability} ({focus})".lower()
        return any(" ".join(f.split()).lower() == wanted for f in self.focuses)


@dataclass(frozen=True)
class TestRecord:
    """One 3d6 test; faces[2] is the Drama Die. Everything needed to recompute its outcome is here."""

    id: int
    fighter: str
    kind: str  # "attack", "stunt_attack", "grenade" or "test"
    action: str  # the action key it was made for
    ability: str
    focus: str  # the focus that added +2, or ""
    faces: tuple[int, ...]
    modifier: int  # everything added to the dice
    tn: int  # Defense, an object's target number, or the test's TN
    target: str = ""
    object_size: str = ""
    targets: tuple[str, ...] = ()  # grenade: who is within the blast where it was aimed
    weapon: str = ""
    damage_sides: int = 0
    damage_dice: int = 0
    damage_faces: tuple[int, ...] = ()
    damage_bonus: int = 0
    weak: int = 0
    stunning: bool = False
    fragile: bool = False
    ranged: bool = False
    scatter: int = 0
    resist: bool = False  # resistance tests earn no stunt points
    note: str = ""
    entered: bool = False  # the test's three dice were typed in from physical dice
    damage_entered: bool = False
    locked: bool = False  # something was built on this test: Fortune can no longer change its dice
    churned: bool = False  # the Churn made this test fail automatically, whatever its dice

    @property
    def drama(self) -> int:
        return self.faces[2]

    @property
    def total(self) -> int:
        return sum(self.faces) + self.modifier

    @property
    def success(self) -> bool:
        return not self.churned and self.total >= self.tn

    @property
    def doubles(self) -> bool:
        return len(set(self.faces)) < len(self.faces)

    @property
    def sp(self) -> int:
        if not self.success or self.resist:
            return 0
        earned = self.drama if self.doubles else 0
        return earned + 1 if self.kind == "stunt_attack" else earned

    @property
    def damaging(self) -> bool:
        """Whether a success rolls damage against a combatant."""
        return self.kind == "attack" and bool(self.target) or self.kind == "grenade"

    @property
    def damage(self) -> int:
        if not self.damage_faces:
            return 0
        roll = sum(self.damage_faces)
        if self.weak:
            roll = max(1, roll - self.weak)  # seed: Weak has a minimum damage roll of 1
        return roll + self.damage_bonus

    @property
    def jams(self) -> bool:
        return (
            self.kind in ("attack", "stunt_attack")
            and not self.success
            and self.drama == book.JAM_DRAMA_DIE
            and book.WEAPONS[self.weapon].gun
        )

    @property
    def breaks(self) -> bool:
        return self.fragile and not self.success and self.drama <= book.FRAGILE_BREAKS_AT_OR_BELOW


@dataclass(frozen=True)
class Hit:
    """Damage waiting to be taken: Toughness first, then Fortune, then conditions."""

    id: int
    attacker: str
    target: str
    test: int
    weapon: str
    damage: int
    toughness: int  # Constitution-based Toughness plus armour (ignored when penetrating)
    cover: int = 0  # armour bonus from cover
    penetrating: bool = False
    stunning: bool = False
    transferred: int = 0  # taken by a guardian angel
    fortune: int = 0
    reduced: int = 0  # absorbed by injured / wounded conditions
    stage: str = "fortune"  # "fortune", "conditions" or "done"
    guard_checked: bool = False

    @property
    def soaked(self) -> int:
        return self.cover + (0 if self.penetrating else self.toughness)

    @property
    def after_toughness(self) -> int:
        return max(0, self.damage - self.soaked)

    @property
    def remaining(self) -> int:
        return max(0, self.after_toughness - self.transferred - self.fortune - self.reduced)

    @property
    def fresh(self) -> bool:
        return not self.guard_checked and self.fortune == 0 and self.reduced == 0 and self.transferred == 0

    @property
    def open(self) -> bool:
        return self.stage != "done"


@dataclass(frozen=True)
class FreeAttack:
    fighter: str
    target: str = ""  # "" for any target
    source: str = ""  # the stunt that granted it


@dataclass(frozen=True)
class PendingBlast:
    thrower: str
    test: int
    scatter: int


@dataclass(frozen=True)
class LandedGrenade:
    """A grenade that went off where it was meant to (or where the GM placed it). Seed: "Grenades effect everyone
    within 5 metres", but the thrower names only those they see: the GM adds the others (`AlsoInBlast`) until the
    thrower's next turn. `faces` is the blast's 3d6 ((): nobody was caught yet, so no damage was rolled)."""

    thrower: str
    test: int
    targets: tuple[str, ...] = ()
    faces: tuple[int, ...] = ()


@dataclass(frozen=True)
class State:
    fighters: tuple[Fighter, ...] = ()
    settings: dict[str, str | int | bool] = field(default_factory=dict)
    stunts: tuple[book.Stunt, ...] = ()
    round: int = 0  # 0 until the first turn
    order: tuple[str, ...] = ()
    initiative_rolled: bool = False
    turn: str = ""
    last_turn: str = ""
    turn_actions: tuple[str, ...] = ()
    interrupt: str = ""
    effects: tuple[Effect, ...] = ()
    tests: tuple[TestRecord, ...] = ()  # this turn's tests
    hits: tuple[Hit, ...] = ()
    free_attacks: tuple[FreeAttack, ...] = ()
    blast: PendingBlast | None = None
    landed: LandedGrenade | None = None  # the last grenade that went off, for the GM to add who else it caught
    churn: int = 0
    churn_due: tuple[str, ...] = ()  # Churn effects ("minor", "major", "epic") waiting for the GM to apply them
    next_id: int = 1
    ended: bool = False

    def fighter(self, fighter_id: str) -> Fighter:
        for f in self.fighters:
            if f.id == fighter_id:
                return f
        raise RuleError("That combatant is not in this encounter.")

    def pcs(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side == "pc")

    def enemies(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.side != "pc")

    def test(self, test_id: int) -> TestRecord | None:
        return next((t for t in self.tests if t.id == test_id), None)

    def hit(self, hit_id: int) -> Hit | None:
        return next((h for h in self.hits if h.id == hit_id), None)

    def stunt(self, name: str) -> book.Stunt | None:
        wanted = slug(name)
        return next((s for s in self.stunts if s.key == wanted or slug(s.name) == wanted), None)

    def effects_on(self, fighter_id: str, kind: str = "") -> tuple[Effect, ...]:
        return tuple(e for e in self.effects if e.fighter == fighter_id and (not kind or e.kind == kind))

    @property
    def majors_taken(self) -> int:
        return sum(1 for a in self.turn_actions if a in book.MAJOR_ACTIONS or a == "prepared_major")

    @property
    def begun(self) -> bool:
        return self.round >= 1

    @property
    def phase(self) -> int:
        """AGE rounds have no phases; the review and the exports group the log by round and turn (phase 0)."""
        return 0


# --- small helpers on the state ---------------------------------------------------------------------------------


def slug(text: str) -> str:
    """A stunt's key from its name: "Whatever's Handy" -> "whatevers_handy"."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower().replace("'", "")).strip("_")


def put(state: State, fighter: Fighter) -> State:
    """The state with `fighter` in place of the combatant with its id (put_hit and put_test do the same)."""
    return replace(state, fighters=tuple(fighter if f.id == fighter.id else f for f in state.fighters))


def put_hit(state: State, hit: Hit) -> State:
    return replace(state, hits=tuple(hit if h.id == hit.id else h for h in state.hits))


def put_test(state: State, test: TestRecord) -> State:
    return replace(state, tests=tuple(test if t.id == test.id else t for t in state.tests))


def order_for_round(state: State) -> tuple[str, ...]:
    """Highest initiative first, then the higher Drama Die; remaining ties keep the order the GM settled."""
    place = {fid: i for i, fid in enumerate(state.order)}
    index = {f.id: len(place) + i for i, f in enumerate(state.fighters)}
    return tuple(
        f.id for f in sorted(state.fighters, key=lambda f: (-f.initiative, -f.drama, place.get(f.id, index[f.id])))
    )


def known[V](value: V | None, what: str) -> V:
    """`value`, which a consistent log always has: a missing one means the log and the state disagree."""
    if value is None:
        raise LookupError(f"{what} is not in this encounter's state.")
    return value


def article(label: str) -> str:
    """article("pistol") is "a pistol", article("heavy weapon") "a heavy weapon", article("ace") "an ace"."""
    return ("an " if label[:1].lower() in "aeiou" else "a ") + label


def plural(n: int, word: str) -> str:
    """plural(1, "stunt point") is "1 stunt point", plural(2, "stunt point") "2 stunt points"."""
    return f"{n} {word}{'' if n == 1 else 's'}"


# --- numbers every rule shares ----------------------------------------------------------------------------------------


def ability(state: State, f: Fighter, name: str) -> int:
    value = f.abilities.get(name, 0)
    if name == "Dexterity" and state.settings.get("armour_penalty", True):
        value += book.ARMOUR_PENALTY.get(f.armour, 0)
    return value


def speed(state: State, f: Fighter) -> int:
    penalty = book.ARMOUR_PENALTY.get(f.armour, 0) if state.settings.get("armour_penalty", True) else 0
    return max(0, f.speed + penalty)


def condition_penalty(state: State, f: Fighter) -> int:
    """The injury penalty: DEFAULT injured -1, wounded -2; with both, the worse one, or both added (a setting)."""
    penalties = [0]
    if "Injured" in f.conditions:
        penalties.append(int(state.settings.get("injured_penalty", 1)))
    if "Wounded" in f.conditions:
        penalties.append(int(state.settings.get("wounded_penalty", 2)))
    if state.settings.get("injury_penalties") == "add":
        return -sum(penalties)
    return -max(penalties)


def next_condition(state: State, f: Fighter) -> str:
    """The condition `f` takes next against damage: Injured, then Wounded; "" when none is left (taken out). One
    wounded but no longer injured may take Injured again, unless the GM's `wounded_is_last` says Wounded ends it."""
    if "Wounded" in f.conditions and state.settings.get("wounded_is_last"):
        return ""
    return next((c for c in book.INJURY_LADDER if c not in f.conditions), "")


def test_bonus(state: State, f: Fighter, ability_name: str, focuses: tuple[str, ...]) -> tuple[int, str]:
    """Ability + 2 with a matching focus + injury penalty + Guard Up's penalty (and other timed test modifiers)."""
    focus = next((x for x in focuses if x and f.has_focus(ability_name, x)), "")
    value = ability(state, f, ability_name) + (book.FOCUS_BONUS if focus else 0) + condition_penalty(state, f)
    value += sum(e.tests for e in state.effects_on(f.id))
    return value, focus


def defense(state: State, f: Fighter) -> int:
    """The sheet's Defense (10 + Dexterity, less armour's penalty) with the shield and timed effects. With the GM's
    `armour_penalty` off ("your sheets already include it"), the penalty the sheet took off comes back, as it does
    for Dexterity tests and Speed."""
    base = f.defense if state.settings.get("armour_penalty", True) else f.defense + f.defense_armour
    return base + book.SHIELDS.get(f.shield, ("", 0))[1] + sum(e.defense for e in state.effects_on(f.id))


def toughness(f: Fighter) -> int:
    return max(0, f.toughness) + book.ARMOUR_BONUS.get(f.armour, 0)


def cover_bonus(state: State, f: Fighter, ranged: bool) -> int:
    if not (ranged or state.settings.get("cover_vs_melee")):
        return 0
    return book.COVER.get(min(f.cover, 3), (0, 0))[0]


def weapon_range(state: State, f: Fighter, weapon: book.Weapon) -> tuple[int, int]:
    base = weapon.range + (ability(state, f, "Strength") if weapon.range_adds_strength else 0)
    return base, max(base, weapon.max_range)


def damage_dice(f: Fighter, weapon_key: str, stunning: bool) -> tuple[int, int]:
    """(count, sides) of the damage roll: stunning weapons roll one die fewer (DEFAULT: never below 1d3)."""
    weapon = book.WEAPONS[weapon_key]
    count, sides = weapon.dice, weapon.sides
    if weapon_key == "unarmed" and any(t.lower() == book.STRIKING_STYLE.lower() for t in f.talents):
        sides = book.STRIKING_STYLE_SIDES
    if stunning:
        count -= 1
        if count < 1:
            count, sides = 1, 3
    return count, sides
