"""The Expanse's typed view models (built in combat.tables.expanse): what the table, the GM's controls and one
player's phone may show.

A player's table is a `TableView` of `Row`s: an enemy's row carries none of its numbers, and an enemy the party
is not aware of has no row at all. The GM's is a `GmTableView` of `GmRow`s (an enemy's an `EnemyRow`, its numbers
and timed effects marked GM-only), with the GM's controls, the Churn pool and every open hit as GM-only fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from combat.tables.viewmodels import PrivateView, gm_only


@dataclass(frozen=True, kw_only=True)
class Ref:
    """A combatant in a choice list."""

    key: str
    name: str


@dataclass(frozen=True, kw_only=True)
class Row:
    """One combatant in the initiative order. `numbers` False: an enemy, whose numbers the viewer may not see, so
    the row carries none of them."""

    key: str
    name: str
    pc: bool
    acting: bool
    interrupting: bool
    out: bool
    rolled_over: bool
    conditions: tuple[str, ...]
    cover: str
    prepared: str
    jammed: tuple[str, ...]
    numbers: bool
    facts: tuple[str, ...]
    initiative: int | None = None
    drama: int | None = None
    defense: int | None = None
    toughness: int | None = None
    fortune: int | None = None
    fortune_max: int | None = None
    sp: int | None = None


@dataclass(frozen=True, kw_only=True)
class GmRow(Row):
    """A combatant as the GM sees it: whether it is tied on initiative, whether the party has not seen it."""

    tied: bool = gm_only(False)
    unseen: bool = gm_only(False)


@dataclass(frozen=True, kw_only=True)
class EnemyRow(GmRow):
    """An enemy as the GM sees it: its numbers and timed effects (in `facts`) are the GM's."""

    facts: tuple[str, ...] = gm_only(())
    initiative: int | None = gm_only(None)
    drama: int | None = gm_only(None)
    defense: int | None = gm_only(None)
    toughness: int | None = gm_only(None)
    fortune: int | None = gm_only(None)
    fortune_max: int | None = gm_only(None)
    sp: int | None = gm_only(None)


@dataclass(frozen=True, kw_only=True)
class Waiting:
    """Damage a combatant the viewer may see is dealing with. `remaining`: None for an enemy (players)."""

    id: int
    target: str
    attacker: str
    remaining: int | None
    stage: str
    pc: bool


@dataclass(frozen=True, kw_only=True)
class EnemyWaiting(Waiting):
    """Damage an enemy is dealing with, as the GM sees it: what is left of it is the GM's."""

    remaining: int | None = gm_only(None)


@dataclass(frozen=True, kw_only=True)
class Blast:
    thrower: str
    scatter: int


@dataclass(frozen=True, kw_only=True)
class Landed:
    """The last grenade that went off, for the GM to add who else is within 5 m (`others`, the unseen included)."""

    thrower: str
    caught: tuple[str, ...]
    others: tuple[Ref, ...]


@dataclass(frozen=True, kw_only=True)
class TableView:
    """The table as every player sees it."""

    round: int
    begun: bool
    initiative_rolled: bool
    breathers_taken: bool
    turn: str
    turn_name: str
    interrupt_name: str
    order: tuple[Row, ...]
    waiting: tuple[Waiting, ...]
    blast: Blast | None
    churn_on: bool
    churn_shown: int | None = None  # the pool, for everyone, when the GM makes it public (setting churn_public)


# --- one combatant's controls (a player's phone, or the GM acting for an NPC) --------------------------------------


@dataclass(frozen=True, kw_only=True)
class Hit:
    """Damage waiting on one combatant and what absorbing it may cost."""

    id: int
    target: str
    target_key: str
    pc: bool
    attacker: str
    weapon: str
    damage: int
    toughness: int
    cover: int
    penetrating: bool
    stunning: bool
    transferred: int
    after_toughness: int
    remaining: int
    stage: str
    fortune: int
    max_fortune: int
    next_condition: str


@dataclass(frozen=True, kw_only=True)
class Weapon:
    """A weapon the attack builder offers, with its whole test bonus."""

    key: str
    label: str
    bonus: int
    roll: str
    parts: str
    reach: str
    ranged: bool
    jammed: bool
    gun: bool
    makeshift: bool
    blocked: bool
    damage: str
    unready: str = ""  # why hands keep it from attacking now: "Ready first" or "broken" ("" when it may)


@dataclass(frozen=True, kw_only=True)
class Target:
    """Whom an attack may aim at. `defense`: None unless the viewer may know it."""

    key: str
    name: str
    defense: int | None
    total_cover: bool


@dataclass(frozen=True, kw_only=True)
class QuickAttack:
    """The common attack in one tap: the readied (or first usable) weapon at the default target, from where the
    attacker stands (distance 0: no range penalty, within melee reach)."""

    action: str
    weapon: str
    weapon_label: str
    roll: str
    target: str
    target_name: str


@dataclass(frozen=True, kw_only=True)
class ObjectSize:
    key: str
    label: str
    examples: str
    tn: int


@dataclass(frozen=True, kw_only=True)
class Stunt:
    """A stunt the combatant can still afford this turn."""

    key: str
    name: str
    cost: str
    text: str
    points: tuple[int, ...]
    needs_ally: bool
    skirmish: bool
    target: str


@dataclass(frozen=True, kw_only=True)
class DieChoice:
    index: int
    face: int
    cost: int
    drama: bool


