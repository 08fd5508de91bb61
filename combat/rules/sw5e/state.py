"""The state of an SW5e starship encounter: ships, their crews, the ship turn under way, and the small pure rules
that read it (the GM's settings, labels, the action menu, the initiative order).

Everything here is a frozen dataclass that round-trips through JSON; `evolve` builds each new state from an event.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from combat.rules.core import RuleError, Setting
from combat.rules.sw5e import ship as sw
from combat.rules.sw5e.stats import STATIONS

# The GM's choices for an encounter (`State.settings`); `State.setting` falls back to their defaults.
SETTINGS: tuple[Setting, ...] = (
    Setting(
        "entered_initiative",
        "Players may enter the face of a physical d20 for initiative",
        False,
        help='Rules notes: "Every PC rolls initiative (d20 + Dex modifier + bonuses)". Off by default: the server '
        "rolls; on, a player may type the face of their own d20 instead.",
    ),
    Setting(
        "ties",
        "Ships tied on initiative",
        "gm",
        choices=(("gm", "The GM orders them"), ("pcs_first", "PC ships first, then the GM orders the rest")),
        help='Rules notes: "DEFAULT ties: the GM orders them."',
    ),
    Setting(
        "over_capacity",
        "Power dice assigned to a full store",
        "refuse",
        choices=(("refuse", "Are refused with a sentence"), ("lose", "Are lost")),
        help='Rules notes: "Coupling (where dice are stored; excess is lost, DEFAULT)". By default the crew is told '
        'the store is full and may assign the dice elsewhere; under "Are lost" the excess is lost.',
    ),
    Setting(
        "unassigned_power",
        "Power dice the crew leaves unassigned",
        "central_then_lost",
        choices=(("central_then_lost", "Fill the central store, the rest are lost"), ("lost", "Are lost")),
        help='Rules notes: "Where produced dice go when several stores have room (DEFAULT: the crew assigns; '
        'unassigned dice fill central storage first, then are lost)."',
    ),
    Setting(
        "tier0_power",
        "Tier 0 power die",
        1,
        choices=((1, "Flat 1"), (2, "d2"), (4, "d4")),
        help='Rules notes: "Power dice: die size by tier — tier 0: 1 (DEFAULT flat 1), tier 1 d4, 2 d6, 3 d8, 4 d10, '
        '5 d12."',
    ),
    Setting(
        "surprised_ship",
        "A surprised ship's first turn",
        "crew",
        choices=(
            ("crew", "Reactor and shields work; its crew skip their first turns"),
            ("skip", "The whole ship turn is lost"),
        ),
        help="Rules notes: \"Surprised crew members: the ship's turn still happens; they skip their individual "
        'turn" (default). Under "The whole ship turn is lost" a crew member the GM cleared of surprise is skipped '
        "with the ship: nobody aboard acts on its first turn.",
    ),
    Setting(
        "stealth_ties",
        "Working out surprise: a Stealth check equal to a passive Perception score",
        "hidden",
        choices=(("hidden", "Stays hidden: the passive score is the number to meet"), ("noticed", "Is noticed")),
        help='Rules notes: "GM compares Dexterity (Stealth) of hiders with passive Wisdom (Perception). Anyone (a '
        'ship or a single crew member) that notices no threat is surprised." They leave a tie open; by default a '
        "Stealth check equal to the passive score stays hidden.",
    ),
    Setting(
        "fire_power",
        "Power dice a gunner adds to a weapon's damage",
        "hit",
        choices=(
            ("hit", "Spent only when the attack hits (default: the crew spends them after seeing the roll)"),
            ("declared", "Spent when the weapon fires, hit or miss"),
        ),
        help='Rules notes: "Spending a die is rolling it" and "Central dice fuel anything; a system\'s dice fuel only '
        "that system's abilities\" (a weapon takes the weapons store's dice, then the central store's). By default "
        "the dice are spent only when the attack hits.",
    ),
    Setting(
        "critical",
        "Natural 20 and natural 1 on a weapon's attack roll",
        "double_dice",
        choices=(
            ("double_dice", "A 20 always hits and doubles the damage dice; a 1 always misses (default, as in 5e)"),
            ("none", "Only the total against the target's AC counts"),
        ),
        help='Rules notes: "Armour: AC 10 + Dex mod"; attacks roll against AC. They leave natural 20s and 1s open; by '
        "default, as in 5e, a natural 20 always hits and doubles the damage dice and a natural 1 always misses.",
    ),
    Setting(
        "bonus_actions",
        "What a crew member's bonus action may be",
        "named",
        choices=(
            ("named", "Only the action the crew sheet names: the feature defines it (default)"),
            ("any", "Any action (the GM keeps track of which features grant what)"),
        ),
        help='Seed: "You can only take a bonus action if some feature gives you one"; the feature says what it is. '
        "Either way a crew member whose sheet grants no bonus action takes none.",
    ),
    Setting(
        "shield_die_mod",
        "A shield die the Regenerate Shields action rolls",
        "strength",
        choices=(
            ("strength", "Adds the ship's Strength modifier, as a spent hull die adds Constitution (default)"),
            ("none", "Adds nothing: the die alone"),
        ),
        help='The rules notes: shield points are worked out "with shield dice and Str mod", and the action '
        '"spends and rolls a shield die"; by default the rolled die adds the Strength modifier too.',
    ),
    Setting(
        "shield_power",
        "Power dice a crew member spends on shields",
        "restore",
        choices=(
            ("restore", "Restore as many shield points as they roll, up to the shield maximum (default)"),
            ("roll", "Are only rolled and taken from the store: the table applies what they fuel"),
        ),
        help="Rules notes: \"Central dice fuel anything; a system's dice fuel only that system's abilities. Spending "
        'a die is rolling it", and power dice from the coupling are "spent as the rules allow on damage or shields". '
        "By default dice spent on shields restore that many shield points, capped at the shield maximum; unlike "
        "passive regeneration they work at 0 shield points.",
    ),
    Setting(
        "enemy_numbers",
        "NPC ships' hull, shields and power",
        "hidden",
        choices=(("hidden", "GM only (damage dealt is public)"), ("public", "Everyone sees them")),
        help="By default an NPC ship's hull, shields, power, AC and armour are the GM's to know; players see the "
        "damage dealt.",
    ),
)

# At 0 hull points (issue 18; combat/rules/sw5e/disabled.py). The rules notes: "At 0 hull points: destroyed if the
# remaining damage >= max hull, else disabled with system damage and destruction saves (d20 >= 10; three
# successes stabilise)."
SETTINGS = SETTINGS + (
    Setting(
        "npc_at_zero",
        "An NPC ship reduced to 0 hull points",
        "disabled",
        choices=(
            ("disabled", "Is disabled and makes destruction saves, as a player ship does"),
            ("destroyed", "Explodes at once (what most GMs do with NPC ships)"),
        ),
        help='Rules notes: "At 0 hull points: destroyed if the remaining damage >= max hull, else disabled with '
        'system damage and destruction saves."',
    ),
    Setting(
        "destroyed_by",
        "What destroys a disabled ship",
        "three_failures",
        choices=(
            ("three_failures", "Three failed destruction saves, or system damage level 6"),
            ("level_six", "Only system damage level 6 (its primary systems fail)"),
        ),
        help='Rules notes: "destruction saves (d20 >= 10; three successes stabilise)". Each failure also adds a '
        "level of system damage; at level 6 all primary systems fail.",
    ),
    Setting(
        "disabled_crew",
        "What the crew of a disabled ship may do on its turn",
        "repairs",
        choices=(
            ("repairs", "Patch the hull, try to stabilise it, and Direct (talking needs no action)"),
            ("patch", "Only Patch and try to stabilise it"),
            ("nothing", "Nothing: the ship's turn is only its destruction save"),
        ),
        help="A disabled ship can't take actions or reactions, but a crew member can use their action to repair "
        "it or try to stabilise it (DC 10 Intelligence (Mechanic's Kit)). Its reactor and shields stay down.",
    ),
    Setting(
        "system_damage_rolls",
        "Disadvantage from system damage",
        "applied",
        choices=(
            (
                "applied",
                (
                    "The server rolls the ship's attacks and destruction saves with disadvantage from level 3, "
                    "and a used ship's destruction save when a crew member rolls a 1"
                ),
            ),
            ("shown", "Only shown on the ship: the table applies the effects"),
        ),
        help="System damage level 3 gives the ship disadvantage on attack rolls and saving throws (Starships of "
        "the Galaxy): two d20s, the lower counts. A used ship (level 5): a crew member's 1 on a roll the server "
        "makes (an attack, stabilising) means a destruction save, a level of system damage on a failure. Level 1's "
        "disadvantage on ability checks, level 2's slowed level and 1s on rolls made at the table are shown on the "
        "ship for the table to apply.",
    ),
    Setting(
        "system_damage_maxima",
        "Hull and shield maxima at system damage level 4",
        "applied",
        choices=(
            ("applied", "Halved by the server: repairs, regeneration and the tables use the halved numbers"),
            ("shown", "Only shown on the ship: the table applies the effect"),
        ),
        help="System damage level 4 halves the hull point maximum, the shield point maximum and the shield "
        "regeneration rate (Starships of the Galaxy, appendix A). The ship's stored maxima are never changed: the "
        "halved numbers are worked out from them while the level lasts.",
    ),
    Setting(
        "system_damage_after",
        "System damage after the fight",
        "kept",
        choices=(
            ("kept", "Stays on the ship's record until maintenance: the GM lowers it on the ship page (default)"),
            ("cleared", "Is repaired when the fight ends (a used ship stays used)"),
        ),
        help='Starships of the Galaxy: "Finishing maintenance reduces a ship\'s system damage level by 1"; our '
        "notes leave open whether it lasts past the fight. A ship still at 0 hull points keeps its destruction "
        "saves' tally and whether it is stable either way.",
    ),
    Setting(
        "disable_at_zero",
        "A ship reduced to 0 hull points by damage",
        "rules",
        choices=(
            ("rules", "Is destroyed when the damage left over reaches its hull maximum, else disabled (default)"),
            ("disable", "Is disabled and stable instead: the attackers choose to disable, never to destroy"),
        ),
        help='Starships of the Galaxy, "Disabling a Ship": an attacker who reduces a ship to 0 hull points "can '
        'disable the ship, rendering it disabled and stable". With "disable" no damage destroys a ship outright '
        "and NPC ships do not explode; later damage still adds system damage.",
    ),
)

# --- labels and the action menu ---------------------------------------------------------------------------------------

STATION_LABELS = dict(STATIONS)
STORE_LABELS = {store: "central store" if store == "central" else f"{store} store" for store in sw.STORES}
REACTOR_LABELS = dict(sw.REACTOR_CHOICES)
SHIELD_LABELS = dict(sw.SHIELD_CHOICES)
SLOTS = {"action": "an action", "bonus": "a bonus action", "reaction": "a reaction"}


@dataclass(frozen=True)
class ActionSpec:
    key: str
    label: str
    # "once" (once per round per ship), "repeat", "weapon" (each weapon once), "boost", "helm",
    # "turn" (once per ship turn, no DC step)
    kind: str


ACTION_MENU = (
    ActionSpec("boost_engines", "Boost Engines", "boost"),
    ActionSpec("boost_shields", "Boost Shields", "boost"),
    ActionSpec("boost_weapons", "Boost Weapons", "boost"),
    ActionSpec("detect", "Detect", "once"),
    ActionSpec("direct", "Direct", "repeat"),
    ActionSpec("fire", "Fire", "weapon"),
    ActionSpec("interfere", "Interfere", "repeat"),
    ActionSpec("patch", "Patch", "repeat"),
    ActionSpec("regenerate_shields", "Regenerate Shields", "turn"),
    ActionSpec("attack_run", "Attack Run", "helm"),
    ActionSpec("conceal", "Conceal", "helm"),
    ActionSpec("dogfight", "Dogfight", "helm"),
    ActionSpec("evade", "Evade", "helm"),
    ActionSpec("fly", "Fly", "helm"),
    ActionSpec("harass", "Harass", "helm"),
    ActionSpec("hard_turn", "Hard Turn", "helm"),
    ActionSpec("ram", "Ram", "helm"),
)
MENU = {a.key: a for a in ACTION_MENU}
REPEATABLE = tuple(a.key for a in ACTION_MENU if a.kind == "repeat")
HELM_ACTIONS = tuple(a.key for a in ACTION_MENU if a.kind == "helm")
BOOSTS = tuple(a.key for a in ACTION_MENU if a.kind == "boost")
PER_SHIP_TURN = tuple(a.key for a in ACTION_MENU if a.kind == "turn")


def custom_key(name: str) -> str:
    return "custom:" + " ".join(name.split()).casefold()


def bonus_name(text: str) -> str:
    """What a crew sheet's bonus action is for, as a Fighter keeps it: the key of the menu action it names (by key or
    label, any case), else the feature's own action as written, spaces tidied ("" for none)."""
    name = " ".join(text.split())[:60]
    return next((a.key for a in ACTION_MENU if name.casefold() in (a.key, a.label.casefold())), name)


