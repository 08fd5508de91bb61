"""After a commit, send every audience its fragments over the channel layer.

Two group sends per action. The players' group gets ONE message: the players' table and each PC owner's own
controls (keyed by user id). Each process holding sockets of that audience is in the group once (combat.hub) and
writes every local socket one frame: the table followed by that player's own controls only (a spectator's, the
table alone). The GMs' group gets the GM's table.

The players' message is rendered and sent first, the GM's after it: the phones wait on no GM render. The acting
GM has the htmx response anyway; other GM screens get theirs a moment later.

A failing channel layer is logged and ignored: the action is already committed and clients catch up on their
next (re)connect or page load.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from combat import fragments
from combat.models import Encounter
from combat.store import load_state

log = logging.getLogger(__name__)


def gm_group(encounter_id: int) -> str:
    return f"enc-{encounter_id}-gm"


def players_group(encounter_id: int) -> str:
    return f"enc-{encounter_id}-players"


def fragment_message(html: str, version: int, own: dict[str, str] | None = None) -> dict:
    """A `table.fragment` message; `own` maps a user id (as text) to that player's own controls.

    Plain `str`, not the SafeString templates return: the in-memory channel layer deep-copies every message it
    delivers, and a str subclass is copied character by character where a str is shared."""
    return {
        "type": "table.fragment",
        "html": str(html),
        "own": {k: str(v) for k, v in (own or {}).items()},
        "version": version,
    }


def broadcast(encounter_id: int, encounter: Encounter | None = None, state=None, players: bool = True) -> None:
    """Render and send. `encounter`: the row just committed (saves reading it again), else it is read; `state`:
    its state, if the caller has it (saves decoding it again). `players`: False when the change is one players
    may not learn of (only entries hidden from them): they get no frame, as if it had not happened."""
    try:
        if encounter is None:
            encounter = Encounter.objects.select_related("campaign").get(pk=encounter_id)
        if encounter.status == Encounter.Status.DRAFT:
            return
        render = fragments.Renderer(encounter, state if state is not None else load_state(encounter))
        fragments.keep(render)
        layer = get_channel_layer()
        if players:
            owners = sorted({f.owner for f in render.state.pcs() if f.owner})
            message = fragment_message(
                render.for_players(),
                encounter.players_version,
                {str(user_id): render.me(user_id) for user_id in owners},
            )
    except Exception:
        log.exception("could not render fragments for encounter %s (the players' table)", encounter_id)
        return
    if players:
        _send(layer, players_group(encounter_id), message)
    try:
        gm = fragment_message(render.for_gm(), encounter.version)
    except Exception:
        log.exception("could not render fragments for encounter %s (the GM's table)", encounter_id)
        return
    _send(layer, gm_group(encounter_id), gm)


def _send(layer, group: str, message: dict) -> None:
    try:
        # The group rides along, for the logs and for a reader of the message that serves more than one group.
        async_to_sync(layer.group_send)(group, {**message, "group": group})
    except Exception:
        log.warning("channel layer unavailable; %s will catch up on reconnect", group, exc_info=True)
