from __future__ import annotations

import redis

from tests.infra import KafkaBroker, RedisServer


def test_redis_server_starts_and_restarts() -> None:
    # Its own server: a restart drops all data, which the session server's users would see.
    with RedisServer.start() as server:
        client = redis.Redis.from_url(server.url, socket_timeout=5)
        client.set("k", "v")
        assert client.get("k") == b"v"
        old = server.proc
        server.restart(down_s=0.2)
        assert old.poll() is not None  # the first process is gone ...
        assert server.proc.pid != old.pid  # ... a new one serves the same port
        assert client.get("k") is None  # no persistence: a restart is a clean slate
        client.set("k", "w")
        assert client.get("k") == b"w"
        client.close()


def test_kafka_broker_roundtrip(kafka_broker: KafkaBroker, unique_name: str) -> None:
    from kafka import KafkaConsumer, KafkaProducer

    kafka_broker.create_topic(unique_name, partitions=1)
    producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap)
    producer.send(unique_name, b"hello", key=b"k").get(timeout=10)
    producer.close()
    consumer = KafkaConsumer(
        unique_name,
        bootstrap_servers=kafka_broker.bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=10000,
        group_id=unique_name,
        session_timeout_ms=6000,
        heartbeat_interval_ms=1000,
    )
    values = [m.value for m in consumer]
    consumer.close()
    assert values == [b"hello"]
