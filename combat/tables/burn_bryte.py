"""Burn Bryte at the table: three phases a round, the party's ship caps Advantages and Nova points."""

from __future__ import annotations

from django import forms

from campaigns.models import Campaign
from combat.rules import burn_bryte as bb
from combat.rules import core
from combat.rules.burn_bryte import review as bb_review
from combat.tables.base import Table, fighters_from
from ships.models import Ship

PHASE_TITLES = {1: "Enemies declare", 2: "Players act", 3: "Enemies move and resolve"}
DEFAULT_LIVABILITY = 3


def build_form(form) -> None:
    form.fields["ship"] = forms.ModelChoiceField(
        queryset=Ship.objects.filter(campaign=form.campaign), required=False,
        help_text="Its Livability Rating caps Advantages and Nova points.")


def initial_state(engine, encounter, combatants):
    livability = encounter.ship.livability_rating if encounter.ship else DEFAULT_LIVABILITY
    return engine.initial_state(fighters_from(engine, combatants), livability, encounter.settings)


def enemy_health(fighter, visibility: str) -> str:
    if visibility == Campaign.EnemyHealth.EXACT:
        return f"{fighter.health}/{fighter.health_max} HL"
    if visibility == Campaign.EnemyHealth.DESCRIPTOR:
        if fighter.health <= 0:
            return "down"
        return "unhurt" if fighter.health >= fighter.health_max else "hurt"
    return ""


def public_view(encounter, state, gm: bool) -> dict:
    """Everything on the table for the GM (gm=True) or for every player (gm=False). No per-user facts."""
    visibility = encounter.campaign.enemy_health_visibility
    seen_by_party = core.seen_by_party(state.fighters)
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
        "round": state.round, "phase": state.phase,
        "phase_title": PHASE_TITLES[state.phase], "turn": state.turn, "turn_name": turn_name,
        "chain": state.chain, "picker_name": picker_name, "advantages": state.advantages,
        "livability": state.livability, "pcs": pcs, "enemies": enemies, "declarations": declarations,
        "pending_failure": state.pending_failure,
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
        )
    return view


def private_view(encounter, state, user_id: int) -> dict:
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
    seen_by_party = core.seen_by_party(state.fighters)  # an unseen enemy's attack is not on the table
    defendable = [{"id": d.id, "label": f"{state.fighter(d.enemy).name}: {d.text} → {state.fighter(d.target).name}"}
                  for d in state.declarations if not d.defended and not d.outcome and d.enemy in seen_by_party]
    return {"mine": mine, "pickable": pickable, "defendable": defendable,
            "advantages": state.advantages, "entered_dice": bool(state.settings.get("entered_dice")),
            "your_turn": any(m["acting"] for m in mine),
            "you_may_act": any(m["can_claim"] or m["can_pick"] for m in mine)}


def _conditions(c) -> list[str]:
    out = []
    for prefix in ("neg", "pos"):
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


class BurnBryteTable(Table):
    """Burn Bryte at the table: this module's functions are its parts."""

    PERSISTS = ("Health Levels, conditions, Nova points and Nova boxes go back to the characters' sheets; the "
                "Advantages and Collapse points end with the fight.")
    review = bb_review
    section_title = staticmethod(bb_review.section_title)

    build_form = staticmethod(build_form)
    initial_state = staticmethod(initial_state)
    public_view = staticmethod(public_view)
    private_view = staticmethod(private_view)
