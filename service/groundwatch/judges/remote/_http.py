"""A small JSON-over-HTTP client for judge backends: timeouts, retries, a concurrency limit.

Usage::

    http = RetryingHttp("http://tei:8080", timeout_s=10, policy=RetryPolicy(max_retries=3),
                        concurrency=8)
    payload = http.post_json("/rerank", {"query": q, "texts": texts})   # or raises JudgeError
    http.close()

Retries cover timeouts, connection errors, HTTP 429 and 5xx, with exponential backoff and full
jitter; a ``Retry-After`` header (seconds or an HTTP date) is respected, capped. Other 4xx answers
are not retried. Failures become :class:`JudgeError` with a bounded reason: ``judge_timeout``
(retriable), ``judge_unavailable`` (retriable: 429/5xx/unreachable), ``judge_error`` (other 4xx,
not retriable) or ``judge_malformed_output`` (a 2xx answer that is not JSON).

A semaphore shared by every thread bounds the requests in flight; it is released while a request
backs off, so one struggling trace does not hold a slot while it sleeps. Header values (API keys)
never appear in errors or logs.
"""

from __future__ import annotations

import email.utils
import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import JudgeError, TraceJudgement

__all__ = ["HttpCounters", "RetryPolicy", "RetryingHttp", "judge_concurrently"]

log = logging.getLogger(__name__)

_RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry. ``max_retries`` counts attempts after the first."""

    max_retries: int = 3
    backoff_base_s: float = 0.5
    backoff_max_s: float = 20.0
    retry_after_max_s: float = 60.0

    def backoff(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        ceiling = min(self.backoff_max_s, self.backoff_base_s * (2 ** (attempt - 1)))
        delay = random.uniform(0.0, ceiling)  # full jitter: replicas do not retry in lockstep
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.retry_after_max_s))
        return delay


@dataclass(frozen=True)
class HttpCounters:
    """Request accounting: attempts sent, retries among them, calls that failed for good."""

    requests: int = 0
    retries: int = 0
    failures: int = 0


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class RetryingHttp:
    """Thread-safe JSON POST/GET with retries and a shared concurrency limit (see module doc)."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout_s: float,
        policy: RetryPolicy,
        concurrency: int,
        headers: dict[str, str] | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.policy = policy
        self.concurrency = max(1, concurrency)
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._requests = 0
        self._retries = 0
        self._failures = 0
        limits = httpx.Limits(
            max_connections=self.concurrency, max_keepalive_connections=self.concurrency
        )
        self._client = httpx.Client(
            base_url=self.base_url,
            timeout=httpx.Timeout(timeout_s),
            limits=limits,
            headers=headers or {},
            follow_redirects=False,
        )

    def __repr__(self) -> str:
        return f"RetryingHttp({self.base_url!r}, concurrency={self.concurrency})"

    @property
    def counters(self) -> HttpCounters:
        with self._lock:
            return HttpCounters(self._requests, self._retries, self._failures)

    def probe(self, path: str) -> httpx.Response:
        """One GET without retries, for ``load()``; raises ``JudgeError`` when unreachable."""
        try:
            return self._client.get(path)
        except httpx.HTTPError as exc:
            raise JudgeError(
                "judge_unavailable",
                f"cannot reach {self.base_url}{path}: {type(exc).__name__}",
                retriable=True,
            ) from None

    def post_json(self, path: str, body: Any, *, deadline: float | None = None) -> Any:
        """POST ``body`` as JSON and return the decoded JSON answer, retrying as documented.

        ``deadline`` (a ``time.monotonic()`` value) stops retrying once it would be passed.
        """
        attempt = 0
        while True:
            if self._closed.is_set():
                raise JudgeError("judge_unavailable", "judge closed", retriable=True)
            failure, retry_after = self._attempt(path, body, deadline)
            if isinstance(failure, httpx.Response):
                return self._decode(failure, path)
            attempt += 1
            delay = self.policy.backoff(attempt, retry_after)
            late = deadline is not None and time.monotonic() + delay > deadline
            if attempt > self.policy.max_retries or late or not failure.retriable:
                self._count(failures=1)
                raise failure
            self._count(retries=1)
            log.debug("retrying %s%s in %.2fs: %s", self.base_url, path, delay, failure.reason)
            if self._closed.wait(delay):
                raise JudgeError("judge_unavailable", "judge closed", retriable=True)

    def _attempt(
        self, path: str, body: Any, deadline: float | None
    ) -> tuple[httpx.Response | JudgeError, float | None]:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._slots.acquire(timeout=wait):
            return JudgeError("judge_timeout", "no free request slot", retriable=True), None
        try:
            self._count(requests=1)
            response = self._client.post(path, json=body)
        except httpx.TimeoutException as exc:
            return JudgeError(
                "judge_timeout", f"{path}: {type(exc).__name__}", retriable=True
            ), None
        except httpx.HTTPError as exc:
            detail = f"{self.base_url}{path}: {type(exc).__name__}"
            return JudgeError("judge_unavailable", detail, retriable=True), None
        finally:
            self._slots.release()
        if response.is_success:
            return response, None
        status = response.status_code
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        if status in _RETRY_STATUS:
            return JudgeError("judge_unavailable", f"{path}: HTTP {status}", retriable=True), (
                retry_after
            )
        snippet = response.text[:200].replace("\n", " ")
        return JudgeError("judge_error", f"{path}: HTTP {status}: {snippet}"), None

    def _decode(self, response: httpx.Response, path: str) -> Any:
        try:
            return response.json()
        except ValueError:
            self._count(failures=1)
            raise JudgeError("judge_malformed_output", f"{path}: answer is not JSON") from None

    def _count(self, *, requests: int = 0, retries: int = 0, failures: int = 0) -> None:
        with self._lock:
            self._requests += requests
            self._retries += retries
            self._failures += failures

    def close(self) -> None:
        self._closed.set()
        self._client.close()


def judge_concurrently(
    pool: ThreadPoolExecutor,
    judge: Callable[[RagTrace], TraceJudgement],
    traces: Sequence[RagTrace],
    *,
    backend: str,
    on_error: Callable[[JudgeError], None] | None = None,
) -> list[TraceJudgement | JudgeError]:
    """Judge each trace on ``pool``; a failure becomes that trace's JudgeError, never a raise."""

    def safely(trace: RagTrace) -> TraceJudgement | JudgeError:
        try:
            return judge(trace)
        except JudgeError as exc:
            if on_error is not None:
                on_error(exc)
            log.warning("trace %s not judged: %s", trace.trace_id, exc.reason)
            return exc
        except Exception as exc:
            log.exception("%s judge failed on trace %s", backend, trace.trace_id)
            return JudgeError("judge_error", type(exc).__name__)

    futures = [pool.submit(safely, trace) for trace in traces]
    return [f.result() for f in futures]
