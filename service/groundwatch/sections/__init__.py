"""The settings sections, one model per part of the service: what a component takes.

A component names the section it reads (``RedisWindowStore(client, windows, redis)``,
``build_redactor(redaction)``); only the composition root (``groundwatch.runtime`` and the
CLI) reads the whole :class:`groundwatch.settings.Settings`, which is made of these sections
and is the one object that reads the environment. Import a section from its module::

    from groundwatch.sections.windows import WindowSettings

The ``limits`` section is :class:`groundwatch.contract.trace.TraceLimits` (the trace contract's
bounds). This package imports nothing: its modules are loaded as they are named.
"""

__all__ = ["api", "connections", "judging", "pipeline", "windows"]
