"""What each HERO System event means for the after-action review: attack and DEX rolls, BODY dealt and taken,
STUN taken and the phases each character used.

The timeline is headed by Turn and Segment (a HERO turn is the review's round, its segment the phase). Damage in
the summary and the damage chart is BODY, which lasts; STUN, which comes back with every Recovery, is its own
column, owed to whoever took it (`credits`). A phase is used when it ends after the character did something in it
(an action, an attack, a Recovery, a released held action) or when an abort spends it; a phase let go by, held
and lost, or spent Stunned or knocked out is not.

Players (gm=False) see what the log tells them (the core's `Sight`): an enemy's damage dice, BODY and STUN taken stay
with the GM, and an enemy no PC is aware of is neither a row of the summary (combat.review's default subjects) nor
the source of any figure.

END spent and gained come from the change in each character's END (an action's cost, a Recovery, the GM's
adjustment), owed to whoever's END it is (`credits`). An enemy's END is one of its numbers: for players it is never
counted, and `secret_figures` says so ("hidden", never 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from combat.rules import odds
from combat.rules.core import Event, Sight
from combat.rules.hero.events import (
    Aborted,
    Acted,
    Attacked,
    HoldContested,
    Moved,
    PhaseEnded,
    PoolsAdjusted,
    PresenceAttacked,
    SegmentStarted,
)
from combat.rules.hero.evolve import evolve
from combat.rules.hero.state import State

# What the damage chart counts.
DAMAGE_UNIT = "BODY"
# What the story's closest call counts (`health`).
HEALTH_UNIT = "BODY"


@dataclass(frozen=True)
class RollFact:
    sides: int
    faces: tuple[int, ...]
    succeeded: bool | None = None  # a roll-off or damage dice neither succeed nor fail
    doubles: bool = False
    entered: bool = False
    counted: bool = True  # an attack or DEX roll; damage dice and roll-offs only add their faces
    complexity: int = 0
    chance: float | None = None


@dataclass(frozen=True)
class Facts:
    round: int  # the HERO turn
    phase: int  # the segment
    turn: str  # HERO has no one's turn: phases in DEX order share the segment
    actor: str
    floor: str = ""  # whose phase (or released held action) was open just before the event: the story's phase times
    action: bool = False
    rolls: tuple[RollFact, ...] = ()
    damage: tuple[tuple[str, str, int], ...] = ()  # (source, target, BODY)
    phases_used: int = 0
    credits: tuple[tuple[str, str, int], ...] = ()  # (who, "stun_taken" / "end_spent" / "end_gained", amount)
    extra: dict[str, Any] = field(default_factory=dict)
    hidden: tuple[tuple[str, str], ...] = ()  # (who, figure): an amount this viewer may not know


# (key, label, GM-only): an enemy's END is hidden from players (`secret_figures`), a PC's is on everyone's table.
MODEL_FIGURES = (
    ("phases_used", "Phases used", False),
    ("stun_taken", "STUN taken", False),
    ("end_spent", "END spent", False),
    ("end_gained", "END gained", False),
)
ENDURANCE = ("end_spent", "end_gained")


def round_title(n: int) -> str:
    return f"Turn {n}"


def section_title(phase: int, turn: str, names: dict[str, str]) -> str:
    return f"Segment {phase}"


def facts(state: State, event: Event, gm: bool = True) -> Facts:
    """Facts of `event` applied to `state` (the state just before it), as the viewer may see them, with the END each
    character spent and gained (only a character whose numbers this viewer may know)."""
    f = _facts(state, event, gm)
    secret = Sight(state.fighters, gm).secret
    old = {x.id: x.end for x in state.fighters}
    end = []
    for x in evolve(state, event).fighters:
        change = x.end - old.get(x.id, x.end)
        if change and not secret(x.id):
            end.append((x.id, "end_gained" if change > 0 else "end_spent", abs(change)))
    return replace(f, credits=f.credits + tuple(end)) if end else f


def secret_figures(state: State, gm: bool) -> dict[str, tuple[str, ...]]:
    """{character: figures}: the pools this viewer may never know of a character (an enemy's END)."""
    sight = Sight(state.fighters, gm)
    return {x.id: ENDURANCE for x in state.fighters if sight.secret(x.id)}


def _facts(state: State, event: Event, gm: bool) -> Facts:
    sight = Sight(state.fighters, gm)
    unseen, secret = sight.unseen, sight.secret

    base: dict[str, Any] = {"round": state.turn, "phase": state.segment, "turn": "", "floor": state.floor}
    rolls: list[RollFact] = []
    damage: tuple[tuple[str, str, int], ...] = ()
    credits: tuple[tuple[str, str, int], ...] = ()
    if isinstance(event, SegmentStarted):
        rolls = [RollFact(6, r.faces, counted=False) for r in event.rolloff if not unseen(r.fighter)]
        return Facts(round=event.turn, phase=event.segment, turn="", actor="", rolls=tuple(rolls))
    if isinstance(event, (Acted, Moved)):
        return Facts(**base, actor=event.fighter, action=True, phases_used=int(event.ends_phase))
    if isinstance(event, PresenceAttacked):
        if secret(event.fighter):  # the number of dice would give the PRE away
            return Facts(**base, actor=event.fighter, action=not unseen(event.fighter))
        # It succeeds at the target's PRE (or EGO): a player knows the odds only when that number is theirs to know.
        chance = None if secret(event.target) else odds.at_least(len(event.roll), 6, event.against)
        return Facts(
            **base,
            actor=event.fighter,
            action=True,
            rolls=(RollFact(6, event.roll, succeeded=event.level > 0, chance=chance),),
        )
    if isinstance(event, Attacked):
        if unseen(event.fighter) and unseen(event.target):
            return Facts(**base, actor=event.fighter)
        # What the roll needed (11 + OCV − DCV) is the GM's to know when either side's numbers are secret.
        odds_known = not secret(event.fighter) and not secret(event.target)
        chance = odds.hero_attack(event.needed) if odds_known else None
        rolls = [RollFact(6, event.roll, succeeded=event.hit, entered=event.entered, chance=chance)]
        hidden: tuple[tuple[str, str], ...] = ()
        if event.hit and not secret(event.target):
            if event.damage:
                rolls.append(RollFact(6, event.damage, counted=False, entered=event.damage_entered))
            damage = ((event.fighter, event.target, event.body),) if event.body else ()
            credits = ((event.target, "stun_taken", event.stun),) if event.stun else ()
        elif event.hit:  # a hit on an enemy whose BODY and STUN are the GM's to know
            hidden = ((event.fighter, "damage_dealt"), (event.target, "damage_taken"), (event.target, "stun_taken"))
        return Facts(
            **base,
            actor=event.fighter,
            action=True,
            rolls=tuple(rolls),
            damage=damage,
            credits=credits,
            phases_used=1,
            hidden=hidden,
            extra={"hits": 1} if event.hit else {"misses": 1},
        )
    if isinstance(event, PhaseEnded):
        f = state.fighter(event.fighter)
        return Facts(**base, actor=f.id, phases_used=int(f.acted_at == state.now))
    if isinstance(event, Aborted):
        return Facts(**base, actor=event.fighter, action=True, phases_used=1)
    if isinstance(event, HoldContested):
        for fid, faces, target, counted in (
            (event.holder, event.holder_roll, event.holder_target, True),
            (event.other, event.other_roll, event.other_target, False),
        ):
            if not unseen(fid):
                chance = odds.at_most(3, 6, target) if counted and not secret(fid) else None
                won = sum(faces) <= target if counted else None
                rolls.append(RollFact(6, faces, succeeded=won, counted=counted, chance=chance))
        return Facts(**base, actor=event.holder, rolls=tuple(rolls))
    if isinstance(event, PoolsAdjusted):
        if secret(event.fighter):
            return Facts(
                **base, actor=event.fighter, hidden=((event.fighter, "damage_taken"), (event.fighter, "stun_taken"))
            )
        damage = (("", event.fighter, -event.body),) if event.body < 0 else ()
        credits = ((event.fighter, "stun_taken", -event.stun),) if event.stun < 0 else ()
        healed = {"healing": event.body} if event.body > 0 else {}
        return Facts(**base, actor=event.fighter, damage=damage, credits=credits, extra=healed)
    actor = getattr(event, "fighter", "") or getattr(event, "holder", "")
    return Facts(**base, actor=actor)


def health(state: State, gm: bool) -> dict[str, int]:
    """BODY of every combatant this viewer may know the numbers of (the story's closest call)."""
    sight = Sight(state.fighters, gm)
    return {f.id: f.body for f in state.fighters if not sight.secret(f.id)}


PRESENCE_EFFECTS = {2: "Very impressed", 3: "Awed", 4: "Cowed"}


def conditions(state: State, gm: bool) -> dict[str, dict[str, int]]:
    """The conditions each combatant has, as the table shows them to this viewer (the story's conditions suffered):
    knocked out (or dying at 0 BODY), Stunned, and a Presence attack's lasting effect."""
    sight = Sight(state.fighters, gm)
    out = {}
    for f in state.fighters:
        if sight.unseen(f.id):
            continue
        now = {"Knocked out": f.knocked_out, "Dying": not f.knocked_out and f.body <= 0, "Stunned": f.stunned}
        out[f.id] = {name: 1 for name, has in now.items() if has}
        if f.presence in PRESENCE_EFFECTS:
            out[f.id][PRESENCE_EFFECTS[f.presence]] = 1
    return out
