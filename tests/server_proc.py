"""The HTTP API (``serve_app``, the ``serve`` command's uvicorn) in its own process with a fake
judge, for tests that measure the process (RSS) or kill it. Settings come from the
``GROUNDWATCH_*`` environment, as for ``groundwatch serve``. Runs until SIGTERM/SIGINT.

Usage::

    python -m tests.server_proc --port 18080 [--judge-delay 2.0] [--contradict WORD]
"""

from __future__ import annotations

import argparse
import logging

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config, serve_app
from groundwatch.contract.record import Verdict
from groundwatch.contract.trace import RagTrace
from groundwatch.runtime import Runtime
from groundwatch.settings import Settings
from tests.fakes import FakeJudge


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--judge-delay", type=float, default=0.0, help="seconds per judge call")
    parser.add_argument(
        "--contradict", default="", help="claims holding this word are contradicted (findings)"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    settings = Settings()
    word = args.contradict

    def verdict(claim: str, _: RagTrace) -> Verdict:
        return "contradicted" if word and word in claim else "supported"

    judge = FakeJudge(verdict, delay_s=args.judge_delay)
    runtime = Runtime.build(settings, judge=judge, with_kafka=False)
    server = serve_app(
        create_app(runtime, app_config(settings)), "127.0.0.1", args.port, settings.api
    )
    server.run()


if __name__ == "__main__":
    main()
