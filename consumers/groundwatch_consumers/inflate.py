"""Bounded decompression of fetched record batches: a compressed record is never materialised
beyond a fixed size, whatever it decompresses to.

Usage::

    guard = FetchGuard(InflateBounds.for_limit(limits.max_bytes), registry)
    guard.install(consumer)                   # a kafka-python KafkaConsumer, before the first poll
    error = guard.rejection(record.headers)   # None, or an InflatedOversizeError: dead-letter it

Why: kafka-python decompresses a whole record batch into memory (``gzip_decode`` then a
``bytearray`` copy, then a ``bytes`` copy per record) before anyone can look at a size. A gzip
record of 50 KB that inflates to 50 MB costs about 150 MB per partition fetch, and the consumer
can only reject it once it is whole.

How: every gzip batch of a partition fetch is inflated here first, as a stream, record by
record, before kafka-python sees it, and handed on as the same batch uncompressed (same offsets,
timestamps, producer fields; a fresh CRC), so kafka-python never decompresses it again.

- A record whose length exceeds ``record_bytes`` is streamed past: only its key (when small)
  and the first ``keep_bytes`` of its value are kept, and it is handed on as a *marker* record
  at its own offset with the header ``x-groundwatch-inflate`` = ``<nonce>:oversize:<size>``.
  The nonce is per process, so a producer cannot forge a marker.
- At most ``fetch_bytes`` are inflated per partition fetch. A batch that would go past it is
  cut after its last record that fits (the batch's last offset moves with it) and the rest of
  the fetch is dropped: kafka-python fetches again from the next offset, so nothing is lost.
  The first record of a fetch always fits (``fetch_bytes`` > ``record_bytes + keep_bytes``),
  so a fetch always makes progress.
- A gzip stream that is corrupt ends the batch with one marker (reason ``corrupt``) at the
  batch's last offset. A batch whose CRC does not match is left to kafka-python, which refuses
  it before inflating anything.

Only gzip (stdlib) is inflated here; other codecs and message formats v0/v1 go to kafka-python
unchanged. Installing wraps one private method of kafka-python's fetcher per consumer
(``_parse_fetched_data``); a client without it is left as it is, with a warning.
"""

from __future__ import annotations

import logging
import os
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import crc32c
from prometheus_client import CollectorRegistry, Counter

from groundwatch.contract.trace import DecodeReason, TraceDecodeError

__all__ = ["MARKER_HEADER", "FetchGuard", "InflateBounds", "InflatedOversizeError", "Marker"]

log = logging.getLogger(__name__)

MARKER_HEADER = "x-groundwatch-inflate"
#: A key longer than this is not kept on a marker record.
KEY_KEEP = 1024
#: v2 batch header: base offset, length, leader epoch, magic, crc, attributes, last offset
#: delta, first and max timestamp, producer id, producer epoch, base sequence, record count.
_HEADER = struct.Struct(">qiibIhiqqqhii")
_CRC_FROM = 21  # the CRC covers the batch from the attributes on
_CODEC_MASK = 0x07
_GZIP = 1
_CONTROL = 0x20
_CHUNK = 64 * 1024


class _CorruptError(Exception):
    """The inflated stream does not hold the records its header announces."""


@dataclass(frozen=True)
class InflateBounds:
    """``record_bytes``: largest record handed on whole; ``keep_bytes``: value prefix kept of a
    larger one; ``fetch_bytes``: most bytes inflated per partition fetch."""

    record_bytes: int
    keep_bytes: int = 64 * 1024
    fetch_bytes: int = 32 * 1024 * 1024

    def __post_init__(self) -> None:
        floor = self.record_bytes + self.keep_bytes + KEY_KEEP + 1024
        if self.fetch_bytes < floor:
            object.__setattr__(self, "fetch_bytes", floor)

    @classmethod
    def for_limit(cls, max_trace_bytes: int) -> InflateBounds:
        """A record may hold one trace of ``max_trace_bytes`` plus its key and headers."""
        return cls(record_bytes=max_trace_bytes + 64 * 1024)


@dataclass(frozen=True)
class Marker:
    """What a marker record stands for: ``reason`` (``oversize`` or ``corrupt``) and the
    record's size in bytes once inflated (for ``corrupt``, the batch's compressed size)."""

    reason: str
    size: int


