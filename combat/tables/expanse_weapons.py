"""The Expanse at the table: weapons in hand (combat.rules.expanse.weapons) as the phone and the GM's screen show
them. What a combatant holds, carries stowed and has broken, the one-tap Ready buttons, and why a weapon of the
attack builder cannot be used yet.
"""

from __future__ import annotations

from combat.rules.expanse import rulebook as T
from combat.rules.expanse import weapons
from combat.tables.expanse_views import Jam


def unready(state, f, key: str) -> str:
    """Why hands keep `f` from attacking with `key` now ("" when they do not)."""
    if key in f.broken:
        return "broken"
    return "" if weapons.wieldable(state, f, key) else "Ready first"


def panel_facts(state, f, minor_ok: bool) -> dict:
    """The panel's weapon fields: stowed, broken, the one-tap Ready buttons and the Ready form's choices."""
    stowed = tuple(Jam(key=w, label=T.WEAPONS[w].label) for w in weapons.stowed(f))
    return dict(
        stowed=stowed,
        broken=tuple(T.WEAPONS[w].label for w in f.broken if w in T.WEAPONS),
        ready_now=stowed if minor_ok and weapons.tracks_hands(state) else (),
        readies=tuple((k, T.WEAPONS[k].label) for k in weapons.readies(state, f)),
    )


def give_weapons(state) -> tuple[tuple[str, str], ...]:
    """The weapon types the GM may hand out, or none in a fight begun before weapons were tracked."""
    if not weapons.tracks_breaks(state):
        return ()
    return tuple((k, w.label) for k, w in T.WEAPONS.items() if k not in weapons.NO_HANDS)
