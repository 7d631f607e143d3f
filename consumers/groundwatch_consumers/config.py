"""Kafka client configuration from :class:`~groundwatch.sections.connections.KafkaSettings`: bootstrap
servers, client id and the SASL/SSL pass-through shared by the consumer and producers.

Usage::

    KafkaProducer(**client_config(settings.kafka), acks="all")
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any

from groundwatch.sections.connections import KafkaSettings

__all__ = ["KafkaUnavailableError", "any_reachable", "client_config"]


class KafkaUnavailableError(RuntimeError):
    """The broker cannot be reached or did not acknowledge in time. Retry; do not commit."""

    retriable = True


def client_config(settings: KafkaSettings, *, suffix: str = "") -> dict[str, Any]:
    if not settings.bootstrap_servers:
        raise ValueError("kafka.bootstrap_servers is not set")
    cfg: dict[str, Any] = {
        "bootstrap_servers": [
            s.strip() for s in settings.bootstrap_servers.split(",") if s.strip()
        ],
        "client_id": settings.client_id + suffix,
        "security_protocol": settings.security_protocol,
    }
    if settings.sasl_mechanism:
        cfg["sasl_mechanism"] = settings.sasl_mechanism
        cfg["sasl_plain_username"] = settings.sasl_username
        if settings.sasl_password is not None:
            cfg["sasl_plain_password"] = settings.sasl_password.get_secret_value()
    for key in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
        value = getattr(settings, key)
        if value:
            cfg[key] = value
    return cfg


def any_reachable(bootstrap_servers: list[str], timeout_s: float = 2.0) -> bool:
    """True when at least one bootstrap address accepts a TCP connection. Checked before a
    client is built: a kafka-python client that fails to bootstrap leaves its IO thread behind,
    so retrying construction against a dead cluster would leak a thread per attempt."""
    for server in bootstrap_servers:
        host, _, port = server.rpartition(":")
        with (
            contextlib.suppress(OSError, ValueError),
            socket.create_connection((host.strip("[]") or "localhost", int(port)), timeout_s),
        ):
            return True
    return False
