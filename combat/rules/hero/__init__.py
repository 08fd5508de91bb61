"""HERO System combat on the speed chart: 12-segment turns, phases by SPD, DEX order, abort and hold.

The model's public surface: the rest of Fray imports these names from `combat.rules.hero` (the registry holds
this package as the model's engine). The files, each readable on its own:
  state.py         the speed chart, ticks, the Fighter and State dataclasses, small sums and queries on them
  commands.py      what players and the GM may ask (COMMANDS)
  events.py        what happened, as the log stores it (EVENTS, CODEC): the stored schema
  decide.py        decide(state, command, dice): the turn and the GM's commands; settles automatic phases
  decide_phase.py  what a character does with a phase and off it: act, attack, recover, hold, abort
  evolve.py        evolve(state, event): one event applied; the stored schema with events.py
  describe.py      describe(state, event, gm): the log's sentence for the GM or for players
  setup.py         settings, fighters from sheets, the opening state, write-back and outcome
  stats.py         the character sheet;  review.py  the after-action review's facts
"""

from combat.rules.core import Reveal, Revealed
from combat.rules.hero.commands import (
    ACTION_KINDS,
    COMMANDS,
    DEFENSIVE,
    HOLD_UNTIL,
    Abort,
    AbortOther,
    Act,
    AdjustPools,
    Attack,
    ChangeSpd,
    ContestHold,
    EndPhase,
    Hold,
    NextSegment,
    OrderTies,
    Release,
    SetNoRecovery,
    SetStunned,
    TakeRecovery,
)
from combat.rules.hero.decide import decide
from combat.rules.hero.decide_phase import abort_refusal
from combat.rules.hero.describe import ACTION_LABELS, describe, segment_ranges
from combat.rules.hero.events import (
    CODEC,
    EVENTS,
    Aborted,
    Acted,
    Attacked,
    Gain,
    HeldAction,
    HoldContested,
    NoRecoverySet,
    PhaseEnded,
    PhaseSpent,
    PoolsAdjusted,
    Recovered,
    Released,
    RollOff,
    SegmentStarted,
    SpdChanged,
    StunnedSet,
    TiesOrdered,
)
from combat.rules.hero.evolve import evolve
from combat.rules.hero.setup import KEY, SETTINGS, fighter_from_sheet, initial_state, outcome, write_back
from combat.rules.hero.state import (
    SPEED_CHART,
    Fighter,
    Held,
    Mark,
    State,
    attack_hits,
    body_of,
    dex_roll_target,
    end_cost,
    hold_segments,
    next_phase_at,
    phase_at,
    schedule,
    tick,
    to_hit,
    turn_and_segment,
)

__all__ = [
    "Reveal",
    "Revealed",
    "ACTION_KINDS",
    "ACTION_LABELS",
    "CODEC",
    "COMMANDS",
    "DEFENSIVE",
    "EVENTS",
    "HOLD_UNTIL",
    "KEY",
    "SETTINGS",
    "SPEED_CHART",
    "Abort",
    "AbortOther",
    "Aborted",
    "Act",
    "Acted",
    "AdjustPools",
    "Attack",
    "Attacked",
    "ChangeSpd",
    "ContestHold",
    "EndPhase",
    "Fighter",
    "Gain",
    "Held",
    "HeldAction",
    "Hold",
    "HoldContested",
    "Mark",
    "NextSegment",
    "NoRecoverySet",
    "OrderTies",
    "PhaseEnded",
    "PhaseSpent",
    "PoolsAdjusted",
    "Recovered",
    "Release",
    "Released",
    "RollOff",
    "SegmentStarted",
    "SetNoRecovery",
    "SetStunned",
    "SpdChanged",
    "StunnedSet",
    "State",
    "TakeRecovery",
    "TiesOrdered",
    "abort_refusal",
    "attack_hits",
    "body_of",
    "decide",
    "describe",
    "dex_roll_target",
    "end_cost",
    "evolve",
    "fighter_from_sheet",
    "hold_segments",
    "initial_state",
    "next_phase_at",
    "outcome",
    "phase_at",
    "schedule",
    "segment_ranges",
    "tick",
    "to_hit",
    "turn_and_segment",
    "write_back",
]
