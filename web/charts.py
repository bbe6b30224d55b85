"""Line charts drawn on the server: points in, the geometry of an inline SVG out.

The template ``web/players/_chart.html`` draws a :class:`LineChart`: a path through the
points, one dot per point (with a ``<title>`` that a pointer or a screen reader can show),
horizontal grid lines with their values on the left, and labels under the first and last
point. Points are spaced evenly along the x axis in the order given (one step per rated
game), so a burst of games on one evening reads as well as months of play.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from django.utils.safestring import SafeString, mark_safe

#: The SVG's own units (its ``viewBox``); the page scales it to the width available.
WIDTH = 520
HEIGHT = 220
#: Room for the y labels (left), the x labels (bottom) and the dots at the edges.
MARGIN_LEFT = 44
#: The widest y label's room per character, at the largest font the page gives the chart
#: (a phone's), and the gap between the labels and the plot.
LABEL_CHAR_WIDTH = 12
LABEL_GAP = 8
MARGIN_RIGHT = 16
MARGIN_TOP = 14
MARGIN_BOTTOM = 30
#: About this many horizontal grid lines.
TICKS = 5


@dataclass(frozen=True)
class Point:
    """One value to draw: ``label`` goes under the axis (first and last point), ``title``
    is what the dot says about itself, ``key`` identifies it in the page (``data-point``)."""

    value: float
    label: str
    title: str
    key: str


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    value: float
    title: str
    key: str


@dataclass(frozen=True)
class Tick:
    y: float
    value: float
    label: str
    #: The chart's reference line (a newcomer's rating on the rating charts).
    marked: bool = False


@dataclass(frozen=True)
class XLabel:
    x: float
    text: str
    anchor: str  # "start", "middle" or "end"


@dataclass(frozen=True)
class LineChart:
    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    path: str
    dots: list[Dot]
    ticks: list[Tick]
    x_labels: list[XLabel]

    @property
    def dots_svg(self) -> SafeString:
        """The dots as SVG, built here in one pass: a template loop over a thousand dots
        (a profile with a thousand rated games) cost most of the page's time, and so did
        ``format_html`` for each. Coordinates are numbers; keys and titles are escaped."""
        radius = 2 if len(self.dots) > 60 else 3.5
        return mark_safe(
            "".join(
                f'<circle cx="{d.x}" cy="{d.y}" r="{radius}" data-point="{escape(d.key)}">'
                f"<title>{escape(d.title)}</title></circle>"
                for d in self.dots
            )
        )

    @property
    def y_label_x(self) -> float:
        """Where the values of the grid lines end (right-aligned), left of the plot."""
        return self.left - 6

    @property
    def x_label_y(self) -> float:
        """The baseline of the labels under the x axis."""
        return self.bottom + 18


def nice_step(span: float, ticks: int = TICKS) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) cutting ``span`` in about
    ``ticks`` parts."""
    if span <= 0:
        return 1.0
    raw = span / max(ticks - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1.0, 2.0, 2.5, 5.0, 10.0):
        if raw <= factor * power:
            return factor * power
    return 10 * power  # pragma: no cover - the loop ends at 10


def _format(value: float, step: float) -> str:
    """``value`` with as many decimals as ``step`` needs (2.5 → one, 0.25 → two)."""
    decimals = 0
    while decimals < 4 and abs(step * 10**decimals - round(step * 10**decimals)) > 1e-9:
        decimals += 1
    text = f"{value:.{decimals}f}"
    return "0" if text.strip("-0.") == "" else text


def value_range(values: Sequence[float]) -> tuple[float, float, float]:
    """The y axis: ``(low, high, step)``, round values that hold every value with some room."""
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    step = nice_step(high - low)
    return math.floor(low / step) * step, math.ceil(high / step) * step, step


def line_chart(
    points: Sequence[Point], *, width: int = WIDTH, height: int = HEIGHT, mark: float = 0.0
) -> LineChart:
    """The chart of ``points`` (at least one), in order from left to right; the grid line at
    ``mark``, if there is one, is the marked one."""
    if not points:
        raise ValueError("a chart needs at least one point")
    top, bottom = float(MARGIN_TOP), float(height - MARGIN_BOTTOM)
    low, high, step = value_range([p.value for p in points])
    count = round((high - low) / step)
    labels = [_format(low + i * step, step) for i in range(count + 1)]
    # Room on the left for the widest y label, so that none is cut at a phone's font size.
    widest = max(len(label) for label in labels)
    left = float(max(MARGIN_LEFT, LABEL_GAP + LABEL_CHAR_WIDTH * widest))
    right = float(width - MARGIN_RIGHT)

    def y_of(value: float) -> float:
        return round(bottom - (value - low) / (high - low) * (bottom - top), 2)

    def x_of(index: int) -> float:
        if len(points) == 1:
            return round((left + right) / 2, 2)
        return round(left + index / (len(points) - 1) * (right - left), 2)

    dots = [Dot(x_of(i), y_of(p.value), p.value, p.title, p.key) for i, p in enumerate(points)]
    path = " ".join(f"{'M' if i == 0 else 'L'}{d.x},{d.y}" for i, d in enumerate(dots))
    ticks = [
        Tick(
            y_of(low + i * step),
            low + i * step,
            label,
            marked=math.isclose(low + i * step, mark, abs_tol=step / 1000),
        )
        for i, label in enumerate(labels)
    ]
    first, last = dots[0], dots[-1]
    x_labels = [XLabel(first.x, points[0].label, "start" if len(dots) > 1 else "middle")]
    if len(dots) > 1 and points[-1].label != points[0].label:
        x_labels.append(XLabel(last.x, points[-1].label, "end"))
    return LineChart(width, height, left, right, top, bottom, path, dots, ticks, x_labels)
