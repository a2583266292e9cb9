"""Small C workloads compiled on first use with the system C compiler.

Every area that needs a program with known behaviour (the collector's microbenchmarks,
the multiplexing traces' phased kernels, the metric derivation's CAT-style kernels, the
sampling check's known-share program) keeps its C source as package data and calls
:func:`compile_c`, which builds it once into a cache directory (``$HEMKIT_CACHE`` or
``~/.cache/hemkit``) keyed by the source's hash and the flags.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from hemkit.core.errors import InputError, SetupError
from hemkit.external.process import run


def cache_dir() -> Path:
    """Where compiled workloads live (``$HEMKIT_CACHE`` or ``~/.cache/hemkit``)."""
    root = os.environ.get("HEMKIT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "hemkit")
    path = Path(root) / "bin"
    path.mkdir(parents=True, exist_ok=True)
    return path


def find_compiler() -> str:
    """The C compiler (``$CC``, then cc, gcc, clang), or a clear error."""
    for name in filter(None, [os.environ.get("CC"), "cc", "gcc", "clang"]):
        path = shutil.which(name)
        if path:
            return path
    raise SetupError("no C compiler found (set CC or install gcc: apt-get install gcc)")


def compile_c(source: str | Path, *, flags: Sequence[str] = ("-O1",), libs: Sequence[str] = ()) -> Path:
    """Compile one C file (a path, or ``package:relative/path`` package data) once; return the binary.

    Examples
    --------
    >>> exe = compile_c("hemkit.sampling:c/shares.c")  # doctest: +SKIP
    """
    if isinstance(source, str) and ":" in source and not os.path.exists(source):
        package, rel = source.split(":", 1)
        text = resources.files(package).joinpath(rel).read_bytes()
        stem = Path(rel).stem
    else:
        path = Path(source)
        if not path.exists():
            raise InputError(f"{path}: no such C source")
        text = path.read_bytes()
        stem = path.stem
    cc = find_compiler()
    key = hashlib.sha256(text + "\0".join([cc, *flags, *libs]).encode()).hexdigest()[:16]
    exe = cache_dir() / f"{stem}-{key}"
    if exe.exists():
        return exe
    src = cache_dir() / f"{stem}-{key}.c"
    src.write_bytes(text)
    tmp = exe.with_suffix(".tmp")
    proc = run([cc, *flags, "-o", str(tmp), str(src), *libs], what="the C compiler")
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["unknown error"])[0]
        raise SetupError(f"compiling {stem}.c failed: {first}")
    os.replace(tmp, exe)  # atomic: concurrent builds of the same source are safe
    return exe
