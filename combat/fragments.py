"""Render the live table's fragments, once per audience.

Each fragment is a top-level element with an id, `hx-swap-oob` and `data-version`, so the same HTML
serves the first page load, an htmx response and a websocket frame.
"""

from __future__ import annotations

from django.template.loader import render_to_string

from combat import selectors

TEMPLATE = "combat/fragments.html"


def table_html(encounter, state, gm: bool) -> str:
    return render_to_string(f"{TEMPLATE}#table", selectors.public_view(encounter, state, gm))


def me_html(encounter, state, user_id: int) -> str:
    return render_to_string(f"{TEMPLATE}#me", selectors.private_view(encounter, state, user_id))


def gm_html(encounter, state) -> str:
    return render_to_string(f"{TEMPLATE}#gm", selectors.public_view(encounter, state, True))


def for_gm(encounter, state) -> str:
    return table_html(encounter, state, True) + gm_html(encounter, state)


def for_players(encounter, state) -> str:
    return table_html(encounter, state, False)


def for_viewer(encounter, state, membership) -> str:
    if membership.is_gm:
        return for_gm(encounter, state)
    return for_players(encounter, state) + me_html(encounter, state, membership.user_id)