def counted_key(action: str, weapon: str = "") -> str:
    """The name an action counts under for "once per round per ship" ("" for actions that may repeat, and for
    those counted once per ship turn instead)."""
    if action in REPEATABLE or action in PER_SHIP_TURN:
        return ""
    if action == "fire":
        return "fire:" + " ".join(weapon.split()).casefold()
    return action


# --- the state --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fighter:
    """A crew member. `turns` counts the crew turns they have finished (the first may be lost to surprise)."""

    id: str
    name: str
    side: str = "pc"  # "pc" or "npc"
    owner: int | None = None
    initiative_mod: int = 0
    bonus_action: bool = False  # a feature grants a bonus action
    bonus_for: str = ""  # what the bonus action is: a menu key or the feature's own action by name ("": none)
    ship: str = ""  # the ship aboard ("" for none)
    station: str = ""  # "pilot" is the helm
    surprised: bool = False
    alert: bool = False  # the GM cleared them of surprise: their ship's surprise is not theirs
    stealth_mod: int = 0  # Dexterity (Stealth), rolled when their ship hides
    passive_perception: int = 10  # passive Wisdom (Perception), against the Stealth of ships that hide
    initiative: int | None = None
    turns: int = 0
    took_turn: bool = False  # this round
    action_used: bool = False
    bonus_used: bool = False
    reaction_used: bool = False
    helm_used: bool = False  # one helm option per turn

    @property
    def is_pc(self) -> bool:
        return self.side == "pc"


