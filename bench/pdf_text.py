#!/usr/bin/env python3
"""PDF text for the content calendar: how fast is a big upload ready?

Builds (once, with fpdf2, cached in the temp directory) a text PDF of about
10 MB and 2,000 pages, then times:

* `read_upload_capped` collecting it from 64 KiB chunks, and refusing a 10.5 MB
  upload (how many chunks it consumed before saying no);
* `pdf_text(...)` with its defaults (stops once it has enough text; the target
  is the text ready within 5 s);
* optionally (`--full`) reading every page, to show what stopping early saves.

Timing comes from the bench harness (bench/harness/).

Run from the repository root:

    .venv/bin/python bench/pdf_text.py
    .venv/bin/python bench/pdf_text.py --runs 5 --full
    .venv/bin/python bench/pdf_text.py --rebuild
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from harness import Samples, timed_runs
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_PDF_BYTES
from socialgen.sources.pdf import PdfSource, pdf_text, read_upload_capped

TARGET_SECONDS = 5.0
CHUNK_BYTES = 64 * 1024
PAGE_OVERHEAD_BYTES = 36  # per line: the "BT x y Td (...) Tj ET" around the text
LINE_CHARS = 95
WORDS = (
    *("release", "team", "customer", "weekly", "feature", "incident", "review", "metric"),
    *("product", "launch", "roadmap", "growth", "feedback", "design", "quality", "latency"),
    *("revenue", "churn", "onboarding", "pipeline", "deploy", "rollback", "alert", "budget"),
    *("hiring", "culture", "meeting", "decision"),
)


def build_pdf(path: Path, *, pages: int, target_bytes: int, seed: int = 7) -> None:
    """A text-only PDF, streams uncompressed so the file reaches `target_bytes`."""
    from fpdf import FPDF

    lines_per_page = max(1, target_bytes // pages // (LINE_CHARS + PAGE_OVERHEAD_BYTES))
    rng = random.Random(seed)
    pdf = FPDF(format="A4")
    pdf.set_compression(False)
    pdf.set_title("Bench: a long report of weekly releases")
    pdf.set_font("Helvetica", size=7)
    pdf.set_auto_page_break(False)
    for page in range(pages):
        pdf.add_page()
        for line in range(lines_per_page):
            pdf.text(10, 10 + line * 2.6, _line(rng, page, line))
    pdf.output(str(path))


def _line(rng: random.Random, page: int, line: int) -> str:
    words: list[str] = []
    while sum(len(word) + 1 for word in words) < LINE_CHARS - 12:
        words.append(rng.choice(WORDS))
    sentence = " ".join(words)
    return f"{sentence[:1].upper()}{sentence[1:]} p{page}l{line}."


def cached_pdf(*, pages: int, target_bytes: int, rebuild: bool) -> tuple[Path, float | None]:
    path = Path(tempfile.gettempdir()) / f"socialgen-bench-{pages}p-{target_bytes}b.pdf"
    if path.exists() and not rebuild:
        return path, None
    started = time.perf_counter()
    partial = path.with_suffix(".partial")
    build_pdf(partial, pages=pages, target_bytes=target_bytes)
    partial.replace(path)
    return path, time.perf_counter() - started


async def _chunks(data: bytes, size: int, counter: list[int]) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        counter[0] += 1
        yield data[start : start + size]


def _upload(data: bytes) -> tuple[bytes, int]:
    counter = [0]
    body = asyncio.run(read_upload_capped(_chunks(data, CHUNK_BYTES, counter)))
    return body, counter[0]


def _oversized(data: bytes) -> tuple[str, int, int]:
    counter = [0]
    total = -(-len(data) // CHUNK_BYTES)
    try:
        asyncio.run(read_upload_capped(_chunks(data, CHUNK_BYTES, counter)))
    except BadRequest as exc:
        return exc.message, counter[0], total
    return "accepted (unexpected)", counter[0], total


def _describe(label: str, samples: Samples) -> str:
    return (
        f"{label}: median {samples.median * 1000:.1f} ms, "
        f"max {samples.max * 1000:.1f} ms over {len(samples.values)} runs"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pages", type=int, default=2000, help="pages in the PDF (2000)")
    parser.add_argument("--megabytes", type=float, default=10.0, help="file size (10 MB)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each step (3)")
    parser.add_argument("--full", action="store_true", help="also time reading every page")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached PDF")
    args = parser.parse_args(argv)

    target_bytes = int(args.megabytes * 1_000_000)
    path, built = cached_pdf(pages=args.pages, target_bytes=target_bytes, rebuild=args.rebuild)
    data = path.read_bytes()
    note = f"built in {built:.1f} s" if built is not None else "cached"
    print(f"PDF: {path} ({len(data) / 1_000_000:.2f} MB, {note})")
    if len(data) > MAX_PDF_BYTES:
        print(f"note: larger than the {MAX_PDF_BYTES} byte upload cap; timing pdf_text anyway")

    upload_samples, (body, chunks) = timed_runs(args.runs, lambda: _upload(data))
    assert body == data
    print(_describe(f"read_upload_capped ({chunks} chunks of 64 KiB)", upload_samples))
    message, consumed, total = _oversized(data + b"\0" * (MAX_PDF_BYTES + 512 * 1024 - len(data)))
    print(f"10.5 MB upload: {message!r} after {consumed} of {total} chunks")

    samples, source = timed_runs(args.runs, lambda: pdf_text(data))
    print(_describe("pdf_text (defaults)", samples))
    _report(source)
    worst = samples.max
    verdict = "ok" if worst <= TARGET_SECONDS else "TOO SLOW"
    print(f"target: text ready within {TARGET_SECONDS:g} s -> worst {worst:.2f} s: {verdict}")

    if args.full:
        full_samples, full = timed_runs(
            1, lambda: pdf_text(data, max_chars=10**9, max_pages=args.pages + 1)
        )
        print(_describe("pdf_text (every page)", full_samples))
        _report(full)
    return 0 if worst <= TARGET_SECONDS else 1


def _report(source: PdfSource) -> None:
    print(
        f"  pages read {source.pages_read} of {source.page_count}, "
        f"{len(source.text):,} chars, truncated={source.truncated}, title={source.title!r}, "
        f"ends with {source.text[-30:]!r}"
    )


if __name__ == "__main__":
    sys.exit(main())
