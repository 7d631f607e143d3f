"""Absence checks that cannot pass or fail by chance.

Usage::

    assert_absent("qzvkrwmxtjplfbnh", response.text, where=path)

A test that looks for a leaked value in output full of digits and random ids (``/metrics``
with its ``_created`` timestamps, JSON with ``ts`` floats, hashed or random ids) must look for
something those cannot contain by chance: ``"4242"`` occurs in ``1.7963229381474242e+09``.
:func:`assert_absent` refuses such a needle before it looks.
"""

from __future__ import annotations

import re

__all__ = ["assert_absent", "distinctive"]

# What numbers (1.79e+09, -0.5), timestamps (2026-12-04T02:24:00) and hex or uuid ids are made of.
_NUMERIC_OR_HEX = re.compile(r"[0-9a-fA-F.+\-:T]*")


def distinctive(needle: str) -> bool:
    """True when ``needle`` cannot turn up by chance inside a number, a timestamp or a
    hex id: at least 8 characters, and not made only of digits, hex letters and ``.+-:T``."""
    return len(needle) >= 8 and _NUMERIC_OR_HEX.fullmatch(needle) is None


def assert_absent(needle: str, text: str, *, where: object = "") -> None:
    """Assert ``needle`` is not in ``text``, after checking that the needle is distinctive."""
    assert distinctive(needle), f"{needle!r} could occur by chance in numbers or ids"
    assert needle not in text, (where, needle)
