"""Burn Bryte at the table: three phases a round, the party's ship caps Advantages and Nova points."""

from __future__ import annotations

from campaigns.models import Campaign
from combat.rules import burn_bryte as bb
from combat.rules.burn_bryte import positions
from combat.rules.burn_bryte import review as bb_review
from combat.rules.core import Sight
from combat.tables.base import Table, fighters_from, write_back_characters
from combat.tables.burn_bryte_setup import build_form, clean_form, placed
from combat.tables.burn_bryte_views import (
    BurnBrytePrivate,
    BurstRow,
    DeclarationRow,
    Defendable,
    EnemyRow,
    GmDeclarationRow,
    GmEnemyRow,
    GmPcRow,
    GmTable,
    HeldCondition,
    Mover,
    Named,
    PcRow,
    PlayersTable,
    Rescue,
    Sheet,
    ShipRow,
    SkillOdds,
    Target,
)
from ships.models import Ship

PHASE_TITLES = {1: "Enemies declare", 2: "Players act", 3: "Enemies move and resolve"}
DEFAULT_LIVABILITY = 3
ATTACK_SKILLS = ("Ranged", "Melee")  # a phone's default attack skill is the likelier of these (Ranged on a tie)


def initial_state(engine, encounter, combatants):
    ship = encounter.ship
    livability = ship.livability_rating if ship else DEFAULT_LIVABILITY
    mi = (ship.name, ship.mi_health, ship.mi_health_max) if ship else ("", 0, 0)
    fighters = placed(fighters_from(engine, combatants), encounter.setup)
    return engine.initial_state(fighters, livability, encounter.settings, ship=mi)


def write_back_with_ship(encounter, state) -> None:
    """The sheets' values (base), and the ship's MI Health Levels back on the ship the fight used."""
    write_back_characters(encounter, bb.write_back(state))
    if encounter.ship_id and state.ship_name:
        Ship.objects.filter(pk=encounter.ship_id).update(mi_health=state.ship_health)


def enemy_health(fighter, visibility: str) -> str:
    if visibility == Campaign.EnemyHealth.EXACT:
        return f"{fighter.health}/{fighter.health_max} HL{_shield(fighter)}"
    if visibility == Campaign.EnemyHealth.DESCRIPTOR:
        if fighter.health <= 0:
            return "down"
        return "unhurt" if fighter.health >= fighter.health_max else "hurt"
    return ""


def _shield(fighter) -> str:
    """ " · shield 2/3" for a combatant with a personal shield ("" without one)."""
    return f" · shield {fighter.shield}/{fighter.shield_max}" if fighter.shield_max or fighter.shield else ""


DARK_WORDS = {
    False: "The ship has gone dark: the GM says what that means for the crew.",
    True: "The ship has gone dark: no new Advantages or Nova points while it is dark.",
}


# --- building them --------------------------------------------------------------------------------------------


def _declaration(state, sight: Sight, d) -> DeclarationRow:
    row = dict(
        id=d.id,
        enemy=sight.name(d.enemy),
        target=sight.name(d.target),
        target_key=d.target,
        text=d.text,
        extra=d.extra,
        defended=d.defended,
        outcome=d.outcome,
        weapon=d.weapon,
    )
    if not sight.gm:
        return DeclarationRow(**row)
    weapon = state.fighter(d.enemy).weapon if d.weapon else bb.Weapon()
    return GmDeclarationRow(
        **row,
        out_of_range=positions.declared_out_of_range(state, d),
        weapon_label=weapon.label() if d.weapon else "",
        hit_damage=bb.enemy_hit_damage(weapon, drain=False)[0],
        draining=weapon.draining,
        burst=weapon.burst,
    )


