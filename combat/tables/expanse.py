"""The Expanse (AGE) at the table: the initiative order with its Drama Dice, one turn at a time, attacks built
on the phone, stunt points spent within budget, and damage absorbed by the player's own choice.

Every number an enemy has (Defense, Toughness, Fortune, initiative, stunt points) is put into the GM's view
model only; a player's view names enemies the party is aware of and says what they do, never what they have.
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from combat.rules import expanse as ex
from combat.rules.core import RuleError, Sight
from combat.rules.expanse import review as ex_review
from combat.rules.expanse import rulebook as T
from combat.rules.expanse.stats import CONDITIONS
from combat.tables import expanse_attacks as attacks
from combat.tables.base import Table, fighters_from, namer
from combat.tables.expanse_churn import churn_fields
from combat.tables.expanse_views import (
    Blast,
    ChangeDie,
    DieChoice,
    EnemyRow,
    EnemyWaiting,
    GmRow,
    GmTableView,
    Hit,
    Jam,
    Landed,
    MeView,
    ObjectSize,
    Panel,
    Prepared,
    Ref,
    RollOver,
    Row,
    Stunt,
    StuntRow,
    TableView,
    Waiting,
)
from combat.tables.expanse_weapons import give_weapons, panel_facts

DAMAGE_CONDITIONS = tuple(c for c in CONDITIONS if c != T.TAKEN_OUT)
EFFECT_LABELS = {
    "": "None (narrated only)",
    "fortune": "Regain Fortune per SP",
    "initiative": "+3 initiative per SP",
    "defense": "+1 Defense per SP",
    "cover": "Cover rating per SP",
    "guardian": "Take an ally's damage",
    "skirmish": "Move 2 m per SP",
    "makeshift": "A makeshift weapon",
    "group_tactics": "An ally moves",
    "double_team": "An ally attacks",
    "injure": "Injure the target",
    "knock_prone": "Knock the target prone",
    "lightning_attack": "A second attack",
    "overcome_toughness": "Damage ignores Toughness",
}
ALLY_EFFECTS = ("guardian", "group_tactics", "double_team")


# --- building and starting ---------------------------------------------------------------------------------------


def _stunt_list(value: str) -> None:
    """GM stunts typed in the builder: each needs a name and a cost, and no name may repeat the list's."""
    try:
        extra = ex.parse_stunts(value)
    except RuleError as exc:
        raise ValidationError(str(exc)) from None
    taken = {s.key for s in T.STUNTS}
    for stunt in extra:
        if stunt.key in taken:
            raise ValidationError(f"There is already a stunt called {stunt.name}.")
        taken.add(stunt.key)


def build_form(form) -> None:
    form.fields["extra_stunts"] = forms.CharField(
        label="More stunts for this encounter",
        required=False,
        max_length=500,
        validators=[_stunt_list],
        help_text='Name and SP cost, separated by ";", e.g. "Called Shot 4; Feint 1-3; Hostage 4+". '
        "The GM can add more during the fight.",
    )


def clean_form(form, cleaned) -> dict:
    return {"extra_stunts": cleaned.get("extra_stunts") or ""}


def initial_state(engine, encounter, combatants):
    settings = {**encounter.settings, "extra_stunts": (encounter.setup or {}).get("extra_stunts", "")}
    return engine.initial_state(fighters_from(engine, combatants), settings)


# --- what everyone sees ------------------------------------------------------------------------------------------


def _ties(state) -> list[list[str]]:
    """Groups of combatants tied on both initiative and the Drama Die (the GM settles them)."""
    if not state.initiative_rolled:
        return []
    groups: dict[tuple[int, int], list[str]] = {}
    for fid in state.order:
        f = state.fighter(fid)
        groups.setdefault((f.initiative, f.drama), []).append(fid)
    return [g for g in groups.values() if len(g) > 1]


