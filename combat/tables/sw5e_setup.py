"""SW5e at the table, before and after the fight: the encounter builder's ship choices, the set-up state from the
campaign's ships and their crew stations, and writing the ships' numbers back when the encounter ends (the
engine keys ships by f"ship{pk}"; only ships of the encounter's campaign are written). The table during the
fight is combat/tables/sw5e.py."""

from __future__ import annotations

from dataclasses import replace

from django import forms
from django.core.exceptions import ValidationError

from combat.rules import sw5e as sw
from combat.rules.core import RuleError
from combat.rules.sw5e import ship as sws
from ships.models import CrewAssignment, Ship

TAKING_PART = (("", "Not in this fight"), ("ready", "In the fight"), ("surprised", "In the fight, surprised"))


def ship_key(pk: int) -> str:
    return f"ship{pk}"


def ship_dict(row: Ship, *, side: str | None = None, surprised: bool = False, crew: dict | None = None) -> dict:
    """The engine's description of a ships.Ship row (see combat.rules.sw5e.setup)."""
    return {
        "id": ship_key(row.pk),
        "name": row.name,
        "side": side or row.side,
        "size": row.size,
        "tier": row.tier,
        "hull": row.hull,
        "hull_max": row.hull_max,
        "shields": row.shields,
        "shields_max": row.shields_max,
        "hull_dice": row.hull_dice,
        "shield_dice": row.shield_dice,
        "shield_type": row.shield_type,
        "reactor": row.reactor,
        "coupling": row.coupling,
        "power": row.stored_power(),
        "weapons": row.weapon_list(),
        "con_mod": row.con_modifier,  # with the size's adjustment
        "str_mod": row.str_modifier,
        "ac": row.armour_class,
        "armour": row.armour,
        "initiative_mod": row.initiative_mod,
        "surprised": surprised,
        "crew": crew or {},
        "system_damage": min(row.system_damage, 5),
        "used": row.used,
        "saves_made": min(row.saves_made, 2) if row.hull == 0 else 0,
        "saves_failed": min(row.saves_failed, 2) if row.hull == 0 else 0,
        "stable": row.stable and row.hull == 0,
    }


def build_form(form) -> None:
    """One "takes part / surprised" choice per ship of the campaign, and surprised crew members. The generic
    "unseen" choice means nothing here (surprise does that job), so it is not offered."""
    form.sw5e_ships = list(Ship.objects.filter(campaign=form.campaign).order_by("-side", "name", "pk"))
    if not any(not row.is_npc for row in form.sw5e_ships):
        no_ship = "SW5e fights are between ships: add the party's ship (and any NPC ships) on the campaign page."
        form.fields["model"].help_text = no_ship
    for row in form.sw5e_ships:
        form.fields[f"ship_{row.pk}"] = forms.ChoiceField(
            label=f"{row.name} ({'NPC ship' if row.is_npc else 'party ship'})",
            choices=TAKING_PART,
            required=False,
            initial="",
            error_messages={"invalid_choice": "Choose whether the ship is in this fight."},
        )
    people = [(c.pk, c.name) for c in form.fields["pcs"].queryset] + [(c.pk, c.name) for c in form.npcs]
    form.fields["surprised_crew"] = forms.TypedMultipleChoiceField(
        label="Surprised crew members (they lose their first turn)",
        choices=people,
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="The crew come from each ship's stations; the GM can change them before combat starts.",
    )
    form.fields["hidden"].widget = forms.MultipleHiddenInput()


def clean_form(form, cleaned) -> dict:
    chosen = [(row, cleaned.get(f"ship_{row.pk}") or "") for row in form.sw5e_ships]
    chosen = [(row, value == "surprised") for row, value in chosen if value]
    if not any(not row.is_npc for row, _ in chosen):
        raise ValidationError("Choose at least one party ship for this fight.")
    try:  # the ships' numbers as the engine reads them: a sentence now rather than a failure when it starts
        sw.initial_state([ship_dict(row) for row, _ in chosen], (), cleaned.get("settings"))
    except RuleError as exc:
        raise ValidationError(str(exc)) from None
    # NPC crew at the chosen ships' stations come along (one of each), so the GM can act for them.
    enemies = list(cleaned.get("enemies") or [])
    present = {npc.pk for npc, _ in enemies}
    posts = (
        CrewAssignment.objects.filter(ship__in=[row for row, _ in chosen], character__kind="npc")
        .select_related("character")
        .order_by("ship_id", "pk")
    )
    for post in posts:
        if post.character_id not in present:
            enemies.append((post.character, 1))
            present.add(post.character_id)
    cleaned["enemies"] = enemies
    cleaned["hidden"] = []
    return {
        "ships": [{"pk": row.pk, "side": row.side, "surprised": surprised} for row, surprised in chosen],
        "surprised_crew": sorted(set(cleaned.get("surprised_crew") or [])),
    }


