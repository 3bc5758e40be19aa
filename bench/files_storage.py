#!/usr/bin/env python3
"""Files in a bucket vs the local folder: what the S3 backend costs.

Starts moto's S3 server (the dev extra's `moto[server]`) on 127.0.0.1 and prints:

* carousel create (in-process, scripted model, procedural images): median seconds on
  the local folder and on the bucket, and their ratio (target <= 1.15x);
* generate-pdf through a real `socialgen serve`, local vs bucket (it stores nothing,
  so this shows the setting costs a request nothing);
* file GET p50 through serve: the local file, the bucket's bytes streamed by serve,
  the presigned redirect alone (SOCIALGEN_FILES_REDIRECT=1) and redirect + bucket GET;
* `files migrate` throughput on 1,000 files (files/s), and the idempotent second run.

moto is a Python server, slower than S3 or MinIO per request: the figures are an
upper bound on the bucket's overhead, not a measurement of AWS. The homes, the servers,
the key and the medians come from the bench harness (bench/harness/).

    .venv/bin/python bench/files_storage.py
    .venv/bin/python bench/files_storage.py --runs 5 --gets 300 --files 1000
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from carousel_create import RenderTimes, ScriptedModel, one_run
from carousel_pdf import build_slides
from harness import Samples, bench_env, bench_home, create_key, environ, free_port, serve
from socialgen.app.runtime import Runtime
from socialgen.files.backends import files_of

BUCKET_ENV = ("SOCIALGEN_FILES_URL", "SOCIALGEN_FILES_REDIRECT", "AWS_ENDPOINT_URL")
TARGET_RATIO = 1.15

if TYPE_CHECKING:
    from sqlalchemy import Engine


@contextmanager
def moto_server() -> Iterator[str]:
    port = free_port()
    command = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(endpoint, timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise SystemExit("moto did not start") from None
                time.sleep(0.1)
        yield endpoint
    finally:
        server.terminate()
        server.wait(timeout=10)


def new_bucket(endpoint: str) -> dict[str, str]:
    """A fresh bucket and the environment that puts socialgen's files in it."""
    name = f"bench-{uuid.uuid4().hex[:10]}"
    httpx.put(f"{endpoint}/{name}").raise_for_status()  # moto: CreateBucket, unsigned
    return {
        "SOCIALGEN_FILES_URL": f"s3://{name}/team",
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_REGION": "us-east-1",
    }


def environment(values: dict[str, str]) -> AbstractContextManager[None]:
    """This process on the bucket `values` name, or on the local folder (no values)."""
    return environ({**dict.fromkeys(BUCKET_ENV), **values})


def ratio_line(label: str, local: list[float], bucket: list[float], unit: str = "s") -> None:
    a, b = Samples(local), Samples(bucket)
    ratio = b.ratio(a)
    verdict = "ok" if ratio <= TARGET_RATIO else f"over {TARGET_RATIO}x"
    print(
        f"  {label}: local {a.median:.3f} {unit}, bucket {b.median:.3f} {unit}, "
        f"ratio {ratio:.2f}x ({verdict})"
    )


def bench_create(bucket_env: dict[str, str], runs: int, slides: int) -> None:
    times = RenderTimes()
    logger = logging.getLogger("socialgen.carousels")
    logger.addHandler(times)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    model = ScriptedModel()
    samples: dict[str, list[float]] = {"local": [], "bucket": []}
    cases: tuple[tuple[str, dict[str, str]], ...] = (("local", {}), ("bucket", bucket_env))
    # One Runtime per storage, as `serve` keeps one per process; each is made and warmed
    # (WeasyPrint, fonts, its engine's first connection, its file store) inside its own
    # environment, since a Runtime reads its settings once, at the first use.
    runtimes: dict[str, Runtime] = {}
    try:
        for label, values in cases:
            with environment(values):
                runtimes[label] = Runtime()
                asyncio.run(one_run(runtimes[label], model, slides, "bold", times))
        for _ in range(runs):  # alternated, so load on the machine hits both alike
            for label, values in cases:
                with environment(values):
                    run = asyncio.run(one_run(runtimes[label], model, slides, "bold", times))
                samples[label].append(run["total"])
    finally:
        for runtime in runtimes.values():
            runtime.close()
    print(f"carousel create, {slides} slides, median of {runs}")
    ratio_line("total", samples["local"], samples["bucket"])


def timed_calls(call: Callable[[], httpx.Response], count: int) -> Samples:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        response = call()
        if response.status_code >= 400:  # a 307 is the redirect case's answer
            raise SystemExit(f"{response.request.url}: {response.status_code}")
        samples.append(time.perf_counter() - started)
    return Samples(samples)


