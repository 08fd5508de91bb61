"""The Expanse's attack builder on a phone: the weapons a combatant may attack with, each with its whole test bonus,
the targets in sight, and the one-tap attack for the common case."""

from __future__ import annotations

from combat.rules import expanse as ex
from combat.rules.core import Sight
from combat.rules.expanse import rulebook as T
from combat.tables.expanse_views import QuickAttack, Target, Weapon
from combat.tables.expanse_weapons import unready


def weapon_rows(state, f) -> tuple[Weapon, ...]:
    """The weapons the builder offers, each with its whole test bonus so the player sees the roll before it."""
    keys = [k for k in (f.weapons or tuple(T.WEAPONS)) if k != "grenade"]
    for extra in ("unarmed", f.in_hand):
        if extra and extra in T.WEAPONS and extra != "grenade" and extra not in keys:
            keys.append(extra)
    rows = []
    for key in keys:
        w = T.WEAPONS[key]
        ability = ex.ability(state, f, w.test_ability)
        focus = next((x for x in w.focuses if f.has_focus(w.test_ability, x)), "")
        parts = [f"{w.test_ability} {ability:+d}"]
        if focus:
            parts.append(f"{focus} +{T.FOCUS_BONUS}")
        injury = ex.condition_penalty(state, f)
        if injury:
            parts.append(f"injury {injury}")
        timed = sum(e.tests for e in state.effects_on(f.id))
        if timed:
            parts.append(f"Guard Up {timed}")
        total = ex.test_bonus(state, f, w.test_ability, w.focuses)[0]
        if f.aim:
            total += T.AIM_BONUS
            parts.append(f"Aim +{T.AIM_BONUS}")
        ranged = w.kind != "melee"
        if ranged and f.cover:
            penalty = T.COVER.get(min(f.cover, 3), (0, 0))[1]
            total += penalty
            parts.append(f"your cover {penalty}")
        if ranged:
            short, longest = ex.weapon_range(state, f, w)
            reach = f"{short} m" + (
                f", to {longest} m at -{state.settings.get('long_range_penalty', 2)}" if longest > short else ""
            )
        else:
            reach = f"within {T.MELEE_REACH} m"
        count, sides = ex.damage_dice(f, key, False)
        rows.append(
            Weapon(
                key=key,
                label=w.label,
                bonus=total,
                roll=roll(total),
                parts=", ".join(parts),
                reach=reach,
                ranged=ranged,
                jammed=key in f.jammed,
                gun=w.gun,
                makeshift=w.makeshift,
                blocked=ranged and f.cover >= T.TOTAL_COVER,
                unready=unready(state, f, key),
                damage=f"{count}d{sides}"
                + (f" + {' or '.join(a[:3] for a in w.damage_abilities)}" if w.damage_abilities else ""),
            )
        )
    return tuple(rows)


def roll(bonus: int) -> str:
    return f"3d6 + {bonus}" if bonus >= 0 else f"3d6 - {-bonus}"


def targets(state, f, gm: bool) -> tuple[Target, ...]:
    """Whom `f` may attack: the other side, still in, and for a PC only the enemies it is aware of (seed 004: a
    ranged attack is made "at one visible enemy"), whoever is looking."""
    sight = Sight(state.fighters, gm)
    return tuple(
        Target(
            key=t.id,
            name=t.name,
            defense=None if sight.secret(t.id) else ex.defense(state, t),
            total_cover=t.cover >= T.TOTAL_COVER,
        )
        for t in state.fighters
        if t.side != f.side and not t.out and sight.visible(t.id) and (f.side != "pc" or t.id in f.aware_of)
    )


def default_weapon(f, weapons) -> str:
    """The readied weapon if it can be used now, else the first usable one; bare hands last."""
    usable = [w.key for w in weapons if not w.jammed and not w.blocked and not w.unready]
    if f.in_hand in usable:
        return f.in_hand
    return next((k for k in usable if k != "unarmed"), "unarmed")


def quick_attack(attack_actions, weapons, default_weapon: str, target: Target | None) -> QuickAttack | None:
    """One tap for the common attack: the default weapon (or, should the action allowed not fit it, the next
    usable one) at the default target. None without a target or an attack action."""
    if target is None:
        return None
    allowed = dict(attack_actions)
    usable = sorted(
        (w for w in weapons if not w.jammed and not w.blocked and not w.unready), key=lambda w: w.key != default_weapon
    )
    for w in usable:
        action = "ranged_attack" if w.ranged else "melee_attack"
        if action in allowed:
            return QuickAttack(
                action=action,
                weapon=w.key,
                weapon_label=w.label,
                roll=w.roll,
                target=target.key,
                target_name=target.name,
            )
    return None