def initial_state(engine, encounter, combatants):
    """The set-up state: the chosen ships as they are now, crewed from their stations. A character with
    stations on two chosen ships boards the first; the GM can move anyone before combat starts."""
    setup = encounter.setup or {}
    entries = [e for e in setup.get("ships") or [] if isinstance(e, dict) and isinstance(e.get("pk"), int)]
    rows = {
        row.pk: row
        for row in Ship.objects.filter(
            campaign_id=encounter.campaign_id, pk__in=[e["pk"] for e in entries]
        ).prefetch_related("crew")
    }
    surprised = set(setup.get("surprised_crew") or [])
    fighters, key_of = [], {}
    for c in combatants:
        stats = c.character.full_stats() if c.character else {}
        fighter = engine.fighter_from_sheet(c.key, c.name, c.side, c.owner_id, stats)
        if c.character_id in surprised:
            fighter = replace(fighter, surprised=True)
        fighters.append(fighter)
        if c.character_id:
            key_of.setdefault(c.character_id, c.key)  # NPC kinds brought in several times: the first takes the post
    aboard: set[str] = set()
    ships = []
    for entry in entries:
        row = rows.get(entry["pk"])
        if row is None:
            continue
        crew = {}
        for post in row.crew.all():
            key = key_of.get(post.character_id)
            if key and key not in aboard:
                crew[key] = post.station
                aboard.add(key)
        ships.append(
            ship_dict(
                row,
                side=entry.get("side") if entry.get("side") in ("pc", "npc") else None,
                surprised=bool(entry.get("surprised")),
                crew=crew,
            )
        )
    return engine.initial_state(ships, tuple(fighters), encounter.settings)


def write_back(encounter, state) -> None:
    """Hull, shields, hull and shield dice, stored power dice, system damage and the destruction saves' tally go back
    to the encounter's campaign's ships, kept within what each row allows now (the GM may have edited the ship
    meanwhile)."""
    values = {}
    for sid, kept in sw.write_back(state).items():
        number = sid.removeprefix("ship")
        if sid.startswith("ship") and number.isdigit():
            values[int(number)] = kept
    rows = list(Ship.objects.filter(campaign_id=encounter.campaign_id, pk__in=values))
    for row in rows:
        kept = values[row.pk]
        row.hull = max(0, min(kept["hull"], row.hull_max))
        row.shields = max(0, min(kept["shields"], row.shields_max))
        row.hull_dice = max(0, min(kept["hull_dice"], row.hull_dice_max))
        row.shield_dice = max(0, min(kept["shield_dice"], row.hull_dice_max))
        for store in sws.STORES:
            setattr(row, f"power_{store}", max(0, min(kept[f"power_{store}"], sws.store_capacity(row.coupling, store))))
        row.system_damage = kept["system_damage"]
        row.used = bool(kept["used"])
        row.saves_made, row.saves_failed = kept["saves_made"], kept["saves_failed"]
        row.stable = bool(kept["stable"])
        if row.hull:  # the GM raised its hull meanwhile: no tally for a ship above 0 hull points
            row.saves_made, row.saves_failed, row.stable = 0, 0, False
        else:  # down again: an earlier recovery (ships/recovery.py) is history
            row.recovered_after = None
    fields = ["hull", "shields", "hull_dice", "shield_dice"] + [f"power_{s}" for s in sws.STORES]
    fields += ["system_damage", "used", "saves_made", "saves_failed", "stable", "recovered_after"]
    Ship.objects.bulk_update(rows, fields)
