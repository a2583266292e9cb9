"""A self-contained HTML page: inline CSS and script, figures as inline SVG or PNG, tables as HTML; no network.

The page needs nothing but a browser: no font, stylesheet or script from elsewhere, so it can
be mailed, archived next to the data, or opened on a machine without network.  With scripts
off it is whole: every table has every row, every mark of an SVG figure names itself on
hover (its ``<title>``).  With scripts on (one inline script of a few KB, :data:`SCRIPT`) a
search box at the top filters every table at once, each long table gets its own filter
and sorts by a click on a column's head, and a heatmap drawn as an image names the cell
under the pointer.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2em auto; max-width: 1100px;
       color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; border-bottom: 2px solid #3465a4; padding-bottom: .2em; }
h2 { font-size: 1.25em; margin-top: 2em; color: #204a87; }
p.note { color: #555; font-size: .92em; }
table { border-collapse: collapse; margin: .8em 0; font-size: .9em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: right; }
th { background: #eef2f7; }
td:first-child, th:first-child, td.t, th.t, tbody th { text-align: left; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figure svg.fig { max-width: 100%; height: auto; display: block; }
figcaption { color: #555; font-size: .9em; }
nav a { margin-right: 1em; }
.warn { color: #a40000; }
.scroll { max-height: 32em; overflow: auto; display: inline-block; max-width: 100%; }
.scroll thead th { position: sticky; top: 0; }
th.sort { cursor: pointer; }
th.sort::after { content: " \\2195"; color: #999; }
input.filter, #search { font-size: .95em; padding: .2em .4em; margin: .3em 0; width: 22em; }
#search-box { position: sticky; top: 0; background: #fff; padding: .3em 0; border-bottom: 1px solid #eee; z-index: 2; }
#tip { position: fixed; pointer-events: none; background: #222; color: #fff; font-size: 12px; padding: 2px 6px;
       border-radius: 3px; display: none; z-index: 3; }
svg .hit { stroke: #f57900; stroke-width: 3; }
svg text.hit { fill: #c00; stroke: none; font-weight: bold; }
.count { color: #555; font-size: .85em; margin-left: .6em; }
"""