@dataclass(frozen=True)
class CustomAction:
    key: str
    label: str
    helm: bool = False
    repeat: bool = False  # the GM allowed it to be taken by several crew members in a round


@dataclass(frozen=True)
class Ship:
    id: str
    name: str
    side: str = "pc"  # "pc" or "npc"
    size: str = "medium"
    tier: int = 0
    hull: int = 30
    hull_max: int = 30
    shields: int = 20
    shields_max: int = 20
    hull_dice: int = 5
    shield_dice: int = 5
    shield_type: str = "directional"
    reactor: str = "fuel_cell"
    coupling: str = "direct"
    power: dict[str, int] = field(default_factory=dict)
    weapons: tuple[str, ...] = ()
    con_mod: int = 0
    str_mod: int = 0  # added to a shield die the Regenerate Shields action rolls (setting "shield_die_mod")
    initiative_mod: int = 0
    surprised: bool = False
    initiative: int | None = None  # the GM's value in set-up; every ship's initiative once combat starts
    status: str = "active"  # "active", "disabled" or "destroyed"
    turns: int = 0  # ship turns finished or lost
    actions: tuple[str, ...] = ()  # counted action names taken aboard this round
    boosts: tuple[str, ...] = ()  # boosts taken this ship turn
    ac: int = 10  # armour class: what a weapon's attack roll must reach
    reduction: int = 0  # the armour's damage reduction on attack-roll hits (minimum 1 damage)
    weapon_stats: dict[str, str] = field(default_factory=dict)  # weapon name -> "+5 2d6+2" (gear.WeaponStats.spec)
    # At 0 hull points (disabled.py): levels of system damage (0-6, kept after repairs), the destruction saves'
    # tally while disabled, and whether it is stable (no more saves until it takes damage).
    system_damage: int = 0
    saves_made: int = 0
    saves_failed: int = 0
    stable: bool = False
    used: bool = False  # system damage level 5 makes a ship "used" for good (its record keeps it)

    @property
    def die(self) -> int:
        """The hull and shield die."""
        return sw.hull_die(self.size)

    @property
    def dice_max(self) -> int:
        return sw.hull_dice_total(self.size, self.tier)

    def stored(self, store: str) -> int:
        return self.power.get(store, 0)

    def capacity(self, store: str) -> int:
        return sw.store_capacity(self.coupling, store)

    def free(self, store: str) -> int:
        return max(0, self.capacity(store) - self.stored(store))

    @property
    def regeneration(self) -> int:
        """Shield points one shield die restores: its maximum × the shield type's regeneration multiplier."""
        return sw.shield_regeneration(self.shield_type, self.die)

    @property
    def active(self) -> bool:
        return self.status == "active"


