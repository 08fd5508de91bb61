"""Burn Bryte's typed view models (built in combat.tables.burn_bryte): what the table, the GM's controls and one
player's phone may show. A player's table is a `PlayersTable`; the GM's `GmTable` adds each GM-only fact as a field
made with `gm_only(...)`, and one player's own sheets and controls are a `BurnBrytePrivate`."""

from __future__ import annotations

from dataclasses import dataclass

from combat.rules import burn_bryte as bb
from combat.tables.viewmodels import PrivateView, gm_only


@dataclass(frozen=True, kw_only=True)
class Named:
    """A combatant in a list of choices."""

    key: str
    name: str


@dataclass(frozen=True, kw_only=True)
class PcRow:
    key: str
    name: str
    health: int
    health_max: int
    nova_points: int
    took_turn: bool
    acting: bool
    down: bool
    shield: int = 0
    shield_max: int = 0
    square: str = ""  # on the grid, e.g. "C5"; "" when not placed


@dataclass(frozen=True, kw_only=True)
class HeldCondition:
    """A condition a combatant holds, as the GM's table offers to clear it: its slot and its words."""

    slot: str
    label: str


@dataclass(frozen=True, kw_only=True)
class GmPcRow(PcRow):
    """A PC on the GM's table, with what the GM's quick edits need."""

    conditions: tuple[HeldCondition, ...] = gm_only(())


@dataclass(frozen=True, kw_only=True)
class EnemyRow:
    """An enemy the party sees; `health` as the campaign lets players read it (exact, a word, or nothing)."""

    key: str
    name: str
    down: bool
    health: str
    square: str = ""


@dataclass(frozen=True, kw_only=True)
class GmEnemyRow(EnemyRow):
    health: str = gm_only("")  # always exact
    unseen: bool = gm_only(False)  # no PC is aware of it
    health_levels: int = gm_only(0)  # the numbers the GM's quick edits step
    health_max: int = gm_only(0)
    conditions: tuple[HeldCondition, ...] = gm_only(())
    shield: int = gm_only(0)  # its personal shield, which the GM may recharge
    shield_max: int = gm_only(0)


@dataclass(frozen=True, kw_only=True)
class ShipRow:
    """The party's ship in the fight: its MI Health Levels and whether it has gone dark (players see it too)."""

    name: str
    health: int
    health_max: int
    dark: bool
    dark_words: str


@dataclass(frozen=True, kw_only=True)
class BurstRow:
    """A Burst attack that hit and waits for the GM to say who is in the area."""

    roller: str
    weapon: str
    radius: int
    damage: int
    aimed_at: str  # the key of the creature it was aimed at, "" if none


@dataclass(frozen=True, kw_only=True)
class DeclarationRow:
    id: int
    enemy: str
    target: str
    target_key: str
    text: str
    extra: bool
    defended: bool
    outcome: str
    weapon: str = ""  # the enemy's weapon the action names, as the log says it


@dataclass(frozen=True, kw_only=True)
class GmDeclarationRow(DeclarationRow):
    """A declared action on the GM's screen, with what its weapon does when it resolves (gear.py), and in Phase 3
    the distance when the target is out of the enemy's reach."""

    out_of_range: int = gm_only(0)
    weapon_label: str = gm_only("")  # the weapon and its traits in words, e.g. "grenade (Burst 2)"
    hit_damage: int = gm_only(1)  # what a hit deals, worked out from the weapon
    draining: bool = gm_only(False)
    burst: int = gm_only(0)


@dataclass(frozen=True, kw_only=True)
class Mover:
    """An enemy the GM may still move this Phase 3: where it stands and the squares of its speed left."""

    key: str
    name: str
    square: str
    left: int


@dataclass(frozen=True, kw_only=True)
class PlayersTable:
    """The table every player sees: the party, the enemies in sight and what those declared."""

    round: int
    phase: int
    phase_title: str
    turn: str
    turn_name: str
    chain: bool
    picker_name: str
    advantages: int
    livability: int
    pcs: tuple[PcRow, ...]
    enemies: tuple[EnemyRow, ...]
    declarations: tuple[DeclarationRow, ...]
    pending_failure: bool
    ship: ShipRow | None = None
    burst: BurstRow | None = None