def public_view(encounter, state, gm: bool) -> PlayersTable:
    """Everything on the table for the GM (gm=True: a GmTable) or for every player. No per-user facts."""
    sight = Sight(state.fighters, gm)
    turn_name = state.fighter(state.turn).name if state.turn else ""
    picker_name = state.fighter(state.picker).name if state.picker else ""
    pc_row = GmPcRow if gm else PcRow
    pcs = tuple(
        pc_row(
            key=f.id,
            name=f.name,
            health=f.health,
            health_max=f.health_max,
            nova_points=f.nova_points,
            took_turn=f.took_turn,
            acting=f.id == state.turn,
            down=f.down,
            shield=f.shield,
            shield_max=f.shield_max,
            square=positions.square_name(f.col, f.row),
            **({"conditions": _held(f.conditions)} if gm else {}),
        )
        for f in state.pcs()
    )
    declarations = tuple(_declaration(state, sight, d) for d in state.declarations if sight.visible(d.enemy))
    common = dict(
        round=state.round,
        phase=state.phase,
        phase_title=PHASE_TITLES[state.phase],
        turn=state.turn,
        turn_name=turn_name,
        chain=state.chain,
        picker_name=picker_name,
        advantages=state.advantages,
        livability=state.livability,
        pcs=pcs,
        declarations=declarations,
        pending_failure=state.pending_failure,
        ship=_ship(state),
        burst=_burst(state),
    )
    if not gm:
        visibility = encounter.campaign.enemy_health_visibility
        enemies = tuple(
            EnemyRow(
                key=f.id,
                name=f.name,
                down=f.down,
                health=enemy_health(f, visibility),
                square=positions.square_name(f.col, f.row),
            )
            for f in state.enemies()
            if sight.visible(f.id)
        )
        return PlayersTable(**common, enemies=enemies)
    players = Sight(state.fighters, gm=False)
    return GmTable(
        **common,
        enemies=tuple(
            GmEnemyRow(
                key=f.id,
                name=f.name,
                down=f.down,
                health=f"{f.health}/{f.health_max} HL{_shield(f)}",
                unseen=players.unseen(f.id),
                square=positions.square_name(f.col, f.row),
                health_levels=f.health,
                health_max=f.health_max,
                conditions=_held(f.conditions),
                shield=f.shield,
                shield_max=f.shield_max,
            )
            for f in state.enemies()
        ),
        collapse=state.collapse,
        change_cost=state.settings.get("change_cost", 1),
        failure_default=state.settings.get("failure_default", "collapse"),
        pcs_left=tuple(f.name for f in state.pcs_left()),
        to_act=tuple(Named(key=f.id, name=f.name) for f in state.pcs_left()),
        extra_allowed=not (state.round == 1 and state.surprise == "pcs"),
        failed_faces=_rescuable(state).faces if _rescuable(state) else (),
        all_enemies=tuple(Named(key=f.id, name=f.name) for f in state.enemies() if not f.down),
        all_pcs=tuple(Named(key=f.id, name=f.name) for f in sorted(state.pcs(), key=lambda f: f.down)),
        undeclared=tuple(
            f.name
            for f in state.enemies()
            if not f.down and f.aware_of and not any(d.enemy == f.id and not d.extra for d in state.declarations)
        ),
        everyone=tuple(Named(key=f.id, name=f.name) for f in state.fighters),
        open_declarations=tuple(
            _declaration(state, sight, d) for d in state.declarations if not d.outcome and not d.defended
        ),
        nova_holders=tuple(
            Named(key=f.id, name=f"{f.name} ({f.nova_points} Nova)")
            for f in state.pcs()
            if f.nova_points and (not f.down or state.settings.get("nova_at_zero"))
        ),
        skills=tuple(bb.SKILLS),
        categories=tuple(bb.SKILL_CATEGORIES),
        burst_choices=tuple(Named(key=f.id, name=f.name) for f in state.fighters if not f.down),
        typed_damage=bool(state.settings.get("typed_damage")),
        draining_on_miss=bool(state.settings.get("draining_on_miss")),
        burst_area=_burst_area(state),
        burst_centre=_burst_centre(state),
        movers=tuple(
            Mover(key=f.id, name=f.name, square=positions.square_name(f.col, f.row), left=f.speed - f.moved)
            for f in state.enemies()
            if state.phase == 3 and not f.down and positions.placed(f) and f.speed > f.moved
        ),
    )


def _burst_centre(state) -> str:
    """Where the preselected area is centred, in words: the square aimed at, or the creature aimed at on its square."""
    roll = state.pending_burst
    if roll is None or not (roll.at_col or roll.target):
        return ""
    if roll.at_col:
        return positions.square_name(roll.at_col, roll.at_row)
    f = state.fighter(roll.target)
    square = positions.square_name(f.col, f.row)
    return f"{f.name} on {square}" if square else ""


def _burst_area(state) -> tuple[str, ...]:
    """Who the GM's Burst form preselects: every creature within N squares of the one the Burst was aimed at, when
    it is on the grid, or of the square it was aimed at (the GM can still change who is in it)."""
    roll = state.pending_burst
    if roll is None or not (roll.at_col or roll.target):
        return ()
    if roll.at_col:
        return positions.within(state, (roll.at_col, roll.at_row), roll.burst)
    f = state.fighter(roll.target)
    return positions.within(state, (f.col, f.row), roll.burst)


def _ship(state) -> ShipRow | None:
    if not state.ship_name:
        return None
    words = DARK_WORDS[bool(state.settings.get("ship_dark_no_room"))]
    return ShipRow(
        name=state.ship_name,
        health=state.ship_health,
        health_max=state.ship_health_max,
        dark=state.ship_dark,
        dark_words=words if state.ship_dark else "",
    )


