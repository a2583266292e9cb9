"""DESIGN.md section 3: every ``seed`` parameter of the library defaults to 0 (same call, same numbers)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import hemkit


def _seed_defaults():
    for mod in pkgutil.walk_packages(hemkit.__path__, "hemkit."):
        if mod.name.startswith("hemkit.cli") or mod.name.endswith("__main__"):
            continue
        module = importlib.import_module(mod.name)
        for name, obj in vars(module).items():
            if getattr(obj, "__module__", None) != mod.name:
                continue
            targets = [(name, obj)]
            if inspect.isclass(obj):
                targets = [(f"{name}.{k}", v) for k, v in vars(obj).items() if inspect.isfunction(v)]
                if dataclasses.is_dataclass(obj):
                    targets += [(f"{name}.{f.name}", f) for f in dataclasses.fields(obj) if f.name == "seed"]
            for label, target in targets:
                if isinstance(target, dataclasses.Field):
                    yield f"{mod.name}.{label}", target.default
                elif inspect.isfunction(target):
                    p = inspect.signature(target).parameters.get("seed")
                    if p is not None and p.default is not inspect.Parameter.empty:
                        yield f"{mod.name}.{label}", p.default


def test_every_seed_defaults_to_zero():
    found = dict(_seed_defaults())
    assert len(found) > 30
    assert {k: v for k, v in found.items() if v != 0} == {}
