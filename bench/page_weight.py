"""Phone page weight: the bytes over the wire for a player's first load of the encounter page.

Debian's Chromium (never a downloaded browser) with a phone profile (360×740, mobile UA, touch) and an empty
cache loads the demo encounter page as a logged-in player from daphne with DEBUG=false after collectstatic,
so whitenoise serves the hashed static files compressed (Accept-Encoding from the browser). Every response's
encoded body and header sizes come from Playwright's `request.sizes()` (the browser's own network
accounting). The floor: htmx.min.js + hx-ws.min.js, their compressed bodies as served in the same load.
The websocket's first frame (the table's snapshot, sent on connect) is counted separately: daphne offers
no permessage-deflate, so it travels uncompressed.

The HTML is not compressed: Django's GZipMiddleware is deliberately not used (BREACH: compressed pages that
carry a CSRF token); the row notes what the HTML would weigh gzipped, for information only.
"""

from __future__ import annotations

import gzip
import os
import time
import urllib.request
from pathlib import Path

CHROMIUM = os.environ.get("FRAY_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
    "user_agent": (
        "Mozilla/5.0 (Linux; Android 14; Pixel 7a) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/156.0.0.0 Mobile Safari/537.36"
    ),
    "locale": "en-GB",
    "timezone_id": "UTC",
}
GOAL = 2.5
TIMEOUT_MS = 15_000
FLOOR_FILES = ("htmx.min.", "hx-ws.min.")


def measure(var: Path, demo: dict) -> dict:
    from playwright.sync_api import sync_playwright

    from bench.live import Server, login

    url_path = f"/campaigns/{demo['campaign']}/encounters/{demo['encounter']}/"
    with Server.daphne(var, "config.asgi:application", name="page") as server:
        cookies = login(server.base, "ana")
        html_gzipped = _html_gzipped(server.base + url_path, cookies)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            try:
                context = browser.new_context(**PHONE)
                context.set_default_timeout(TIMEOUT_MS)
                context.route(lambda url: not url.startswith("http://127.0.0.1"), lambda route: route.abort())
                context.add_cookies([{"name": k, "value": v, "url": server.base} for k, v in cookies.items()])
                page = context.new_page()
                finished, frames = [], []
                page.on("requestfinished", lambda request: finished.append(request))
                page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
                page.goto(server.base + url_path, wait_until="load")
                page.wait_for_selector('#live-status[data-state="live"]')
                page.wait_for_load_state("networkidle")
                deadline = time.monotonic() + 5
                while not frames and time.monotonic() < deadline:
                    page.wait_for_timeout(100)
                responses = []
                for request in finished:
                    sizes = request.sizes()
                    response = request.response()
                    responses.append(
                        {
                            "url": request.url.removeprefix(server.base),
                            "type": request.resource_type,
                            "status": response.status if response else 0,
                            "encoding": (response.headers.get("content-encoding", "") if response else ""),
                            "body": sizes["responseBodySize"],
                            "headers": sizes["responseHeadersSize"],
                        }
                    )
                context.close()
            finally:
                browser.close()
    frame_bytes = sum(len(f.encode() if isinstance(f, str) else f) for f in frames[:1])
    return {"responses": responses, "frame": frame_bytes, "html_gzipped": html_gzipped}


def _html_gzipped(url: str, cookies: dict) -> int:
    """The page's HTML size as served, and gzipped here for comparison (never served that way)."""
    from bench.live import cookie_header

    request = urllib.request.Request(url, headers={"Cookie": cookie_header(cookies), "Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
        assert response.headers.get("Content-Encoding") is None, "the HTML is compressed: GZipMiddleware?"
    return len(gzip.compress(body, 6))


def run(lines: list[str], var: Path, demo: dict) -> None:
    m = measure(var, demo)
    responses = m["responses"]
    floor = [r for r in responses if any(f in r["url"] for f in FLOOR_FILES) and r["url"].endswith(".js")]
    assert len(floor) == 2, f"expected htmx.min.js and hx-ws.min.js among {[r['url'] for r in responses]}"
    floor_bytes = sum(r["body"] for r in floor)
    bodies = sum(r["body"] for r in responses)
    headers = sum(r["headers"] for r in responses)
    html = next(r for r in responses if r["type"] == "document")
    parts = ", ".join(
        f"{_name(r)} {r['body'] / 1024:,.1f}" + (f" {r['encoding']}" if r["encoding"] else "") for r in responses
    )
    floor_desc = " + ".join(f"{_name(r)} {r['body'] / 1024:,.1f} KiB {r['encoding'] or 'uncompressed'}" for r in floor)
    ratio = bodies / floor_bytes
    lines.append(
        f"| phone first load of a player's encounter page (Chromium 360×740, mobile UA, empty cache): encoded "
        f"bodies of all {len(responses)} responses ({parts} KiB) | {bodies / 1024:,.1f} KiB "
        f"| floor: {floor_desc} = {floor_bytes / 1024:,.1f} KiB | **{ratio:.2f}×** "
        f"({'within' if ratio <= GOAL else 'over'} the goal of ≤ {GOAL}×) |"
    )
    lines.append(
        f"| the same with response headers ({headers / 1024:,.1f} KiB of headers) | {(bodies + headers) / 1024:,.1f} "
        f"KiB | floor {floor_bytes / 1024:,.1f} KiB | {(bodies + headers) / floor_bytes:.2f}× |"
    )
    lines.append(
        f"| … of which the HTML, not compressed (no GZipMiddleware: BREACH, the page carries a CSRF token) "
        f"| {html['body'] / 1024:,.1f} KiB (gzipped it would be {m['html_gzipped'] / 1024:,.1f} KiB; not served so) "
        f"| floor {floor_bytes / 1024:,.1f} KiB | {html['body'] / floor_bytes:.2f}× |"
    )
    lines.append(
        f"| then the websocket's snapshot frame on connect (uncompressed: no permessage-deflate) "
        f"| {m['frame'] / 1024:,.1f} KiB | floor {floor_bytes / 1024:,.1f} KiB | {m['frame'] / floor_bytes:.2f}× |"
    )


def _name(response: dict) -> str:
    name = response["url"].split("?")[0].rstrip("/").rsplit("/", 1)[-1] or "/"
    if response["type"] == "document":
        return "HTML"
    for short in ("htmx.min", "hx-ws.min", "table", "fray", "copy-field"):
        if name.startswith(short + "."):
            return short + "." + name.rsplit(".", 1)[-1]
    return name