def _effects(state, f) -> tuple[str, ...]:
    """The timed effects on `f` in words, each with when it ends."""
    name = namer(state, True)
    out = []
    for e in state.effects_on(f.id):
        until = (
            "until the end of the round"
            if e.until == "round_end"
            else ("until the start of their next turn" if e.source == f.id else f"until {name(e.source)}'s next turn")
        )
        text = {
            "defend": f"Defend +{e.defense} Defense",
            "all_out": f"All-Out Attack {e.defense} Defense",
            "guard_up": f"Guard Up +{e.defense} Defense and {e.tests} on tests",
            "duck_and_weave": f"Duck and Weave +{e.defense} Defense",
            "stand_firm": "Standing firm with "
            + ("Strength (Might)" if e.other == "Strength" else "Dexterity (Acrobatics)"),
            "press": f"Pressing the attack on {name(e.other)}" + (" (they moved: pursue!)" if e.triggered else ""),
            "guardian": f"{name(e.other)} takes up to {e.points} of their damage",
        }.get(e.kind, e.kind)
        out.append(f"{text} {until}")
    return tuple(out)


def _row(state, f, sight: Sight, ties: set[str]) -> Row:
    """One combatant in the order as the viewer may see it: a player's row of an enemy carries none of its
    numbers; the GM's rows are GmRows, an enemy's an EnemyRow (its numbers marked GM-only)."""
    conditions = tuple(f.conditions)
    cover = T.COVER_LABELS.get(f.cover, "") if f.cover else ""
    prepared = T.MAJOR_ACTIONS.get(f.prepared, f.prepared) if f.prepared else ""
    jammed = tuple(T.WEAPONS[w].label for w in f.jammed if w in T.WEAPONS)
    facts = [", ".join(conditions)] if conditions else []
    facts += [cover] if cover else []
    facts += [f"jammed: {', '.join(jammed)}"] if jammed else []
    facts += [f"prepared: {prepared}"] if prepared else []
    secret = sight.secret(f.id)
    row = dict(
        key=f.id,
        name=f.name,
        pc=f.side == "pc",
        acting=state.turn == f.id,
        interrupting=state.interrupt == f.id,
        out=f.out,
        rolled_over=f.rolled_over,
        conditions=conditions,
        cover=cover,
        prepared=prepared,
        jammed=jammed,
        numbers=not secret,
    )
    if secret:
        return Row(**row, facts=tuple(facts))
    numbers = dict(
        initiative=f.initiative,
        drama=f.drama,
        defense=ex.defense(state, f),
        toughness=ex.toughness(f),
        fortune=f.fortune,
        fortune_max=f.fortune_max,
        sp=f.sp,
        facts=tuple(facts) + _effects(state, f),
    )
    if not sight.gm:
        return Row(**row, **numbers)
    kind = GmRow if f.side == "pc" else EnemyRow
    return kind(**row, **numbers, tied=f.id in ties, unseen=Sight(state.fighters, gm=False).unseen(f.id))


def public_view(encounter, state, gm: bool) -> TableView:
    """The table for the GM (gm=True: a GmTableView) or for every player: no per-user facts, no enemy numbers
    and no unseen enemy for players."""
    sight = Sight(state.fighters, gm)
    name = sight.name
    ties = _ties(state)
    tied = {fid for g in ties for fid in g}
    ids = state.order if state.initiative_rolled else tuple(f.id for f in state.fighters)
    waiting = []
    for h in state.hits:
        if not h.open or sight.unseen(h.target):
            continue
        secret = Sight(state.fighters, gm=False).secret(h.target)
        common = dict(id=h.id, target=name(h.target), attacker=name(h.attacker), stage=h.stage, pc=not secret)
        if not secret:
            waiting.append(Waiting(**common, remaining=h.remaining))
        else:  # an enemy's: what is left to absorb is the GM's
            waiting.append(EnemyWaiting(**common, remaining=h.remaining) if gm else Waiting(**common, remaining=None))
    view = dict(
        round=state.round,
        begun=state.begun,
        initiative_rolled=state.initiative_rolled,
        breathers_taken=state.ended,
        turn=state.turn,
        turn_name=name(state.turn) if state.turn else "",
        interrupt_name=name(state.interrupt) if state.interrupt else "",
        order=tuple(_row(state, state.fighter(fid), sight, tied) for fid in ids if sight.visible(fid)),
        waiting=tuple(waiting),
        blast=Blast(thrower=name(state.blast.thrower), scatter=state.blast.scatter) if state.blast else None,
        churn_on=bool(state.settings.get("churn")),
        churn_shown=state.churn if state.settings.get("churn") and state.settings.get("churn_public") else None,
    )
    if gm:
        return GmTableView(**view, **_gm_view(state, ties))
    return TableView(**view)


