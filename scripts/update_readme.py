"""Regenerate the configuration table in docs/configuration.md from the Settings model.

Usage::

    .venv/bin/python scripts/update_readme.py
"""

from __future__ import annotations

import re
from pathlib import Path

from groundwatch.cli.config_doc import settings_table

BEGIN = "<!-- config-table:begin -->"
END = "<!-- config-table:end -->"


def render(readme: str) -> str:
    block = f"{BEGIN}\n{settings_table()}\n{END}"
    if BEGIN in readme:
        return re.sub(
            re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, readme, flags=re.S
        )
    return readme.replace("CONFIG_TABLE", block)


def main() -> None:
    path = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"
    path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
