"""Solver work as kept bytes, sealed with a digest (:mod:`sevendag_cli.solver_cache` keeps
them in the user's cache): the policy odds table (:mod:`sevendag_cli.sevendag.policy`) and
``advise``'s game (:mod:`sevendag_cli.sevendag.game_cache`).  Nothing here knows what the
bytes hold: the reader checks its header and values itself."""

from __future__ import annotations

import hashlib
from typing import TypeVar

Header = TypeVar("Header")


def sealed(header: object, blob: bytes) -> bytes:
    """Solver work as kept bytes: a SHA-256 of the rest, the header's length (8 bytes), the
    header (msgpack), then ``blob`` (little-endian doubles: :func:`unsealed` reads them only on
    a little-endian machine)."""
    import struct

    import msgspec

    head = msgspec.msgpack.encode(header)
    body = struct.pack("<Q", len(head)) + head + blob
    return hashlib.sha256(body).digest() + body


def unsealed(raw: bytes | None, header: type[Header]) -> tuple[Header, bytes] | None:
    """The header (of type ``header``) and the blob of bytes :func:`sealed` wrote; None if
    they are not such bytes (too short, their digest wrong, their header another type's) or
    the machine is big-endian."""
    import struct
    import sys

    import msgspec

    if raw is None or len(raw) < 40 or sys.byteorder != "little":
        return None
    digest, body = raw[:32], raw[32:]
    if hashlib.sha256(body).digest() != digest:
        return None
    (size,) = struct.unpack_from("<Q", body)
    if size > len(body) - 8:
        return None
    try:
        h = msgspec.msgpack.decode(body[8:8 + size], type=header)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return h, body[8 + size:]
