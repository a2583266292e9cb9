"""Plan files: the groups ``hemkit collect`` reads, as TOML or JSON, read and written as plain dicts.

A plan is small and meant to be read and edited by hand::

    # hemkit plan: 12 events, 9 groups of at most 5 (much design)
    format_version = 1
    design = "much"
    pmcs = 5
    events = ["task-clock", "page-faults", ...]
    lower_bound = 8
    groups = [
      ["task-clock", "page-faults", "minor-faults", "context-switches", "kmem:kmalloc"],
      ...
    ]

This module knows the two syntaxes, not what a plan means: :func:`read_plan_file` returns
the table of keys (or raises :class:`~hemkit.core.errors.InputError` naming the file and
what is wrong with its bytes), :func:`write_plan_file` writes one atomically.  The meaning
of the keys is checked by :meth:`hemkit.plan.Plan.from_dict`.  TOML is read with
:mod:`tomllib` and written here, because the structure is flat (strings, integers,
booleans, lists of lists of strings).  ``.json`` files hold the same keys.  A plan file
compressed with gzip, bzip2 or xz is read as the file it holds.  ``format_version``
is the file's version (:func:`hemkit.io.formats.check_version`: a file without one is read).

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "plan.toml")
>>> _ = write_plan_file(path, {"pmcs": 2, "groups": [["a", "b"]]}, header="a plan")
>>> read_plan_file(path)
{'pmcs': 2, 'groups': [['a', 'b']]}
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hemkit.core.errors import InputError
from hemkit.io.atomic import PathLike, write_text
from hemkit.io.formats import (
    PLAN_VERSION,
    SQLITE_MAGIC,
    check_plan_name,
    check_version,
    read_input,
    strip_compression_suffix,
)

#: the key that holds the plan file's version (:func:`hemkit.io.formats.check_version`)
VERSION_KEY = "format_version"


def plan_format(path: PathLike) -> str:
    """``"json"`` for a ``.json`` name (``.json.gz`` too: a plan file read compressed), else ``"toml"``.

    Examples
    --------
    >>> plan_format("p.JSON"), plan_format("plan.toml"), plan_format("plan"), plan_format("p.json.xz")
    ('json', 'toml', 'toml', 'json')
    """
    name = strip_compression_suffix(Path(os.fspath(path)).name)
    return "json" if os.path.splitext(name)[1].lower() == ".json" else "toml"


def read_plan_file(path: PathLike) -> dict[str, Any]:
    """The table of keys in a TOML or JSON plan file (its format version checked and left out).

    Raises
    ------
    InputError
        The file is missing, a folder, unreadable, not UTF-8, not valid TOML/JSON, or not
        a table of keys; the message names the file.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "p.json")
    >>> _ = open(path, "w").write('{"groups": [["a", "b"]')
    >>> read_plan_file(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hemkit.core.errors.InputError: .../p.json: not valid JSON (line 1, column 23: Expecting ',' delimiter)
    """
    p = Path(os.fspath(path))
    if not p.exists():
        raise InputError(f"{p}: no such plan file")
    if p.is_dir():
        raise InputError(f"{p}: is a folder, not a plan file")
    raw = read_input(p)  # gzip, bzip2 or xz decompressed
    if raw.startswith(SQLITE_MAGIC):  # the database a plan's collection writes, given for the plan
        raise InputError(
            f"{p}: is a collection database, not a plan file; a collection is continued from its plan "
            f"(hemkit collect PLAN -o {p.name}), and hemkit collect --status {p} says how far it is"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: not a plan file (byte {exc.start} is not UTF-8 text)") from None
    fmt = plan_format(p)
    try:
        data = json.loads(text) if fmt == "json" else tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{p}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{p}: not valid TOML ({str(exc).splitlines()[0]})") from None
    except RecursionError:
        raise InputError(f"{p}: not a plan file (nested too deeply)") from None
    if not isinstance(data, dict):
        raise InputError(f"{p}: not a plan file (expected a table of keys, found a {type(data).__name__})")
    check_version(p, data.pop(VERSION_KEY, None), PLAN_VERSION, "plan file")
    return data


def is_plan_file(path: PathLike) -> bool:
    """Whether ``path`` reads as a plan file (a table of keys with ``groups``): to say so where readings were expected.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "p.toml")
    >>> _ = write_plan_file(path, {"groups": [["a", "b"]]})
    >>> is_plan_file(path), is_plan_file(__file__)
    (True, False)
    """
    try:
        return "groups" in read_plan_file(path)
    except InputError:
        return False


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to a plan file")


def plan_text(data: Mapping[str, Any], fmt: str = "toml", header: str = "") -> str:
    """The text of a plan file: TOML (one group per line, ``header`` as a comment) or JSON.

    ``None`` values are left out.

    Examples
    --------
    >>> print(plan_text({"pmcs": 2, "anchor": None, "groups": [["a", "b"], ["a", "c"]]}, header="demo"))
    # demo
    pmcs = 2
    groups = [
      ["a", "b"],
      ["a", "c"],
    ]
    <BLANKLINE>
    """
    items = {k: v for k, v in data.items() if v is not None}
    if fmt == "json":  # one key per line, one group per line
        dump = lambda v: json.dumps(v, ensure_ascii=False)  # noqa: E731
        body = []
        for k, v in items.items():
            if isinstance(v, list | tuple) and v and all(isinstance(x, list | tuple) for x in v):
                inner = ",\n".join(f"    {dump(x)}" for x in v)
                body.append(f"  {dump(k)}: [\n{inner}\n  ]")
            else:
                body.append(f"  {dump(k)}: {dump(v)}")
        return "{\n" + ",\n".join(body) + "\n}\n"
    lines = [f"# {line}" for line in header.splitlines()]
    for k, v in items.items():
        if isinstance(v, list | tuple) and v and all(isinstance(x, list | tuple) for x in v):
            lines.append(f"{k} = [")
            lines += [f"  {_toml_value(x)}," for x in v]
            lines.append("]")
        else:
            lines.append(f"{k} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"


def write_plan_file(
    path: PathLike, data: Mapping[str, Any], *, header: str = "", inputs: Iterable[PathLike | None] = ()
) -> Path:
    """Write a plan file atomically: JSON for a ``.json`` name, else TOML; its first key is the format version.

    Raises
    ------
    OutputError
        The place cannot be written (see :func:`hemkit.io.atomic.check_output`; also a name for a compression,
        ``plan.toml.gz``), or its name is another format's (``p.csv``: :func:`hemkit.io.formats.check_plan_name`).

    Examples
    --------
    >>> import os, tempfile
    >>> path = write_plan_file(os.path.join(tempfile.mkdtemp(), "p.json"), {"groups": [["a", "b"]]})
    >>> print(path.read_text())
    {
      "format_version": 1,
      "groups": [
        ["a", "b"]
      ]
    }
    <BLANKLINE>
    """
    check_plan_name(path)
    versioned = {VERSION_KEY: PLAN_VERSION, **{k: v for k, v in data.items() if k != VERSION_KEY}}
    return write_text(path, plan_text(versioned, plan_format(path), header), inputs=inputs)


__all__ = ["VERSION_KEY", "plan_format", "plan_text", "read_plan_file", "write_plan_file"]
