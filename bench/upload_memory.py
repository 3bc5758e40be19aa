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
`git worktree` of an older commit) for a before/after comparison. Linux only.

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

import httpx

from harness import free_port, start_server, stop_server

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "tests" / "upload_memory_probe.py"
CREATE_URL = "/api/v1/carousel/generate-with-images"
MEDIA = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}


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


def memory_mb(pid: int) -> dict[str, float]:
    """VmRSS (now) and VmHWM (peak so far) of a process, in MB."""
    figures = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            figures[name] = int(value.split()[0]) / 1024
    return figures


def small_image(format_name: str) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    mode = "RGBA" if format_name == "PNG" else "RGB"
    Image.new(mode, (600, 500), (200, 60, 40)).save(out, format_name)
    return out.getvalue()


def create_key(env: dict[str, str]) -> tuple[str, str]:
    """The default workspace's id and a new API key for it."""
    code = (
        "from socialgen.auth.service import create_api_key\n"
        "from socialgen.startup import open_store\n"
        "from socialgen.store.engine import transaction\n"
        "from socialgen.workspaces.service import default_workspace\n"
        "with transaction(open_store()) as session:\n"
        "    workspace = default_workspace(session)\n"
        "    key = create_api_key(session, name='bench', workspace_id=workspace.id)[1]\n"
        "    print(workspace.id, key)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    workspace, key = done.stdout.split()[-2:]
    return workspace, key


def carousel(base: str, workspace: str, key: str, image: bytes, format_name: str) -> None:
    name = f"image.{format_name.lower()}"
    response = httpx.post(
        f"{base}{CREATE_URL}/{workspace}",
        headers={"x-api-key": key, "Accept": "text/event-stream"},
        data={"prompt": "shipping weekly", "slideCount": "2"},
        files=[
            ("brandLogo", (name, image, MEDIA[format_name])),
            ("referenceImages", (name, image, MEDIA[format_name])),
        ],
        timeout=300,
    )
    if response.status_code != 200 or '"complete"' not in response.text:
        raise SystemExit(f"carousel failed ({response.status_code}): {response.text[-1000:]}")


def serve_figures(path: Path, format_name: str, env: dict[str, str]) -> dict[str, float]:
    from tests.fakes.openai_server import FakeOpenAI
    from tests.generation_support import FakeAI

    home = Path(tempfile.mkdtemp(prefix="socialgen-upload-memory-"))
    with FakeOpenAI() as fake:
        fake.responder = FakeAI(server=fake).respond
        server_env = {k: v for k, v in env.items() if not k.startswith("SOCIALGEN_")}
        server_env.update(fake.env(), SOCIALGEN_HOME=str(home))
        workspace, key = create_key(server_env)
        port = free_port()
        server = start_server(server_env, port, home / "serve.log")
        try:
            base = f"http://127.0.0.1:{port}"
            carousel(base, workspace, key, small_image(format_name), format_name)  # warm-up
            before = memory_mb(server.pid)
            carousel(base, workspace, key, path.read_bytes(), format_name)
            after = memory_mb(server.pid)
        finally:
            stop_server(server)
    return {
        "rss_mb": before["VmRSS"],
        "peak_mb": after["VmHWM"],
        "growth_mb": after["VmHWM"] - before["VmRSS"],
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
                show("serve", serve_figures(path, format_name, env))
            print(f"  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
