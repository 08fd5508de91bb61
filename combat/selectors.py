"""What one viewer may see of an encounter. Templates render these view models only, so a player's page
or frame cannot contain a GM-only fact: it is never put into the player's view model."""

from __future__ import annotations

from dataclasses import dataclass

from campaigns.models import Campaign, Membership
from combat.models import Encounter
from combat.rules.burn_bryte import engine as bb
from combat.rules.core import Undone, active_events
from combat.services import load_initial, load_log, load_state, engine_for

PHASE_TITLES = {1: "Enemies declare", 2: "Players act", 3: "Enemies move and resolve"}


def encounters_for(membership: Membership):
    qs = Encounter.objects.filter(campaign=membership.campaign)
    if not membership.is_gm:
        qs = qs.exclude(status=Encounter.Status.DRAFT)
    return qs


def enemy_health(fighter, visibility: str) -> str:
    if visibility == Campaign.EnemyHealth.EXACT:
        return f"{fighter.health}/{fighter.health_max} HL"
    if visibility == Campaign.EnemyHealth.DESCRIPTOR:
        if fighter.health <= 0:
            return "down"
        return "unhurt" if fighter.health >= fighter.health_max else "hurt"
    return ""


@dataclass
class Audience:
    gm: bool
    user_id: int | None = None  # set for a player's private view


def public_view(encounter: Encounter, state, gm: bool, log=None, replayed=None) -> dict:
    """Everything on the table for the GM (gm=True) or for every player (gm=False). No per-user facts.

    `replayed`: a dict shared by the views of one render (see log_view), so the log is replayed once."""
    visibility = encounter.campaign.enemy_health_visibility
    seen_by_party = {e for f in state.pcs() for e in f.aware_of}
    turn_name = state.fighter(state.turn).name if state.turn else ""
    picker_name = state.fighter(state.picker).name if state.picker else ""
    pcs = [{
        "key": f.id, "name": f.name, "health": f.health, "health_max": f.health_max, "nova_points": f.nova_points,
        "took_turn": f.took_turn, "acting": f.id == state.turn, "down": f.down,
    } for f in state.pcs()]
    enemies = []
    for f in state.enemies():
        if not gm and f.id not in seen_by_party:
            continue
        enemies.append({
            "key": f.id, "name": f.name, "down": f.down,
            "health": f"{f.health}/{f.health_max} HL" if gm else enemy_health(f, visibility),
            "unseen": f.id not in seen_by_party,
        })
    declarations = [{
        "id": d.id, "enemy": state.fighter(d.enemy).name, "target": state.fighter(d.target).name,
        "target_key": d.target, "text": d.text, "extra": d.extra, "defended": d.defended, "outcome": d.outcome,
    } for d in state.declarations if gm or d.enemy in seen_by_party]
    view = {
        "encounter": encounter, "gm": gm, "round": state.round, "phase": state.phase,
        "phase_title": PHASE_TITLES[state.phase], "turn": state.turn, "turn_name": turn_name,
        "chain": state.chain, "picker_name": picker_name, "advantages": state.advantages,
        "livability": state.livability, "pcs": pcs, "enemies": enemies, "declarations": declarations,
        "pending_failure": state.pending_failure, "ended": encounter.status == Encounter.Status.ENDED,
        "version": encounter.version, "log": log_view(encounter, gm, log=log, replayed=replayed),
    }
    if gm:
        view.update(
            collapse=state.collapse,
            change_cost=state.settings.get("change_cost", 1),
            failure_default=state.settings.get("failure_default", "collapse"),
            pcs_left=[f.name for f in state.pcs_left()],
            all_enemies=[{"key": f.id, "name": f.name} for f in state.enemies() if not f.down],
            all_pcs=[{"key": f.id, "name": f.name} for f in state.pcs()],
            undeclared=[f.name for f in state.enemies() if not f.down and f.aware_of
                        and not any(d.enemy == f.id and not d.extra for d in state.declarations)],
            everyone=[{"key": f.id, "name": f.name} for f in state.fighters],
            open_declarations=[d for d in state.declarations if not d.outcome],
            skills=bb.SKILLS, categories=tuple(bb.SKILL_CATEGORIES),
            campaign_notes=encounter.campaign.gm_notes,
            npc_notes=_npc_notes(encounter),
        )
    return view


def _npc_notes(encounter: Encounter) -> list[tuple[str, str]]:
    """GM notes of the NPC kinds in this encounter (GM view only)."""
    from campaigns.models import Character

    rows = (Character.objects.filter(combatants__encounter=encounter, kind=Character.Kind.NPC)
            .exclude(gm_notes="").distinct().values_list("name", "gm_notes"))
    return list(rows)


