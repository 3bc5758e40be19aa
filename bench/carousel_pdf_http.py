#!/usr/bin/env python3
"""generate-pdf through a real `socialgen serve`: 10 template slides (images as
data: URIs, as a web app would send them) to a PDF, measured at the client.

The target is 10 slides within 2 s. Prints the warm-up request's time, the HTML and
PDF sizes, and median / min / max over several requests after that warm-up (the first
one loads WeasyPrint and fonts). The server, the key and timing come from the bench
harness (bench/harness/).

    .venv/bin/python bench/carousel_pdf_http.py
    .venv/bin/python bench/carousel_pdf_http.py --requests 10 --template minimal
"""

from __future__ import annotations

import argparse

import httpx

from carousel_pdf import build_slides
from harness import Report, Samples, bench_env, bench_home, create_key, serve, timed
from socialgen.carousels.slides_html import render_slides
from socialgen.carousels.templates import get_template

TARGET_SECONDS = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=7)
    parser.add_argument("--slides", type=int, default=10)
    parser.add_argument("--template", default="bold")
    Report.add_option(parser)
    args = parser.parse_args()

    slides, brand = build_slides(args.slides, "JPEG")
    pages = render_slides(
        args.template, slides, get_template(args.template).theme, brand, width=1080, height=1350
    )
    body = {"slidesHtml": pages}
    size = sum(len(page) for page in pages)
    with bench_home("socialgen-bench-") as home:
        env = bench_env(home)
        key, _workspace = create_key(env)
        with (
            serve(env, home / "serve.log") as server,
            httpx.Client(headers={"x-api-key": key}, timeout=60) as client,
        ):
            url = f"{server.url}/api/v1/carousel/generate-pdf"
            answers: list[httpx.Response] = []

            def request() -> None:
                answers.append(client.post(url, json=body))
                answers[-1].raise_for_status()

            # The first request warms WeasyPrint and fontconfig.
            print(f"warm-up request: {timed(request)():.3f} s")
            samples = Samples([timed(request)() for _ in range(args.requests)])
    median = samples.median
    print(
        f"generate-pdf, {args.slides} {args.template} slides ({size / 1e6:.2f} MB of HTML) -> "
        f"{len(answers[-1].content) / 1e6:.2f} MB PDF"
    )
    print(
        f"  median {median:.3f} s, min {samples.min:.3f} s, max {samples.max:.3f} s "
        f"over {len(samples.values)} requests; target {TARGET_SECONDS:g} s: "
        f"{'ok' if median <= TARGET_SECONDS else 'TOO SLOW'}"
    )
    report = Report("carousel_pdf_http")
    report.add("median_s", median)
    report.write(args.json)


if __name__ == "__main__":
    main()
