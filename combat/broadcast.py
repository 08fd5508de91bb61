"""After a commit, send every audience its fragments over the channel layer.

Rendered once per audience: the GMs' group, the players' group, and each player's own group for their
private controls. A failing channel layer is logged and ignored: the action is already committed and
clients catch up on their next (re)connect or page load.
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


def user_group(encounter_id: int, user_id: int) -> str:
    return f"enc-{encounter_id}-user-{user_id}"


def broadcast(encounter_id: int) -> None:
    from combat import fragments
    from combat.services import load_state

    try:
        encounter = Encounter.objects.select_related("campaign").get(pk=encounter_id)
        if encounter.status == Encounter.Status.DRAFT:
            return
        state = load_state(encounter)
        render = fragments.Renderer(encounter, state)
        messages = [
            (gm_group(encounter_id), render.for_gm()),
            (players_group(encounter_id), render.for_players()),
        ]
        owners = {f.owner for f in state.pcs() if f.owner}
        for user_id in sorted(owners):
            messages.append((user_group(encounter_id, user_id), render.me(user_id)))
        fragments.keep(render)
        layer = get_channel_layer()
    except Exception:
        log.exception("could not render fragments for encounter %s", encounter_id)
        return
    for group, html in messages:
        try:
            async_to_sync(layer.group_send)(group, {"type": "table.fragment", "html": html,
                                                    "version": encounter.version})
        except Exception:
            log.warning("channel layer unavailable; %s will catch up on reconnect", group, exc_info=True)
