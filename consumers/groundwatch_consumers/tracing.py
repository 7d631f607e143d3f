"""W3C ``traceparent`` on Kafka headers -> OpenTelemetry context, so the service's spans for a
trace join the assistant's distributed trace.

Usage::

    spans = TraceSpans(tracer_provider)               # None: no spans, no overhead
    parent = spans.extract(record.headers)            # Context | None
    with spans.child("groundwatch.decode", parent): ...
    with spans.batch("groundwatch.judge", [parent, ...], traces=n): ...

A span about one message is a *child* of the producer's span. A span about a batch (judging,
recording) has one *link* per message instead, as the OpenTelemetry messaging conventions
recommend: a span can have only one parent.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.propagators.textmap import Getter, Setter
from opentelemetry.trace import Link, SpanKind, TracerProvider
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

__all__ = ["HeaderList", "TraceSpans", "inject_headers"]

HeaderList = Sequence[tuple[str, bytes | None]]
MAX_LINKS = 128
_PROPAGATOR = TraceContextTextMapPropagator()


class _HeaderGetter(Getter[HeaderList]):
    def get(self, carrier: HeaderList, key: str) -> list[str] | None:
        key = key.lower()
        for name, value in carrier:
            if name.lower() == key and value is not None:
                return [value.decode("latin-1")]
        return None

    def keys(self, carrier: HeaderList) -> list[str]:
        return [name for name, _ in carrier]


class _DictSetter(Setter[dict[str, str]]):
    def set(self, carrier: dict[str, str], key: str, value: str) -> None:
        carrier[key] = value


_GETTER = _HeaderGetter()


def inject_headers(context: Context | None = None) -> dict[str, str]:
    """``traceparent`` (and ``tracestate``) of ``context`` or of the current span."""
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier, context=context, setter=_DictSetter())
    return carrier


class TraceSpans:
    """Span helpers around an injected :class:`TracerProvider` (no global state)."""

    def __init__(self, provider: TracerProvider | None) -> None:
        self.enabled = provider is not None
        self._tracer = (provider or trace.NoOpTracerProvider()).get_tracer("groundwatch.consumer")

    def extract(self, headers: HeaderList | None) -> Context | None:
        if not self.enabled or not headers:
            return None
        ctx = _PROPAGATOR.extract(headers, getter=_GETTER)
        span_ctx = trace.get_current_span(ctx).get_span_context()
        return ctx if span_ctx.is_valid else None

    @contextlib.contextmanager
    def child(self, name: str, parent: Context | None, **attrs: str | int) -> Iterator[None]:
        if not self.enabled:
            yield
            return
        with self._tracer.start_as_current_span(
            name, context=parent, kind=SpanKind.CONSUMER, attributes=attrs
        ):
            yield

    @contextlib.contextmanager
    def batch(
        self, name: str, parents: Sequence[Context | None], **attrs: str | int
    ) -> Iterator[None]:
        if not self.enabled:
            yield
            return
        links: list[Link] = []
        for ctx in parents:
            if ctx is None:
                continue
            links.append(Link(trace.get_current_span(ctx).get_span_context()))
            if len(links) >= MAX_LINKS:
                break
        only = [p for p in parents if p is not None]
        # One message: make the span a plain child, easier to find in a trace view.
        parent = only[0] if len(parents) == 1 and only else None
        with self._tracer.start_as_current_span(
            name,
            context=parent if parent is not None else Context(),
            kind=SpanKind.INTERNAL,
            links=None if parent is not None else links,
            attributes=attrs,
        ):
            yield
