"""Reading the report's SVG figures back in tests: their texts, the titles of their marks, the plan's cells."""

from __future__ import annotations

import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def tree(figure) -> ET.Element:
    """The parsed ``<svg>`` of a :class:`hemkit.report.html.Figure` (it must be well-formed XML)."""
    assert figure.svg, f"not an SVG figure: {figure.caption!r}"
    return ET.fromstring(figure.svg)


def label_texts(figure) -> list[str]:
    """The visible string of each ``<text>`` (without the hover title it may carry)."""
    out = []
    for t in tree(figure).iter(f"{NS}text"):
        title = t.find(f"{NS}title")
        out.append((title.tail if title is not None else t.text or "").strip())
    return out


def titles(figure, tag: str = "") -> list[str]:
    """The hover titles of the marks (``tag``: only those of rect, circle ...), the figure's own title first."""
    root = tree(figure)
    out = [root.find(f"{NS}title").text]
    for el in root.iter():
        if el is root or (tag and el.tag != f"{NS}{tag}"):
            continue
        t = el.find(f"{NS}title")
        if t is not None:
            out.append(t.text)
    return out


def font_sizes(figure) -> list[float]:
    return [float(t.get("font-size")) for t in tree(figure).iter(f"{NS}text")]


def plan_states(figure, states: tuple) -> dict[tuple[str, str], int]:
    """(group, event) -> state index of each cell of the plan grid, read from the cells' titles."""
    names = {label: k for k, (_, label) in enumerate(states)}
    out = {}
    for title in titles(figure, "rect")[1:]:
        head, state = title.split(": ", 1)
        group, event = head.removeprefix("group ").split(", ", 1)
        out[(group, event)] = names[state]
    return out
