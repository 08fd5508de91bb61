"""The marker that keeps GM-only facts out of a player's view model."""

from dataclasses import dataclass, field

from combat.tables.viewmodels import gm_only, gm_only_paths


@dataclass(frozen=True)
class Row:
    name: str
    health: str = ""


@dataclass(frozen=True)
class GmRow(Row):
    exact_health: str = gm_only("")


@dataclass(frozen=True)
class Table:
    rows: tuple[Row, ...] = ()
    extra: dict = field(default_factory=dict)


def test_a_view_built_from_player_types_has_no_gm_only_field():
    assert list(gm_only_paths(Table(rows=(Row("Guard", "hurt"),), extra={"x": [Row("Ana")]}))) == []


def test_a_gm_only_field_is_found_wherever_it_hides():
    view = Table(rows=(Row("Ana"), GmRow("Guard", exact_health="3/9")), extra={"more": [GmRow("Sniper")]})
    assert list(gm_only_paths(view)) == ["view.rows[1].exact_health", "view.extra['more'][0].exact_health"]
