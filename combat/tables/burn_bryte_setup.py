"""Burn Bryte's encounter builder: the party's ship, and each combatant's starting square on the grid (optional).

Squares are typed as the positions module reads them ("C5": a column letter A–Z and a row number 1–99). A PC takes
one square; an NPC brought in several times takes one square per copy, in order ("B2, B3"), and copies left without
a square start off the grid, as every combatant does when the GM leaves the field empty (no range checks for them).
A bad square, or two combatants on one square, gets a sentence on its field and the builder keeps what was typed.
The chosen squares are stored in ``Encounter.setup["squares"]`` (combatant key -> [column, row])."""

from __future__ import annotations

from dataclasses import replace

from django import forms

from combat.rules.burn_bryte import positions
from combat.rules.core import RuleError
from ships.models import Ship

SQUARE_HELP = "A1 to Z99; leave empty to place them later."


def _square_field(label: str, help_text: str) -> forms.CharField:
    return forms.CharField(
        label=label,
        required=False,
        max_length=120,
        help_text=help_text,
        widget=forms.TextInput(attrs={"autocapitalize": "characters", "autocomplete": "off", "spellcheck": "false"}),
    )


def build_form(form) -> None:
    form.fields["ship"] = forms.ModelChoiceField(
        queryset=Ship.objects.filter(campaign=form.campaign),
        required=False,
        help_text="Its Livability Rating caps Advantages and Nova points.",
    )
    for pc in form.fields["pcs"].queryset:
        form.fields[f"square_pc_{pc.pk}"] = _square_field(f"Starting square: {pc.name}", SQUARE_HELP)
    for npc in form.npcs:
        form.fields[f"square_npc_{npc.pk}"] = _square_field(
            f"Starting square: {npc.name}", "One square per copy, in order (e.g. B2, B3); " + SQUARE_HELP
        )


def _squares(text: str) -> list[tuple[int, int]]:
    """The squares typed in one field, separated by commas."""
    return [positions.parse_square(part) for part in (text or "").split(",") if part.strip()]


def clean_form(form, cleaned) -> dict:
    """{"squares": {combatant key: [column, row]}} for the combatants the GM placed."""
    wanted = [(f"square_pc_{pc.pk}", f"pc{pc.pk}", pc.name, 1) for pc in cleaned.get("pcs") or ()]
    wanted += [(f"square_npc_{npc.pk}", f"npc{npc.pk}", npc.name, n) for npc, n in cleaned.get("enemies") or ()]
    squares: dict[str, list[int]] = {}
    taken: dict[tuple[int, int], str] = {}
    for field, key, name, copies in wanted:
        try:
            typed = _squares(cleaned.get(field) or "")
        except RuleError as exc:
            form.add_error(field, str(exc))
            continue
        if len(typed) > copies:
            times = "once" if copies == 1 else f"{copies} times"
            form.add_error(field, f"{name} is in this fight {times}: type at most {copies} square{'s' * (copies > 1)}.")
            continue
        for n, (col, row) in enumerate(typed, start=1):
            if (col, row) in taken:
                square = positions.square_name(col, row)
                form.add_error(
                    field, f"{square} is already {taken[(col, row)]}'s starting square: one creature a square."
                )
                break
            taken[(col, row)] = name
            squares[key if key.startswith("pc") else f"{key}-{n}"] = [col, row]
    return {"squares": squares}


def placed(fighters: tuple, setup: dict) -> tuple:
    """The fighters with the builder's starting squares (a fighter with none stays off the grid)."""
    squares = (setup or {}).get("squares") or {}
    return tuple(replace(f, col=squares[f.id][0], row=squares[f.id][1]) if f.id in squares else f for f in fighters)