class InflatedOversizeError(TraceDecodeError):
    """A record not inflated whole: reason ``oversize`` (a corrupt batch: ``unprocessable``);
    the record's value is at most a prefix of its ``size`` bytes."""

    def __init__(self, marker: Marker) -> None:
        reason: DecodeReason = "oversize" if marker.reason == "oversize" else "unprocessable"
        what = "record" if marker.reason == "oversize" else "batch"
        super().__init__(
            reason, f"(root): compressed {what} of {marker.size} bytes ({marker.reason})"
        )
        self.size = marker.size


def _crc_ok(batch: memoryview) -> bool:
    """A batch damaged on the way is left to kafka-python, which refuses it before inflating
    (``CorruptRecordError``); a rebuilt batch would carry a fresh, valid CRC."""
    return int(struct.unpack_from(">I", batch, 17)[0]) == crc32c.crc32c(batch[_CRC_FROM:])


def _zigzag(value: int) -> int:
    return (value << 1) ^ (value >> 63)


def _varint(value: int) -> bytes:
    out = bytearray()
    v = _zigzag(value)
    while v > 0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _bytes_field(data: bytes | None) -> bytes:
    return _varint(-1) if data is None else _varint(len(data)) + data


def _inflate_whole(data: memoryview, most: int) -> bytes | None:
    """The whole stream inflated when it is one gzip member of at most ``most`` bytes (then no
    record in it can be larger); None otherwise, having inflated at most ``most + 1`` bytes."""
    inflater = zlib.decompressobj(wbits=47)
    try:
        out = inflater.decompress(data, most + 1)
    except zlib.error:
        return None  # the record-by-record path says where it breaks
    if len(out) > most or not inflater.eof or inflater.unused_data.strip(b"\0"):
        return None
    return out


class _GzipStream:
    """Reads a gzip stream a few bytes at a time; never holds more than one chunk inflated."""

    def __init__(self, data: memoryview) -> None:
        self._data = data
        self._fed = 0
        self._inflater = zlib.decompressobj(wbits=47)
        self._tail = b""  # compressed bytes the inflater has not taken yet
        self._buf = b""
        self._at = 0
        self.position = 0  # inflated bytes read or skipped so far

    def _more(self, want: int) -> None:
        while len(self._buf) - self._at < want:
            if self._inflater.eof:  # a gzip member ended: another may follow
                rest = self._inflater.unused_data + self._tail + bytes(self._data[self._fed :])
                self._fed = len(self._data)
                if not rest.strip(b"\0"):
                    raise _CorruptError("gzip stream ended early")
                self._inflater = zlib.decompressobj(wbits=47)
                self._tail = rest
            if not self._tail and self._fed < len(self._data):
                self._tail = bytes(self._data[self._fed : self._fed + _CHUNK])
                self._fed += len(self._tail)
            try:
                chunk = self._inflater.decompress(self._tail, _CHUNK)
            except zlib.error as exc:
                raise _CorruptError(f"gzip: {exc}") from exc
            self._tail = self._inflater.unconsumed_tail
            drained = not self._tail and self._fed >= len(self._data)
            if not chunk and drained and not self._inflater.eof:
                raise _CorruptError("gzip stream ended early")
            self._buf = self._buf[self._at :] + chunk
            self._at = 0

    def read(self, n: int) -> bytes:
        if n <= 0:
            return b""
        out = bytearray()
        while len(out) < n:
            self._more(1)
            take = min(n - len(out), len(self._buf) - self._at)
            out += self._buf[self._at : self._at + take]
            self._at += take
        self.position += n
        return bytes(out)

    def skip(self, n: int) -> None:
        self.position += max(0, n)
        while n > 0:
            self._more(1)
            take = min(n, len(self._buf) - self._at)
            self._at += take
            n -= take

    def varint(self) -> int:
        shift = value = 0
        for _ in range(10):
            self._more(1)
            byte = self._buf[self._at]
            self._at += 1
            self.position += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return (value >> 1) ^ -(value & 1)
            shift += 7
        raise _CorruptError("varint longer than 10 bytes")


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = value = 0
    for _ in range(10):
        if pos >= len(data):
            raise _CorruptError("record shorter than its fields")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return (value >> 1) ^ -(value & 1), pos
        shift += 7
    raise _CorruptError("varint longer than 10 bytes")


