"""Small server-rendered SVG charts with accessible titles. No JavaScript, readable at 360 px wide.

Each chart is a `Chart`: the SVG (axis labels on both axes), a caption saying what it shows, and the same numbers
as a table (`headers`, `rows`) that the page sets beside it for screen readers and for reading exact values."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT = 340, 196
LEFT, RIGHT, TOP, BOTTOM = 46, 8, 12, 42
_ids = itertools.count(1)


@dataclass(frozen=True)
class Chart:
    key: str  # unique on its page ("d8", "damage")
    svg: SafeString
    caption: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def bar_chart(
    title: str,
    desc: str,
    labels: list[str],
    values: list[float],
    expected: list[float] | None = None,
    y_max: float | None = None,
    percent: bool = False,
    x_label: str = "",
    y_label: str = "",
) -> SafeString:
    """Bars for `values`, with an optional expected value per bar drawn as a marker line; `x_label` and `y_label`
    name the axes."""
    n = max(1, len(values))
    top = y_max or max([*values, *(expected or []), 1])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / n
    bar_w = max(2.0, slot * 0.7)
    uid = next(_ids)
    parts = [
        (
            f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="chart{uid}t chart{uid}d" '
            'xmlns="http://www.w3.org/2000/svg">'
        ),
        f'<title id="chart{uid}t">{escape(title)}</title><desc id="chart{uid}d">{escape(desc)}</desc>',
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{WIDTH - RIGHT}" y2="{TOP + plot_h}" class="axis"/>',
        (
            f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 4}" class="axis-label" text-anchor="middle">'
            f"{escape(x_label)}</text>"
        ),
        (
            f'<text x="12" y="{TOP + plot_h / 2:.1f}" class="axis-label" text-anchor="middle" '
            f'transform="rotate(-90 12 {TOP + plot_h / 2:.1f})">{escape(y_label)}</text>'
        ),
    ]
    for frac in (0.5, 1.0):
        y = TOP + plot_h * (1 - frac)
        label = f"{round(top * frac * 100)}%" if percent else _num(top * frac)
        parts.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" class="grid"/>'
            f'<text x="{LEFT - 4}" y="{y + 4:.1f}" class="tick" text-anchor="end">{label}</text>'
        )
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        x = LEFT + slot * i + (slot - bar_w) / 2
        h = plot_h * (value / top) if top else 0
        shown = f"{round(value * 100)}%" if percent else _num(value)
        parts.append(
            f'<rect x="{x:.1f}" y="{TOP + plot_h - h:.1f}" width="{bar_w:.1f}" height="{h:.1f}" class="bar">'
            f"<title>{escape(label)}: {shown}</title></rect>"
        )
        if expected is not None:
            ey = TOP + plot_h * (1 - expected[i] / top) if top else TOP + plot_h
            exp_shown = f"{round(expected[i] * 100)}%" if percent else _num(expected[i])
            parts.append(
                f'<line x1="{x - 2:.1f}" y1="{ey:.1f}" x2="{x + bar_w + 2:.1f}" y2="{ey:.1f}" class="expected">'
                f"<title>expected {exp_shown}</title></line>"
            )
        if n <= 20 or i % max(1, n // 10) == 0:
            parts.append(
                f'<text x="{x + bar_w / 2:.1f}" y="{TOP + plot_h + 14}" class="tick" text-anchor="middle">'
                f"{escape(label)}</text>"
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def dice_faces(faces: dict[int, Counter]) -> list[Chart]:
    charts = []
    for sides, counts in sorted(faces.items()):
        total = sum(counts.values())
        labels = [str(face) for face in range(1, sides + 1)]
        values = [counts.get(face, 0) for face in range(1, sides + 1)]
        mean = total / sides
        svg = bar_chart(
            f"Faces rolled on d{sides}",
            f"{total} d{sides} faces rolled; a fair die shows each face {_num(mean)} times on average. "
            "Bars are the counts, lines the expectation.",
            labels,
            values,
            [mean] * sides,
            x_label=f"Face of the d{sides}",
            y_label="Times rolled",
        )
        caption = (
            f"d{sides}: {total} {'die' if total == 1 else 'dice'} rolled, each face against a fair d{sides} "
            f"({_num(mean)} times each on average)."
        )
        rows = tuple((label, str(value), _num(mean)) for label, value in zip(labels, values, strict=True))
        charts.append(Chart(f"d{sides}", svg, caption, ("Face", "Rolled", "A fair die"), rows))
    return charts


def damage_per_round(damage: dict[int, int], unit: str = "damage") -> Chart | None:
    if not damage:
        return None
    rounds = list(range(1, max(damage) + 1))
    named = unit[:1].upper() + unit[1:]
    svg = bar_chart(
        "Damage per round",
        f"{named} taken by everyone, round by round: "
        + ", ".join(f"round {r}: {damage.get(r, 0)}" for r in rounds)
        + ".",
        [str(r) for r in rounds],
        [damage.get(r, 0) for r in rounds],
        x_label="Round",
        y_label=named,
    )
    rows = tuple((str(r), str(damage.get(r, 0))) for r in rounds)
    return Chart("damage", svg, f"Damage per round: {unit} taken by everyone.", ("Round", named), rows)


def success_by_complexity(by_complexity: dict[int, tuple[int, int, float]]) -> Chart | None:
    if not by_complexity:
        return None
    labels, rates, expected = [], [], []
    for c, (n, ok, exp) in by_complexity.items():
        labels.append(f"{c} dice")
        rates.append(ok / n)
        expected.append(exp / n)
    desc = "; ".join(
        f"complexity {c}: {ok} of {n} succeeded, exact chance {round(100 * exp / n)}%"
        for c, (n, ok, exp) in by_complexity.items()
    )
    svg = bar_chart(
        "Success rate by complexity",
        desc + ". Bars are what happened, lines the exact probability.",
        labels,
        rates,
        expected,
        y_max=1.0,
        percent=True,
        x_label="Complexity (dice rolled)",
        y_label="Successes",
    )
    rows = tuple((f"{c} dice", f"{ok} of {n}", f"{round(100 * exp / n)}%") for c, (n, ok, exp) in by_complexity.items())
    return Chart(
        "complexity",
        svg,
        "Success rate by complexity against the exact chance of success.",
        ("Complexity", "Succeeded", "Exact chance"),
        rows,
    )