def _gm_view(state, ties) -> dict:
    panels = []
    for fid in dict.fromkeys([state.interrupt, state.turn, *(a.fighter for a in state.free_attacks)]):
        if fid:
            panels.append(_panel(state, state.fighter(fid), gm=True))
    everyone = tuple(Ref(key=f.id, name=f.name) for f in state.fighters)
    landed = None
    if state.landed:
        caught = state.landed.targets
        landed = Landed(
            thrower=state.fighter(state.landed.thrower).name,
            caught=tuple(state.fighter(fid).name for fid in caught),
            others=tuple(Ref(key=f.id, name=f.name) for f in state.fighters if f.id not in caught and not f.out),
        )
    return dict(
        landed=landed,
        entered_dice=bool(state.settings.get("entered_dice")),
        churn=state.churn,
        churn_jam_cost=state.settings.get("churn_jam_cost", 1),
        tie_groups=tuple(tuple(Ref(key=fid, name=state.fighter(fid).name) for fid in g) for g in ties),
        can_break_ties=state.initiative_rolled and not state.begun,
        everyone=everyone,
        conditions=CONDITIONS,
        panels=tuple(panels),
        prepared=tuple(
            Prepared(key=f.id, name=f.name, action=T.MAJOR_ACTIONS.get(f.prepared, f.prepared))
            for f in state.fighters
            if f.prepared and f.can_act and f.id != state.turn
        ),
        roll_overs=tuple(
            RollOver(key=f.id, name=f.name, condition=f.roll_over_asked)
            for f in state.fighters
            if f.roll_over_asked and not f.out
        ),
        hits=tuple(_hit(state, h, state.fighter(h.target), gm=True) for h in state.hits if h.open),
        stunts=tuple(StuntRow(name=s.name, cost=s.cost_label, text=s.text, effect=s.effect) for s in state.stunts),
        effects=tuple(EFFECT_LABELS.items()),
        damage_conditions=DAMAGE_CONDITIONS,
        jammable=tuple(f.name for f in state.fighters if f.id == state.turn and _missed_gun(state, f)),
        churn_levels=T.CHURN_THRESHOLDS,
        give_weapons=give_weapons(state),
        **churn_fields(state),
    )


def _missed_gun(state, f) -> bool:
    mine = [t for t in state.tests if t.fighter == f.id]
    last = mine[-1] if mine else None
    return bool(
        last
        and last.kind in ("attack", "stunt_attack")
        and not last.success
        and T.WEAPONS[last.weapon].gun
        and last.weapon not in f.jammed
    )


# --- one combatant's controls (a player's phone, or the GM acting for an NPC) --------------------------------------


def _actions_left(state, own_turn: bool) -> str:
    if not own_turn:
        return ""
    used = state.turn_actions
    if len(used) >= 2:
        return "No actions left: end your turn when you are done."
    if not used:
        return "A major and a minor action, or two minor actions."
    return "One minor action." if state.majors_taken else "A major or a minor action."


def _ahead(state, f, sight: Sight) -> list[str]:
    """The names of those the viewer may see who act after whoever's turn it is and before `f` (the order as it
    stands; Momentum may still move someone next round)."""
    order = list(state.order)
    if state.turn not in order or f.id not in order:
        return []
    now, mine = order.index(state.turn), order.index(f.id)
    between = order[now + 1 : mine] if mine > now else order[now + 1 :] + order[:mine]
    return [sight.name(x) for x in between if sight.visible(x) and state.fighter(x).can_act]


def _capital(name: str) -> str:
    return name[:1].upper() + name[1:]  # "someone unseen" may start a sentence