def _offset_delta(body: bytes) -> int:
    """The offset delta of a whole record body (after its length): attributes, timestamp
    delta, then the offset delta."""
    pos = 1  # attributes: one byte
    _, pos = _read_varint(body, pos)
    delta, _ = _read_varint(body, pos)
    return delta


def _record(
    fields: tuple[int, int, int],
    key: bytes | None,
    value: bytes | None,
    headers: Iterable[tuple[str, bytes]],
) -> bytes:
    """One v2 record; ``fields``: attributes, timestamp delta, offset delta."""
    attrs, ts_delta, offset_delta = fields
    hdrs = list(headers)
    body = bytearray(bytes([attrs & 0xFF]))
    body += _varint(ts_delta) + _varint(offset_delta) + _bytes_field(key) + _bytes_field(value)
    body += _varint(len(hdrs))
    for name, data in hdrs:
        raw = name.encode()
        body += _varint(len(raw)) + raw + _bytes_field(data)
    return _varint(len(body)) + bytes(body)


@dataclass
class _Inflated:
    records: list[bytes]
    size: int
    last_delta: int | None  # offset delta of the last record handed on
    cut: bool  # stopped before the batch's end (budget)


class FetchGuard:
    """Rewrites each partition fetch so that no gzip record is inflated past the bounds."""

    def __init__(self, bounds: InflateBounds, registry: CollectorRegistry) -> None:
        self.bounds = bounds
        self._nonce = os.urandom(8).hex()
        self._bounded = Counter(
            "groundwatch_consumer_inflate_bounded",
            "Compressed records not inflated whole (oversize) or batches that could not be "
            "inflated (corrupt), handed on as bounded markers and dead-lettered.",
            ["reason"],
            registry=registry,
        )

    # -- reading markers --------------------------------------------------------------------

    def marker(self, headers: Any) -> Marker | None:
        """The marker this record carries (written by this guard), or None."""
        for name, value in headers or ():
            if name != MARKER_HEADER or not value:
                continue
            nonce, _, rest = bytes(value).decode("latin-1").partition(":")
            reason, _, size = rest.partition(":")
            if nonce == self._nonce and size.isdigit():
                return Marker(reason, int(size))
        return None

    def rejection(self, headers: Any) -> InflatedOversizeError | None:
        """The dead-letter reason of a marker record, or None for any other record."""
        marker = self.marker(headers)
        return None if marker is None else InflatedOversizeError(marker)

    def _marker_header(self, reason: str, size: int) -> tuple[str, bytes]:
        self._bounded.labels(reason=reason).inc()
        return (MARKER_HEADER, f"{self._nonce}:{reason}:{size}".encode())

    # -- installing -------------------------------------------------------------------------

    def install(self, consumer: Any) -> bool:
        """Route ``consumer``'s fetches through :meth:`rewrite`. False (and a warning) when the
        client has no fetcher hook this knows."""
        fetcher: Any = getattr(consumer, "_fetcher", None)
        parse = getattr(fetcher, "_parse_fetched_data", None)
        if fetcher is None or parse is None:
            log.warning("kafka client has no fetcher hook: compressed records are not bounded")
            return False

        def parse_bounded(completed: Any) -> Any:
            data = getattr(completed, "partition_data", None)
            raw = getattr(data, "records", None)
            if isinstance(raw, bytes | bytearray | memoryview) and raw:
                new = self.rewrite(raw, int(completed.fetched_offset))
                if new is not raw:
                    completed = completed._replace(partition_data=_Records(data, new))
            return parse(completed)

        fetcher._parse_fetched_data = parse_bounded
        return True

    # -- rewriting --------------------------------------------------------------------------

    def rewrite(self, raw: bytes | bytearray | memoryview, fetch_offset: int) -> Any:
        """The fetched bytes with every gzip batch inflated within the bounds; ``raw`` itself
        when it holds no gzip batch."""
        view = memoryview(raw)
        pos, changed = 0, False
        out: list[bytes | memoryview] = []
        budget = self.bounds.fetch_bytes
        while pos + _HEADER.size <= len(view):
            _, length = struct.unpack_from(">qi", view, pos)
            end = pos + 12 + length
            if length < _HEADER.size - 12 or end > len(view):
                break  # a partial batch at the end of the fetch: kafka-python skips it
            magic = view[pos + 16]
            attrs = struct.unpack_from(">h", view, pos + _CRC_FROM)[0]
            if (
                magic < 2
                or attrs & _CODEC_MASK != _GZIP
                or attrs & _CONTROL
                or not _crc_ok(view[pos:end])
            ):
                out.append(view[pos:end])
                pos = end
                continue
            changed = True
            batch, used, cut = self._inflate_batch(view[pos:end], fetch_offset, budget)
            if batch is None:  # nothing of it fits this fetch: fetched again from here
                return b"".join(out)
            out.append(batch)
            budget -= used
            pos = end
            if cut:
                return b"".join(out)
        if not changed:
            return raw
        out.append(view[pos:])
        return b"".join(out)

    def _inflate_batch(
        self, batch: memoryview, fetch_offset: int, budget: int
    ) -> tuple[bytes | None, int, bool]:
        head = list(_HEADER.unpack_from(batch, 0))
        base, count = head[0], head[12]
        whole = _inflate_whole(batch[_HEADER.size :], min(budget, self.bounds.record_bytes))
        if whole is not None:  # the common case: the batch is small, its records go as they are
            got = _Inflated([whole], len(whole), None, cut=False)
        else:
            got = self._inflate_records(batch, base, count, fetch_offset, budget)
            if not got.records and got.cut:
                return None, 0, True
            count = len(got.records)
        last_delta = head[6] if not got.cut or got.last_delta is None else got.last_delta
        body = b"".join(got.records)
        head[1] = _HEADER.size - 12 + len(body)  # length
        head[4] = 0  # crc, set below
        head[5] = head[5] & ~_CODEC_MASK  # attributes: no compression
        head[6] = last_delta
        head[12] = count
        out = bytearray(_HEADER.pack(*head)) + body
        struct.pack_into(">I", out, 17, crc32c.crc32c(bytes(out[_CRC_FROM:])))
        return bytes(out), got.size, got.cut

    def _inflate_records(
        self, batch: memoryview, base: int, count: int, fetch_offset: int, budget: int
    ) -> _Inflated:
        stream = _GzipStream(batch[_HEADER.size :])
        got = _Inflated([], 0, None, cut=False)
        try:
            for _ in range(max(0, count)):
                length = stream.varint()
                if length < 0:
                    raise _CorruptError("negative record length")
                if length <= self.bounds.record_bytes:
                    if got.size + length > budget:
                        got.cut = True
                        return got
                    body = stream.read(length)
                    delta = _offset_delta(body)
                    record = _varint(length) + body
                else:
                    delta, record = self._oversize(stream, length)
                    if got.size + len(record) > budget:
                        got.cut = True
                        return got
                if base + delta < fetch_offset:
                    continue  # before the fetch position: kafka-python would skip it too
                got.records.append(record)
                got.size += len(record)
                got.last_delta = delta
        except _CorruptError as exc:
            log.warning("corrupt gzip batch at offset %d: %s", base, exc)
            last = _HEADER.unpack_from(batch, 0)[6]
            header = self._marker_header("corrupt", len(batch))
            got.records.append(_record((0, 0, last), None, None, [header]))
            got.last_delta = last
        return got

    def _oversize(self, stream: _GzipStream, length: int) -> tuple[int, bytes]:
        """Streams past a record of ``length`` bytes; returns its offset delta and a marker
        record holding its key (when small) and the first ``keep_bytes`` of its value."""
        start = stream.position
        attrs = stream.read(1)[0]
        ts_delta = stream.varint()
        delta = stream.varint()
        key_len = stream.varint()
        key: bytes | None = None
        if 0 <= key_len <= KEY_KEEP:
            key = stream.read(key_len)
        elif key_len > 0:
            stream.skip(key_len)
        value_len = stream.varint()
        value: bytes | None = None
        if value_len >= 0:
            value = stream.read(min(value_len, self.bounds.keep_bytes))
            stream.skip(value_len - len(value))
        rest = length - (stream.position - start)
        if rest < 0:
            raise _CorruptError("record fields longer than the record")
        stream.skip(rest)  # the original headers: not kept
        header = self._marker_header("oversize", length)
        return delta, _record((attrs, ts_delta, delta), key, value, [header])


class _Records:
    """A fetched partition's data with other record bytes; every other field as fetched."""

    def __init__(self, data: Any, records: bytes) -> None:
        self._data = data
        self.records = records

    def __getattr__(self, name: str) -> Any:
        return getattr(self._data, name)
