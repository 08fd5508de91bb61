"""The toy model at the table: the order of play for everyone, health numbers for the GM and for each PC.

Its views are typed, as every model's are: the players' table type has no GM-only field; the GM's adds them,
marked with `gm_only`, so a test walking a player's view would find any that slipped in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from combat.rules.contract import Engine
from combat.rules.core import Sight
from combat.tables.base import Table, fighters_from
from combat.tables.viewmodels import PrivateView, gm_only


@dataclass(frozen=True)
class Row:
    key: str
    name: str
    acting: bool
    down: bool
    initiative: int | None  # None: not the viewer's to know
    health: str


@dataclass(frozen=True)
class Named:
    key: str
    name: str


@dataclass(frozen=True)
class PlayersTable:
    round: int
    rolled: bool
    rows: tuple[Row, ...]
    turn_name: str


@dataclass(frozen=True, kw_only=True)
class GmTable(PlayersTable):
    rows: tuple[Row, ...] = gm_only(())  # every enemy's numbers, the unseen ones too
    everyone: tuple[Named, ...] = gm_only(())


@dataclass(frozen=True)
class Mine:
    key: str
    name: str
    health: int
    health_max: int
    acting: bool


@dataclass(frozen=True, kw_only=True)
class ToyPrivate(PrivateView):
    mine: tuple[Mine, ...] = ()


class ToyTable(Table):
    PERSISTS = "Health goes back to the characters' sheets; the initiative order ends with the fight."

    def initial_state(self, engine: Engine, encounter, combatants) -> Any:
        return engine.initial_state(fighters_from(engine, combatants), encounter.settings)

    def public_view(self, encounter, state, gm: bool) -> PlayersTable:
        sight = Sight(state.fighters, gm)
        ids = state.order or tuple(f.id for f in state.fighters)
        rows = []
        for fid in ids:
            f = state.fighter(fid)
            if sight.unseen(fid):  # an enemy the party is not aware of: players never see it
                continue
            numbers = gm or f.side == "pc"
            rows.append(
                Row(
                    key=f.id,
                    name=f.name,
                    acting=fid == state.turn,
                    down=f.down,
                    initiative=f.initiative if numbers else None,
                    health=f"{f.health}/{f.health_max}" if numbers else "",
                )
            )
        shared = {
            "round": state.round,
            "rolled": bool(state.order),
            "rows": tuple(rows),
            "turn_name": sight.name(state.turn) if state.turn else "",
        }
        if not gm:
            return PlayersTable(**shared)
        return GmTable(**shared, everyone=tuple(Named(f.id, f.name) for f in state.fighters))

    def private_view(self, encounter, state, user_id: int) -> ToyPrivate:
        mine = tuple(
            Mine(f.id, f.name, f.health, f.health_max, f.id == state.turn) for f in state.pcs() if f.owner == user_id
        )
        return ToyPrivate(mine=mine, your_turn=any(m.acting for m in mine))