def _waiting(state, f, sight: Sight) -> str:
    """Off turn, one sentence for the player: who acts and what they are waiting for. Names only as the player
    may read them (an unseen enemy is never counted nor named)."""
    if f.out:
        return "You are out of this fight."
    if not state.initiative_rolled:
        return "Before the fight: the GM rolls initiative for everyone."
    if not state.begun:
        return "Initiative is rolled: the GM begins the first turn."
    if state.interrupt == f.id or (state.turn == f.id and not state.interrupt):
        return ""
    if not state.turn:
        return "Between turns: the GM starts the next one."
    acting = _capital(sight.name(state.turn))
    if state.interrupt:
        whose = "your turn" if state.turn == f.id else f"{sight.name(state.turn)}'s turn"
        return f"{_capital(sight.name(state.interrupt))} interrupts {whose} with a prepared action."
    if not f.can_act:
        return f"{acting} is taking their turn; you cannot act ({', '.join(f.conditions)})."
    ahead = _ahead(state, f, sight)
    if not ahead:
        return f"{acting} is taking their turn; you are next."
    then = ", ".join(ahead) if len(ahead) <= 3 else f"{len(ahead)} others"
    return f"{acting} is taking their turn; then {then}, then you."


def _out_of_turn(f, p_hits, self_interrupt: bool, pursue, free_actions) -> tuple[str, ...]:
    """What a player may do while someone else acts."""
    out = []
    if p_hits:
        out.append("absorb the damage below")
    if self_interrupt:
        out.append(f"interrupt with your prepared {T.MAJOR_ACTIONS.get(f.prepared, f.prepared)}")
    elif f.prepared and f.can_act:
        out.append(f"ask the GM to interrupt with your prepared {T.MAJOR_ACTIONS.get(f.prepared, f.prepared)}")
    out += [f"pursue {r.name}" for r in pursue]
    if free_actions:
        out.append("make the extra attack your stunt earned")
    return tuple(out)


def _stunt_options(state, f, gm: bool) -> tuple[tuple[Stunt, ...], tuple[Ref, ...]]:
    """The stunts `f` can still afford this turn, each at most once a round."""
    test = state.test(f.sp_test)
    if f.sp <= 0 or test is None:
        return (), ()
    name = namer(state, gm)
    allies = tuple(
        Ref(key=a.id, name=a.name) for a in state.fighters if a.side == f.side and a.id != f.id and not a.out
    )
    out = []
    for s in state.stunts:
        if s.key in f.stunts_used or s.cost > f.sp:
            continue
        if s.damaging and test.kind == "stunt_attack" and not test.doubles:
            continue
        if s.effect in ALLY_EFFECTS and not allies:
            continue
        top = f.sp if s.max_cost == 0 else min(s.max_cost, f.sp)
        out.append(
            Stunt(
                key=s.key,
                name=s.name,
                cost=s.cost_label,
                text=s.text,
                points=tuple(range(s.cost, top + 1)),
                needs_ally=s.effect in ALLY_EFFECTS,
                skirmish=s.effect == "skirmish",
                target=name(test.target) if test.target else "",
            )
        )
    return tuple(out), allies


def _change_die(state, f) -> ChangeDie | None:
    """Fortune may still change a die of `f`'s latest test this turn (until something builds on it)."""
    mine = [t for t in state.tests if t.fighter == f.id]
    if not mine or mine[-1].locked or mine[-1].churned:
        return None
    test = mine[-1]
    die_cost = int(state.settings.get("fortune_die_cost", 0))
    drama_cost = int(state.settings.get("fortune_drama_cost", 0))
    dice = []
    for i, face in enumerate(test.faces):
        cost = drama_cost if i == 2 else die_cost
        if 0 < cost <= f.fortune:
            dice.append(DieChoice(index=i, face=face, cost=cost, drama=i == 2))
    if not dice:
        return None
    return ChangeDie(faces=tuple(test.faces), total=test.total, success=test.success, dice=tuple(dice))


def _hit(state, h, target, gm: bool) -> Hit:
    name = namer(state, gm)
    nxt = ex.next_condition(state, target)
    return Hit(
        id=h.id,
        target=target.name,
        target_key=target.id,
        pc=target.side == "pc",
        attacker=name(h.attacker),
        weapon=T.WEAPONS[h.weapon].label if h.weapon in T.WEAPONS else "",
        damage=h.damage,
        toughness=0 if h.penetrating else h.toughness,
        cover=h.cover,
        penetrating=h.penetrating,
        stunning=h.stunning,
        transferred=h.transferred,
        after_toughness=h.after_toughness,
        remaining=h.remaining,
        stage=h.stage,
        fortune=target.fortune,
        max_fortune=min(target.fortune, h.remaining),
        next_condition=nxt,
    )


