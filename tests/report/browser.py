"""Render a report in headless Chromium and measure it as a person sees it at a given window width.

The page is loaded from a copy with a check script appended; the script waits for the page's own
script, optionally types a query into the page's search box, and writes what it measured as JSON
into the DOM, which ``--dump-dom`` prints.  Measured: images that decode, script errors, the page's
width, and per SVG figure its rendered size, its smallest text in CSS pixels and the pairs of
labels whose boxes overlap.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import pytest

HEAD = "<script>window.__errs=[];window.addEventListener('error',e=>window.__errs.push(String(e.message)))</script>"
CHECK = r"""<script>
window.addEventListener('load', () => {
  const out = {errors: window.__errs};
  const imgs = [...document.images];
  out.images = imgs.length; out.decoded = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
  out.pageWidth = document.documentElement.scrollWidth; out.window = window.innerWidth;
  out.figures = [...document.querySelectorAll('svg.fig')].map(svg => {
    const r = svg.getBoundingClientRect(), scale = svg.getScreenCTM().a;
    const texts = [...svg.querySelectorAll('text')].map(t => {
      const b = t.getBoundingClientRect();
      return {s: (t.lastChild && t.lastChild.nodeType === 3 ? t.lastChild.nodeValue : t.textContent).trim(),
              px: parseFloat(getComputedStyle(t).fontSize) * scale, x0: b.left, x1: b.right, y0: b.top, y1: b.bottom};
    }).filter(t => t.s);
    const overlaps = [];
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i], b = texts[j];
      const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0), h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      if (w > 2 && h > 2) overlaps.push(a.s + ' | ' + b.s);
    }
    return {title: svg.querySelector('title').textContent, width: r.width, height: r.height,
            minPx: Math.min(...texts.map(t => t.px)), texts: texts.length, overlaps: overlaps.slice(0, 10)};
  });
  out.heatTips = [...document.querySelectorAll('svg.fig[data-heat]')].map(svg => {
    const [x0, y0, cell] = svg.getAttribute('data-heat').split(' ').map(Number);
    const p = svg.createSVGPoint(); p.x = x0 + cell * 2.5; p.y = y0 + cell * 1.5;  // row 1, column 2
    const c = p.matrixTransform(svg.getScreenCTM());
    svg.dispatchEvent(new MouseEvent('mousemove', {clientX: c.x, clientY: c.y, bubbles: true}));
    return document.getElementById('tip').textContent;
  });
  // a click on a column's head sorts the table by it, a second click the other way
  const numericLast = t => [...t.tBodies[0].rows].every(r => !isNaN(Number(r.cells[r.cells.length - 1].textContent)));
  const sortable = [...document.querySelectorAll('table.data')]
    .filter(t => t.tBodies[0].rows.length > 3 && numericLast(t));
  const biggest = sortable.sort((a, b) => b.tBodies[0].rows.length - a.tBodies[0].rows.length)[0];
  if (biggest) {
    const heads = biggest.tHead.rows[0].cells, col = heads.length - 1;
    const values = () => [...biggest.tBodies[0].rows].map(r => Number(r.cells[col].textContent));
    heads[col].click(); const up = values(); heads[col].click(); const down = values();
    const rising = v => v.every((x, i) => i === 0 || v[i - 1] <= x);
    out.sorted = {column: heads[col].textContent, rows: up.length, up: rising(up), down: rising([...down].reverse())};
  }
  const q = window.__query;
  if (q) {
    const box = document.getElementById('search');
    out.searchShown = !!box && box.offsetParent !== null;
    box.value = q; box.dispatchEvent(new Event('input'));
    out.found = document.getElementById('found').textContent;
    out.tables = [...document.querySelectorAll('table.data')].map(t => {
      const rows = [...t.tBodies[0].rows], shown = rows.filter(r => r.style.display !== 'none');
      return {section: t.closest('section').id, rows: rows.length, shown: shown.length,
              allMatch: shown.every(r => r.textContent.toLowerCase().includes(q.toLowerCase()))};
    });
    out.marked = document.querySelectorAll('svg .hit').length;
  }
  const pre = document.createElement('pre'); pre.id = 'hemkit-check'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def browser() -> str:
    """Chromium's path, or the test is skipped saying how to get it."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium here: install it to run this test (Debian: apt-get install chromium)")


def render(page_path, tmp_path, *, width: int = 1280, query: str = "") -> dict:
    """What the check script measured of ``page_path`` in headless Chromium at ``width`` CSS pixels."""
    page = page_path.read_text(encoding="utf-8")
    probe = tmp_path / f"probe-{page_path.stem}.html"
    setup = f"<script>window.__query={json.dumps(query)}</script>" if query else ""
    probe.write_text(
        page.replace("<head>", "<head>" + HEAD + setup, 1).replace("</body>", CHECK + "</body>", 1), encoding="utf-8"
    )
    args = [
        browser(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--window-size={width},900",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--virtual-time-budget=20000",
        "--dump-dom",
        probe.as_uri(),
    ]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=240)
    m = re.search(r"<pre id=\"hemkit-check\">(.*?)</pre>", proc.stdout, re.S)
    assert m, f"the page did not finish loading in Chromium:\n{proc.stderr[-2000:]}"
    return json.loads(html.unescape(m.group(1)))
