"""``replace`` for tests that edit both kinds of records.

The engine and rules records are ``msgspec.Struct`` (``msgspec.structs.replace``);
the simulation's results are still dataclasses (``dataclasses.replace``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from msgspec import Struct
from msgspec.structs import replace as replace_struct

T = TypeVar("T")


def replace(record: T, **changes: Any) -> T:
    """A copy of ``record`` with ``changes``, whichever kind of record it is."""
    if isinstance(record, Struct):
        return replace_struct(record, **changes)
    return dataclasses.replace(record, **changes)  # type: ignore[type-var]