def _panel(state, f, gm: bool) -> Panel:
    """Everything one combatant may do right now, as the controls need it."""
    own_turn = state.begun and state.turn == f.id and not state.interrupt and f.can_act
    interrupting = state.interrupt == f.id and f.can_act
    free = [a for a in state.free_attacks if a.fighter == f.id] if f.can_act else []
    used = len(state.turn_actions) if own_turn else 2
    major_ok = own_turn and used < 2 and state.majors_taken == 0
    whole_run = bool(state.settings.get("run_ends_turn"))
    minor_ok = own_turn and used < 2
    prepared = f.prepared if interrupting else ""
    attack_actions = []
    if major_ok or prepared in T.ATTACK_ACTIONS:
        for key in T.ATTACK_ACTIONS:
            if prepared and key != prepared:
                continue
            if key == "charge" and f.prone:
                continue
            attack_actions.append((key, T.MAJOR_ACTIONS[key]))
    free_actions = (
        tuple((k, T.MAJOR_ACTIONS[k]) for k in ("ranged_attack", "melee_attack", "stunt_attack")) if free else ()
    )
    sight = Sight(state.fighters, gm)
    name = sight.name
    struck = (
        sorted(
            {
                t.target
                for t in state.tests
                if t.fighter == f.id and t.action in T.MELEE_FAMILY and t.success and t.target
            }
        )
        if own_turn
        else []
    )
    pursue = tuple(
        Ref(key=e.other, name=name(e.other))
        for e in state.effects
        if e.kind == "press" and e.source == f.id and e.triggered and f.can_act
    )
    stunts, allies = _stunt_options(state, f, gm) if f.sp > 0 and f.can_act else ((), ())
    hits = tuple(_hit(state, h, f, gm) for h in state.hits if h.target == f.id and h.open)
    weapons = attacks.weapon_rows(state, f)
    default_weapon = attacks.default_weapon(f, weapons)
    targets = attacks.targets(state, f, gm)
    target = next((t for t in targets if not t.total_cover), None)  # allies, the out and the unseen are not there
    quick = attacks.quick_attack(attack_actions, weapons, default_weapon, target)
    kinds = [k for k, _ in attack_actions or free_actions]
    ranged = next((w.ranged for w in weapons if w.key == default_weapon), False)
    preferred = quick.action if quick else "ranged_attack" if ranged else "melee_attack"
    default_action = preferred if preferred in kinds else kinds[0] if kinds else ""
    blast_targets = tuple(Ref(key=t.id, name=t.name) for t in state.fighters if not t.out and sight.visible(t.id))
    self_interrupt = (
        state.settings.get("prepare_interrupt") == "player"
        and bool(f.prepared)
        and f.can_act
        and state.begun
        and not state.interrupt
        and state.turn != f.id
    )
    return Panel(
        key=f.id,
        name=f.name,
        pc=f.side == "pc",
        out=f.out,
        can_act=f.can_act,
        own_turn=own_turn,
        interrupting=interrupting,
        prepared_action=prepared,
        prepared_label=T.MAJOR_ACTIONS.get(f.prepared, f.prepared) if f.prepared else "",
        actions_left=_actions_left(state, own_turn),
        major_ok=major_ok,
        minor_ok=minor_ok,
        can_defend=(major_ok and "guard_up" not in state.turn_actions) or prepared == "defend",
        can_run=((major_ok and not (whole_run and state.turn_actions)) or prepared == "run") and not f.prone,
        run_whole_turn=whole_run and prepared != "run",
        can_test=major_ok or prepared == "other_major",
        can_guard_up=minor_ok and state.majors_taken == 0 and not {"defend", "guard_up"} & set(state.turn_actions),
        can_prepare=own_turn and not state.turn_actions,
        attack_actions=tuple(attack_actions),
        free_actions=free_actions,
        free_target=next((name(a.target) for a in free if a.target), ""),
        weapons=weapons,
        default_weapon=default_weapon,
        targets=targets,
        default_target=target.key if target else "",
        default_action=default_action,
        quick_attack=quick,
        waiting="" if gm else _waiting(state, f, sight),
        out_of_turn=()
        if gm or own_turn or interrupting
        else _out_of_turn(f, hits, self_interrupt, pursue, free_actions),
        objects=tuple(ObjectSize(key=k, label=v[0], examples=v[1], tn=v[2]) for k, v in T.OBJECT_SIZES.items()),
        focuses=tuple(
            x.split("(", 1)[1].rstrip(")") for x in f.focuses if x.split("(", 1)[0].strip() in ("Accuracy", "Fighting")
        ),
        half_speed=ex.speed(state, f) // 2,
        speed=ex.speed(state, f),
        run=2 * ex.speed(state, f),
        prone=f.prone,
        aim=f.aim,
        in_hand=f.in_hand,
        grenade=f.in_hand == "grenade" and (major_ok or prepared == "ranged_attack") and state.blast is None,
        grenade_reach=ex.weapon_range(state, f, T.WEAPONS["grenade"])[1],
        grenade_roll=attacks.roll(
            ex.test_bonus(state, f, "Accuracy", T.WEAPONS["grenade"].focuses)[0]
            + (T.AIM_BONUS if f.aim else 0)
            + T.COVER.get(min(f.cover, 3), (0, 0))[1]
        ),
        grenade_tn=T.GRENADE_TN,
        blast_targets=blast_targets,
        jammed=tuple(Jam(key=w, label=T.WEAPONS[w].label) for w in f.jammed if w in T.WEAPONS),
        press_targets=tuple(Ref(key=fid, name=name(fid)) for fid in struck),
        pursue=pursue,
        sp=f.sp,
        stunts=stunts,
        allies=allies,
        change_die=_change_die(state, f) if f.can_act else None,
        hits=hits,
        self_interrupt=self_interrupt,
        end_turn=state.begun and state.turn == f.id and not state.interrupt,
        roll_over=not f.out and not f.roll_over_asked,
        roll_over_asked=f.roll_over_asked,
        roll_over_conditions=DAMAGE_CONDITIONS,
        defense=ex.defense(state, f),
        toughness=ex.toughness(f),
        fortune=f.fortune,
        fortune_max=f.fortune_max,
        conditions=tuple(f.conditions),
        effects=_effects(state, f),
        cover=T.COVER_LABELS.get(f.cover, "") if f.cover else "",
        in_hand_label=(
            T.WEAPONS[f.in_hand].label
            if f.in_hand in T.WEAPONS
            else T.SHIELDS[f.in_hand][0]
            if f.in_hand in T.SHIELDS
            else f.in_hand
        ),
        shield=T.SHIELDS[f.shield][0] if f.shield != "none" else "",
        shields=tuple((k, v[0]) for k, v in T.SHIELDS.items() if k != "none"),
        **panel_facts(state, f, minor_ok),
        abilities=ex.ABILITIES,
        majors=tuple(T.MAJOR_ACTIONS.items()),
        guard_choices=T.GUARD_UP_CHOICES,
        gm=gm,
    )


