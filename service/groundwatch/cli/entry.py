"""The ``groundwatch`` command line.

Usage::

    groundwatch serve                      # HTTP API (+ Kafka consumer when configured)
    groundwatch demo                       # serve + replay bundled sample traces
    groundwatch evaluate traces.jsonl -o out.jsonl
    groundwatch --version
    groundwatch config                     # effective values and where each came from
    groundwatch config --defaults          # every GROUNDWATCH_ variable with its default
    groundwatch schema --out schemas/      # JSON Schemas of the contracts
    groundwatch baseline pin|show|clear    # pinned drift reference
    groundwatch produce-sample --n 100     # push sample traces into the Kafka topic
    groundwatch suite run|compare|calibrate|check-evidence   # offline evaluation suite
    groundwatch findings export            # contradicted claims as draft eval cases
    groundwatch judge adapt labelled.jsonl -o cal.json   # refit on labelled findings (triage.md)
    groundwatch capacity --traces-per-second 1000 --sample-rate 0.1   # sizing (docs/capacity.md)
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from groundwatch.settings import Settings, environment_variable

__all__ = ["main", "version"]

DESCRIPTION = (
    "groundwatch: reference-free monitoring of RAG assistants (faithfulness, contradictions,"
    " drift). Configuration comes from GROUNDWATCH_* environment variables: see"
    " `groundwatch config`."
)
BUG_REPORT = "Report bugs with the output of `groundwatch --version` and `groundwatch config`."


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("groundwatch")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def _configure_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # kafka-python logs every connection at INFO; keep ours readable.
    logging.getLogger("kafka").setLevel(max(logging.WARNING, logging.getLogger().level))


def _default_judge() -> str:
    """The judge backend the demo and serve run without settings (the settings' default)."""
    from groundwatch.sections.judging import JudgeSettings

    return str(JudgeSettings.model_fields["backend"].default)


def _sub(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, summary: str, detail: str
) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=summary, description=f"{summary}. {detail}".strip())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="groundwatch", description=DESCRIPTION, epilog=BUG_REPORT)
    parser.add_argument(
        "--version", action="version", version=f"groundwatch {version()}", help="print the version"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = _sub(
        sub,
        "serve",
        "run the HTTP API (and the Kafka consumer when configured)",
        "Serves /v1/evaluate, /v1/rag-traces, /v1/traces (OTLP), /metrics and the findings page."
        " Consumes the Kafka topic when GROUNDWATCH_KAFKA__BOOTSTRAP_SERVERS is set.",
    )
    serve.add_argument("--host", help="bind address (default: GROUNDWATCH_API__HOST, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default: GROUNDWATCH_API__PORT, 8080)")

    demo = _sub(
        sub,
        "demo",
        "serve and replay bundled sample traces (a healthy assistant, then a bad deploy)",
        f"In-memory state and the default judge ({_default_judge()}: the claim verifier "
        "shipped in the package, on onnxruntime, no torch; GROUNDWATCH_JUDGE__BACKEND picks "
        "another); nothing else to run. The page stays up --linger seconds after the replay "
        "(default 300; --serve-forever: until Ctrl-C).",
    )
    demo.add_argument("--host", default=None, help="bind address (default: 127.0.0.1)")
    demo.add_argument("--port", type=int, default=None, help="port (default: 8080)")
    demo.add_argument(
        "--duration", type=float, default=40.0, help="seconds the replay takes (default: 40)"
    )
    demo.add_argument(
        "--serve-forever", action="store_true", help="keep serving after the replay (Ctrl-C stops)"
    )
    demo.add_argument(
        "--linger",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="keep the page and /metrics up this long after the replay, with its last windows "
        "(default: 300; 0: stop right after; Ctrl-C stops sooner)",
    )
    demo.add_argument(
        "--with-prometheus",
        action="store_true",
        help="also run a local Prometheus (the Debian package's binary) with the shipped alert "
        "rules scraping the demo, and print the alerts that went pending and firing",
    )
    demo.add_argument(
        "--rules",
        type=Path,
        default=None,
        help="alert rules to evaluate (default: dashboards/alerts.yml of the source tree)",
    )

    ev = _sub(
        sub,
        "evaluate",
        "score a JSONL file of traces offline",
        "One evaluation record per valid line, in input order; invalid lines go to an errors file.",
    )
    ev.add_argument("input", help="JSONL file of traces, or - for stdin")
    ev.add_argument("-o", "--output", default="-", help="output JSONL of records, or - for stdout")
    ev.add_argument(
        "--errors", default=None, help="file for invalid lines (default OUTPUT.errors.jsonl)"
    )
    ev.add_argument(
        "--batch-size", type=int, default=16, help="traces judged together (default: 16)"
    )
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")

    config = _sub(
        sub,
        "config",
        "print the effective configuration and where each value came from",
        "Every GROUNDWATCH_ variable with its value now and its source (default or environment);"
        " secrets are never printed.",
    )
    config.add_argument(
        "--defaults",
        action="store_true",
        help="print the Markdown table of every variable, its default and meaning instead",
    )

    schema = _sub(
        sub,
        "schema",
        "write the JSON Schemas of the contracts",
        "rag-trace.v1 and evaluation-record.v1, generated from the models.",
    )
    schema.add_argument("--out", default="schemas", help="directory (default: schemas)")
    schema.add_argument("--check", action="store_true", help="fail if the files are stale")

    baseline = _sub(
        sub,
        "baseline",
        "pin, show or clear the drift baseline",
        "Needs the shared window store (GROUNDWATCH_STATE=redis, GROUNDWATCH_REDIS__URL): a"
        " baseline pinned in memory would vanish when this command exits.",
    )
    baseline.add_argument(
        "action",
        choices=["pin", "show", "clear"],
        help="pin: freeze the current reference window as the drift baseline; show: print it;"
        " clear: go back to the rolling reference",
    )

    produce = _sub(
        sub,
        "produce-sample",
        "push sample traces into the Kafka trace topic",
        "For trying the Kafka path; see the README for a local broker.",
    )
    produce.add_argument("--n", type=int, default=100, help="how many traces (default: 100)")
    produce.add_argument("--bootstrap", default=None, help="brokers (default from settings)")
    produce.add_argument("--topic", default=None, help="topic (default from settings)")

    from groundwatch.cli.suite import add_parsers as add_suite_parsers

    add_suite_parsers(sub)
    from groundwatch.cli.capacity import add_parser as add_capacity_parser

    add_capacity_parser(sub)
    from groundwatch.cli.judge import add_parser as add_judge_parser

    add_judge_parser(sub)
    return parser


def _configuration_error(exc: ValidationError) -> str:
    lines = ["groundwatch: invalid configuration:"]
    for err in exc.errors(include_url=False, include_input=False):
        loc = [str(p) for p in err["loc"]]
        lines.append(f"  {environment_variable(loc)}: {err['msg']}")
    return "\n".join(lines)


def _quiet_broken_pipe() -> int:
    # The reader went away (`| head`): stop quietly, and keep the interpreter's final flush
    # of stdout from raising again at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 141  # 128 + SIGPIPE, what a shell reports for a writer killed by a closed pipe


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except BrokenPipeError:
        return _quiet_broken_pipe()


def _run(args: argparse.Namespace) -> int:
    if args.command == "config" and args.defaults:
        from groundwatch.cli.config_doc import settings_table

        print(settings_table())
        return 0
    try:
        settings = Settings()
    except ValidationError as exc:
        print(_configuration_error(exc), file=sys.stderr)
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
            linger_s=args.linger,
            with_prometheus=args.with_prometheus,
            rules=args.rules,
        )
    if command == "evaluate":
        from groundwatch.evaluation.batch import run_batch
        from groundwatch.evaluation.evaluator import Evaluator

        def evaluator() -> Evaluator:
            from groundwatch.judges.factory import build_judge

            judge = build_judge(settings.judge, settings.embedding)
            judge.load()
            return Evaluator(judge)

        return run_batch(
            settings.limits,
            args.input,
            args.output,
            evaluator=evaluator,
            errors_path=args.errors,
            batch_size=args.batch_size,
            progress=not args.no_progress,
        )
    if command == "config":
        from groundwatch.cli.config_doc import effective_table
        from groundwatch.settings import groundwatch_environment

        print(effective_table(settings, groundwatch_environment()))
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
    if command == "capacity":
        from groundwatch.cli.capacity import run_capacity

        return run_capacity(settings, args)
    if command == "findings":
        from groundwatch.cli.suite import run_findings

        return run_findings(settings, args)
    if command == "judge":
        from groundwatch.cli.judge import run_judge

        return run_judge(settings, args)
    return 2  # pragma: no cover - argparse enforces the choices


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
