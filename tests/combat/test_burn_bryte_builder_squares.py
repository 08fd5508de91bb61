"""Burn Bryte's encounter builder places combatants on the grid (issue 18): each starting square is optional, a bad
one gets a sentence and the builder keeps what was typed.

Rules notes (../shared/rules/burn-bryte.md): positions are squares on a grid ("Burst N: every creature within N
squares of a point"); a square holds one creature above 0 Health Levels."""

import re

import pytest
from django.urls import reverse

from combat.models import Encounter
from combat.rules import burn_bryte as bb
from tests.combat.helpers import state_of

pytestmark = pytest.mark.django_db


def builder(pc, other_pc, npc, **fields):
    data = {
        "name": "Relay ambush",
        "model": "burn_bryte",
        "pcs": [pc.pk, other_pc.pk],
        f"npc_{npc.pk}": 2,
        **{f"setting_{s.key}": str(s.default) for s in bb.SETTINGS if not isinstance(s.default, bool)},
    }
    data.update(fields)
    return data


def squares(encounter):
    return {f.name: (f.col, f.row) for f in state_of(encounter).fighters}


def test_the_gm_sets_starting_squares_in_the_builder_and_the_fight_starts_with_them(
    gm_client, campaign, pc, other_pc, npc
):
    url = reverse("encounter_create", args=[campaign.pk])
    page = gm_client.get(url).content.decode()
    assert "Starting square: Luwe" in page and "Starting square: Nivick" in page
    fields = {f"square_pc_{pc.pk}": "c5", f"square_npc_{npc.pk}": "H1, h 2"}
    response = gm_client.post(url, builder(pc, other_pc, npc, **fields))
    assert response.status_code == 302, response.content.decode()[:2000]
    encounter = Encounter.objects.get()
    assert squares(encounter) == {"Luwe": (3, 5), "Furo": (0, 0), "Nivick 1": (8, 1), "Nivick 2": (8, 2)}
    assert encounter.setup == {"squares": {f"pc{pc.pk}": [3, 5], f"npc{npc.pk}-1": [8, 1], f"npc{npc.pk}-2": [8, 2]}}


def test_an_npc_copy_left_without_a_square_starts_off_the_grid(gm_client, campaign, pc, other_pc, npc):
    url = reverse("encounter_create", args=[campaign.pk])
    response = gm_client.post(url, builder(pc, other_pc, npc, **{f"square_npc_{npc.pk}": "B2"}))
    assert response.status_code == 302
    assert squares(Encounter.objects.get())["Nivick 2"] == (0, 0)


@pytest.mark.parametrize(
    ("typed", "sentence"),
    [
        ({"pc": "C0"}, "Name a square as a column letter A–Z and a row number 1–99, e.g. C5."),
        ({"pc": "5C"}, "Name a square as a column letter A–Z and a row number 1–99, e.g. C5."),
        ({"pc": "C5, C6"}, "Luwe is in this fight once: type at most 1 square."),
        ({"npc": "A1, A2, A3"}, "Nivick is in this fight 2 times: type at most 2 squares."),
        ({"pc": "C5", "npc": "D4, c5"}, "C5 is already Luwe's starting square: one creature a square."),
    ],
)
def test_a_bad_square_gets_a_sentence_and_the_builder_keeps_what_was_typed(
    gm_client, campaign, pc, other_pc, npc, typed, sentence
):
    fields = {}
    if "pc" in typed:
        fields[f"square_pc_{pc.pk}"] = typed["pc"]
    if "npc" in typed:
        fields[f"square_npc_{npc.pk}"] = typed["npc"]
    response = gm_client.post(reverse("encounter_create", args=[campaign.pk]), builder(pc, other_pc, npc, **fields))
    assert response.status_code == 400 and not Encounter.objects.exists()
    page = response.content.decode()
    assert sentence in page.replace("&#x27;", "'")
    for name, value in fields.items():
        assert re.search(rf'name="{name}"[^>]*value="{re.escape(value)}"', page) or re.search(
            rf'value="{re.escape(value)}"[^>]*name="{name}"', page
        )
