"""The report as a person reads it (issue 28): rendered in headless Chromium at 1280 px, at 16 and 100 events.

Every figure fits the window, no text is under 8 px, no two labels overprint, every image decodes,
the page's script raises nothing, and the search box finds an event in every table that holds it.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from .browser import render


def _check_page(seen: dict) -> None:
    assert seen["errors"] == [], seen["errors"]
    assert seen["sorted"]["up"] and seen["sorted"]["down"], seen["sorted"]  # the longest table sorts both ways
    assert seen["decoded"] == seen["images"]
    assert seen["pageWidth"] <= seen["window"], "the page scrolls sideways"
    assert seen["figures"], "no SVG figure on the page"
    for f in seen["figures"]:
        where = f["title"]
        assert 0 < f["width"] <= seen["window"] and f["height"] > 0, where
        assert f["minPx"] >= 8, f"{where}: text of {f['minPx']:.1f} px"
        assert f["overlaps"] == [], f"{where}: labels overprint: {f['overlaps']}"


def test_bundled_t2080_page_reads_at_1280_px_and_the_search_finds_an_event(tmp_path, cli):
    out = tmp_path / "t2080.html"
    res = cli(["report", "-o", out, "-q"])
    assert res.exit_code == 0, res.stderr
    seen = render(out, tmp_path, query="L2_SNOOP_HITS")
    _check_page(seen)
    titles = [f["title"] for f in seen["figures"]]
    assert any(t.startswith("Merged Pearson correlations") for t in titles)
    assert any(t.startswith("Plan: events read in each group") for t in titles)  # 24 groups: the grid itself
    assert seen["searchShown"] and "table rows match" in seen["found"]
    tables = {(t["section"], t["rows"]): t for t in seen["tables"]}
    pairs = tables[("merge", 120)]
    assert pairs["shown"] == 15 and pairs["allMatch"]  # L2_SNOOP_HITS with each of the other 15 events
    assert tables[("variability", 16)]["shown"] == 1
    assert all(t["allMatch"] for t in seen["tables"])
    assert seen["marked"] > 0  # the figures' marks that name it are lit


def _hundred_events(path) -> list[str]:
    """100 events in 20 blocks of 5, every pair of blocks read together (190 groups of 10), 12 runs each."""
    from hemkit.datasets.synthetic import make_truth
    from hemkit.io.table import write_table

    events = [f"ev{i:03d}.{('l1d', 'l2', 'br', 'tlb', 'mem')[i % 5]}_miss" for i in range(100)]
    blocks = [events[5 * b : 5 * b + 5] for b in range(20)]
    groups = [a + b for a, b in itertools.combinations(blocks, 2)]
    runs = 12
    truth = make_truth(100, len(groups) * runs, marginals="gamma", seed=0)
    truth.columns = events
    parts = []
    for g, evs in enumerate(groups):
        sub = truth.iloc[g * runs : (g + 1) * runs][evs].to_numpy()
        parts.append(
            pd.DataFrame(
                {
                    "group": g + 1,
                    "run": np.repeat(np.arange(runs), len(evs)),
                    "event": np.tile(evs, runs),
                    "value": sub.ravel(),
                }
            )
        )
    write_table(pd.concat(parts, ignore_index=True), path)
    return events


@pytest.mark.slow
def test_a_100_event_page_of_190_groups_reads_at_1280_px_and_the_search_finds_an_event(tmp_path, cli):
    data = tmp_path / "r100.parquet"
    events = _hundred_events(data)
    out = tmp_path / "r100.html"
    res = cli(["report", data, "-o", out, "-q"])  # the default merge, with its per-pair intervals
    assert res.exit_code == 0, res.stderr
    assert out.stat().st_size <= 3_000_000
    target = events[42]
    seen = render(out, tmp_path, query=target)
    _check_page(seen)
    titles = [f["title"] for f in seen["figures"]]
    assert "Groups that read each event" in titles  # 190 groups: summarised, not a grid
    tables = {(t["section"], t["rows"]): t for t in seen["tables"]}
    assert tables[("merge", 4950)]["shown"] == 99 and tables[("merge", 4950)]["allMatch"]
    assert tables[("coverage", 190)]["shown"] == 19  # the groups that read it: its block with each other block
    assert tables[("variability", 100)]["shown"] == 1
    # the heatmap of 100 events is an image: the page's script names the cell under the pointer
    (tip,) = seen["heatTips"]
    row, col = tip.split(": r = ")[0].split(" \u00d7 ")
    assert row in events and col in events and row != col and -1 <= float(tip.split("r = ")[1]) <= 1
