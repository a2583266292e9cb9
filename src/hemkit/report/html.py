"""A self-contained HTML page: inline CSS, figures as inline PNG, tables as HTML; no network.

The page needs nothing but a browser: no script, no font, no stylesheet from elsewhere, so it
can be mailed, archived next to the data, or opened on a machine without network.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2em auto; max-width: 1100px;
       color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; border-bottom: 2px solid #3465a4; padding-bottom: .2em; }
h2 { font-size: 1.25em; margin-top: 2em; color: #204a87; }
p.note { color: #555; font-size: .92em; }
table { border-collapse: collapse; margin: .8em 0; font-size: .9em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: right; }
th { background: #eef2f7; }
td:first-child, th:first-child { text-align: left; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { color: #555; font-size: .9em; }
nav a { margin-right: 1em; }
.warn { color: #a40000; }
"""


@dataclass(frozen=True)
class Figure:
    """One figure of a section: its caption, the PNG bytes, and the matplotlib figure they were drawn from.

    ``figure`` (when kept) lets a caller or a test look at what was drawn: titles, axis
    labels, legends, tick names.
    """

    caption: str
    png: bytes = field(repr=False)
    figure: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, caption: str, figure: Any) -> Figure:
        """The figure drawn as PNG, keeping the matplotlib figure."""
        return cls(caption, png(figure), figure)


@dataclass(frozen=True)
class Section:
    """One section of the report: a title, paragraphs, tables and figures.

    ``error`` is set when the section could not be made (e.g. a merge the data do not
    allow): the page then says so in the section, and :func:`hemkit.report.build_report`
    warns with it.
    """

    key: str
    title: str
    paragraphs: tuple[str, ...] = ()
    tables: tuple[tuple[str, Any], ...] = ()  # (caption, DataFrame)
    figures: tuple[Figure, ...] = ()
    warnings: tuple[str, ...] = ()
    error: str = ""


def png(figure: Any, dpi: int = 110) -> bytes:
    """A matplotlib figure as PNG bytes."""
    buf = io.BytesIO()
    figure.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def _table(caption: str, frame: Any) -> str:
    # a value that does not exist (the spread of an event that is 0 in every run, the runs of a
    # group dropped when read) is a dash, never "NaN"
    body = frame.to_html(border=0, float_format=lambda v: f"{v:.4g}", escape=True, na_rep="\u2014")
    return f"<p class='note'>{html.escape(caption)}</p>{body}" if caption else body


def _figure(fig: Figure, index: int) -> str:
    data = base64.b64encode(fig.png).decode("ascii")
    alt = html.escape(fig.caption)
    return (
        f"<figure id='fig{index}'><img alt='{alt}' src='data:image/png;base64,{data}'>"
        f"<figcaption>Figure {index}. {alt}</figcaption></figure>"
    )


def render(title: str, subtitle: str, sections: Sequence[Section]) -> str:
    """The whole page as one HTML string."""
    parts = [
        "<!DOCTYPE html>",
        "<html lang='en'><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p class='note'>{html.escape(subtitle)}</p>",
        "<nav>" + "".join(f"<a href='#{s.key}'>{html.escape(s.title)}</a>" for s in sections) + "</nav>",
    ]
    n = 0
    for s in sections:
        parts.append(f"<section id='{s.key}'><h2>{html.escape(s.title)}</h2>")
        if s.error:
            parts.append(f"<p class='warn'><strong>This section failed:</strong> {html.escape(s.error)}</p>")
        parts += [f"<p class='warn'>{html.escape(w)}</p>" for w in s.warnings]
        parts += [f"<p>{html.escape(p)}</p>" for p in s.paragraphs]
        parts += [_table(c, t) for c, t in s.tables]
        for f in s.figures:
            n += 1
            parts.append(_figure(f, n))
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)