def _burst(state) -> BurstRow | None:
    roll = state.pending_burst
    if roll is None:
        return None
    name = state.fighter(roll.fighter).name
    return BurstRow(roller=name, weapon=roll.weapon, radius=roll.burst, damage=roll.damage, aimed_at=roll.target)


def private_view(encounter, state, user_id: int) -> BurnBrytePrivate:
    """One player's own controls: their characters, whether they may act, the exact odds of each skill, and when
    it is not their turn a line saying what the table waits for."""
    mine = []
    for f in state.pcs():
        if f.owner != user_id:
            continue
        acting = state.turn == f.id and state.phase == 2
        skills = []
        for skill, sides in sorted(f.skills.items()):
            dice = state.complexity(f, skill) if acting else max(2, 2 + f.conditions.modifier(skill))
            skills.append(
                SkillOdds(name=skill, sides=sides, dice=dice, chance=round(100 * bb.chance_of_success(dice, sides)))
            )
        attack_skill = max(
            (s for s in skills if s.name in ATTACK_SKILLS),
            key=lambda s: (s.chance, s.sides, s.name == ATTACK_SKILLS[0]),
        )
        mine.append(
            Sheet(
                key=f.id,
                name=f.name,
                health=f.health,
                health_max=f.health_max,
                nova_points=f.nova_points,
                nova_boxes=f.nova_boxes,
                speed=f.speed,
                down=f.down,
                took_turn=f.took_turn,
                acting=acting,
                skills=tuple(skills),
                conditions=tuple(_conditions(f.conditions)),
                can_claim=(state.phase == 2 and not state.turn and not state.chain and not f.took_turn and not f.down),
                can_pick=state.phase == 2 and not state.turn and state.chain and state.picker == f.id and not f.down,
                free_move_used=state.free_move_used if acting else False,
                pending_failure=acting and state.pending_failure,
                last_roll=state.last_roll if acting else None,
                targets=_targets(state, f, attack_skill.name),
                attack_skill=attack_skill,
                **_gear(state, f, attack_skill.dice),
                square=positions.square_name(f.col, f.row),
                move_left=positions.move_allowance(state, f) if acting else 0,
            )
        )
    players = Sight(state.fighters, gm=False)  # an unseen enemy's attack is not on the table
    defendable = tuple(
        Defendable(id=d.id, label=f"{players.name(d.enemy)}: {d.text} → {players.name(d.target)}")
        for d in state.declarations
        if not d.defended and not d.outcome and players.visible(d.enemy)
    )
    your_turn = any(m.acting for m in mine)
    return BurnBrytePrivate(
        mine=tuple(mine),
        pickable=tuple(Named(key=f.id, name=f.name) for f in state.pcs_left()),
        defendable=defendable,
        advantages=state.advantages,
        entered_dice=bool(state.settings.get("entered_dice")),
        nova_at_zero=bool(state.settings.get("nova_at_zero")),
        your_turn=your_turn,
        you_may_act=any(m.can_claim or m.can_pick for m in mine),
        **_off_turn(state, mine, your_turn),
    )


def _gear(state, f, dice: int) -> dict:
    """A sheet's weapon, shield and what its default attack deals on a hit (gear.hit_damage)."""
    weapon = f.weapon
    return {
        "shield": f.shield,
        "shield_max": f.shield_max,
        "weapon": weapon.label(),
        "hit_damage": bb.hit_damage(weapon, dice, drain=False)[0],
        "draining": weapon.draining,
        "burst": weapon.burst,
        "typed_damage": bool(state.settings.get("typed_damage")),
        "draining_on_miss": bool(state.settings.get("draining_on_miss")),
    }


def _targets(state, f, skill: str) -> tuple[Target, ...]:
    """Whom `f` may attack: the enemies it is aware of (never one the party has not seen) still above 0 Health
    Levels. The likeliest comes first, the default of a phone's attack: one whose open declared action targets
    `f`, else the first in the encounter's order. On the grid each says how far it is, and whether the default
    attack (`skill`) reaches it."""
    enemies = [e for e in state.enemies() if e.id in f.aware_of and not e.down]
    threats = {d.enemy for d in state.declarations if d.target == f.id and not d.outcome and not d.defended}
    enemies.sort(key=lambda e: e.id not in threats)  # stable: the encounter's order otherwise
    out, checked = [], state.settings.get("range_check", "refuse") != "off"
    for e in enemies:
        away = positions.distance(state, f, e)
        out.append(
            Target(
                key=e.id,
                name=e.name,
                away="" if away is None else f"{away} square{'s' if away != 1 else ''}",
                out_of_range=checked and away is not None and away > positions.reach(f, skill),
            )
        )
    return tuple(out)


