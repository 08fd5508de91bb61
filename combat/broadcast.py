"""After a commit, send every audience its fragments over the channel layer.

Two group sends per action. The players' group gets ONE message: the players' table and each PC owner's own
controls (keyed by user id); every player's socket then sends one frame, the table followed by that player's
own controls only (see TableConsumer.table_fragment). The GMs' group gets the GM's table. Both are rendered
before either is sent, and the players' message goes first: the acting GM has the htmx response anyway.

A failing channel layer is logged and ignored: the action is already committed and clients catch up on their
next (re)connect or page load.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from combat.models import Encounter

log = logging.getLogger(__name__)


def gm_group(encounter_id: int) -> str:
    return f"enc-{encounter_id}-gm"


def players_group(encounter_id: int) -> str:
    return f"enc-{encounter_id}-players"


def fragment_message(html: str, version: int, own: dict[str, str] | None = None) -> dict:
    """A `table.fragment` message; `own` maps a user id (as text) to that player's own controls."""
    return {"type": "table.fragment", "html": html, "own": own or {}, "version": version}


def broadcast(encounter_id: int, encounter: Encounter | None = None) -> None:
    """Render and send. `encounter`: the row just committed (saves reading it again), else it is read."""
    from combat import fragments
    from combat.services import load_state

    try:
        if encounter is None:
            encounter = Encounter.objects.select_related("campaign").get(pk=encounter_id)
        if encounter.status == Encounter.Status.DRAFT:
            return
        state = load_state(encounter)
        render = fragments.Renderer(encounter, state)
        fragments.keep(render)
        owners = sorted({f.owner for f in state.pcs() if f.owner})
        # Everything is rendered before the first send: rendering while the frames go out would hold the GIL
        # against the event loop that writes them, and every socket would wait longer.
        messages = [
            (players_group(encounter_id), fragment_message(render.for_players(), encounter.version,
                                                           {str(user_id): render.me(user_id) for user_id in owners})),
            (gm_group(encounter_id), fragment_message(render.for_gm(), encounter.version)),
        ]
        layer = get_channel_layer()
    except Exception:
        log.exception("could not render fragments for encounter %s", encounter_id)
        return
    for group, message in messages:
        try:
            async_to_sync(layer.group_send)(group, message)
        except Exception:
            log.warning("channel layer unavailable; %s will catch up on reconnect", group, exc_info=True)