#: the page's one script: search, table filters and sorting, heatmap cells named under the pointer
SCRIPT = r"""
(function () {
  function rowsOf(t) { return Array.prototype.slice.call(t.tBodies[0] ? t.tBodies[0].rows : []); }
  function apply(t) {
    var own = (t._own || "").toLowerCase(), all = (window._q || "").toLowerCase(), shown = 0;
    rowsOf(t).forEach(function (r) {
      var s = r._s || (r._s = r.textContent.toLowerCase());
      var ok = (!own || s.indexOf(own) >= 0) && (!all || s.indexOf(all) >= 0);
      r.style.display = ok ? "" : "none"; if (ok) shown++;
    });
    if (t._count) t._count.textContent = shown + " of " + rowsOf(t).length + " rows";
    return shown;
  }
  function num(s) { s = s.trim(); if (s === "" || s === "—") return NaN; return Number(s); }
  function sortBy(t, col) {
    var rows = rowsOf(t), dir = t._col === col ? -t._dir : 1, body = t.tBodies[0];
    var vals = rows.map(function (r) { return r.cells[col] ? r.cells[col].textContent : ""; });
    var numeric = vals.every(function (v) { var x = num(v); return !isNaN(x) || v.trim() === "" || v.trim() === "—"; });
    var idx = rows.map(function (_, i) { return i; });
    idx.sort(function (a, b) {
      var x = vals[a], y = vals[b];
      if (numeric) { x = num(x); y = num(y); if (isNaN(x)) return 1; if (isNaN(y)) return -1; return (x - y) * dir; }
      return x.localeCompare(y) * dir;
    });
    idx.forEach(function (i) { body.appendChild(rows[i]); });
    t._col = col; t._dir = dir;
  }
  var tables = Array.prototype.slice.call(document.querySelectorAll("table.data"));
  tables.forEach(function (t) {
    var heads = t.tHead && rowsOf(t).length > 3 ? t.tHead.rows[t.tHead.rows.length - 1].cells : [];
    Array.prototype.forEach.call(heads, function (th, i) {
      th.className += " sort"; th.title = "sort by this column";
      th.addEventListener("click", function () { sortBy(t, i); });
    });
    if (rowsOf(t).length > 10) {
      var box = document.createElement("input"); box.type = "search"; box.className = "filter";
      box.placeholder = "filter these " + rowsOf(t).length + " rows"; box.setAttribute("aria-label", box.placeholder);
      var count = document.createElement("span"); count.className = "count"; t._count = count;
      box.addEventListener("input", function () { t._own = box.value; apply(t); });
      var tools = document.createElement("div"); tools.appendChild(box); tools.appendChild(count);
      var at = t.parentNode.className === "scroll" ? t.parentNode : t;
      at.parentNode.insertBefore(tools, at);
    }
  });
  var search = document.getElementById("search"), found = document.getElementById("found");
  if (search) {
    document.getElementById("search-box").style.display = "";
    search.addEventListener("input", function () {
      window._q = search.value; var n = 0, where = [];
      tables.forEach(function (t) {
        var k = apply(t); n += k;
        var sec = t.closest("section"); if (k && window._q && sec && where.indexOf(sec.id) < 0) where.push(sec.id);
      });
      document.querySelectorAll("svg.fig title").forEach(function (tt) {
        var el = tt.parentNode; if (el.tagName === "svg") return;
        var hit = window._q && tt.textContent.toLowerCase().indexOf(window._q.toLowerCase()) >= 0;
        el.classList.toggle("hit", !!hit);
      });
      var at = where.length ? " (in " + where.join(", ") + ")" : "";
      found.textContent = window._q ? n + " table rows match" + at : "";
    });
  }
  var tip = document.getElementById("tip");
  document.querySelectorAll("svg.fig[data-heat]").forEach(function (svg) {
    var g = svg.getAttribute("data-heat").split(" ").map(Number);
    var rows = svg.getAttribute("data-rows").split("	"), cols = svg.getAttribute("data-cols").split("	");
    var vals = (svg.getAttribute("data-values") || "").split(" "), name = svg.getAttribute("data-name");
    svg.addEventListener("mousemove", function (ev) {
      var p = svg.createSVGPoint(); p.x = ev.clientX; p.y = ev.clientY;
      var q = p.matrixTransform(svg.getScreenCTM().inverse());
      var j = Math.floor((q.x - g[0]) / g[2]), i = Math.floor((q.y - g[1]) / g[2]);
      if (i < 0 || j < 0 || i >= rows.length || j >= cols.length) { tip.style.display = "none"; return; }
      var v = vals.length > 1 ? vals[i * cols.length + j] : "";
      tip.textContent = rows[i] + " × " + cols[j] + (v !== "" && v !== undefined ? ": " + name + " " + v : "");
      tip.style.left = (ev.clientX + 12) + "px"; tip.style.top = (ev.clientY + 12) + "px"; tip.style.display = "block";
    });
    svg.addEventListener("mouseleave", function () { tip.style.display = "none"; });
  });
})();
"""


@dataclass(frozen=True)
class Figure:
    """One figure of a section: its caption, the PNG bytes, and the matplotlib figure they were drawn from.

    ``figure`` (when kept) lets a caller or a test look at what was drawn: titles, axis
    labels, legends, tick names.
    """

    caption: str
    png: bytes = field(default=b"", repr=False)
    figure: Any = field(default=None, repr=False, compare=False)
    svg: str = field(default="", repr=False)

    @classmethod
    def of(cls, caption: str, figure: Any) -> Figure:
        """The figure drawn as PNG, keeping the matplotlib figure."""
        return cls(caption, png(figure), figure)

    @classmethod
    def drawn(cls, caption: str, drawing: Any) -> Figure:
        """A figure drawn as SVG (:class:`hemkit.report.svg.Svg`), inline in the page."""
        return cls(caption, svg=drawing.render())


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


