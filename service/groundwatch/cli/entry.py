"""The ``groundwatch`` command line.

Usage::

    groundwatch serve                      # HTTP API (+ Kafka consumer when configured)
    groundwatch demo                       # serve + replay bundled sample traces
    groundwatch evaluate traces.jsonl -o out.jsonl
    groundwatch config                     # every GROUNDWATCH_ variable with its default
    groundwatch schema --out schemas/      # JSON Schemas of the contracts
    groundwatch baseline pin|show|clear    # pinned drift reference
    groundwatch produce-sample --n 100     # push sample traces into the Kafka topic
    groundwatch suite run|compare|calibrate|check-evidence   # offline evaluation suite
    groundwatch findings export            # contradicted claims as draft eval cases
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from groundwatch.settings import Settings

__all__ = ["main"]


def _configure_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # kafka-python logs every connection at INFO; keep ours readable.
    logging.getLogger("kafka").setLevel(max(logging.WARNING, logging.getLogger().level))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="groundwatch", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser(
        "serve", help="run the HTTP API (and the Kafka consumer when configured)"
    )
    serve.add_argument("--host", help="bind address (default: GROUNDWATCH_API__HOST, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default: GROUNDWATCH_API__PORT, 8080)")

    demo = sub.add_parser(
        "demo", help="serve and replay bundled sample traces (stable, then shifted)"
    )
    demo.add_argument("--host", default=None)
    demo.add_argument("--port", type=int, default=None)
    demo.add_argument("--duration", type=float, default=40.0, help="seconds the replay takes")
    demo.add_argument(
        "--serve-forever", action="store_true", help="keep serving after the replay (Ctrl-C stops)"
    )

    ev = sub.add_parser("evaluate", help="score a JSONL file of traces offline")
    ev.add_argument("input", help="JSONL file of traces, or - for stdin")
    ev.add_argument("-o", "--output", default="-", help="output JSONL of records, or - for stdout")
    ev.add_argument(
        "--errors", default=None, help="file for invalid lines (default OUTPUT.errors.jsonl)"
    )
    ev.add_argument("--batch-size", type=int, default=16)
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")

    sub.add_parser("config", help="print every configuration variable with its default")

    schema = sub.add_parser("schema", help="write the JSON Schemas of the contracts")
    schema.add_argument("--out", default="schemas", help="directory (default: schemas)")
    schema.add_argument("--check", action="store_true", help="fail if the files are stale")

    baseline = sub.add_parser("baseline", help="pin, show or clear the drift baseline")
    baseline.add_argument("action", choices=["pin", "show", "clear"])

    produce = sub.add_parser("produce-sample", help="push sample traces into the Kafka trace topic")
    produce.add_argument("--n", type=int, default=100, help="how many traces")
    produce.add_argument("--bootstrap", default=None, help="brokers (default from settings)")
    produce.add_argument("--topic", default=None, help="topic (default from settings)")
    from groundwatch.cli.suite import add_parsers as add_suite_parsers

    add_suite_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = Settings()
    except Exception as exc:  # pydantic ValidationError: say which variable is wrong
        print(f"groundwatch: invalid configuration: {exc}", file=sys.stderr)
        return 2
    _configure_logging(settings.log_level)
    command: str = args.command
    if command == "serve":
        from groundwatch.cli.commands import serve

        return serve(settings, host=args.host, port=args.port)
    if command == "demo":
        from groundwatch.cli.demo import run_demo

        return run_demo(
            settings,
            host=args.host,
            port=args.port,
            duration=args.duration,
            serve_forever=args.serve_forever,
        )
    if command == "evaluate":
        from groundwatch.evaluation.batch import run_batch

        return run_batch(
            settings,
            args.input,
            args.output,
            errors_path=args.errors,
            batch_size=args.batch_size,
            progress=not args.no_progress,
        )
    if command == "config":
        from groundwatch.cli.config_doc import settings_table

        print(settings_table())
        return 0
    if command == "schema":
        from groundwatch.contract.schemas import write_schemas

        return write_schemas(args.out, check=args.check)
    if command == "baseline":
        from groundwatch.cli.commands import baseline

        return baseline(settings, args.action)
    if command == "produce-sample":
        from groundwatch.cli.commands import produce_sample

        return produce_sample(settings, n=args.n, bootstrap=args.bootstrap, topic=args.topic)
    if command == "suite":
        from groundwatch.cli.suite import run_suite_command

        return run_suite_command(settings, args)
    if command == "findings":
        from groundwatch.cli.suite import run_findings

        return run_findings(settings, args)
    return 2  # pragma: no cover - argparse enforces the choices


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
