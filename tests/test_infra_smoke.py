from __future__ import annotations

import redis

from tests.infra import KafkaBroker, RedisServer


def test_redis_server_starts_and_restarts(redis_server: RedisServer) -> None:
    client = redis.Redis.from_url(redis_server.url)
    client.set("k", "v")
    assert client.get("k") == b"v"


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
