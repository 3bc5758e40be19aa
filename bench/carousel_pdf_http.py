#!/usr/bin/env python3
"""generate-pdf through a real `socialgen serve`: 10 template slides (images as
data: URIs, as a web app would send them) to a PDF, measured at the client.

The target is 10 slides within 2 s. Prints median / min / max over several
requests after one warm-up request (the first one loads WeasyPrint and fonts).

    .venv/bin/python bench/carousel_pdf_http.py
    .venv/bin/python bench/carousel_pdf_http.py --requests 10 --template minimal
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from carousel_pdf import build_slides
from serving import free_port, start_server, stop_server
from socialgen.carousels.slides_html import render_slides
from socialgen.carousels.templates import get_template

TARGET_SECONDS = 2.0


def create_key() -> str:
    from socialgen.auth.service import create_api_key
    from socialgen.startup import open_store
    from socialgen.store.engine import transaction
    from socialgen.workspaces.service import default_workspace

    engine = open_store()
    with transaction(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        secret = create_api_key(session, name="bench", workspace_id=workspace.id)[1]
    engine.dispose()
    return secret


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=7)
    parser.add_argument("--slides", type=int, default=10)
    parser.add_argument("--template", default="bold")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="socialgen-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOCIALGEN_")}
    env["SOCIALGEN_HOME"] = str(home)
    os.environ.update(env)
    key = create_key()
    slides, brand = build_slides(args.slides, "JPEG")
    pages = render_slides(
        args.template, slides, get_template(args.template).theme, brand, width=1080, height=1350
    )
    body = {"slidesHtml": pages}
    size = sum(len(page) for page in pages)
    port = free_port()
    server = start_server(env, port, home / "serve.log")
    try:
        url = f"http://127.0.0.1:{port}/api/v1/carousel/generate-pdf"
        with httpx.Client(headers={"x-api-key": key}, timeout=60) as client:
            samples = []
            for n in range(args.requests + 1):
                started = time.perf_counter()
                response = client.post(url, json=body)
                elapsed = time.perf_counter() - started
                response.raise_for_status()
                if n:  # the first request warms WeasyPrint and fontconfig
                    samples.append(elapsed)
                else:
                    print(f"warm-up request: {elapsed:.3f} s")
    finally:
        stop_server(server)
    median = statistics.median(samples)
    print(
        f"generate-pdf, {args.slides} {args.template} slides ({size / 1e6:.2f} MB of HTML) -> "
        f"{len(response.content) / 1e6:.2f} MB PDF"
    )
    print(
        f"  median {median:.3f} s, min {min(samples):.3f} s, max {max(samples):.3f} s "
        f"over {len(samples)} requests; target {TARGET_SECONDS:g} s: "
        f"{'ok' if median <= TARGET_SECONDS else 'TOO SLOW'}"
    )


if __name__ == "__main__":
    main()
