"""The toy model at the table: the order of play for everyone, health numbers for the GM and for each PC."""

from __future__ import annotations

from typing import Any

from combat.rules.contract import Engine
from combat.rules.core import Sight
from combat.tables.base import Table, fighters_from


class ToyTable(Table):
    PERSISTS = "Health goes back to the characters' sheets; the initiative order ends with the fight."

    def initial_state(self, engine: Engine, encounter, combatants) -> Any:
        return engine.initial_state(fighters_from(engine, combatants), encounter.settings)

    def public_view(self, encounter, state, gm: bool) -> dict[str, Any]:
        sight = Sight(state.fighters, gm)
        ids = state.order or tuple(f.id for f in state.fighters)
        rows = []
        for fid in ids:
            f = state.fighter(fid)
            if sight.unseen(fid):  # an enemy the party is not aware of: players never see it
                continue
            numbers = gm or f.side == "pc"
            rows.append({"key": f.id, "name": f.name, "acting": fid == state.turn, "down": f.down,
                         "initiative": f.initiative if numbers else None,
                         "health": f"{f.health}/{f.health_max}" if numbers else ""})
        view = {"round": state.round, "rolled": bool(state.order), "rows": rows,
                "turn_name": sight.name(state.turn) if state.turn else ""}
        if gm:
            view["everyone"] = [{"key": f.id, "name": f.name} for f in state.fighters]
        return view

    def private_view(self, encounter, state, user_id: int) -> dict[str, Any]:
        mine = [{"key": f.id, "name": f.name, "health": f.health, "health_max": f.health_max,
                 "acting": f.id == state.turn} for f in state.pcs() if f.owner == user_id]
        return {"mine": mine, "your_turn": any(m["acting"] for m in mine)}
