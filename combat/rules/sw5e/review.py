"""What each SW5e starship event means for the after-action review: rolls, damage dealt and taken by each ship
or crew member, and power dice spent.

The summary has a row for every ship as well as every crew member (`subjects`): damage lands on ships, and the
GM may name a ship or a crew member as its source. An NPC ship's numbers are GM-only unless the encounter's
`enemy_numbers` setting makes them public, so for players (gm=False) the dice rolled for such a ship (its
initiative, reactor, power and hull dice) and the power dice spent aboard it are left out, as the log leaves
them out. Damage dealt to any ship is public.

The pools: power dice spent (by the crew member who spent them) and gained (stored by a ship's power distribution,
owed to the ship); `secret_figures` marks both hidden for players where a ship's numbers are the GM's. A crew
member's own turn (`acting`: from their crew turn's start to its end) is theirs in the story's turns taken.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from combat.rules import odds
from combat.rules.core import Event
from combat.rules.sw5e import events as sw
from combat.rules.sw5e.evolve import evolve
from combat.rules.sw5e.ship import STORES
from combat.rules.sw5e.state import State

# What the damage chart counts.
DAMAGE_UNIT = "hull and shield points"
# What the story's closest call counts (`health`).
HEALTH_UNIT = "hull and shield points"


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
    hidden: tuple[tuple[str, str], ...] = ()  # (who, figure): an amount this viewer may not know
    credits: tuple[tuple[str, str, int], ...] = ()  # (ship, "power_dice_gained", dice stored)
    acting: str = ""  # the crew member taking their own turn (their crew turn's start included)


# (key, label, GM-only): counted for players only where the ship's numbers are theirs to see.
MODEL_FIGURES = (("power_dice_spent", "Power dice spent", False), ("power_dice_gained", "Power dice gained", False))


def secret_figures(state: State, gm: bool) -> dict[str, tuple[str, ...]]:
    """{ship or crew member: figures}: the power dice this viewer may never know of (a ship whose numbers are the
    GM's, and the crew aboard it)."""
    if gm:
        return {}
    ships = {s.id: ("power_dice_spent", "power_dice_gained") for s in state.ships if state.hides(s.id)}
    return ships | {f.id: ("power_dice_spent",) for f in state.fighters if f.ship in ships}


def subjects(state: State) -> list[tuple[str, str, str]]:
    """The summary's rows: every ship, then every crew member."""
    return [(s.id, s.name, s.side) for s in state.ships] + [(f.id, f.name, f.side) for f in state.fighters]


def _d20s(face: int, other: int) -> tuple[int, ...]:
    """Every d20 thrown: the one that counts and, with disadvantage from system damage, the one thrown away."""
    return (face, other) if other else (face,)


def facts(state: State, event: Event, gm: bool = True) -> Facts:
    """Facts of `event` applied to `state` (the state just before it), as the viewer may see them, with whose crew
    turn it is, the power dice a distribution stored and the hull points a patch gave back."""
    f = replace(
        _facts(state, event, gm), acting=event.fighter if isinstance(event, sw.CrewTurnStarted) else state.acting
    )
    if isinstance(event, sw.PowerDistributed) and (gm or not state.hides(event.ship)):
        before, after = state.ship(event.ship), evolve(state, event).ship(event.ship)
        stored = sum(after.stored(s) for s in STORES) - sum(before.stored(s) for s in STORES)
        return replace(f, credits=((event.ship, "power_dice_gained", stored),) if stored > 0 else ())
    if isinstance(event, sw.HullPatched) and f.extra.get("healing"):  # the hull stops at its maximum
        healed = evolve(state, event).ship(event.ship).hull - state.ship(event.ship).hull
        return replace(f, extra={**f.extra, "healing": healed})
    return f


def _facts(state: State, event: Event, gm: bool) -> Facts:
    # Phase -1 marks the set-up (initiative, crews, surprise) for the timeline's headings.
    base: dict[str, Any] = {"round": state.round, "phase": state.phase if state.started else -1, "turn": state.turn}

    def shown(ship_id: str) -> bool:
        return gm or not state.hides(ship_id)

    def unknown(who: str, *figures: str) -> tuple[tuple[str, str], ...]:
        """What a roll or spending left out for players leaves unknown of `who`'s figures."""
        return tuple((who, figure) for figure in figures)

    if isinstance(event, sw.RoundStarted):
        return Facts(round=event.round, phase=0, turn="", actor="")
    if isinstance(event, sw.ShipTurnStarted):
        place = state.order.index(event.ship) + 1 if event.ship in state.order else 0
        rolls = (RollFact(2, event.faces),) if event.faces and shown(event.ship) else ()
        hidden = unknown(event.ship, "rolls") if event.faces and not rolls else ()
        return Facts(round=state.round, phase=place, turn=event.ship, actor=event.ship, rolls=rolls, hidden=hidden)
    if isinstance(event, sw.StealthRolled):
        aboard = state.fighter(event.fighter).ship
        rolls = (RollFact(20, (event.face,)),) if not aboard or shown(aboard) else ()
        return Facts(**base, actor=event.fighter, rolls=rolls, hidden=() if rolls else unknown(event.fighter, "rolls"))
    if isinstance(event, sw.InitiativeRolled):
        return Facts(**base, actor=event.fighter, rolls=(RollFact(20, (event.face,), entered=event.entered),))
    if isinstance(event, sw.ShipInitiativeSet):
        rolls = (RollFact(20, (event.face,)),) if event.face and shown(event.ship) else ()
        hidden = unknown(event.ship, "rolls") if event.face and not rolls else ()
        return Facts(**base, actor=event.ship, rolls=rolls, hidden=hidden)
    if isinstance(event, sw.ActionTaken):
        return Facts(**base, actor=event.fighter, action=True)
    if isinstance(event, (sw.HullPatched, sw.ShieldDieRolled)):
        rolls = (RollFact(event.sides, (event.face,)),) if shown(event.ship) else ()
        patched = isinstance(event, sw.HullPatched) and rolls
        healed = {"healing": event.face + event.bonus} if patched else {}
        hidden = unknown(event.fighter, "rolls") if not rolls else ()
        return Facts(**base, actor=event.fighter, rolls=rolls, hidden=hidden, extra=healed)
    if isinstance(event, sw.PowerSpent):
        if not shown(event.ship):
            return Facts(**base, actor=event.fighter, hidden=unknown(event.fighter, "rolls", "power_dice_spent"))
        rolls = (RollFact(event.sides, event.faces),) if event.sides > 1 else ()
        return Facts(**base, actor=event.fighter, rolls=rolls, power_dice_spent=len(event.faces))
    if isinstance(event, sw.WeaponFired):
        natural = state.setting("critical") == "double_dice"
        # The target's AC is its numbers: a player knows the odds only of a shot at a ship whose numbers they see.
        odds_known = shown(event.target)
        chance = odds.sw5e_attack(event.attack, event.ac, natural, bool(event.other)) if odds_known else None
        shot: tuple[RollFact, ...] = (
            RollFact(20, _d20s(event.face, event.other), succeeded=event.hit, chance=chance),
        ) + ((RollFact(event.sides, event.faces),) if event.faces else ())
        damage = ((event.fighter, event.target, event.amount),) if event.amount else ()
        aim = {"hits": 1} if event.hit else {"misses": 1}
        return Facts(**base, actor=event.fighter, rolls=shot, damage=damage, extra=aim)
    if isinstance(event, sw.DestructionSaveRolled):  # a plain d20: 10 or higher succeeds
        chance = odds.sw5e_check(0, 10, disadvantage=bool(event.other))
        save = RollFact(20, _d20s(event.face, event.other), succeeded=event.face >= 10, chance=chance)
        rolls = (save,) if shown(event.ship) else ()
        hidden = () if rolls else unknown(event.ship, "rolls", "successes", "failures")
        return Facts(**base, actor=event.ship, rolls=rolls, hidden=hidden)
    if isinstance(event, sw.UsedSaveRolled):  # a plain d20 too, made for the used ship by a crew member's 1
        save = RollFact(20, (event.face,), succeeded=event.face >= 10, chance=odds.sw5e_check(0, 10))
        rolls = (save,) if shown(event.ship) else ()
        hidden = () if rolls else unknown(event.fighter, "rolls", "successes", "failures")
        return Facts(**base, actor=event.fighter, rolls=rolls, hidden=hidden)
    if isinstance(event, sw.StabiliseAttempted):
        check = RollFact(20, (event.face,), succeeded=event.total >= 10, chance=odds.sw5e_check(event.modifier, 10))
        return Facts(**base, actor=event.fighter, action=True, rolls=(check,))
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


def health(state: State, gm: bool) -> dict[str, int]:
    """Hull and shield points of every ship this viewer may know the numbers of (the story's closest call): what
    damage takes away, shields first."""
    return {s.id: s.hull + s.shields for s in state.ships if gm or not state.hides(s.id)}


def conditions(state: State, gm: bool) -> dict[str, dict[str, int]]:
    """The conditions each ship and crew member has, as this viewer may know them (the story's conditions
    suffered): a ship disabled, stable or destroyed (the log tells everyone), its levels of system damage (its
    numbers: the GM's for an NPC ship unless they are public), and a crew member surprised."""
    out: dict[str, dict[str, int]] = {}
    for s in state.ships:
        now = {s.status.capitalize(): 1} if s.status != "active" else {}
        now.update({"Stable": 1} if s.stable else {})
        if s.system_damage and (gm or not state.hides(s.id)):
            now["System damage"] = s.system_damage
        out[s.id] = now
    for f in state.fighters:
        out[f.id] = {"Surprised": 1} if f.surprised else {}
    return out
