"""The shape of the package (DESIGN.md): layers, no import cycles, one place for processes, a light CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("hemkit", include_external_packages=True)


def test_import_linter_contracts_hold():
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def _strongly_connected(nodes, edges):
    """Tarjan's algorithm, iterative; returns the components with more than one module."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(edges.get(nxt, ()))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        comp.append(m)
                        if m == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_cycles_between_modules(graph):
    """Every import counts, also those inside functions: the module graph is acyclic."""
    modules = sorted(m for m in graph.modules if m.startswith("hemkit"))
    edges = {
        m: sorted(x for x in graph.find_modules_directly_imported_by(m) if x.startswith("hemkit")) for m in modules
    }
    cycles = _strongly_connected(modules, edges)
    assert not cycles, f"import cycles: {cycles}"


def test_only_external_starts_processes(graph):
    users = sorted(
        m
        for m in graph.find_modules_that_directly_import("subprocess")
        if m.startswith("hemkit") and not m.startswith("hemkit.external")
    )
    assert not users, f"modules that import subprocess outside hemkit.external: {users}"


def test_io_starts_no_process(graph):
    chains = graph.find_shortest_chains(importer="hemkit.io", imported="hemkit.external", as_packages=True)
    assert not chains, f"hemkit.io reaches hemkit.external: {chains}"


