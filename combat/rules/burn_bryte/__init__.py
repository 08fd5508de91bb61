"""Burn Bryte combat: three phases a round, push-your-luck skill rolls, Advantages, Collapse and Nova points.

The model's public surface: the rest of Fray imports these names from `combat.rules.burn_bryte` (the registry
holds this package as the model's engine). The files, each readable on its own:
  state.py     the Fighter, Declaration, Roll and State dataclasses, the chance of a roll, conditions
  commands.py  what players and the GM may ask (COMMANDS)
  events.py    what happened, as the log stores it (EVENTS, CODEC): the stored schema
  decide.py    decide(state, command, dice): each command checked against the round, phase and turn
  evolve.py    evolve(state, event): one event applied; the stored schema with events.py
  describe.py  describe(state, event, gm): the log's sentence for the GM or for players
  setup.py     settings, fighters from sheets, the opening state, write-back and outcome
  stats.py     the character sheet;  review.py  the after-action review's facts
  gear.py      weapons (damage and traits), personal shields, the ship's MI Health Levels
"""

from combat.rules.burn_bryte.commands import (
    COMMANDS,
    INTENTS,
    AdjustHealth,
    AdjustNova,
    ChangeDeclaration,
    ClaimTurn,
    DamageShip,
    Declare,
    EndTurn,
    FreeMove,
    NextRound,
    PickNext,
    PlaceBurst,
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
from combat.rules.burn_bryte.decide import decide
from combat.rules.burn_bryte.describe import describe
from combat.rules.burn_bryte.events import (
    CODEC,
    EVENTS,
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
    ShipDamaged,
    SkillRolled,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
)
from combat.rules.burn_bryte.evolve import evolve
from combat.rules.burn_bryte.gear import Weapon, absorb, hit_damage
from combat.rules.burn_bryte.setup import KEY, SETTINGS, fighter_from_sheet, initial_state, outcome, write_back
from combat.rules.burn_bryte.state import (
    SKILL_CATEGORY,
    Conditions,
    Declaration,
    Fighter,
    Roll,
    State,
    chance_of_success,
    has_doubles,
)
from combat.rules.burn_bryte.stats import DIE_SIZES, SKILL_CATEGORIES, SKILLS
from combat.rules.core import Reveal, Revealed

__all__ = [
    "CODEC",
    "COMMANDS",
    "DIE_SIZES",
    "EVENTS",
    "INTENTS",
    "KEY",
    "SETTINGS",
    "SKILLS",
    "SKILL_CATEGORIES",
    "SKILL_CATEGORY",
    "AdjustHealth",
    "AdjustNova",
    "AdvantageSpent",
    "AdvantagesUsed",
    "BurstPlaced",
    "DamageShip",
    "PlaceBurst",
    "ShipDamaged",
    "Weapon",
    "absorb",
    "hit_damage",
    "ChangeDeclaration",
    "ClaimTurn",
    "CollapseSpent",
    "ConditionSet",
    "Conditions",
    "Declaration",
    "DeclarationChanged",
    "Declare",
    "Declared",
    "EndTurn",
    "Fighter",
    "FreeMove",
    "HealthAdjusted",
    "Moved",
    "NextRound",
    "NovaAdjusted",
    "NovaSpent",
    "PhaseStarted",
    "PickNext",
    "Resolve",
    "ResolveFailure",
    "Resolved",
    "Reveal",
    "Revealed",
    "Roll",
    "SetCondition",
    "SkillRoll",
    "SkillRolled",
    "SkipTurn",
    "SpendAdvantage",
    "SpendCollapse",
    "SpendNova",
    "StartEnemies",
    "StartPlayers",
    "State",
    "TurnEnded",
    "TurnSkipped",
    "TurnStarted",
    "UseAdvantages",
    "chance_of_success",
    "decide",
    "describe",
    "evolve",
    "fighter_from_sheet",
    "has_doubles",
    "initial_state",
    "outcome",
    "write_back",
]
