"""The Expanse (AGE) log in words: one plain sentence per event, for the GM or for players.

`describe(state, event, gm)` reads the event against the state it was applied to. What a viewer may know is
asked of the core's `Sight`: players read "someone unseen" for an enemy no PC is aware of, and no enemy's
Defense, Toughness or Fortune (an attack says whether it hits, not against what); Churn is the GM's alone (None
for players). `DESCRIBERS` at the bottom maps each event class to its sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from combat.rules.core import Event, Revealed, Sight, describe_revealed
from combat.rules.expanse import churn, weapons
from combat.rules.expanse import rulebook as book
from combat.rules.expanse.events import (
    Activated,
    Aimed,
    Blasted,
    BlastWidened,
    BreathersTaken,
    ChurnAdjusted,
    ChurnApplied,
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
    Interrupted,
    JamCleared,
    Moved,
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
from combat.rules.expanse.state import Fighter, State, TestRecord, cover_bonus, known, plural, toughness
from combat.rules.expanse.state import article as _article
from combat.rules.free_roll import DiceRolled, describe_dice_rolled


def describe(state: State, event: Event, gm: bool = True) -> str | None:
    """One plain sentence for the log, read against the state the event was applied to (None: players do not
    see this entry). An event class without a describer is a bug in this package, not bad input."""
    handler = DESCRIBERS.get(type(event))
    if handler is None:
        raise TypeError(f"The Expanse has no describer for {type(event).__name__}; add one to DESCRIBERS.")
    text = handler(state, event, Sight(state.fighters, gm))
    return None if text is None else _sentence(text)


# --- words ------------------------------------------------------------------------------------------------------


def _dice_text(faces: tuple[int, ...], modifier: int) -> str:
    sign = "+" if modifier >= 0 else "-"
    return f"{faces[0]}, {faces[1]} and Drama Die {faces[2]} {sign} {abs(modifier)} = {sum(faces) + modifier}"


def _names(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def _find(state: State, fid: str) -> Fighter | None:
    return next((f for f in state.fighters if f.id == fid), None)


def _interrupting(slot: str) -> str:
    return "Interrupting, " if slot == "prepared" else ""


# --- initiative and turns ---------------------------------------------------------------------------------------


def _initiative_rolled(state: State, event: InitiativeRolled, sight: Sight) -> str:
    after = evolve(state, event)
    rolls = {r.fighter: r for r in event.rolls}
    parts = []
    for fid in after.order:
        r = rolls.get(fid)
        if r is None or sight.secret(fid):
            parts.append(sight.name(fid))
        else:
            parts.append(f"{sight.name(fid)} {r.total} (Drama Die {r.faces[2]}{', with the focus' if r.focus else ''})")
    ties: list[str] = []
    if sight.gm:
        groups: dict[tuple[int, int], list[str]] = {}
        for fid in after.order:
            f = after.fighter(fid)
            groups.setdefault((f.initiative, f.drama), []).append(f.name)
        ties = [_names(g) for g in groups.values() if len(g) > 1]
    tie_text = "".join(f"; {t} are tied on both, so the GM decides between them" for t in ties)
    return f"Initiative order: {', '.join(parts)}{tie_text}"


def _tie_broken(state: State, event: TieBroken, sight: Sight) -> str:
    return f"The GM puts {sight.name(event.first)} ahead of {sight.name(event.second)} in the initiative order"


def _turn_started(state: State, event: TurnStarted, sight: Sight) -> str:
    f = _find(state, event.fighter)
    lost = f"; the prepared {book.MAJOR_ACTIONS.get(f.prepared, f.prepared)} is lost" if f and f.prepared else ""
    return f"Round {event.round}: {sight.name(event.fighter)}'s turn{lost}"


def _turn_ended(state: State, event: TurnEnded, sight: Sight) -> str:
    lost = f", losing {plural(event.sp_lost, 'unspent stunt point')}" if event.sp_lost else ""
    if event.auto:
        return f"{sight.name(event.fighter)}'s turn ends with nothing left to do{lost}"
    return f"{sight.name(event.fighter)} ends their turn{lost}"


def _interrupted(state: State, event: Interrupted, sight: Sight) -> str:
    if not event.fighter:
        return f"The GM calls off {sight.name(state.interrupt)}'s interrupt"
    f = _find(state, event.fighter)
    action = book.MAJOR_ACTIONS.get(f.prepared, f.prepared) if f else "action"
    by = "At the GM's call, " if event.by == "gm" else ""
    return f"{by}{sight.name(event.fighter)} interrupts to take their prepared {action}"


# --- tests and their dice ---------------------------------------------------------------------------------------


def _verdict(state: State, t: TestRecord, sight: Sight) -> str:
    """How a test came out: hit or miss, damage, stunt points, jams and breaks."""
    sp = f"{plural(t.sp, 'stunt point')}"
    if t.kind == "grenade":
        if t.success:
            if not t.targets:
                return "it lands on target and catches nobody"
            return (
                f"it lands on target, catching {_names([sight.name(x) for x in t.targets])} "
                f"for {t.damage} damage" + (f", and doubles earn {sp}" if t.sp else "")
            )
        return f"it misses and lands {t.scatter} m off in a direction of the GM's choosing"
    if t.kind == "test":
        if not t.success:
            return "a failure"
        return "a success" + (f" earning {sp}" if t.sp else "")
    if not t.success:
        result = "a miss"
        if t.jams:
            result += f", and the {book.WEAPONS[t.weapon].label.lower()} jams or runs dry (Drama Die {t.drama})"
        if t.breaks:
            result += ", and the makeshift weapon breaks"
        return result
    if t.kind == "stunt_attack":
        return f"a success: {sp} and no damage"
    result = "a hit"
    if t.target:
        result += f" for {t.damage} damage"
        target = state.fighter(t.target)
        if t.stunning and state.settings.get("penetrating_ignores_cover", False):
            result += " (penetrating: neither Toughness nor cover stops any of it)"
        elif not sight.secret(t.target):
            soak = cover_bonus(state, target, t.ranged) + (0 if t.stunning else toughness(target))
            kind = "penetrating; cover" if t.stunning else "Toughness"
            result += f" ({kind} {soak} leaves {max(0, t.damage - soak)})"
    if t.sp:
        result += f", and doubles earn {sp}"
    return result


def _tested(state: State, event: Tested, sight: Sight) -> str:
    t = known(event.test, "The test")
    lead = {"prepared": "Interrupting, ", "free": "With an extra attack, "}.get(event.slot, "")
    roll = _dice_text(t.faces, t.modifier) + (" (physical dice)" if t.entered else "")
    if t.churned:  # players feel the effect; the Churn itself is the GM's
        roll += " (the Churn makes it fail)" if sight.gm else " (it fails whatever the dice)"
    actor = sight.name(t.fighter)
    if t.kind == "grenade":
        return f"{lead}{actor} throws a grenade: {roll} against TN {t.tn}, {_verdict(state, t, sight)}"
    if t.kind == "test":
        focus = f" ({t.focus})" if t.focus else ""
        what = f" to {t.note}" if t.note else ""
        resist = " resistance" if t.resist else ""
        return (
            f"{lead}{actor} makes {_article(t.ability)}{focus}{resist} test{what}: {roll} against TN {t.tn}, "
            f"{_verdict(state, t, sight)}"
        )
    weapon = book.WEAPONS[t.weapon].label.lower()
    action = book.MAJOR_ACTIONS[t.action]
    if t.object_size:
        label, examples, _ = book.OBJECT_SIZES[t.object_size]
        against, tn = f"{_article(label.lower())} object ({examples})", f" against target number {t.tn}"
    else:
        against = sight.name(t.target)
        tn = "" if sight.secret(t.target) else f" against Defense {t.tn}"
    moved = f" after moving {event.metres} m" if event.metres else ""
    return (
        f"{lead}{actor} makes {_article(action)}{moved} with {_article(weapon)} at {against}: {roll}{tn}, "
        f"{_verdict(state, t, sight)}"
    )


def _blasted(state: State, event: Blasted, sight: Sight) -> str:
    where = f" {event.direction}" if event.direction else ""
    if not event.targets:
        return f"{sight.name(event.thrower)}'s scattered grenade goes off{where} and catches nobody"
    return (
        f"{sight.name(event.thrower)}'s scattered grenade goes off{where}, catching "
        f"{_names([sight.name(t) for t in event.targets])} for {sum(event.faces)} damage"
    )


def _blast_widened(state: State, event: BlastWidened, sight: Sight) -> str:
    """Players read "someone unseen" for a combatant they do not know of (Sight.name): never its name."""
    return (
        f"{sight.name(event.thrower)}'s grenade also catches {_names([sight.name(t) for t in event.targets])} "
        f"for {sum(event.faces)} damage"
    )


def _die_changed(state: State, event: DieChanged, sight: Sight) -> str:
    old = known(state.test(event.test), "The test")
    which = "the Drama Die" if event.die == 2 else f"die {event.die + 1}"
    new = replace(
        old,
        faces=tuple(event.face if i == event.die else x for i, x in enumerate(old.faces)),
        damage_faces=event.damage_faces or old.damage_faces,
        scatter=event.scatter or old.scatter,
    )
    cost = "Fortune" if sight.secret(event.fighter) else f"{event.cost} Fortune"
    return (
        f"{sight.name(event.fighter)} spends {cost} to turn {which} from {old.faces[event.die]} to "
        f"{event.face}: {_dice_text(new.faces, new.modifier)}, {_verdict(state, new, sight)}"
    )


def _stunt_spent(state: State, e: StuntSpent, sight: Sight) -> str:
    stunt = state.stunt(e.stunt)
    f = state.fighter(e.fighter)
    p = e.points
    actor, target, ally = sight.name(e.fighter), sight.name(e.target), sight.name(e.ally)
    effect = stunt.effect if stunt else ""
    clause = {
        "fortune": (
            ", regaining Fortune"
            if sight.secret(e.fighter)
            else f", regaining {min(p, f.fortune_max - f.fortune)} Fortune"
        ),
        "initiative": f", +{book.MOMENTUM_PER_SP * p} initiative from the next round",
        "defense": f", +{p} Defense until the start of their next turn",
        "cover": f", taking {book.COVER_LABELS[min(3, p)]}",
        "guardian": f" to shield {ally} from up to {p} damage before their next turn",
        "skirmish": f", moving {'themselves' if e.moves == 'self' else target} {book.SKIRMISH_METRES_PER_SP * p} m",
        "makeshift": ", grabbing a makeshift weapon",
        "group_tactics": f": {ally} moves {book.GROUP_TACTICS_METRES_PER_2SP * (p // 2)} m",
        "double_team": f": {ally} may attack {target} at once",
        "injure": f": {target} is injured",
        "knock_prone": f": {target} is knocked prone",
        "lightning_attack": ": a second attack this turn",
        "overcome_toughness": ": the damage ignores Toughness",
    }.get(effect, "")
    if e.opposed is not None:
        o = e.opposed
        a, d = sum(o.attacker_faces) + o.attacker_bonus, sum(o.defender_faces) + o.defender_bonus
        if o.held:
            clause = f", but {target} stands firm ({d} against {a}) and does not budge"
        else:
            clause += f" (standing firm fails, {d} against {a})"
    note = f" ({e.note})" if e.note else ""
    label = stunt.name if stunt else e.stunt
    return f"{actor} spends {plural(p, 'stunt point')} on {label}{clause}{note}"


# --- actions ----------------------------------------------------------------------------------------------------


def _defended(state: State, event: Defended, sight: Sight) -> str:
    return (
        f"{_interrupting(event.slot)}{sight.name(event.fighter)} defends: +{book.DEFEND_BONUS} Defense until "
        "the start of their next turn"
    )


def _ran(state: State, event: Ran, sight: Sight) -> str:
    cover = f" into {book.COVER_LABELS[event.cover]}" if event.cover else ""
    return f"{_interrupting(event.slot)}{sight.name(event.fighter)} runs {event.metres} m{cover}"


def _moved(state: State, event: Moved, sight: Sight) -> str:
    extras = [
        x
        for x, on in (
            ("stands up", event.stand_up),
            ("drops prone", event.drop_prone),
            ("gets in or out of a vehicle", event.vehicle),
        )
        if on
    ]
    cover = f" into {book.COVER_LABELS[event.cover]}" if event.cover else ""
    extra = f" and {_names(extras)}" if extras else ""
    return f"{sight.name(event.fighter)} moves {event.metres} m{cover}{extra}"


def _activated(state: State, event: Activated, sight: Sight) -> str:
    return f"{sight.name(event.fighter)} activates {event.what or 'something'}"


def _aimed(state: State, event: Aimed, sight: Sight) -> str:
    return f"{sight.name(event.fighter)} aims: +{book.AIM_BONUS} on an attack if it is their next action"


def _guarded_up(state: State, event: GuardedUp, sight: Sight) -> str:
    return (
        f"{sight.name(event.fighter)} guards up: +{event.bonus} Defense and -{event.bonus} on every test until "
        "the end of the round"
    )


def _prepared(state: State, event: Prepared, sight: Sight) -> str:
    action = book.MAJOR_ACTIONS.get(event.action, event.action)
    return f"{sight.name(event.fighter)} prepares {_article(action)} to interrupt with before their next turn"


def _pressed(state: State, event: Pressed, sight: Sight) -> str:
    return (
        f"{sight.name(event.fighter)} presses the attack on {sight.name(event.target)}: if they move away, "
        f"{sight.name(event.fighter)} may follow at once"
    )


def _readied(state: State, event: Readied, sight: Sight) -> str:
    item = (
        book.WEAPONS[event.item].label.lower()
        if event.item in book.WEAPONS
        else (book.SHIELDS[event.item][0].lower() if event.item in book.SHIELDS else event.item)
    )
    stow = f", putting away {weapons.label(event.stow)}" if event.stow else ""
    return f"{sight.name(event.fighter)} readies {item or 'nothing new'}{stow}"


def _stood_firm(state: State, event: StoodFirm, sight: Sight) -> str:
    how = "Strength (Might)" if event.ability == "Strength" else "Dexterity (Acrobatics)"
    return f"{sight.name(event.fighter)} stands firm, resisting with {how} until the start of their next turn"


def _jam_cleared(state: State, event: JamCleared, sight: Sight) -> str:
    weapon = book.WEAPONS[event.weapon].label.lower()
    return f"{sight.name(event.fighter)} clears the jam in their {weapon} (or reloads)"


def _pursued(state: State, event: Pursued, sight: Sight) -> str:
    return f"{sight.name(event.fighter)} pursues {sight.name(event.target)} {event.metres} m"


# --- damage: Fortune, conditions, taken out ---------------------------------------------------------------------


def _guard_transferred(state: State, event: GuardTransferred, sight: Sight) -> str:
    return (
        f"{sight.name(event.guardian)} takes {event.points} of the damage meant for {sight.name(event.ally)} "
        "(Guardian Angel)"
    )


def _fortune_spent(state: State, event: FortuneSpent, sight: Sight) -> str:
    who = sight.name(event.fighter)
    hit = state.hit(event.hit)
    left = hit.remaining - event.points if hit else 0
    if sight.secret(event.fighter):
        if event.points == 0:
            return f"{who} spends no Fortune on the damage"
        return f"{who} spends Fortune on the damage" + ("; none gets through" if left <= 0 else "")
    rest = "; none gets through" if left <= 0 else f"; {left} damage remains"
    if event.points == 0:
        return f"{who} spends no Fortune on the damage{rest}"
    return f"{who} spends {event.points} Fortune on the damage{rest}"


def _condition_taken(state: State, event: ConditionTaken, sight: Sight) -> str:
    hit = state.hit(event.hit)
    left = max(0, hit.remaining - event.roll) if hit else 0
    rest = "" if sight.secret(event.fighter) else ("; nothing remains" if left == 0 else f"; {left} damage remains")
    return (
        f"{sight.name(event.fighter)} takes the {event.condition} condition, which absorbs {event.roll} damage "
        f"(1d6){rest}"
    )


def _taken_out(state: State, event: TakenOut, sight: Sight) -> str:
    extra = " and knocked unconscious" if event.condition == book.STUNNED_OUT else ""
    return f"{sight.name(event.fighter)} is taken out{extra}"


def _roll_over_asked(state: State, event: RollOverAsked, sight: Sight) -> str:
    return (
        f"{sight.name(event.fighter)} asks to roll over and bow out with the {event.condition} condition; "
        "the GM decides"
    )


def _rolled_over(state: State, event: RolledOver, sight: Sight) -> str:
    if not event.approved:
        return f"The GM does not let {sight.name(event.fighter)} roll over"
    return f"{sight.name(event.fighter)} rolls over and bows out of the encounter with the {event.condition} condition"


# --- the GM's tools, Churn and the end --------------------------------------------------------------------------


def _stunt_added(state: State, event: StuntAdded, sight: Sight) -> str:
    s = known(event.stunt, "The stunt")
    return f"The GM adds the stunt {s.name} ({s.cost_label} SP)"


def _condition_set(state: State, event: ConditionSet, sight: Sight) -> str:
    return f"{sight.name(event.target)} {'gains' if event.on else 'loses'} the {event.condition} condition"


def _fortune_adjusted(state: State, event: FortuneAdjusted, sight: Sight) -> str:
    if sight.secret(event.target):
        return f"The GM adjusts {sight.name(event.target)}'s Fortune"
    f = _find(state, event.target)
    now = f.fortune + event.change if f else event.change
    verb = "rises" if event.change > 0 else "drops"
    return f"{sight.name(event.target)}'s Fortune {verb} by {abs(event.change)} to {now}"


def _cover_set(state: State, event: CoverSet, sight: Sight) -> str:
    return f"{sight.name(event.target)} now has {book.COVER_LABELS.get(event.rating, 'cover')}"


def _churn_jammed(state: State, event: ChurnJammed, sight: Sight) -> str:
    weapon = book.WEAPONS[event.weapon].label.lower()
    lead = f"The GM spends {plural(event.cost, 'Churn point')}: " if sight.gm else ""
    return f"{lead}{sight.name(event.fighter)}'s {weapon} jams or runs dry"


def _churn_adjusted(state: State, event: ChurnAdjusted, sight: Sight) -> str | None:
    if not sight.gm:
        return None
    why = f" ({event.reason})" if event.reason else ""
    sign = "+" if event.change > 0 else "-"
    return f"Churn {sign}{abs(event.change)}{why}: the pool is now {state.churn + event.change}"


def _breathers_taken(state: State, event: BreathersTaken, sight: Sight) -> str:
    parts = [
        f"{sight.name(r.fighter)} regains {r.gain} Fortune (1d6 shows {r.face})"
        for r in event.rolls
        if not sight.secret(r.fighter)
    ]
    rest = f": {_names(parts)}" if parts else ""
    return f"Breathers end the encounter{rest}"


DESCRIBERS: dict[type[Event], Callable[[State, Any, Sight], str | None]] = {
    DiceRolled: lambda state, event, sight: describe_dice_rolled(state, event, sight.gm),
    InitiativeRolled: _initiative_rolled,
    TieBroken: _tie_broken,
    TurnStarted: _turn_started,
    TurnEnded: _turn_ended,
    Interrupted: _interrupted,
    Tested: _tested,
    Blasted: _blasted,
    BlastWidened: _blast_widened,
    DieChanged: _die_changed,
    StuntSpent: _stunt_spent,
    Defended: _defended,
    Ran: _ran,
    Moved: _moved,
    Activated: _activated,
    Aimed: _aimed,
    GuardedUp: _guarded_up,
    Prepared: _prepared,
    Pressed: _pressed,
    Readied: _readied,
    StoodFirm: _stood_firm,
    JamCleared: _jam_cleared,
    Pursued: _pursued,
    GuardTransferred: _guard_transferred,
    FortuneSpent: _fortune_spent,
    ConditionTaken: _condition_taken,
    TakenOut: _taken_out,
    RollOverAsked: _roll_over_asked,
    RolledOver: _rolled_over,
    StuntAdded: _stunt_added,
    ConditionSet: _condition_set,
    FortuneAdjusted: _fortune_adjusted,
    CoverSet: _cover_set,
    ChurnJammed: _churn_jammed,
    ChurnAdjusted: _churn_adjusted,
    ChurnReached: churn.describe_reached,
    ChurnApplied: churn.describe_applied,
    BreathersTaken: _breathers_taken,
    Revealed: lambda state, event, sight: describe_revealed(state, event),
    weapons.WeaponGiven: weapons.describe_weapon_given,
}
