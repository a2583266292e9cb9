"""Sphinx configuration of the hemkit documentation.

Everything that describes the code is generated from the code at build time: the API pages
from each package's ``__all__`` (autosummary + numpydoc), the CLI reference from the click
commands (sphinx-click), and the gallery by running ``docs/examples/plot_*.py`` on bundled
data (sphinx-gallery). Built with warnings as errors by ``.ci/run``::

    sphinx-build -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))  # the source tree, also without an editable install

import hemkit  # noqa: E402

os.environ.setdefault("MPLBACKEND", "Agg")

project = "hemkit"
author = "the hemkit developers"
copyright = "2026, the hemkit developers"
version = release = hemkit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_click",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "examples/*.rst"]
root_doc = "index"

# --------------------------------------------------------------------------- API reference
# the public names of each package, as its __all__ says; one page per package written here,
# one stub per name written by autosummary (both under docs/api/, not committed)
API_PACKAGES = [
    "hemkit",
    "hemkit.io",
    "hemkit.plan",
    "hemkit.datasets",
    "hemkit.collect",
    "hemkit.merge",
    "hemkit.evaluate",
    "hemkit.mpx",
    "hemkit.derive",
    "hemkit.sampling",
    "hemkit.report",
]


def _is_constant(obj: object) -> bool:
    return not (callable(obj) or inspect.ismodule(obj))


def _write_api_pages() -> None:
    out = HERE / "api"
    shutil.rmtree(out, ignore_errors=True)  # no stub of a name that is public no more
    out.mkdir()
    for name in API_PACKAGES:
        module = importlib.import_module(name)
        public = sorted(getattr(module, "__all__", []), key=lambda n: (n.lower(), n))
        public = [n for n in public if not n.startswith("_")]
        # constants have no docstring of their own (autosummary would show str's or dict's):
        # they are listed with their value instead
        constants = [n for n in public if _is_constant(getattr(module, n))]
        objects = [n for n in public if n not in constants]
        title = f"``{name}``"
        lines = [
            f".. _api-{name}:",
            "",
            title,
            "=" * len(title),
            "",
            f".. automodule:: {name}",
            "   :no-members:",
            "",
            f".. currentmodule:: {name}",
            "",
            ".. autosummary::",
            "   :toctree: generated",
            "   :nosignatures:",
            "",
            *[f"   {n}" for n in objects],
            "",
        ]
        if constants:
            lines += ["Constants", "---------", ""]
            for n in constants:
                short = len(repr(getattr(module, n))) <= 100
                lines += [f".. autodata:: {n}", *([] if short else ["   :no-value:"]), ""]
        (out / f"{name}.rst").write_text("\n".join(lines), encoding="utf-8")


_write_api_pages()

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": False, "show-inheritance": True}
autodoc_typehints = "none"  # numpydoc's Parameters section says the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

intersphinx_mapping: dict[str, tuple[str, str | None]] = {}  # no network at build time

# --------------------------------------------------------------------------- user guide examples
# ``sphinx-build -b doctest`` runs the guide's testcode blocks; the docstrings' own examples are
# run by pytest (--doctest-modules), so plain ">>>" blocks are not run twice
doctest_test_doctest_blocks = ""
doctest_global_setup = """
import os, tempfile
import matplotlib
matplotlib.use("Agg")
os.chdir(tempfile.mkdtemp(prefix="hemkit-docs-"))  # examples that write files write them there
"""

# --------------------------------------------------------------------------- gallery
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "show_memory": False,
    "write_computation_times": False,
    "plot_gallery": "True",
}

# --------------------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"hemkit {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path: list[str] = []
html_show_sourcelink = False
smartquotes_action = "qe"  # no dashes: "--runs" in help texts stays "--runs"


# --------------------------------------------------------------------------- CLI reference
# click help is plain text, not reStructuredText: its "\b" example blocks are shown as code, and
# the marks reST would read in prose are written as themselves: "*" (``runs/*.csv`` is no
# emphasis), "|" (``|r|`` is no substitution) and a word's trailing "_" (``n_`` is no link)
_TRAILING_UNDERSCORE = re.compile(r"(?<=\w)_(?!\w)")


def _plain(line: str) -> str:
    return _TRAILING_UNDERSCORE.sub(r"\\_", line.replace("*", "\\*").replace("|", "\\|"))


def _examples_as_code(app, ctx, lines: list[str]) -> None:
    """A command's description: ``\\b`` blocks (line blocks after sphinx-click) become code blocks."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("| "):
            out.append(_plain(lines[i]))
            i += 1
            continue
        block = []
        while i < len(lines) and lines[i].startswith("| "):
            block.append(lines[i][2:])
            i += 1
        out += [".. code-block:: text", "", *("   " + b for b in block), ""]
    lines[:] = out


def _option_help(app, ctx, lines: list[str]) -> None:
    """An option's help as plain text; what sphinx-click writes around it is left alone."""
    out = []
    for line in lines:
        text = line.lstrip()
        lead = line[: len(line) - len(text)]
        if text.startswith((".. ", "| ", ":default:", ":options:")):
            out.append(line)
        elif text.startswith("**Required**"):
            out.append(lead + "**Required**" + _plain(text[len("**Required**") :]))
        else:
            out.append(_plain(line))
    lines[:] = out


def setup(app) -> None:
    """Connect the CLI reference's formatting hooks."""
    app.connect("sphinx-click-process-description", _examples_as_code)
    app.connect("sphinx-click-process-options", _option_help)
