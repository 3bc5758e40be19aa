#!/usr/bin/env python3
"""How much memory does the largest accepted image upload cost?

The largest image the checks accept is 39.9 megapixels (MAX_IMAGE_PIXELS is 40 M),
a WebP 15.96 megapixels (MAX_WEBP_PIXELS is 16 M). For a JPEG (RGB), a PNG (RGBA)
and a WebP (RGB), each the largest of its format:

* pipeline: `tests/upload_memory_probe.py` in a process of its own takes the file
  through the upload path (content check, logo shrunk to 400 px, the procedural
  painter's reference colours): resident size before, peak RSS after, growth.
* serve: a real `socialgen serve` (fresh store, the fake OpenAI server as text
  model, procedural images), one carousel with a small logo as warm-up, then
  generate-with-images with the large file as brandLogo and as a reference image;
  VmRSS before and VmHWM (peak RSS) after, from /proc/<pid>/status. One server
  per format, so that one format's peak cannot hide the next one's.

`--src DIR` runs the same against another source tree (its `src` folder, e.g. a
`git worktree` of an older commit) for a before/after comparison. Linux only. The
homes, the server, its key and /proc come from the bench harness (bench/harness/).

    .venv/bin/python bench/upload_memory.py
    .venv/bin/python bench/upload_memory.py --src /tmp/old/src --formats JPEG PNG
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

# isort: off
# The harness first: it puts the repository (and so `tests`) on sys.path.
from harness import REPO as ROOT, bench_env, bench_home, create_key, proc_status, serve

# isort: on
import httpx

if TYPE_CHECKING:
    from tests.fakes.openai_server import Reply

PROBE = ROOT / "tests" / "upload_memory_probe.py"
CREATE_URL = "/api/v1/carousel/generate-with-images"
MEDIA = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}
SLIDES = 2


def run_probe(arguments: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, str(PROBE), *arguments],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"probe failed:\n{done.stderr[-3000:]}")
    return done.stdout


def small_image(format_name: str) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    mode = "RGBA" if format_name == "PNG" else "RGB"
    Image.new(mode, (600, 500), (200, 60, 40)).save(out, format_name)
    return out.getvalue()


def carousel(base: str, workspace: str, key: str, image: bytes, format_name: str) -> None:
    name = f"image.{format_name.lower()}"
    response = httpx.post(
        f"{base}{CREATE_URL}/{workspace}",
        headers={"x-api-key": key, "Accept": "text/event-stream"},
        data={"prompt": "shipping weekly", "slideCount": str(SLIDES)},
        files=[
            ("brandLogo", (name, image, MEDIA[format_name])),
            ("referenceImages", (name, image, MEDIA[format_name])),
        ],
        timeout=300,
    )
    if response.status_code != 200 or '"complete"' not in response.text:
        raise SystemExit(f"carousel failed ({response.status_code}): {response.text[-1000:]}")


def outline_answer(body: dict[str, Any]) -> Reply:
    """The one request a carousel makes of a capable text model: its outline (a
    json_schema answer named carousel_outline) of SLIDES slides. Anything else is a
    change in the pipeline this bench should hear of: the fake answers it with a 500."""
    from tests.carousel_replies import carousel_outline
    from tests.fakes.openai_server import Reply

    name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
    if name != "carousel_outline":
        raise ValueError(f"unexpected request (schema {name!r})")
    return Reply.json(carousel_outline(SLIDES))


def serve_figures(path: Path, format_name: str, pythonpath: str) -> dict[str, float]:
    from tests.fakes.openai_server import FakeOpenAI

    with (
        bench_home("socialgen-upload-memory-") as home,
        FakeOpenAI(responder=outline_answer) as fake,
    ):
        env = bench_env(home, **fake.env(), PYTHONPATH=pythonpath)
        key, workspace = create_key(env)
        with serve(env, home / "serve.log") as server:
            small = small_image(format_name)
            carousel(server.url, workspace, key, small, format_name)  # warm-up
            before = proc_status(server.pid)
            carousel(server.url, workspace, key, path.read_bytes(), format_name)
            after = proc_status(server.pid)
    return {
        "rss_mb": before.rss_kb / 1024,
        "peak_mb": after.hwm_kb / 1024,
        "growth_mb": (after.hwm_kb - before.rss_kb) / 1024,
    }


def show(label: str, figures: dict[str, float]) -> None:
    print(
        f"  {label:<9} rss before {figures['rss_mb']:6.0f} MB   peak after "
        f"{figures['peak_mb']:6.0f} MB   growth {figures['growth_mb']:6.0f} MB"
    )


def largest_size(format_name: str) -> tuple[int, int]:
    from tests.upload_memory_probe import largest_size as probe_size

    return probe_size(format_name)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--formats", nargs="+", default=["JPEG", "PNG", "WEBP"])
    parser.add_argument("--src", help="the src folder of another source tree to measure")
    parser.add_argument("--no-serve", action="store_true", help="the pipeline figures only")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        raise SystemExit("Linux only (/proc and ru_maxrss in KiB)")
    env = dict(os.environ)
    paths = [str(ROOT)]  # tests.fakes for the fake provider
    if args.src:
        paths.insert(0, str(Path(args.src).resolve()))
    env["PYTHONPATH"] = os.pathsep.join(paths)
    print(f"code: {args.src or ROOT / 'src'}")
    with tempfile.TemporaryDirectory() as folder:
        for format_name in args.formats:
            path = Path(folder) / f"largest.{format_name.lower()}"
            run_probe(["--make", format_name, str(path)], env)
            size = path.stat().st_size / 1e6
            width, height = largest_size(format_name)
            print(
                f"{format_name}, {width}x{height} ({width * height / 1e6:.1f} MP), "
                f"{size:.2f} MB file:"
            )
            started = time.perf_counter()
            figures = json.loads(run_probe([str(path)], env).strip().splitlines()[-1])
            show("pipeline", figures)
            if not args.no_serve:
                show("serve", serve_figures(path, format_name, env["PYTHONPATH"]))
            print(f"  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