def _waiting(state, mine) -> str:
    """One line for a player whose turn it is not: the phase, who acts, and what the table waits for."""
    if state.phase == 1:
        return "Phase 1: the GM declares what each enemy will do — the party acts in Phase 2."
    if state.phase == 3:
        return "Phase 3: the enemies move and their declared actions resolve — then a new round."
    left = [f for f in mine if not f.took_turn and not f.down]
    if all(f.down for f in mine):
        later = f" — {mine[0].name} is at 0 Health Levels and takes no actions"
    elif left:
        later = ""
    else:
        later = f" — {mine[0].name} has had a turn this round"
    if state.turn:
        what = " and the GM decides what follows the failed roll" if state.pending_failure else ""
        return f"Phase 2: {state.fighter(state.turn).name} is taking their turn{what}{later}."
    if not state.pcs_left():
        return "Phase 2: every PC has had a turn — the GM starts Phase 3."
    if state.chain and state.picker:
        if any(f.id == state.picker for f in mine):
            return "Phase 2: you pick who goes next."
        return f"Phase 2: {state.fighter(state.picker).name} picks who goes next{later}."
    if state.chain:
        return f"Phase 2: the GM picks who goes next{later}."
    if left:
        return "Phase 2: the party picks who goes next — you can claim the next turn."
    return f"Phase 2: the party picks who goes next{later}."


def _off_turn(state, mine: list[Sheet], your_turn: bool) -> dict:
    """The waiting line, another PC's failed roll this player may rescue, and what they may do meanwhile."""
    if your_turn or not mine:
        return {}
    rescue = _rescue(state, mine)
    may = []
    if rescue:
        may.append(f"spend one of the party’s Advantages on {rescue.roller}’s failed roll")
    if any(m.nova_points and (not m.down or state.settings.get("nova_at_zero")) for m in mine):
        may.append("spend Nova points")
    out_of_turn = f"Out of turn you may {' or '.join(may)}." if may else ""
    return {
        "waiting": _waiting(state, [state.fighter(m.key) for m in mine]),
        "rescue": rescue,
        "out_of_turn": out_of_turn,
    }


def _rescue(state, mine) -> Rescue | None:
    """Another PC's roll failed and the party has an Advantage: the first of this player's PCs able to act may
    spend it to reroll a die (the pool is the party's)."""
    roll = _rescuable(state)
    helper = next((m for m in mine if not m.down), None)
    if not (roll and state.advantages and helper):
        return None
    return Rescue(roller=state.fighter(roll.fighter).name, faces=roll.faces, helper=helper.key)


def _rescuable(state):
    """The acting PC's failed roll an Advantage may still reroll (not once they are at 0 Health Levels), or None."""
    roll = state.last_roll
    if state.phase == 2 and state.pending_failure and roll and not state.fighter(roll.fighter).down:
        return roll
    return None


def _conditions(c) -> list[str]:
    return [held.label for held in _held(c)]


def _held(c) -> tuple[HeldCondition, ...]:
    """Each condition held, with its slot (what `set_condition` clears) and its words."""
    out = []
    for prefix in ("neg", "pos"):
        minor, moderate, significant = (
            getattr(c, f"{prefix}_minor"),
            getattr(c, f"{prefix}_moderate"),
            getattr(c, f"{prefix}_significant"),
        )
        sign = "negative" if prefix == "neg" else "positive"
        if minor:
            out.append(HeldCondition(slot=f"{prefix}_minor", label=f"minor {sign} ({_named(minor)})"))
        if moderate:
            out.append(HeldCondition(slot=f"{prefix}_moderate", label=f"moderate {sign} ({_named(moderate)})"))
        if significant:
            out.append(HeldCondition(slot=f"{prefix}_significant", label=f"significant {sign}"))
    return tuple(out)


def _named(value: str) -> str:
    return "not yet named" if value == "?" else value


class BurnBryteTable(Table):
    """Burn Bryte at the table: this module's functions are its parts."""

    PERSISTS = (
        "Health Levels, conditions, Nova points and Nova boxes go back to the characters' sheets (personal "
        "shields too) and MI Health Levels to the ship; the Advantages and Collapse points end with the fight."
    )
    review = bb_review
    section_title = staticmethod(bb_review.section_title)
    ME_FIRST = True

    build_form = staticmethod(build_form)
    clean_form = staticmethod(clean_form)
    initial_state = staticmethod(initial_state)

    def write_back(self, encounter, state) -> None:
        write_back_with_ship(encounter, state)

    def fallen(self, state) -> list[str]:
        return [f.id for f in state.fighters if f.down]  # at 0 Health Levels

    public_view = staticmethod(public_view)
    private_view = staticmethod(private_view)
