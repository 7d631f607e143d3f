"""Implementations of the long-running and operational CLI commands."""

from __future__ import annotations

import errno
import logging
import signal
import socket
import sys
from typing import TYPE_CHECKING, Any

from groundwatch.sections.api import ApiSettings
from groundwatch.settings import Settings

if TYPE_CHECKING:  # the app (FastAPI) is imported where it is built
    from groundwatch.api.app import AppConfig

__all__ = [
    "BindError",
    "app_config",
    "baseline",
    "bind_socket",
    "produce_sample",
    "run_bound",
    "serve",
    "serve_app",
]

log = logging.getLogger(__name__)


def _warn_startup(settings: Settings) -> None:
    from groundwatch.api import security

    for line in security.startup_warnings(settings.api, settings.redaction):
        log.warning("%s", line)


def app_config(settings: Settings) -> AppConfig:
    """The sections the HTTP app reads (:class:`~groundwatch.api.app.AppConfig`), from the
    whole settings: ``create_app(runtime, app_config(settings))``."""
    from groundwatch.api.app import AppConfig

    return AppConfig(
        api=settings.api,
        limits=settings.limits,
        windows=settings.windows,
        otel=settings.otel,
        judge_workers=settings.judge.workers,
    )


def serve_app(app: Any, host: str, port: int, api: ApiSettings | None = None) -> Any:
    """A uvicorn server for ``app`` (not yet started); SIGTERM/SIGINT stop it gracefully.

    Bounded: at most ``api.max_connections`` open connections (one more closes the one idle
    longest, so idle clients never lock out a probe), ``api.max_inflight`` requests at once
    (503 beyond, probes exempt: ``api.limits``), idle keep-alive connections closed after
    ``api.keep_alive_s``, request headers and bodies
    that do not arrive within ``api.header_timeout_s`` / ``api.body_timeout_s`` cut off, a
    shutdown that waits at most ``api.drain_timeout_s`` for open requests (then the evaluation
    queue drains, bounded by the same setting)."""
    import uvicorn

    from groundwatch.api.read_timeouts import guarded_h11

    api = api or ApiSettings()
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=guarded_h11(api.header_timeout_s, api.body_timeout_s, api.max_connections),
        log_level="warning",
        access_log=False,
        # Not uvicorn's limit_concurrency: it counts idle connections too and then answers 503
        # to every request, probes included (issue 36). Requests: InflightLimit; connections:
        # guarded_h11's cap.
        limit_concurrency=None,
        timeout_keep_alive=max(1, int(api.keep_alive_s)),
        timeout_graceful_shutdown=max(1, int(api.drain_timeout_s)),
        h11_max_incomplete_event_size=64 * 1024,  # request line + headers
    )
    return uvicorn.Server(config)


class BindError(OSError):
    """The port cannot be bound; the message is one line for the user."""


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind ``host:port`` now, before any slow start-up, so a busy port fails at once.

    Pass the socket to ``server.run(sockets=[sock])``. Raises :class:`BindError`."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise BindError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        busy = exc.errno == errno.EADDRINUSE
        hint = " (another process uses it: pick --port or GROUNDWATCH_API__PORT)" if busy else ""
        raise BindError(f"cannot listen on {host}:{port}: {exc.strerror or exc}{hint}") from None
    return sock


def run_bound(server: Any, sock: socket.socket, started_line: str) -> bool:
    """Run ``server`` on the bound ``sock``; log ``started_line`` only once it accepts
    connections (after the lifespan start-up). Returns whether it ever started."""
    original = server.startup

    async def startup(*args: Any, **kwargs: Any) -> None:
        await original(*args, **kwargs)
        if server.started:
            log.info("%s", started_line)

    server.startup = startup
    with sock:
        server.run(sockets=[sock])
    return bool(server.started)


def serve(settings: Settings, host: str | None = None, port: int | None = None) -> int:
    from groundwatch.api import security
    from groundwatch.api.app import create_app
    from groundwatch.runtime import Runtime

    # --host/--port override the settings, so the checks below see the real bind address.
    overrides = {k: v for k, v in (("host", host), ("port", port)) if v}
    if overrides:
        settings = settings.model_copy(update={"api": settings.api.model_copy(update=overrides)})
    host, port = settings.api.host, settings.api.port
    _warn_startup(settings)
    try:
        security.check_bind(settings.api)
    except security.InsecureBindError as exc:
        log.error("%s", exc)
        return 2
    try:
        sock = bind_socket(host, port)
    except BindError as exc:
        print(f"groundwatch serve: {exc}", file=sys.stderr)
        return 2
    app = create_app(Runtime.build(settings), app_config(settings))
    mode = "kafka consumer + HTTP" if settings.kafka.bootstrap_servers else "HTTP sidecar"
    # uvicorn handles SIGTERM/SIGINT: drains, then lifespan stop.
    server = serve_app(app, host, port, settings.api)
    started = run_bound(server, sock, f"groundwatch serving on http://{host}:{port} ({mode})")
    return 0 if started else 1


def baseline(settings: Settings, action: str) -> int:
    """``groundwatch baseline pin|show|clear`` against the configured (shared) window store.
    With in-memory state a baseline lives only as long as the process: use Redis."""
    import json

    from groundwatch.runtime import _build_stores
    from groundwatch.state import baseline as baseline_mod
    from groundwatch.state.stores import StoreUnavailableError

    if settings.state == "memory" or (settings.state == "auto" and not settings.redis.url):
        print(
            "groundwatch baseline: needs the shared window store that `serve` writes to: set"
            " GROUNDWATCH_REDIS__URL (and GROUNDWATCH_STATE=redis or auto). With in-memory state"
            " each process has its own windows, so this command would see no scored traces and"
            " a pinned baseline would vanish when it exits.",
            file=sys.stderr,
        )
        return 2
    windows, _, _ = _build_stores(settings)
    try:
        if action == "pin":
            try:
                pinned = baseline_mod.pin_baseline(windows, settings.windows)
            except baseline_mod.BaselineError as exc:
                print(f"groundwatch baseline: {exc}", file=sys.stderr)
                return 1
            print(json.dumps(baseline_mod.show_baseline(windows), indent=2))
            del pinned
        elif action == "clear":
            removed = baseline_mod.clear_baseline(windows)
            print("baseline cleared" if removed else "no baseline was pinned")
        else:
            shown = baseline_mod.show_baseline(windows)
            print(
                json.dumps(shown, indent=2) if shown else "no baseline pinned (rolling reference)"
            )
    except StoreUnavailableError as exc:
        print(f"groundwatch baseline: window store unavailable: {exc}", file=sys.stderr)
        return 2
    return 0


def produce_sample(
    settings: Settings, *, n: int, bootstrap: str | None = None, topic: str | None = None
) -> int:
    servers = bootstrap or settings.kafka.bootstrap_servers
    if not servers:
        print(
            "groundwatch produce-sample: set --bootstrap or GROUNDWATCH_KAFKA__BOOTSTRAP_SERVERS",
            file=sys.stderr,
        )
        return 2
    from groundwatch_consumers.samples import produce_samples

    sent = produce_samples(servers, topic or settings.kafka.topic, n)
    print(f"sent {sent} sample traces to {topic or settings.kafka.topic}", file=sys.stderr)
    return 0


def install_signal_handlers(stop: Any) -> None:
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop())