@dataclass(frozen=True)
class State:
    ships: tuple[Ship, ...] = ()
    fighters: tuple[Fighter, ...] = ()
    started: bool = False
    round: int = 0
    order: tuple[str, ...] = ()  # ship ids, highest initiative first (fixed when combat starts)
    tie_order: tuple[str, ...] = ()  # the GM's ranking for tied ships
    ship_turn: str = ""  # the ship taking its turn
    stage: str = ""  # "power", "start" or "crew"
    pending_power: int = 0  # power dice the reactor produced this ship turn, waiting for the crew
    crew_order: tuple[str, ...] = ()
    order_by: str = ""  # who set the crew order ("" for the GM)
    order_final: bool = False  # the helm (or the GM) has had the final say
    acting: str = ""  # the crew member taking their turn
    custom_actions: tuple[CustomAction, ...] = ()
    turn_actions: tuple[str, ...] = ()  # actions counted once per ship turn, taken on this ship turn
    helm_taken: dict[str, str] = field(default_factory=dict)  # ship id -> who took helm actions this round
    settings: dict[str, str | int | bool] = field(default_factory=dict)
    ended: bool = False

    def fighter(self, fighter_id: str) -> Fighter:
        for f in self.fighters:
            if f.id == fighter_id:
                return f
        raise RuleError("That crew member is not in this encounter.")

    def ship(self, ship_id: str) -> Ship:
        for s in self.ships:
            if s.id == ship_id:
                return s
        raise RuleError("That ship is not in this encounter.")

    def setting(self, key: str) -> str | int | bool:
        """The GM's choice for `key`, or the setting's default when the state holds none."""
        if key in self.settings:
            return self.settings[key]
        default: str | int | bool = next(s.default for s in SETTINGS if s.key == key)
        return default

    def crew(self, ship_id: str) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.ship == ship_id)

    def pcs(self) -> tuple[Fighter, ...]:
        return tuple(f for f in self.fighters if f.is_pc)

    def helm(self, ship_id: str) -> Fighter | None:
        return next((f for f in self.crew(ship_id) if f.station == "pilot"), None)

    def ship_initiative(self, ship_id: str) -> int | None:
        """The lowest initiative among the PCs aboard; a ship with no PC aboard has the GM's value. Fixed once
        combat starts (crew changes later do not reorder the ships)."""
        if self.started:
            return self.ship(ship_id).initiative
        pcs = [f for f in self.crew(ship_id) if f.is_pc]
        if not pcs:
            return self.ship(ship_id).initiative
        rolled = [f.initiative for f in pcs if f.initiative is not None]
        return min(rolled) if len(rolled) == len(pcs) else None

    def surprised_now(self, f: Fighter) -> bool:
        """Surprised (personally or with the ship) and the first turn has not ended yet."""
        if f.turns:
            return False
        if f.surprised or f.alert:  # the GM's word on the crew member outweighs the ship's
            return f.surprised
        return bool(f.ship) and self.ship(f.ship).surprised

    def can_react(self, f: Fighter) -> bool:
        return not f.reaction_used and not self.surprised_now(f)

    def remaining_crew(self, ship_id: str) -> tuple[Fighter, ...]:
        """Crew aboard who still have their turn this round (in the agreed order when there is one)."""
        left = [f for f in self.crew(ship_id) if not f.took_turn and f.id != self.acting]
        if self.crew_order:
            rank = {fid: i for i, fid in enumerate(self.crew_order)}
            left.sort(key=lambda f: rank.get(f.id, len(rank)))
        return tuple(left)

    def hides(self, ship_id: str) -> bool:
        """Whether this ship's numbers are GM-only."""
        try:
            ship = self.ship(ship_id)
        except RuleError:
            return True
        return ship.side != "pc" and self.setting("enemy_numbers") != "public"

    def custom_action(self, key: str) -> CustomAction | None:
        return next((a for a in self.custom_actions if a.key == key), None)

    def counted(self, action: str, weapon: str = "") -> str:
        """`counted_key`, and "" for a free-text action the GM allowed to repeat."""
        custom = self.custom_action(action)
        return "" if custom is not None and custom.repeat else counted_key(action, weapon)

    @property
    def turn(self) -> str:
        """The ship taking its turn: what the log, the review and exports group entries by."""
        return self.ship_turn

    @property
    def phase(self) -> int:
        """The ship turn's place in the initiative order (1 for the first ship), 0 outside a ship turn."""
        return self.order.index(self.ship_turn) + 1 if self.ship_turn in self.order else 0


