"""Text normalisation applied to every trace on ingest, before any judge parses it.

Usage::

    clean = normalize_text("$1\u200b25")     # "$125"

Unicode NFKC (full-width digits, ligatures and compatibility forms become their plain
equivalents), then zero-width and other format characters (category ``Cf``: U+200B, U+200D,
U+2060, U+FEFF, soft hyphens, bidi marks) and control characters other than tab, newline and
carriage return are removed. A number split by an invisible character is then read whole.
"""

from __future__ import annotations

import unicodedata

__all__ = [
    "control_characters",
    "has_visible_character",
    "normalize_text",
    "unencodable_path",
]

_KEEP_CONTROLS = frozenset("\t\n\r")


def _drop(ch: str) -> bool:
    category = unicodedata.category(ch)
    if category == "Cf":
        return True
    return category == "Cc" and ch not in _KEEP_CONTROLS


def normalize_text(text: str) -> str:
    """NFKC, then zero-width, format and control characters (except tab/newline/CR) removed."""
    if text.isascii():
        # Fast path: ASCII is already NFKC; only C0 controls and DEL can need removing.
        if text.isprintable() or not any(_drop(ch) for ch in text):
            return text
        return "".join(ch for ch in text if not _drop(ch))
    normal = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in normal if not _drop(ch))


def control_characters(text: str) -> list[str]:
    """The control and format characters in ``text``, as ``U+XXXX`` (for error messages)."""
    return [f"U+{ord(ch):04X}" for ch in text if unicodedata.category(ch) in ("Cc", "Cf")]


def has_visible_character(text: str) -> bool:
    """True when some character is printable and not whitespace."""
    return any(ch.isprintable() and not ch.isspace() for ch in text)


def _unencodable(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def unencodable_path(value: object, path: str = "") -> str | None:
    """The path (``contexts.0.id``) of the first string, key or value, anywhere in a parsed
    JSON value that is not valid Unicode (a lone surrogate such as ``"\\ud800"``, which JSON
    allows but UTF-8 cannot encode), or None. One rule for every field: what validates can
    be written to a record, a finding, a topic or an export."""
    if isinstance(value, str):
        return path or "(root)" if _unencodable(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and _unencodable(key):
                return f"{path}.{key!a}" if path else ascii(key)
            found = unencodable_path(item, where)
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = unencodable_path(item, f"{path}.{i}" if path else str(i))
            if found is not None:
                return found
    return None
