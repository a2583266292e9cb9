"""Deprecated location: the collection database lives in :mod:`hemkit.io.collection`."""

from hemkit.io.collection import SCHEMA, CollectionDB, load_readings  # noqa: F401