#: tables longer than this scroll inside their own box (the page stays readable around them)
SCROLL_ROWS = 25


def _cell(v: Any) -> str:
    # a value that does not exist (the spread of an event that is 0 in every run, the runs of a
    # group dropped when read) is a dash, never "NaN"
    if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v):
        return "\u2014"
    if isinstance(v, float):
        return f"{v:.4g}"
    return html.escape(str(v))


def table_html(frame: Any) -> str:
    """A DataFrame as a compact HTML table (its index as the first columns), every row, escaped."""
    names = [n if n is not None else "" for n in frame.index.names]
    keep_index = not (len(names) == 1 and names[0] == "" and frame.index.equals(pd.RangeIndex(len(frame))))
    heads = ([*map(str, names)] if keep_index else []) + [str(c) for c in frame.columns]
    # text columns read from the left, numbers from the right (the stylesheet's default)
    text = [not _numeric(frame[c].dtype) for c in frame.columns]
    kinds = ([True] * (len(heads) - len(text))) + text
    head = [f"<th class='t'>{html.escape(h)}</th>" if t else f"<th>{html.escape(h)}</th>" for h, t in zip(heads, kinds)]
    out = ["<table class='data'><thead><tr>", *head, "</tr></thead><tbody>"]
    index = list(frame.index) if keep_index else [None] * len(frame)
    columns = [frame[c].tolist() for c in frame.columns] if len(frame.columns) else []
    for r, key in enumerate(index):
        keys = (key if isinstance(key, tuple) else (key,)) if keep_index else ()
        cells = [f"<th>{_cell(k)}</th>" for k in keys] + [
            f"<td class='t'>{_cell(col[r])}</td>" if t else f"<td>{_cell(col[r])}</td>"
            for col, t in zip(columns, text, strict=True)
        ]
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    body = "".join(out)
    return f"<div class='scroll'>{body}</div>" if len(frame) > SCROLL_ROWS else body


def _numeric(dtype: Any) -> bool:
    return bool(pd.api.types.is_numeric_dtype(dtype)) and not pd.api.types.is_bool_dtype(dtype)


def _table(caption: str, frame: Any) -> str:
    body = table_html(frame)
    return f"<p class='note'>{html.escape(caption)}</p>{body}" if caption else body


def _figure(fig: Figure, index: int) -> str:
    alt = html.escape(fig.caption)
    if fig.svg:
        body = fig.svg
    else:
        data = base64.b64encode(fig.png).decode("ascii")
        body = f"<img alt='{alt}' src='data:image/png;base64,{data}'>"
    return f"<figure id='fig{index}'>{body}<figcaption>Figure {index}. {alt}</figcaption></figure>"


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
        # shown by the script: with scripts off there is nothing it could do
        "<div id='search-box' style='display:none'><input id='search' type='search' "
        "placeholder='find an event, pair or group in every table' aria-label='search the tables'>"
        "<span id='found' class='count'></span></div><div id='tip'></div>",
    ]
    n = 0
    for s in sections:
        parts.append(f"<section id='{s.key}'><h2>{html.escape(s.title)}</h2>")
        if s.error:
            parts.append(f"<p class='warn'><strong>This section failed:</strong> {html.escape(s.error)}</p>")
        parts += [f"<p class='warn'>{html.escape(w)}</p>" for w in s.warnings]
        parts += [f"<p>{html.escape(p)}</p>" for p in s.paragraphs]
        for f in s.figures:  # the figures first: what a reader looks at; the tables after, to look things up
            n += 1
            parts.append(_figure(f, n))
        parts += [_table(c, t) for c, t in s.tables]
        parts.append("</section>")
    parts.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(parts)
