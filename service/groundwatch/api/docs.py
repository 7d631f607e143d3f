"""Swagger UI (``/docs``) and ReDoc (``/redoc``), off unless ``GROUNDWATCH_API__DOCS=true``.

Usage::

    if settings.api.docs:
        app.include_router(docs_router(app.title, app.openapi_url or "/openapi.json"))

The pages load their scripts from ``cdn.jsdelivr.net`` at pinned versions (no PyPI package we
depend on ships the Swagger UI dist files). Each page is served with a Content-Security-Policy
that allows only that CDN and this origin: the one inline script (Swagger UI's start-up) is
allowed by its SHA-256 hash, not by ``'unsafe-inline'``; no frames, objects or form posts.
``/openapi.json`` itself is always served: it holds the API's shape, no data.
"""

from __future__ import annotations

import base64
import hashlib
import re

from fastapi import APIRouter
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse

__all__ = ["CDN", "content_security_policy", "docs_router"]

CDN = "https://cdn.jsdelivr.net"
SWAGGER_JS = f"{CDN}/npm/swagger-ui-dist@5.17.14/swagger-ui-bundle.js"
SWAGGER_CSS = f"{CDN}/npm/swagger-ui-dist@5.17.14/swagger-ui.css"
REDOC_JS = f"{CDN}/npm/redoc@2.1.5/bundles/redoc.standalone.js"
# An empty data: icon: no request to a third host for a favicon.
FAVICON = "data:,"

_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


def content_security_policy(html: str) -> str:
    """The CSP for one docs page: this origin and the CDN, plus the hashes of its inline
    scripts."""
    hashes = [
        "'sha256-"
        + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
        + "'"
        for script in _INLINE_SCRIPT.findall(html)
    ]
    script_src = " ".join(["'self'", CDN, *hashes])
    return (
        "default-src 'none'; "
        f"script-src {script_src}; "
        f"style-src 'self' {CDN} 'unsafe-inline'; "
        "img-src 'self' data:; "
        "font-src 'self' data:; "
        "connect-src 'self'; "
        "worker-src blob:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"
    )


def _with_csp(page: HTMLResponse) -> HTMLResponse:
    html = bytes(page.body).decode("utf-8")
    return HTMLResponse(
        html,
        headers={
            "Content-Security-Policy": content_security_policy(html),
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
        },
    )


def docs_router(title: str, openapi_url: str) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/docs")
    def swagger() -> HTMLResponse:
        return _with_csp(
            get_swagger_ui_html(
                openapi_url=openapi_url,
                title=f"{title} - Swagger UI",
                swagger_js_url=SWAGGER_JS,
                swagger_css_url=SWAGGER_CSS,
                swagger_favicon_url=FAVICON,
            )
        )

    @router.get("/redoc")
    def redoc() -> HTMLResponse:
        return _with_csp(
            get_redoc_html(
                openapi_url=openapi_url,
                title=f"{title} - ReDoc",
                redoc_js_url=REDOC_JS,
                redoc_favicon_url=FAVICON,
                with_google_fonts=False,
            )
        )

    return router