def private_view(encounter, state, user_id: int) -> MeView:
    """One player's own combatants and what each may do now; `your_turn` / `you_may_act` drive the banner."""
    mine = tuple(_panel(state, f, gm=False) for f in state.pcs() if f.owner == user_id)
    your_turn = any(p.own_turn for p in mine)
    may = any(p.interrupting or p.hits or p.free_actions or p.pursue or p.self_interrupt for p in mine)
    return MeView(
        mine=mine,
        entered_dice=bool(state.settings.get("entered_dice")),
        your_turn=your_turn,
        you_may_act=may,
        round=state.round,
    )


class ExpanseTable(Table):
    """The Expanse (AGE) at the table: this module's functions are its parts."""

    PERSISTS = (
        "Fortune and conditions go back to the characters' sheets (take the breathers first if the "
        "group rests); stunt points and the round's effects end with the fight."
    )
    ME_FIRST = True  # a player's page puts their own controls before the table (combat.fragments)
    review = ex_review
    round_title = staticmethod(ex_review.round_title)
    section_title = staticmethod(ex_review.section_title)

    build_form = staticmethod(build_form)
    clean_form = staticmethod(clean_form)
    initial_state = staticmethod(initial_state)
    public_view = staticmethod(public_view)
    private_view = staticmethod(private_view)

    def facts(self, state, event, gm: bool):
        return ex_review.facts(state, event, gm=gm)  # a player knows a test's odds only against a Defense they see

    def fallen(self, state) -> list[str]:
        return [f.id for f in state.fighters if f.out]  # taken out or rolled over
