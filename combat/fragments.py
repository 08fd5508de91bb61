"""Render the live table's fragments, once per audience.

Each fragment is a top-level element with an id, `hx-swap-oob` and `data-version`, so the same HTML
serves the first page load, an htmx response and a websocket frame. A `Renderer` reads each audience's log
once, in the words stored with it (a log without them is read and replayed once for every audience), and
builds each audience's view once, however many fragments use it.
"""

from __future__ import annotations

import threading
from functools import cached_property

from django.template.loader import render_to_string

from combat import selectors, tables
from combat.store import load_log_tail


class Renderer:
    def __init__(self, encounter, state, request=None):
        self.encounter = encounter
        self.request = request  # for a page load: its forms then carry CSRF tokens (frames cannot)
        self.state = state
        self._views: dict[bool, dict] = {}
        self._replayed: dict = {}  # the log replayed once, shared by every audience's view of it
        self.template = tables.get(encounter.model).template
        self._html: dict[tuple, str] = {}

    @cached_property
    def _tail(self):
        """(state before the first entry, entries): the log's tail the live table's log needs if it has to be
        worded by replaying it (selectors.log_view); a long log is read from its newest checkpoint on."""
        if self.encounter.status == "draft":
            return None, []
        return load_log_tail(self.encounter, selectors.LOG_WINDOW)

    def view(self, gm: bool) -> dict:
        if gm not in self._views:
            self._views[gm] = selectors.public_view(
                self.encounter, self.state, gm, tail=lambda: self._tail, replayed=self._replayed
            )
        return self._views[gm]

    def _render(self, part: str, audience, context) -> str:
        if (part, audience) not in self._html:
            self._html[part, audience] = render_to_string(f"{self.template}#{part}", context(), request=self.request)
        return self._html[part, audience]

    def table(self, gm: bool) -> str:
        return self._render("table", gm, lambda: self.view(gm))

    def gm(self) -> str:
        return self._render("gm", True, lambda: self.view(True))

    def me(self, user_id: int) -> str:
        return self._render(
            "me", user_id, lambda: selectors.private_view(self.encounter, self.state, user_id, self._hidden_rolls)
        )

    @cached_property
    def _hidden_rolls(self) -> dict[int, tuple[str, ...]]:
        """Every player's own hidden dice rolls, read once for all their fragments (selectors.hidden_rolls)."""
        return selectors.hidden_rolls(self.encounter)

    def for_gm(self) -> str:
        return self.table(True) + self.gm()

    def for_players(self) -> str:
        return self.table(False)

    def for_viewer(self, membership) -> str:
        if membership.is_gm:
            return self.for_gm()
        if tables.get(self.encounter.model).ME_FIRST:  # a phone reads its own controls first
            return self.me(membership.user_id) + self.for_players()
        return self.for_players() + self.me(membership.user_id)


# The broadcast after an action renders every audience's fragments; the action's own htmx response is one of
# them. The broadcast runs in the request's thread (after commit, inside services.submit), so it leaves its
# renderer here and the view answers with the same HTML instead of reading and rendering it all again.
_kept = threading.local()


def keep(renderer: Renderer) -> None:
    _kept.renderer = renderer


def forget() -> None:
    _kept.renderer = None


def take_kept(encounter_id: int) -> Renderer | None:
    """The renderer the broadcast of this request left for `encounter_id`, once; None if there is none."""
    renderer, _kept.renderer = getattr(_kept, "renderer", None), None
    return renderer if renderer is not None and renderer.encounter.pk == encounter_id else None


def table_html(encounter, state, gm: bool) -> str:
    return Renderer(encounter, state).table(gm)


def me_html(encounter, state, user_id: int) -> str:
    return Renderer(encounter, state).me(user_id)


def gm_html(encounter, state) -> str:
    return Renderer(encounter, state).gm()


def for_gm(encounter, state) -> str:
    return Renderer(encounter, state).for_gm()


def for_players(encounter, state) -> str:
    return Renderer(encounter, state).for_players()


def for_viewer(encounter, state, membership) -> str:
    return Renderer(encounter, state).for_viewer(membership)