def test_cli_import_is_light():
    """``import hemkit.cli`` (what ``hemkit --help`` costs) loads no heavy library."""
    code = (
        "import sys, hemkit.cli; "
        "heavy = [m for m in ('matplotlib', 'torch', 'scipy', 'scipy.stats', 'pandas', 'numpy', 'rich', "
        "'statsmodels', 'pyarrow') if m in sys.modules]; print(','.join(heavy))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "", f"import hemkit.cli loads {proc.stdout.strip()}"


def test_help_is_light():
    """``hemkit --help`` (every subcommand's one-line summary) loads no heavy library either."""
    code = (
        "import sys\n"
        "from hemkit.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('matplotlib', 'torch', 'scipy', 'pandas', 'numpy', 'statsmodels', 'pyarrow')"
        " if m in sys.modules]\n"
        "print(','.join(heavy), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Commands" in proc.stdout or "Usage" in proc.stdout
    assert proc.stderr.strip() == "", f"hemkit --help loads {proc.stderr.strip()}"


def test_a_much_merge_of_a_raw_file_loads_no_pandas(tmp_path):
    """``hemkit merge raw.csv --pmcs 6 -m much -o out.csv``: read, merge, summary and CSV need NumPy only.

    The merged table is the one the library's DataFrame gives (written by pandas).
    """
    out = tmp_path / "merged.csv"
    code = (
        "import sys\n"
        "from hemkit.cli import main\n"
        "from hemkit.datasets import t2080_path\n"
        "args = ['merge', str(t2080_path('much_raw.csv')), '--pmcs', '6',\n"
        "        '--codes', str(t2080_path('code2name.csv')),\n"
        f"        '-m', 'much', '--rows', '300', '--n-sims', '30', '-o', {str(out)!r}, '-q']\n"
        "try:\n"
        "    main(args)\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "heavy = [m for m in ('pandas', 'scipy', 'matplotlib', 'pyarrow', 'rich', 'torch') if m in sys.modules]\n"
        "print(','.join(heavy), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stderr.strip() == "", f"the MUCH merge loads {proc.stderr.strip()}"
    assert "pearson_mse" in proc.stdout and "merged into 300 rows x 16 events" in proc.stdout

    from hemkit.datasets import t2080_much
    from hemkit.merge import merge

    res = merge(t2080_much(), "much", seed=0, rows=300, n_sims=30)
    want = tmp_path / "want.csv"
    res.data.to_csv(want, index=False)
    assert out.read_bytes() == want.read_bytes()


def test_the_main_job_merge_loads_only_what_runs(tmp_path):
    """``hemkit merge -o merged.csv --pair-intervals pairs.csv`` (the README's main job, issue 28).

    The default joint merge of the bundled data with its intervals: no pandas, pyarrow,
    rich or matplotlib, and of SciPy only the compiled L-BFGS-B routine (not ``scipy.optimize``,
    ``scipy.linalg``, ``scipy.sparse`` or ``scipy.special``, which ``scipy.optimize`` would load).
    """
    code = (
        "import sys\n"
        "from hemkit.cli import main\n"
        f"args = ['merge', '-o', {str(tmp_path / 'm.csv')!r}, '--pair-intervals', {str(tmp_path / 'p.csv')!r}, '-q']\n"
        "try:\n"
        "    main(args)\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "heavy = ('pandas', 'pyarrow', 'matplotlib', 'rich', 'torch', 'scipy.optimize', 'scipy.linalg',\n"
        "         'scipy.sparse', 'scipy.special', 'scipy.stats')\n"
        "print(','.join(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stderr.strip() == "", f"the default merge with intervals loads {proc.stderr.strip()}"
    assert "median_width" in proc.stdout
    assert (tmp_path / "p.csv").read_text().startswith("event_a,event_b,estimate,lower,upper,runs_together\n")


# ------------------------------------------------------------------ one io layer
#: calls that read or write a table (CSV, Parquet, text of numbers), by attribute name
_TABLE_CALLS = {"read_csv", "to_csv", "read_parquet", "to_parquet", "loadtxt", "savetxt", "genfromtxt", "fromfile"}
#: module.attribute pairs that read or write files in a format of their own
_FORMAT_CALLS = {
    ("csv", "writer"),
    ("csv", "reader"),
    ("csv", "DictWriter"),
    ("csv", "DictReader"),
    ("pq", "read_table"),
    ("pq", "write_table"),
    ("pq", "ParquetFile"),
    ("pq", "ParquetWriter"),
    ("torch", "save"),
    ("torch", "load"),
}
#: the modules allowed such calls, and which (None: all of them)
_ALLOWED: dict[str, tuple[str, ...] | None] = {
    # the one CSV/Parquet reader and writer (read_table, write_table, csv_rows, numeric_csv)
    "hemkit/io/table.py": None,
    # MPX model files are PyTorch files (torch.save / torch.load with weights_only), not tables
    "hemkit/io/mpx.py": ("torch.save", "torch.load"),
}


def _format_calls(path: Path) -> list[str]:
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base = node.value.id if isinstance(node.value, ast.Name) else None
            if node.attr in _TABLE_CALLS or (base, node.attr) in _FORMAT_CALLS:
                found.append(f"line {node.lineno}: {base or '...'}.{node.attr}")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names]
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if (
                "csv" in names
                or "pyarrow.parquet" in names
                or module == "pyarrow.parquet"
                or (module == "pyarrow" and "parquet" in names)
            ):
                found.append(f"line {node.lineno}: import of {module or ', '.join(names)}")
    return found


def test_one_table_reader_and_writer():
    """Only hemkit.io.table reads or writes CSV and Parquet (pandas, pyarrow, the csv module, NumPy text).

    Everything else calls :func:`hemkit.io.read_table` / :func:`hemkit.io.write_table` (or a format module of
    hemkit.io built on them): one rule for Parquet (by content when reading, by suffix when writing), one
    float32 rule, one duplicate-header check.  Model files (torch) live only in hemkit.io.mpx.
    """
    src = ROOT / "src"
    offenders = {}
    for path in sorted((src / "hemkit").rglob("*.py")):
        rel = path.relative_to(src).as_posix()
        allowed = _ALLOWED.get(rel, ())
        if allowed is None:
            continue
        calls = [c for c in _format_calls(path) if not c.endswith(allowed)]
        if calls:
            offenders[rel] = calls
    assert not offenders, f"tables read or written outside hemkit.io.table: {offenders}"


def test_the_table_check_finds_what_it_looks_for(tmp_path):
    """The check above can fail: each kind of call it bans is found in a module that makes it."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import csv\nimport pyarrow.parquet as pq\nimport torch\n"
        "df.to_csv('x')\npd.read_parquet('x')\ncsv.writer(fh)\npq.write_table(t, 'x')\ntorch.save(b, 'x')\n"
        "'''a docstring with df.to_csv(p) is not a call'''\n"
    )
    found = _format_calls(bad)
    assert len(found) == 7, found