def bonus_spec(state: State, f: Fighter) -> ActionSpec | None:
    """The action `f`'s bonus action is for, or None when their sheet names none. A feature's own action ("Second
    Wind") counts once per round per ship by its name, like any free-text action, unless the GM allowed an action of
    that name to repeat (or made it a helm action)."""
    if f.bonus_for in MENU:
        return MENU[f.bonus_for]
    if not f.bonus_for:
        return None
    custom = state.custom_action(custom_key(f.bonus_for))
    if custom is not None:
        return ActionSpec(custom.key, custom.label, "helm" if custom.helm else ("repeat" if custom.repeat else "once"))
    return ActionSpec(custom_key(f.bonus_for), f.bonus_for, "once")


# --- system damage level 4: the maxima worked out from the stored ones ------------------------------------------------

HALVED_LEVEL = 4  # "hull point maximum, shield point maximum, and shield regeneration rate halved"


def halved(state: State, ship: Ship) -> bool:
    """Whether `ship`'s maxima and regeneration are halved: system damage level 4 or more, when the GM's
    `system_damage_maxima` setting has the server apply it."""
    return state.setting("system_damage_maxima") == "applied" and ship.system_damage >= HALVED_LEVEL


def hull_max(state: State, ship: Ship) -> int:
    """The hull point maximum every rule reads: the stored one, halved (rounded down, at least 1) at level 4."""
    return max(1, ship.hull_max // 2) if halved(state, ship) else ship.hull_max


def shields_max(state: State, ship: Ship) -> int:
    """The shield point maximum every rule reads: the stored one, halved (rounded down) at level 4."""
    return ship.shields_max // 2 if halved(state, ship) else ship.shields_max


def regeneration(state: State, ship: Ship) -> int:
    """Shield points one shield die restores at the start of a ship turn: halved (rounded down) at level 4."""
    return ship.regeneration // 2 if halved(state, ship) else ship.regeneration


# --- small pure rules on the state ------------------------------------------------------------------------------------


def ship_order(state: State) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """(ship ids highest initiative first, groups of tied ships the GM has not ordered yet)."""
    inits = {s.id: state.ship_initiative(s.id) for s in state.ships}
    pcs_first = state.setting("ties") == "pcs_first"
    rank = {sid: i for i, sid in enumerate(state.tie_order)}

    def band(s: Ship) -> tuple[int, int]:
        return (-(inits[s.id] or 0), 0 if (pcs_first and s.side == "pc") else (1 if pcs_first else 0))

    groups: dict[tuple[int, int], list[str]] = {}
    for s in state.ships:
        groups.setdefault(band(s), []).append(s.id)
    unresolved = [tuple(ids) for ids in groups.values() if len(ids) > 1 and not all(i in rank for i in ids)]
    ordered = sorted(state.ships, key=lambda s: (band(s), rank.get(s.id, len(rank))))
    return tuple(s.id for s in ordered), unresolved


def put_fighter(state: State, fighter: Fighter) -> State:
    """`state` with `fighter` in place of the crew member of the same id."""
    return replace(state, fighters=tuple(fighter if f.id == fighter.id else f for f in state.fighters))


def put_ship(state: State, ship: Ship) -> State:
    """`state` with `ship` in place of the ship of the same id."""
    return replace(state, ships=tuple(ship if s.id == ship.id else s for s in state.ships))


def power_die(state: State, ship: Ship) -> int:
    """The sides of the ship's power die (1: a flat 1 per die)."""
    return int(state.setting("tier0_power")) if ship.tier == 0 else sw.power_die(ship.tier)


# --- the GM's corrections (AdjustShip) --------------------------------------------------------------------------------

ADJUSTABLE = ("hull", "shields", "hull_dice", "shield_dice") + tuple(f"power_{s}" for s in sw.STORES)


def adjust_limit(state: State, ship: Ship, what: str) -> int:
    """The highest value the GM may set `what` (one of ADJUSTABLE) to on this ship."""
    if what == "hull":
        return hull_max(state, ship)
    if what == "shields":
        return shields_max(state, ship)
    if what in ("hull_dice", "shield_dice"):
        return ship.dice_max
    return ship.capacity(what.removeprefix("power_"))


def what_label(what: str) -> str:
    if what.startswith("power_"):
        return f"Power dice in the {STORE_LABELS[what.removeprefix('power_')]}"
    return {"hull": "Hull points", "shields": "Shield points", "hull_dice": "Hull dice", "shield_dice": "Shield dice"}[
        what
    ]
