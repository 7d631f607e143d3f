"""The sections of the evaluation pipeline's own steps: ``sampling`` (which traces are scored)
and ``redaction`` (how PII is removed before anything is stored or published)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import NoDecode

__all__ = [
    "RedactionSettings",
    "SamplingSettings",
]


class SamplingSettings(BaseModel):
    rate: float = Field(
        default=1.0, ge=0.0, le=1.0, description="Share of traces scored, by trace_id hash."
    )
    overrides: dict[str, Annotated[float, Field(ge=0.0, le=1.0)]] = Field(
        default_factory=dict,
        description='Per-slice rates (0..1), JSON {"key=value": rate}, e.g. {"tenant=acme": 0.5}.',
    )


class RedactionSettings(BaseModel):
    mode: Literal["off", "mask", "hash", "drop_text"] = Field(
        default="mask", description="How PII is removed before anything is stored or published."
    )
    hash_key: SecretStr | None = Field(
        default=None, description="Key of the keyed hash (mode=hash)."
    )
    kinds: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["email", "phone", "card", "iban", "ip", "api_key", "jwt"],
        description="Built-in detectors enabled (JSON list or comma-separated).",
    )
    patterns: dict[str, str] = Field(
        default_factory=dict, description='Operator patterns, JSON {"name": "regex"}.'
    )

    @field_validator("kinds", mode="before")
    @classmethod
    def _kind_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [k.strip() for k in text.split(",") if k.strip()]
        return value
