"""Between the campaign and an SW5e encounter: the GM's settings, the set-up state built from the campaign's ships
and crew sheets, and what goes back to the campaign when the encounter ends.

Ship dicts for ``initial_state``
--------------------------------
Each ship is a plain dict, keyed like the ``ships.Ship`` model's fields::

    {
        "id": "ship7",                  # unique; write_back is keyed by it
        "name": "Ebon Hawk",
        "side": "pc",                   # "pc" (the players' side) or "npc" (its numbers are GM-only)
        "size": "medium",               # a key of sw5e.ship.SIZES; sets the hull and shield die
        "tier": 1,                      # 0-5; sets the power die (tier 0: flat 1 by default)
        "hull": 30, "hull_max": 30,     # hull points (hull_max >= 1)
        "shields": 20, "shields_max": 20,
        "hull_dice": 5, "shield_dice": 5,   # dice remaining, at most sw5e.ship.hull_dice_total(size, tier)
        "shield_type": "directional",   # directional | fortress | quick_charge
        "reactor": "fuel_cell",         # fuel_cell | ionization | power_core
        "coupling": "direct",           # direct | distributed | hub_and_spoke
        "power": {"central": 2, "engines": 0, ...},   # stored power dice by store (missing stores: 0)
        "crew": {"pc3": "pilot", "npc9-1": "gunner"}, # fighter id -> station ("" for none; "pilot" = helm)
        # optional:
        "weapons": ["laser cannons"],   # names Fire accepts (empty: any weapon name, each once a round);
                                        # "laser cannons (+5 2d6+2)": Fire rolls attack and damage (gear.py)
        "ac": 10,                       # armour class weapon attacks roll against
        "armour": "none",               # none | deflection | reinforced: damage reduction 0, 3 or 6
        "con_mod": 0,                   # added to the hull die a Patch rolls
        "str_mod": 0,                   # added to the shield die the Regenerate Shields action rolls
        "initiative_mod": 0,            # added when the GM has the server roll an NPC ship's initiative
        "surprised": False,
        "system_damage": 0,             # levels kept from an earlier fight (0-5)
        "saves_made": 0, "saves_failed": 0, "stable": False,   # the tally of a ship still at 0 hull points
        "used": False,                  # system damage level 5 reached once
    }

Fighters come from ``fighter_from_sheet`` (SW5e crew stats ``initiative_mod``, ``bonus_action`` and
``bonus_action_for``; the sheet's usual ``station`` is only a suggestion for the crew dict). Stations come from the
ships' crew dicts; a fighter listed in no crew is in the encounter but aboard nothing until the GM assigns it
(``AssignCrew``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from combat.rules.core import clean_settings
from combat.rules.core import require as _require
from combat.rules.sw5e import disabled, gear
from combat.rules.sw5e import ship as sw
from combat.rules.sw5e.state import (
    REACTOR_LABELS,
    SETTINGS,
    STATION_LABELS,
    STORE_LABELS,
    Fighter,
    Ship,
    State,
    bonus_name,
    hull_max,
    shields_max,
)

# SETTINGS lives in state.py, where State.setting reads its defaults; it is offered here with the rest of the set-up.
__all__ = ["SETTINGS", "fighter_from_sheet", "initial_state", "outcome", "write_back"]


def _whole(data: dict[str, Any], key: str, default: int, label: str, low: int, high: int) -> int:
    raw: int = data.get(key, default)
    _require(isinstance(raw, int) and not isinstance(raw, bool), f"{label} must be a whole number.")
    _require(low <= raw <= high, f"{label} must be from {low} to {high}.")
    return raw


def _ship_from_dict(data: dict[str, Any]) -> tuple[Ship, dict[str, str]]:
    _require(isinstance(data, dict), "Each ship must be described by its numbers.")
    sid: str = data.get("id", "")
    _require(isinstance(sid, str) and sid.strip() != "", "Each ship needs an id.")
    name = str(data.get("name") or sid)
    what = f"{name}:"
    side = data.get("side", "pc")
    _require(side in ("pc", "npc"), f"{what} the side must be pc or npc.")
    size = data.get("size", "medium")
    _require(size in sw.SIZES, f"{what} the size must be one of {', '.join(sw.SIZES)}.")
    tier = _whole(data, "tier", 0, f"{name}'s tier", 0, 5)
    hull_max = _whole(data, "hull_max", 30, f"{name}'s maximum hull points", 1, 100_000)
    hull = _whole(data, "hull", hull_max, f"{name}'s hull points", 0, hull_max)
    shields_max = _whole(data, "shields_max", 0, f"{name}'s maximum shield points", 0, 100_000)
    shields = _whole(data, "shields", shields_max, f"{name}'s shield points", 0, shields_max)
    dice_max = sw.hull_dice_total(size, tier)
    hull_dice = _whole(data, "hull_dice", dice_max, f"{name}'s hull dice", 0, dice_max)
    shield_dice = _whole(data, "shield_dice", dice_max, f"{name}'s shield dice", 0, dice_max)
    shield_type = data.get("shield_type", "directional")
    _require(shield_type in sw.SHIELD_TYPES, f"{what} the shield type must be directional, fortress or quick_charge.")
    reactor = data.get("reactor", "fuel_cell")
    _require(reactor in REACTOR_LABELS, f"{what} the reactor must be fuel_cell, ionization or power_core.")
    coupling = data.get("coupling", "direct")
    _require(coupling in sw.COUPLING_CAPACITY, f"{what} the coupling must be direct, distributed or hub_and_spoke.")
    raw_power = data.get("power") or {}
    _require(
        isinstance(raw_power, dict) and set(raw_power) <= set(sw.STORES),
        f"{what} stored power dice go in the stores {', '.join(sw.STORES)}.",
    )
    power: dict[str, int] = {}
    for store in sw.STORES:
        power[store] = _whole(raw_power, store, 0, f"{name}'s power dice in the {STORE_LABELS[store]}", 0, 99)
    errors = sw.stored_dice_errors(coupling, power)
    _require(not errors, f"{name}: " + next(iter(errors.values()), ""))
    weapons = data.get("weapons") or []
    _require(
        isinstance(weapons, (list, tuple)) and all(isinstance(w, str) and w.strip() for w in weapons),
        f"{what} weapons are a list of names.",
    )
    for entry in weapons:
        error = gear.weapon_error(entry)
        _require(not error, f"{name}: {error}")
    parsed = [gear.parse_weapon(w) for w in weapons]
    armour = data.get("armour", "none")
    _require(armour in gear.ARMOUR, f"{what} the armour must be none, deflection or reinforced.")
    crew = data.get("crew") or {}
    _require(isinstance(crew, dict), f"{what} the crew maps each crew member to a station.")
    for station in crew.values():
        _require(
            isinstance(station, str) and (station == "" or station in STATION_LABELS),
            f"{what} {station!r} is not a station.",
        )
    _require(sum(1 for st in crew.values() if st == "pilot") <= 1, f"{name} has only one helm.")
    surprised = data.get("surprised", False)
    _require(isinstance(surprised, bool), f"{what} surprised is true or false.")
    level = _whole(data, "system_damage", 0, f"{name}'s system damage level", 0, 5)
    down = hull == 0  # the tally only means something for a ship still at 0 hull points
    made = _whole(data, "saves_made", 0, f"{name}'s successful destruction saves", 0, 2) if down else 0
    failed = _whole(data, "saves_failed", 0, f"{name}'s failed destruction saves", 0, 2) if down else 0
    stable, used = data.get("stable", False), data.get("used", False)
    _require(isinstance(stable, bool) and isinstance(used, bool), f"{what} stable and used are true or false.")
    ship = Ship(
        id=sid,
        name=name,
        side=side,
        size=size,
        tier=tier,
        hull=hull,
        hull_max=hull_max,
        shields=shields,
        shields_max=shields_max,
        hull_dice=hull_dice,
        shield_dice=shield_dice,
        shield_type=shield_type,
        reactor=reactor,
        coupling=coupling,
        power=power,
        weapons=tuple(n for n, _ in parsed),
        weapon_stats={n: stats.spec for n, stats in parsed if stats is not None},
        ac=_whole(data, "ac", 10, f"{name}'s AC", 0, 40),
        reduction=gear.damage_reduction(armour),
        con_mod=_whole(data, "con_mod", 0, f"{name}'s Constitution modifier", -10, 20),
        str_mod=_whole(data, "str_mod", 0, f"{name}'s Strength modifier", -10, 20),
        initiative_mod=_whole(data, "initiative_mod", 0, f"{name}'s initiative modifier", -10, 20),
        surprised=surprised,
        status="active" if hull > 0 else "disabled",
        system_damage=level,
        saves_made=made,
        saves_failed=failed,
        stable=stable and down,
        used=used or level >= disabled.USED_LEVEL,
    )
    return ship, dict(crew)


def initial_state(
    ships: Sequence[dict[str, Any]], fighters: tuple[Fighter, ...], settings: dict[str, Any] | None
) -> State:
    """The set-up state: ships from plain dicts (shape in the module docstring) and their crews."""
    built = [_ship_from_dict(data) for data in ships]
    _require(bool(built), "An encounter needs at least one ship.")
    ids = [s.id for s, _ in built]
    _require(len(ids) == len(set(ids)), "Two ships share an id.")
    _require(any(s.side == "pc" for s, _ in built), "An encounter needs a ship on the players' side.")
    fids = [f.id for f in fighters]
    _require(len(fids) == len(set(fids)), "Two crew members share an id.")
    aboard: dict[str, tuple[str, str]] = {}
    for ship, crew in built:
        for fid, station in crew.items():
            _require(fid in fids, f"{ship.name}'s crew names someone who is not in this encounter.")
            _require(fid not in aboard, "A crew member can be aboard only one ship.")
            aboard[fid] = (ship.id, station)
    crewed = tuple(
        replace(f, ship=aboard[f.id][0], station=aboard[f.id][1]) if f.id in aboard else replace(f, ship="", station="")
        for f in fighters
    )
    state = State(ships=tuple(s for s, _ in built), fighters=crewed, settings=clean_settings(SETTINGS, settings))
    # A ship that comes in at system damage level 4 or more fits under its halved maxima.
    fitted = tuple(
        replace(s, hull=min(s.hull, hull_max(state, s)), shields=min(s.shields, shields_max(state, s)))
        for s in state.ships
    )
    return replace(state, ships=fitted)


def fighter_from_sheet(
    key: str, name: str, side: str, owner: int | None, stats: dict[str, Any], aware_of: tuple[str, ...] = ()
) -> Fighter:
    """A crew member from a character sheet (see sw5e.stats). Side "pc" stays a PC; anything else is NPC crew.
    `aware_of` is taken as every model takes it and left unused: SW5e tracks no awareness."""

    def whole(key: str, default: int) -> int:
        try:
            return int(stats.get(key, default))
        except (TypeError, ValueError):
            return default

    modifier = whole("initiative_mod", 0)
    return Fighter(
        id=key,
        name=name,
        side="pc" if side == "pc" else "npc",
        owner=owner if side == "pc" else None,
        initiative_mod=modifier,
        bonus_action=bool(stats.get("bonus_action", False)),
        bonus_for=bonus_name(str(stats.get("bonus_action_for") or "")),
        stealth_mod=whole("stealth_mod", 0),
        passive_perception=whole("passive_perception", 10),
    )


# --- after the encounter ----------------------------------------------------------------------------------------------


def write_back(state: State) -> dict[str, dict[str, int]]:
    """What persists on each ship after the encounter, keyed by ship id, with the ships.Ship field names: hull,
    shields, hull and shield dice, stored power dice by store, system damage (by the `system_damage_after`
    setting; a destroyed ship's level 6 is not a level a record keeps), whether it is used, and the destruction
    saves' tally of a ship still at 0 hull points. Nothing persists for the crew."""
    kept = state.setting("system_damage_after") == "kept"
    return {
        s.id: {
            "hull": s.hull,
            "shields": s.shields,
            "hull_dice": s.hull_dice,
            "shield_dice": s.shield_dice,
            **{f"power_{store}": s.stored(store) for store in sw.STORES},
            "system_damage": min(s.system_damage, disabled.USED_LEVEL) if kept else 0,
            "used": int(s.used or s.system_damage >= disabled.USED_LEVEL),
            "saves_made": s.saves_made if s.status == "disabled" else 0,
            "saves_failed": s.saves_failed if s.status == "disabled" else 0,
            "stable": int(s.stable and s.status == "disabled"),
        }
        for s in state.ships
    }


def outcome(state: State) -> str:
    """ "Victory" when every NPC ship is disabled or destroyed, "Defeat" when every PC ship is; otherwise ""."""
    npc = [s for s in state.ships if s.side != "pc"]
    pcs = [s for s in state.ships if s.side == "pc"]
    if npc and not any(s.active for s in npc):
        return "Victory"
    if pcs and not any(s.active for s in pcs):
        return "Defeat"
    return ""
