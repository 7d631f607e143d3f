"""The root settings object, :class:`Settings`: built once at start-up by the composition root
(``groundwatch.runtime`` and the CLI), the one thing that reads the environment. Components
never see it: each takes its own section (``groundwatch.sections``) or plain parameters, and
an import-linter contract keeps every other module from importing this one.

Every field maps to one environment variable: prefix ``GROUNDWATCH_``, nested delimiter ``__``,
e.g. ``GROUNDWATCH_KAFKA__BOOTSTRAP_SERVERS``. ``groundwatch config`` prints the full table.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from groundwatch.contract.trace import TraceLimits
from groundwatch.sections.api import ApiSettings
from groundwatch.sections.connections import KafkaSettings, OtelSettings, RedisSettings
from groundwatch.sections.judging import EmbeddingSettings, JudgeSettings
from groundwatch.sections.pipeline import RedactionSettings, SamplingSettings
from groundwatch.sections.windows import FindingsSettings, WindowSettings

__all__ = [
    "ENV_PREFIX",
    "Settings",
    "environment_variable",
    "groundwatch_environment",
]

ENV_PREFIX = "GROUNDWATCH_"


def environment_variable(path: tuple[str | int, ...] | list[str]) -> str:
    """The variable that sets a settings field: ``("api", "port")`` -> ``GROUNDWATCH_API__PORT``."""
    return ENV_PREFIX + "__".join(str(p).upper() for p in path)


def groundwatch_environment() -> dict[str, str]:
    """The ``GROUNDWATCH_*`` variables set now, names upper-cased (``groundwatch config`` shows
    where each effective value came from). Values of secrets are the caller's to hide."""
    import os

    return {k.upper(): v for k, v in os.environ.items() if k.upper().startswith(ENV_PREFIX)}


class Settings(BaseSettings):
    """All of groundwatch's configuration. ``Settings()`` reads ``GROUNDWATCH_*`` variables."""

    model_config = SettingsConfigDict(
        env_prefix="GROUNDWATCH_", env_nested_delimiter="__", extra="ignore"
    )

    log_level: str = Field(default="INFO", description="Log level.")
    state: Literal["auto", "memory", "redis"] = Field(
        default="auto", description="Window/findings store: auto = redis when REDIS__URL is set."
    )
    api: ApiSettings = Field(default_factory=ApiSettings)
    limits: TraceLimits = Field(default_factory=TraceLimits)
    kafka: KafkaSettings = Field(default_factory=KafkaSettings)
    redis: RedisSettings = Field(default_factory=RedisSettings)
    sampling: SamplingSettings = Field(default_factory=SamplingSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    windows: WindowSettings = Field(default_factory=WindowSettings)
    findings: FindingsSettings = Field(default_factory=FindingsSettings)
    redaction: RedactionSettings = Field(default_factory=RedactionSettings)
    otel: OtelSettings = Field(default_factory=OtelSettings)