def bench_pdf(base_env: dict[str, str], bucket_env: dict[str, str], home: Path, runs: int) -> None:
    from socialgen.carousels.slides_html import render_slides
    from socialgen.carousels.templates import get_template

    key, _workspace = create_key(base_env)
    slides, brand = build_slides(10, "JPEG")
    pages = render_slides(
        "bold", slides, get_template("bold").theme, brand, width=1080, height=1350
    )
    samples: dict[str, list[float]] = {"local": [], "bucket": []}
    with ExitStack() as stack:
        bases = {
            label: stack.enter_context(serve({**base_env, **extra}, home / f"pdf-{label}.log")).url
            for label, extra in (("local", {}), ("bucket", bucket_env))
        }
        for n in range(runs + 1):  # alternated, so load on the machine hits both alike
            for label, base in bases.items():
                started = time.perf_counter()
                response = httpx.post(
                    f"{base}/api/v1/carousel/generate-pdf",
                    json={"slidesHtml": pages},
                    headers={"x-api-key": key},
                    timeout=60,
                )
                if response.status_code != 200:
                    raise SystemExit(f"generate-pdf: {response.status_code} {response.text}")
                if n:  # the first request warms WeasyPrint and fontconfig
                    samples[label].append(time.perf_counter() - started)
    print(f"generate-pdf through serve, 10 slides, median of {runs}")
    ratio_line("request", samples["local"], samples["bucket"])


def a_thumbnail_url(env: dict[str, str]) -> str:
    """Make one carousel with this environment's storage; its thumbnail's URL."""
    from socialgen.carousels.repository import list_carousels
    from socialgen.files.store import file_url

    with environment(env):
        runtime = Runtime()
        try:
            asyncio.run(one_run(runtime, ScriptedModel(), 4, "bold", RenderTimes()))
            engine = runtime.open_store()
            carousel = list_carousels(engine, *_default_workspace(engine))[0]  # newest first
        finally:
            runtime.close()
        return file_url(carousel.workspace_id, carousel.thumbnail_file)


def _default_workspace(engine: Engine) -> tuple[str]:
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import resolve_workspace

    with read_session(engine) as session:
        return (resolve_workspace(session, None).id,)


def bench_gets(
    base_env: dict[str, str], bucket_env: dict[str, str], home: Path, count: int
) -> None:
    key, _workspace = create_key(base_env)
    cases = {
        "local file (FileResponse)": ({}, False),
        "bucket, streamed by serve": (bucket_env, False),
        "bucket, presigned 307 only": ({**bucket_env, "SOCIALGEN_FILES_REDIRECT": "1"}, False),
        "bucket, 307 + GET from bucket": ({**bucket_env, "SOCIALGEN_FILES_REDIRECT": "1"}, True),
    }
    urls = {"local": a_thumbnail_url({}), "bucket": a_thumbnail_url(bucket_env)}
    print(f"file GET (a ~{_size(urls)} thumbnail), p50 / p90 of {count}")
    for label, (extra, follow) in cases.items():
        url = urls["bucket" if extra else "local"]
        with (
            serve({**base_env, **extra}, home / "get.log") as server,
            httpx.Client(
                base_url=server.url,
                headers={"x-api-key": key},
                follow_redirects=follow,
                timeout=30,
            ) as http,
        ):

            def get(http: httpx.Client = http, url: str = url) -> httpx.Response:
                return http.get(url)

            get()
            samples = timed_calls(get, count)
        p50, p90 = samples.median, samples.percentile(90)
        print(f"  {label:<31} {p50 * 1000:6.1f} ms  {p90 * 1000:6.1f} ms")


def _size(urls: dict[str, str]) -> str:
    path = Path(os.environ["SOCIALGEN_HOME"], "files", urls["local"].split("/files/", 1)[1])
    return f"{path.stat().st_size / 1000:.0f} KB"


def bench_migrate(bucket_env: dict[str, str], files: int) -> None:
    from socialgen.app.runtime import Runtime
    from socialgen.files.migrate import migrate

    payload = os.urandom(60_000)  # about a slide image
    with bench_home("socialgen-migrate-") as source, environment(bucket_env):
        for n in range(files):
            path = source / "ws1" / "carousels" / f"{n // 10:032x}" / f"slide-{n}-{n:010d}.jpg"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(payload[: 30_000 + n % 30_000])
        target = files_of(Runtime()).backend  # the bucket the environment names
        first = migrate(source, target)
        again = migrate(source, target)
    megabytes = first.bytes_copied / 1e6
    print(f"files migrate, {files} files ({megabytes:.0f} MB)")
    print(
        f"  first run: {first.copied} copied in {first.seconds:.2f} s = "
        f"{first.copied / first.seconds:.0f} files/s ({megabytes / first.seconds:.1f} MB/s)"
    )
    print(f"  second run: {again.copied} copied, {again.skipped} skipped in {again.seconds:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--slides", type=int, default=6)
    parser.add_argument("--gets", type=int, default=200)
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args()

    with bench_home("socialgen-bench-") as home, moto_server() as endpoint:
        base_env = bench_env(home)
        for name in BUCKET_ENV:
            base_env.pop(name, None)
        # carousel create and the thumbnails run in this process, on the same home.
        os.environ.clear()
        os.environ.update(base_env)
        bucket_env = new_bucket(endpoint)
        bench_create(bucket_env, args.runs, args.slides)
        bench_pdf(base_env, bucket_env, home, args.runs)
        bench_gets(base_env, bucket_env, home, args.gets)
        bench_migrate(new_bucket(endpoint), args.files)


if __name__ == "__main__":
    main()