@dataclass(frozen=True, kw_only=True)
class ChangeDie:
    """The latest test's dice, and those Fortune may still change."""

    faces: tuple[int, ...]
    total: int
    success: bool
    dice: tuple[DieChoice, ...]


@dataclass(frozen=True, kw_only=True)
class Jam:
    key: str
    label: str


@dataclass(frozen=True, kw_only=True)
class Panel:
    """Everything one combatant may do right now: a player's own character, or (`gm`) the one the GM runs."""

    key: str
    name: str
    pc: bool
    out: bool
    can_act: bool
    own_turn: bool
    interrupting: bool
    prepared_action: str
    prepared_label: str
    actions_left: str
    major_ok: bool
    minor_ok: bool
    can_defend: bool
    can_run: bool
    run_whole_turn: bool = False  # seed: Run sacrifices the turn's other action (setting run_ends_turn)
    can_test: bool
    can_guard_up: bool
    can_prepare: bool
    attack_actions: tuple[tuple[str, str], ...]
    free_actions: tuple[tuple[str, str], ...]
    free_target: str
    weapons: tuple[Weapon, ...]
    default_weapon: str
    targets: tuple[Target, ...]
    default_target: str  # a visible enemy still in the fight and not in total cover ("" if none)
    default_action: str  # the attack the builder preselects: ranged or melee, as the default weapon is
    quick_attack: QuickAttack | None
    waiting: str  # off turn: who acts and what this combatant waits for
    out_of_turn: tuple[str, ...]  # what they may do meanwhile
    objects: tuple[ObjectSize, ...]
    focuses: tuple[str, ...]
    half_speed: int
    speed: int
    run: int
    prone: bool
    aim: bool
    in_hand: str
    grenade: bool
    grenade_reach: int
    grenade_roll: str
    grenade_tn: int
    blast_targets: tuple[Ref, ...]
    jammed: tuple[Jam, ...]
    press_targets: tuple[Ref, ...]
    pursue: tuple[Ref, ...]
    sp: int
    stunts: tuple[Stunt, ...]
    allies: tuple[Ref, ...]
    change_die: ChangeDie | None
    hits: tuple[Hit, ...]
    self_interrupt: bool
    end_turn: bool
    roll_over: bool
    roll_over_asked: str
    roll_over_conditions: tuple[str, ...]
    defense: int
    toughness: int
    fortune: int
    fortune_max: int
    conditions: tuple[str, ...]
    effects: tuple[str, ...]
    cover: str
    in_hand_label: str
    stowed: tuple[Jam, ...] = ()  # carried weapons it may ready
    broken: tuple[str, ...] = ()  # weapons that broke, by label
    ready_now: tuple[Jam, ...] = ()  # one-tap Ready buttons: stowed weapons, while a minor action is left
    shield: str
    shields: tuple[tuple[str, str], ...]
    readies: tuple[tuple[str, str], ...]
    abilities: tuple[str, ...]
    majors: tuple[tuple[str, str], ...]
    guard_choices: tuple[int, ...]
    gm: bool


# --- the GM's controls ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Prepared:
    key: str
    name: str
    action: str


@dataclass(frozen=True, kw_only=True)
class RollOver:
    key: str
    name: str
    condition: str


@dataclass(frozen=True, kw_only=True)
class ChurnDue:
    """The Churn effect waiting for the GM: its severity, the prompt, and how many more wait behind it."""

    label: str
    prompt: str
    more: int = 0


@dataclass(frozen=True, kw_only=True)
class StuntRow:
    name: str
    cost: str
    text: str
    effect: str


@dataclass(frozen=True, kw_only=True)
class GmTableView(TableView):
    """The GM's table and controls: every combatant's numbers, the unseen, the Churn pool and every open hit."""

    order: tuple[GmRow | EnemyRow, ...]
    waiting: tuple[Waiting | EnemyWaiting, ...]
    entered_dice: bool = gm_only(False)
    churn: int = gm_only(0)
    churn_jam_cost: int = gm_only(1)
    tie_groups: tuple[tuple[Ref, ...], ...] = gm_only(())
    can_break_ties: bool = gm_only(False)
    everyone: tuple[Ref, ...] = gm_only(())
    conditions: tuple[str, ...] = gm_only(())
    panels: tuple[Panel, ...] = gm_only(())
    prepared: tuple[Prepared, ...] = gm_only(())
    roll_overs: tuple[RollOver, ...] = gm_only(())
    hits: tuple[Hit, ...] = gm_only(())
    stunts: tuple[StuntRow, ...] = gm_only(())
    effects: tuple[tuple[str, str], ...] = gm_only(())
    damage_conditions: tuple[str, ...] = gm_only(())
    jammable: tuple[str, ...] = gm_only(())
    churn_levels: tuple[tuple[int, str], ...] = gm_only(())
    give_weapons: tuple[tuple[str, str], ...] = gm_only(())  # weapon types the GM may hand out ((): not tracked)
    churn_due: ChurnDue | None = gm_only(None)
    churn_marked: tuple[str, ...] = gm_only(())  # whose next test the Churn makes fail
    churn_targets: tuple[Ref, ...] = gm_only(())
    churn_conditions: tuple[str, ...] = gm_only(())
    landed: Landed | None = gm_only(None)


@dataclass(frozen=True, kw_only=True)
class MeView(PrivateView):
    """One player's own combatants and what each may do now."""

    mine: tuple[Panel, ...]
    entered_dice: bool
    round: int
