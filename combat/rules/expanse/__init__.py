"""The Expanse (AGE) combat: initiative with the Drama Die, major and minor actions, attacks against Defense,
damage through Toughness, Fortune, injured, wounded and taken out, stunt points, weapon capacity, Churn.

The seed (`/work/shared/seeds/004_…`) is the authority. Every test is 3d6 where the third die is the Drama Die;
every die rolled is stored in its event. This package is the model's rules, pure Python, one concern a file:

- rulebook.py   the seed's tables as data: actions, weapons, cover, object sizes, shields, stunts, Churn
- stats.py      the character sheet's stats (shared with the campaign's forms)
- state.py      `State` and the records in it, and the numbers every rule reads from them (Defense, Toughness …)
- commands.py   what a GM or player asks for (`COMMANDS`)
- events.py     what happened, as the log stores it (`EVENTS`): the stored schema, with evolve.py
- decide.py     `decide`: a command checked against the rules becomes events; by theme in decide_attacks.py,
                decide_actions.py and decide_damage.py, with the shared checks in decide_checks.py
- evolve.py     `evolve`: one event applied to the state
- describe.py   `describe`: one event in words, for the GM or for players
- setup.py      settings, the initial state, a combatant from a sheet, what goes back to the sheets, the outcome
- review.py     what each event means for the after-action review

This module is the model's public surface: the rest of Fray imports from here.
"""

from __future__ import annotations

from combat.rules.core import EventCodec
from combat.rules.expanse.commands import (
    COMMANDS,
    AbilityTest,
    AcceptCondition,
    Activate,
    AddStunt,
    AdjustChurn,
    AdjustFortune,
    Aim,
    ApproveRollOver,
    Attack,
    Blast,
    BreakTie,
    Breathers,
    ChangeDie,
    ChurnJam,
    ClearJam,
    Defend,
    EndTurn,
    GuardUp,
    Interrupt,
    InterruptSelf,
    Move,
    NextTurn,
    Prepare,
    PressTheAttack,
    Pursue,
    Ready,
    RollInitiative,
    RollOver,
    Run,
    SetCondition,
    SetCover,
    SpendFortune,
    SpendStunt,
    StandFirm,
    ThrowGrenade,
)
from combat.rules.expanse.decide import decide
from combat.rules.expanse.describe import describe
from combat.rules.expanse.events import (
    EVENTS,
    Activated,
    Aimed,
    Blasted,
    BreatherRoll,
    BreathersTaken,
    ChurnAdjusted,
    ChurnJammed,
    ChurnReached,
    ConditionSet,
    ConditionTaken,
    CoverSet,
    Defended,
    DieChanged,
    FortuneAdjusted,
    FortuneSpent,
    GuardedUp,
    GuardTransferred,
    InitiativeRolled,
    InitRoll,
    Interrupted,
    JamCleared,
    Moved,
    Opposed,
    Prepared,
    Pressed,
    Pursued,
    Ran,
    Readied,
    RolledOver,
    RollOverAsked,
    StoodFirm,
    StuntAdded,
    StuntSpent,
    TakenOut,
    Tested,
    TieBroken,
    TurnEnded,
    TurnStarted,
)
from combat.rules.expanse.evolve import evolve
from combat.rules.expanse.setup import (
    KEY,
    SETTINGS,
    fighter_from_sheet,
    initial_state,
    outcome,
    parse_stunts,
    write_back,
)
from combat.rules.expanse.state import (
    CANNOT_ACT,
    Effect,
    Fighter,
    FreeAttack,
    Hit,
    PendingBlast,
    State,
    TestRecord,
    ability,
    condition_penalty,
    cover_bonus,
    damage_dice,
    defense,
    speed,
    test_bonus,
    toughness,
    weapon_range,
)
from combat.rules.expanse.stats import ABILITIES

CODEC = EventCodec(EVENTS, COMMANDS)

__all__ = [
    "CODEC", "decide", "evolve", "describe", "ABILITIES", "KEY", "SETTINGS", "initial_state", "parse_stunts",
    "fighter_from_sheet", "write_back", "outcome", "State", "Fighter", "TestRecord", "Hit", "Effect", "FreeAttack",
    "PendingBlast", "CANNOT_ACT", "ability", "speed", "condition_penalty", "test_bonus", "defense", "toughness",
    "cover_bonus", "weapon_range", "damage_dice",
    "COMMANDS",
    "RollInitiative", "BreakTie", "NextTurn", "EndTurn", "Attack", "ThrowGrenade", "Blast", "AbilityTest", "Defend",
    "Run", "Activate", "Aim", "GuardUp", "Move", "Prepare", "PressTheAttack", "Ready", "StandFirm", "ClearJam",
    "Interrupt", "InterruptSelf", "Pursue", "SpendStunt", "ChangeDie", "SpendFortune", "AcceptCondition", "RollOver",
    "ApproveRollOver", "AddStunt", "SetCondition", "AdjustFortune", "SetCover", "ChurnJam", "AdjustChurn",
    "Breathers",
    "EVENTS",
    "InitRoll", "InitiativeRolled", "TieBroken", "TurnStarted", "TurnEnded", "Tested", "Blasted", "DieChanged",
    "Defended", "Ran", "Moved", "Activated", "Aimed", "GuardedUp", "Prepared", "Pressed", "Readied", "StoodFirm",
    "JamCleared", "Interrupted", "Pursued", "Opposed", "StuntSpent", "GuardTransferred", "FortuneSpent",
    "ConditionTaken", "TakenOut", "RollOverAsked", "RolledOver", "StuntAdded", "ConditionSet", "FortuneAdjusted",
    "CoverSet", "ChurnJammed", "ChurnAdjusted", "ChurnReached", "BreatherRoll", "BreathersTaken",
]
