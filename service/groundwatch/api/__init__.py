"""The HTTP API: the FastAPI application (``app.create_app``), the triage routes and the built-in
page (``findings``, ``static/``), the OTLP/HTTP receiver (``otlp``), authentication and
start-up security checks (``security``) and per-client rate limits (``ratelimit``).
"""

__all__ = ["app", "findings", "otlp", "ratelimit", "security"]
