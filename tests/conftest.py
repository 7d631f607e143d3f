"""Shared fixtures: real Redis and Kafka-compatible broker, started once per session on free
loopback ports and stopped at the end (also on failure)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.infra import KafkaBroker, RedisClusterServers, RedisServer

# Shared factories (settings, traces) and the CI=true missing-tool rule; pytester for testing it.
pytest_plugins = ["pytester", "tests.plugins"]


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    with RedisServer.start() as server:
        yield server


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[KafkaBroker]:
    with KafkaBroker.start() as broker:
        yield broker


@pytest.fixture
def unique_name() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisClusterServers]:
    """A 3-master Redis Cluster on free loopback ports (see tests/infra.py)."""
    with RedisClusterServers.start() as cluster:
        yield cluster
