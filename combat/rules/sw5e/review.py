"""What each SW5e starship event means for the after-action review: rolls, damage dealt and taken by each ship
or crew member, and power dice spent.

The summary has a row for every ship as well as every crew member (`subjects`): damage lands on ships, and the
GM may name a ship or a crew member as its source. An NPC ship's numbers are GM-only unless the encounter's
`enemy_numbers` setting makes them public, so for players (gm=False) the dice rolled for such a ship (its
initiative, reactor, power and hull dice) and the power dice spent aboard it are left out, as the log leaves
them out. Damage dealt to any ship is public.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from combat.rules.core import Event
from combat.rules.sw5e import events as sw
from combat.rules.sw5e.state import State


@dataclass(frozen=True)
class RollFact:
    sides: int
    faces: tuple[int, ...]
    succeeded: bool | None = None  # no roll here succeeds or fails on its own: the GM judges
    doubles: bool = False
    entered: bool = False
    counted: bool = True
    complexity: int = 0
    chance: float | None = None


@dataclass(frozen=True)
class Facts:
    round: int
    phase: int  # the ship turn's place in the initiative order (0 between ship turns, -1 in the set-up)
    turn: str  # the ship taking its turn ("" outside one)
    actor: str  # the ship or crew member the event is about ("" for the GM)
    action: bool = False  # counts as an action taken by `actor`
    rolls: tuple[RollFact, ...] = ()
    damage: tuple[tuple[str, str, int], ...] = ()  # (source, target ship, damage)
    power_dice_spent: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


# (key, label, GM-only): counted for players only where the ship's numbers are theirs to see.
MODEL_FIGURES = (("power_dice_spent", "Power dice spent", False),)


def subjects(state: State) -> list[tuple[str, str, str]]:
    """The summary's rows: every ship, then every crew member."""
    return [(s.id, s.name, s.side) for s in state.ships] + [(f.id, f.name, f.side) for f in state.fighters]


def facts(state: State, event: Event, gm: bool = True) -> Facts:
    """Facts of `event` applied to `state` (the state just before it), as the viewer may see them."""
    # Phase -1 marks the set-up (initiative, crews, surprise) for the timeline's headings.
    base: dict[str, Any] = {"round": state.round, "phase": state.phase if state.started else -1, "turn": state.turn}

    def shown(ship_id: str) -> bool:
        return gm or not state.hides(ship_id)

    if isinstance(event, sw.RoundStarted):
        return Facts(round=event.round, phase=0, turn="", actor="")
    if isinstance(event, sw.ShipTurnStarted):
        place = state.order.index(event.ship) + 1 if event.ship in state.order else 0
        rolls = (RollFact(2, event.faces),) if event.faces and shown(event.ship) else ()
        return Facts(round=state.round, phase=place, turn=event.ship, actor=event.ship, rolls=rolls)
    if isinstance(event, sw.StealthRolled):
        aboard = state.fighter(event.fighter).ship
        rolls = (RollFact(20, (event.face,)),) if not aboard or shown(aboard) else ()
        return Facts(**base, actor=event.fighter, rolls=rolls)
    if isinstance(event, sw.InitiativeRolled):
        return Facts(**base, actor=event.fighter, rolls=(RollFact(20, (event.face,), entered=event.entered),))
    if isinstance(event, sw.ShipInitiativeSet):
        rolls = (RollFact(20, (event.face,)),) if event.face and shown(event.ship) else ()
        return Facts(**base, actor=event.ship, rolls=rolls)
    if isinstance(event, sw.ActionTaken):
        return Facts(**base, actor=event.fighter, action=True)
    if isinstance(event, (sw.HullPatched, sw.ShieldDieRolled)):
        rolls = (RollFact(event.sides, (event.face,)),) if shown(event.ship) else ()
        return Facts(**base, actor=event.fighter, rolls=rolls)
    if isinstance(event, sw.PowerSpent):
        if not shown(event.ship):
            return Facts(**base, actor=event.fighter)
        rolls = (RollFact(event.sides, event.faces),) if event.sides > 1 else ()
        return Facts(**base, actor=event.fighter, rolls=rolls, power_dice_spent=len(event.faces))
    if isinstance(event, sw.WeaponFired):
        shot: tuple[RollFact, ...] = (RollFact(20, (event.face,), succeeded=event.hit),) + (
            (RollFact(event.sides, event.faces),) if event.faces else ()
        )
        damage = ((event.fighter, event.target, event.amount),) if event.amount else ()
        return Facts(**base, actor=event.fighter, rolls=shot, damage=damage)
    if isinstance(event, sw.ShipDamaged):
        return Facts(**base, actor=event.by, damage=((event.by, event.ship, event.amount),))
    if isinstance(event, (sw.PowerDistributed, sw.ShieldsRegenerated, sw.CrewOrderSet)):
        return Facts(**base, actor=event.by or event.ship)
    actor = getattr(event, "fighter", "") or getattr(event, "ship", "") or getattr(event, "target", "")
    return Facts(**base, actor=actor)


def round_title(n: int) -> str:
    return "Set-up" if n == 0 else f"Round {n}"


def section_title(phase: int, turn: str, names: dict[str, str]) -> str:
    """The timeline's heading inside a round: whose ship turn it was."""
    if turn:
        return f"{names.get(turn, 'a ship')}'s turn"
    return "Initiative, crews and surprise" if phase < 0 else "Between ship turns"
