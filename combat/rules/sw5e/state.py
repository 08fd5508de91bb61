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
SETTINGS = (
    Setting("entered_initiative", "Players may enter the face of a physical d20 for initiative", False),
    Setting(
        "ties",
        "Ships tied on initiative",
        "gm",
        choices=(("gm", "The GM orders them"), ("pcs_first", "PC ships first, then the GM orders the rest")),
    ),
    Setting(
        "over_capacity",
        "Power dice assigned to a full store",
        "refuse",
        choices=(("refuse", "Are refused with a sentence"), ("lose", "Are lost")),
    ),
    Setting(
        "unassigned_power",
        "Power dice the crew leaves unassigned",
        "central_then_lost",
        choices=(("central_then_lost", "Fill the central store, the rest are lost"), ("lost", "Are lost")),
    ),
    Setting("tier0_power", "Tier 0 power die", 1, choices=((1, "Flat 1"), (2, "d2"), (4, "d4"))),
    Setting(
        "surprised_ship",
        "A surprised ship's first turn",
        "crew",
        choices=(
            ("crew", "Reactor and shields work; its crew skip their first turns"),
            ("skip", "The whole ship turn is lost"),
        ),
    ),
    Setting(
        "stealth_ties",
        "Working out surprise: a Stealth check equal to a passive Perception score",
        "hidden",
        choices=(("hidden", "Stays hidden: the passive score is the number to meet"), ("noticed", "Is noticed")),
    ),
    Setting(
        "fire_power",
        "Power dice a gunner adds to a weapon's damage",
        "hit",
        choices=(
            ("hit", "Spent only when the attack hits (default: the crew spends them after seeing the roll)"),
            ("declared", "Spent when the weapon fires, hit or miss"),
        ),
    ),
    Setting(
        "critical",
        "Natural 20 and natural 1 on a weapon's attack roll",
        "double_dice",
        choices=(
            ("double_dice", "A 20 always hits and doubles the damage dice; a 1 always misses (default, as in 5e)"),
            ("none", "Only the total against the target's AC counts"),
        ),
    ),
    Setting(
        "enemy_numbers",
        "NPC ships' hull, shields and power",
        "hidden",
        choices=(("hidden", "GM only (damage dealt is public)"), ("public", "Everyone sees them")),
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
    bonus_for: str = ""  # the menu action that feature's bonus action allows ("": it names none yet)
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


def adjust_limit(ship: Ship, what: str) -> int:
    """The highest value the GM may set `what` (one of ADJUSTABLE) to on this ship."""
    if what == "hull":
        return ship.hull_max
    if what == "shields":
        return ship.shields_max
    if what in ("hull_dice", "shield_dice"):
        return ship.dice_max
    return ship.capacity(what.removeprefix("power_"))


def what_label(what: str) -> str:
    if what.startswith("power_"):
        return f"Power dice in the {STORE_LABELS[what.removeprefix('power_')]}"
    return {"hull": "Hull points", "shields": "Shield points", "hull_dice": "Hull dice", "shield_dice": "Shield dice"}[
        what
    ]