@dataclass(frozen=True, kw_only=True)
class GmTable(PlayersTable):
    """The GM's table: every enemy with exact health, unseen ones too, every declaration, and the controls' lists."""

    pcs: tuple[GmPcRow, ...] = gm_only(())
    enemies: tuple[GmEnemyRow, ...] = gm_only(())
    declarations: tuple[GmDeclarationRow, ...] = gm_only(())  # an unseen enemy's too
    collapse: int = gm_only(0)
    change_cost: int = gm_only(1)
    failure_default: str = gm_only("collapse")
    pcs_left: tuple[str, ...] = gm_only(())
    to_act: tuple[Named, ...] = gm_only(())  # the PCs still to act, whom the GM may skip for an absent player
    extra_allowed: bool = gm_only(True)  # false in round 1 when the PCs surprise: no Phase 3 to resolve in
    failed_faces: tuple[int, ...] = gm_only(())  # the acting PC's failed roll, for a party Advantage reroll
    all_enemies: tuple[Named, ...] = gm_only(())
    all_pcs: tuple[Named, ...] = gm_only(())
    undeclared: tuple[str, ...] = gm_only(())  # enemies aware of the party yet to declare, unseen ones too
    everyone: tuple[Named, ...] = gm_only(())
    open_declarations: tuple[GmDeclarationRow, ...] = gm_only(())  # not yet resolved nor defended: changeable
    nova_holders: tuple[Named, ...] = gm_only(())  # PCs who may spend Nova points now, "Luwe (2 Nova)"
    skills: tuple[str, ...] = gm_only(())
    categories: tuple[str, ...] = gm_only(())
    burst_choices: tuple[Named, ...] = gm_only(())  # every creature still up, for a Burst's area
    typed_damage: bool = gm_only(False)  # the GM's setting: Phase 3 damage is typed, not worked out from weapons
    draining_on_miss: bool = gm_only(False)  # the GM's setting: Draining costs its 1 even on a miss
    burst_area: tuple[str, ...] = gm_only(())  # those within the Burst's N squares of the creature it was aimed at
    burst_centre: str = gm_only("")  # that creature and its square, e.g. "Nivick 1 on D4"
    movers: tuple[Mover, ...] = gm_only(())  # Phase 3: enemies on the grid with speed left


@dataclass(frozen=True, kw_only=True)
class SkillOdds:
    name: str
    sides: int
    dice: int
    chance: int  # percent


@dataclass(frozen=True, kw_only=True)
class Target(Named):
    """An enemy a PC may attack, with how far it is when both are on the grid (`away`: "4 squares", "" if unknown)."""

    away: str = ""
    out_of_range: bool = False  # beyond the default attack skill's reach


@dataclass(frozen=True, kw_only=True)
class Sheet:
    """One of the player's characters and what it may do now."""

    key: str
    name: str
    health: int
    health_max: int
    nova_points: int
    nova_boxes: tuple[int, ...]
    speed: int
    down: bool
    took_turn: bool
    acting: bool
    skills: tuple[SkillOdds, ...]
    conditions: tuple[str, ...]
    can_claim: bool
    can_pick: bool
    free_move_used: bool
    pending_failure: bool
    last_roll: bb.Roll | None
    targets: tuple[Target, ...]  # enemies this PC is aware of and not down, the default target first
    attack_skill: SkillOdds  # the default skill of an attack: the likelier of Ranged and Melee
    shield: int = 0
    shield_max: int = 0
    weapon: str = "unarmed"  # the sheet's weapon and its traits, in words
    hit_damage: int = 1  # what the default attack deals on a hit, worked out from the weapon
    draining: bool = False  # the weapon may drain: deal 2, take 1 unblockable
    burst: int = 0  # Burst N: one roll, the GM says who is in the area
    typed_damage: bool = False  # the GM's setting: damage is typed on each attack
    draining_on_miss: bool = False  # the GM's setting: Draining costs its 1 even when the roll fails
    square: str = ""  # on the grid, e.g. "C5"; "" when the GM has not placed this PC
    move_left: int = 0  # squares the next move may go this turn (the free move's speed, or what a roll granted)


@dataclass(frozen=True, kw_only=True)
class Defendable:
    """A declared attack in sight a PC may defend against."""

    id: int
    label: str


@dataclass(frozen=True, kw_only=True)
class Rescue:
    """Another PC's roll failed on doubles: one of this player's PCs (`helper`) may spend a party Advantage to
    reroll one of its dice."""

    roller: str
    faces: tuple[int, ...]
    helper: str


@dataclass(frozen=True, kw_only=True)
class BurnBrytePrivate(PrivateView):
    mine: tuple[Sheet, ...]
    pickable: tuple[Named, ...]
    defendable: tuple[Defendable, ...]
    advantages: int
    entered_dice: bool
    waiting: str = ""  # when it is not this player's turn: who acts and what the table waits for
    rescue: Rescue | None = None  # another PC's failed roll this player may spend a shared Advantage on
    out_of_turn: str = ""  # what this player may do while waiting, in words
    nova_at_zero: bool = False  # the GM lets a PC at 0 Health Levels spend Nova points
    extra_damage_max: int = bb.EXTRA_DAMAGE_MAX  # an ability's or Nova's extra damage a player may add to an attack