def private_view(encounter: Encounter, state, user_id: int) -> dict:
    """One player's own controls: their characters, whether they may act, the exact odds of each skill."""
    mine = []
    for f in state.pcs():
        if f.owner != user_id:
            continue
        acting = state.turn == f.id and state.phase == 2
        skills = []
        for skill, sides in sorted(f.skills.items()):
            dice = state.complexity(f, skill) if acting else max(2, 2 + f.conditions.modifier(skill))
            skills.append({"name": skill, "sides": sides, "dice": dice,
                           "chance": round(100 * bb.chance_of_success(dice, sides))})
        mine.append({
            "key": f.id, "name": f.name, "health": f.health, "health_max": f.health_max,
            "nova_points": f.nova_points, "nova_boxes": f.nova_boxes, "speed": f.speed, "down": f.down,
            "took_turn": f.took_turn, "acting": acting, "skills": skills,
            "conditions": _conditions(f.conditions),
            "can_claim": (state.phase == 2 and not state.turn and not state.chain and not f.took_turn
                          and not f.down),
            "can_pick": state.phase == 2 and not state.turn and state.chain and state.picker == f.id,
            "free_move_used": state.free_move_used if acting else False,
            "pending_failure": acting and state.pending_failure,
            "last_roll": state.last_roll if acting else None,
            "targets": [{"key": e.id, "name": e.name} for e in state.enemies() if e.id in f.aware_of and not e.down],
        })
    pickable = [{"key": f.id, "name": f.name} for f in state.pcs_left()]
    seen_by_party = {e for f in state.pcs() for e in f.aware_of}  # an unseen enemy's attack is not on the table
    defendable = [{"id": d.id, "label": f"{state.fighter(d.enemy).name}: {d.text} → {state.fighter(d.target).name}"}
                  for d in state.declarations if not d.defended and not d.outcome and d.enemy in seen_by_party]
    return {"encounter": encounter, "mine": mine, "pickable": pickable, "defendable": defendable,
            "advantages": state.advantages, "entered_dice": bool(state.settings.get("entered_dice")),
            "ended": encounter.status == Encounter.Status.ENDED, "version": encounter.version,
            "your_turn": any(m["acting"] for m in mine),
            "you_may_act": any(m["can_claim"] or m["can_pick"] for m in mine)}


def _conditions(c) -> list[str]:
    out = []
    for prefix, word in (("neg", "−"), ("pos", "+")):
        minor, moderate, significant = (getattr(c, f"{prefix}_minor"), getattr(c, f"{prefix}_moderate"),
                                        getattr(c, f"{prefix}_significant"))
        sign = "negative" if prefix == "neg" else "positive"
        if minor:
            out.append(f"minor {sign} ({'not yet named' if minor == '?' else minor})")
        if moderate:
            out.append(f"moderate {sign} ({'not yet named' if moderate == '?' else moderate})")
        if significant:
            out.append(f"significant {sign}")
    return out


def log_view(encounter: Encounter, gm: bool, limit: int | None = 30, log=None, replayed=None) -> list[dict]:
    """The log as sentences, newest first; undone entries are kept and marked; GM-only ones only for GMs.

    The whole log is replayed (cheap), but only the newest entries are put into words. The replayed states
    do not depend on the audience: pass the same dict as `replayed` to word the log for several audiences
    and it is replayed once."""
    if encounter.status == Encounter.Status.DRAFT:
        return []
    engine = engine_for(encounter)
    log = load_log(encounter) if log is None else log
    live = {item.seq for item in active_events(log)}
    window = len(log) if not limit else min(len(log), 4 * limit)
    replayed = {} if replayed is None else replayed
    while True:
        first = len(log) - window
        if first not in replayed:
            replayed[first] = _replay_from(engine, encounter, log, live, first)
        entries = _describe_tail(engine, log, live, gm, first, replayed[first])
        if not limit or len(entries) >= limit or window >= len(log):
            return entries[:limit] if limit else entries
        window = len(log)  # many hidden entries at the end: word the whole log


def _replay_from(engine, encounter, log, live, first) -> list:
    """The state just before each log entry from index `first` on (undone entries change nothing)."""
    state = load_initial(encounter)
    states = []
    for index, item in enumerate(log):
        if index >= first:
            states.append(state)
        if not isinstance(item.event, Undone) and item.seq in live:
            state = engine.evolve(state, item.event)
    return states


def _describe_tail(engine, log, live, gm, first, states) -> list[dict]:
    entries = []
    for item, state in zip(log[first:], states, strict=True):
        is_undo = isinstance(item.event, Undone)
        if is_undo:
            text = "The GM undid the last action."
        else:
            try:
                text = engine.describe(state, item.event, gm=gm)
            except Exception:  # an undone entry may name something the replayed state no longer has
                text = item.event.kind.replace("_", " ").capitalize() + "."
        if gm or (item.event.audience != "gm" and text is not None):
            entries.append({"seq": item.seq, "text": text, "undone": item.seq not in live and not is_undo,
                            "gm_only": item.event.audience == "gm"})
    entries.reverse()
    return entries
