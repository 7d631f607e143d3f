"""The window and drift series as scraped: exported by one replica at a time (the holder of the
export lease), and rendered once per window report, however many scrapers ask.

Usage::

    export = WindowExport(WindowsCollector(store, window_settings), lease)   # lease None: always export
    registry.register(export)
    body = render_registry(registry, export)      # GET /metrics: the rest + the cached rendering

Every replica exports ``groundwatch_window_exporter`` (1 on the lease holder, else 0) and
``groundwatch_window_store_up`` (a replica that does not export says whether it reaches the
store, from its lease renewals), so ``GroundwatchWindowStoreDown`` still sees every replica;
everything else of :class:`~groundwatch.observability.windows_collector.WindowsCollector` comes
from the holder only. Process and consumer metrics are other collectors: every replica keeps
them.

Cost of a scrape: a window report lives ``windows.report_refresh_s``; its exposition text is
rendered once, where the report was computed (the background refresh), and kept with it, so a
scrape (one of an HA Prometheus pair, or a later one within its lifetime) costs a copy, not a
fill and a render of every series (about 75 a slice value). A scrape that meets a report not
rendered yet renders it, once (a lock), for every scrape after it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from prometheus_client import generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from groundwatch.observability.windows_collector import WindowReport, WindowsCollector
from groundwatch.state.export_lease import ExportLease

__all__ = ["WindowExport", "render_registry"]


class _Families(Collector):
    def __init__(self, families: Iterable[Metric]) -> None:
        self.families = list(families)

    def collect(self) -> Iterable[Metric]:
        return self.families


class WindowExport(Collector):
    """The window collector behind the export lease, with its rendering cached per report.

    Usage: ``registry.register(WindowExport(WindowsCollector(store, window_settings), lease))``.
    """

    def __init__(self, windows: WindowsCollector, lease: ExportLease | None = None) -> None:
        self.windows = windows
        self.lease = lease
        self._apart = threading.local()
        self._render_lock = threading.Lock()
        self._rendered: tuple[WindowReport | None, bytes] | None = None
        #: How many times a report's families were rendered (a test and benchmark figure).
        self.renders = 0
        windows.on_report = self._prerender

    def exporting(self) -> bool:
        """Whether this replica exports the shared series now (always without a lease)."""
        return self.lease is None or self.lease.held()

    def describe(self) -> list[Metric]:
        return [*self.windows.describe(), self._exporter(None)]

    def collect(self) -> Iterator[Metric]:
        if getattr(self._apart, "on", False):
            return
        if not self.exporting():
            yield from self._follower()
            return
        report, error, age = self.windows.current()
        yield from self.windows.report_families(report if error is None else None)
        yield from self.windows.live_families(report, error, age)
        yield self._exporter(True)

    def exposition(self) -> bytes:
        """This collector's part of ``/metrics`` (text format 0.0.4): the report's families
        rendered once per report, the live ones now."""
        if not self.exporting():
            return generate_latest(_Families(self._follower()))
        report, error, age = self.windows.current()
        text = self._render(report if error is None else None)
        live = [*self.windows.live_families(report, error, age), self._exporter(True)]
        return text + generate_latest(_Families(live))

    def _render(self, report: WindowReport | None) -> bytes:
        with self._render_lock:
            cached = self._rendered
            if cached is None or cached[0] is not report:
                families = self.windows.report_families(report)
                cached = (report, generate_latest(_Families(families)))
                self._rendered = cached
                self.renders += 1
            return cached[1]

    def _prerender(self, report: WindowReport) -> None:
        """A new report was computed in the background: render it there, so the scrape that
        serves it only copies it (not on a replica that does not export)."""
        if self.exporting():
            self._render(report)

    @contextmanager
    def apart(self) -> Iterator[None]:
        """Within this block (this thread only) :meth:`collect` yields nothing, so the rest of
        a registry renders without this collector and :meth:`exposition` is appended."""
        self._apart.on = True
        try:
            yield
        finally:
            self._apart.on = False

    def _follower(self) -> list[Metric]:
        up = GaugeMetricFamily(
            "groundwatch_window_store_up",
            "1 when the last window report could read the window store, else 0.",
        )
        if self.lease is not None:
            up.add_metric([], 1.0 if self.lease.reachable() else 0.0)
        return [up, self._exporter(False)]

    @staticmethod
    def _exporter(value: bool | None) -> GaugeMetricFamily:
        fam = GaugeMetricFamily(
            "groundwatch_window_exporter",
            "1 on the replica that exports the window and drift series now (the holder of the "
            "export lease), 0 on the others.",
        )
        if value is not None:
            fam.add_metric([], 1.0 if value else 0.0)
        return fam


def render_registry(registry: Collector, export: WindowExport | None) -> bytes:
    """``generate_latest(registry)``, with ``export``'s part taken from its cache."""
    if export is None:
        return generate_latest(registry)
    with export.apart():
        rest = generate_latest(registry)
    return rest + export.exposition()
