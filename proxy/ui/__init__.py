"""The playground page (``GET /ui``) and the reviewers' page (``GET /ui/review``): plain HTML,
CSS and JS shipped as package data.

Each page is served as one document, with the stylesheet and script inlined, because ``/ui``
and ``/ui/review`` are the only paths of theirs the auth middleware leaves open. The
Content-Security-Policy allows exactly that inline style and script (by hash) and lets the page
talk to this origin only, so the proxy key typed into it cannot be sent anywhere else.
"""

from __future__ import annotations

import base64
import hashlib
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

UI_DIR = Path(__file__).parent


@dataclass(frozen=True, slots=True)
class Page:
    html: str
    headers: dict[str, str]


@cache
def playground() -> Page:
    """The assembled page and its security headers (read once, then kept)."""
    return _assemble("index.html", ("style.css",), "app.js")


@cache
def review_page() -> Page:
    """``/ui/review``: the reviewers' page, on the playground's stylesheet."""
    return _assemble("review.html", ("style.css", "review.css"), "review.js")


def _assemble(template_name: str, styles: tuple[str, ...], script_name: str) -> Page:
    style = "\n".join((UI_DIR / name).read_text(encoding="utf-8") for name in styles)
    script = (UI_DIR / script_name).read_text(encoding="utf-8")
    template = string.Template((UI_DIR / template_name).read_text(encoding="utf-8"))
    html = template.substitute(style=style, script=script)
    csp = "; ".join(
        (
            "default-src 'none'",
            f"style-src {_sha256(style)}",
            f"script-src {_sha256(script)}",
            "connect-src 'self'",
            "img-src 'self' data:",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        )
    )
    headers = {
        "Content-Security-Policy": csp,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-cache",
    }
    return Page(html, headers)


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"
