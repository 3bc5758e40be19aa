"""Every command that reads a file the user names opens regular files only.

/dev/zero (and a symlink to it) never ends and reports size 0; a FIFO with no writer
blocks a plain open() forever; a directory is no file at all. Each is refused with
"not a regular file: PATH", fast, non-zero, without a traceback, and a regular file
over the command's cap is refused by counting the bytes read.

The commands run in one child process, each in a thread with a timeout: a command
that blocked fails its case instead of hanging the suite, and one that read /dev/zero
whole would hit the child's memory cap, never pytest's memory.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_IMAGE_BYTES, MAX_PDF_BYTES, MAX_SLIDE_HTML_BYTES
from socialgen.kit.local_files import MAX_TEXT_FILE_BYTES, read_regular_file
from tests.conftest import Store

ROOT = Path(__file__).resolve().parents[1]
# A refusal takes milliseconds; a blocked open() or an endless read never ends.
CASE_SECONDS = 5
DEADLINE = 60  # the whole child process, a backstop: each case has CASE_SECONDS
MEMORY_CAP = 4 * 1024**3  # address space of the child
READ_MB = 100  # bytes read per case: files are capped at a few MB, imports add some


def _bytes_read() -> int:
    """Bytes this process has read through read() calls (Linux: /proc/self/io rchar)."""
    with open("/proc/self/io") as counts:
        return int(next(line for line in counts if line.startswith("rchar:")).split()[1])


ZERO = Path("/dev/zero")


@dataclass(frozen=True)
class Case:
    name: str
    argv: list[str]
    expected: str  # in stderr
    editor: str | None = None  # $EDITOR for `posts edit --editor`


@dataclass(frozen=True)
class Specials:
    link: Path  # a symlink to /dev/zero
    fifo: Path  # no writer, ever
    folder: Path


def specials(tmp_path: Path) -> Specials:
    # .csv names, so that `posts import` gets past its file-type check to the file.
    link = tmp_path / "zero.csv"
    link.symlink_to(ZERO)
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    return Specials(link, fifo, folder)


def oversize(tmp_path: Path, name: str, cap: int) -> Path:
    """A regular file one byte over `cap`; sparse, so it costs no disk."""
    path = tmp_path / name
    with path.open("wb") as file:
        file.truncate(cap + 1)
    return path


def editor(tmp_path: Path, name: str, body: str) -> str:
    """An $EDITOR that replaces the file it is given ("$1") by something else."""
    script = tmp_path / f"{name}.sh"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return str(script)


def run_all(cases: list[Case]) -> dict[str, dict[str, Any]]:
    """Every case through the CLI in one child process (`drive` below), which the
    test kills if it outlives DEADLINE: a blocked case fails, it never hangs pytest."""
    process = subprocess.run(
        [sys.executable, "-c", "from tests.test_cli_special_files import drive; drive()"],
        input=json.dumps([asdict(case) for case in cases]),
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )
    assert process.returncode == 0, process.stderr
    results: dict[str, dict[str, Any]] = json.loads(process.stdout)
    return results


def drive() -> None:
    """In the child: run each case with CliRunner in a thread, at most CASE_SECONDS
    each; report {name: outcome} as JSON on the real stdout. A case still running
    (blocked on a FIFO, reading a device) is reported and ends the child, since a
    stuck thread cannot be stopped. The memory cap turns an endless read into a
    failure of that case rather than of the machine."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    cases = [Case(**fields) for fields in json.loads(sys.stdin.read())]
    runner = CliRunner()
    results: dict[str, dict[str, Any]] = {}
    for case in cases:
        os.environ.pop("VISUAL", None)
        os.environ["EDITOR"] = case.editor or "false"
        box: dict[str, Result] = {}

        def invoke(argv: list[str] = case.argv, box: dict[str, Result] = box) -> None:
            box["result"] = runner.invoke(app, argv)

        thread = threading.Thread(target=invoke, daemon=True)
        read_before = _bytes_read()
        thread.start()
        thread.join(CASE_SECONDS)
        if thread.is_alive():
            results[case.name] = {"blocked": True}
            break
        result = box["result"]
        unexpected = None if isinstance(result.exception, SystemExit) else repr(result.exception)
        results[case.name] = {
            "blocked": False,
            "read_mb": (_bytes_read() - read_before) / 1024**2,
            "exit": result.exit_code,
            "stdout": result.stdout,
            "stderr": result.stderr,
            "exception": unexpected,
        }
    # Straight to fd 1: a stuck CliRunner may still hold sys.stdout.
    os.write(1, json.dumps(results).encode())
    os._exit(0)


def refusal_cases(store: Store, tmp_path: Path) -> list[Case]:
    special = specials(tmp_path)
    style_id = json.loads(CliRunner().invoke(app, ["style", "create", "Founder", "--json"]).stdout)[
        "_id"
    ]
    post_id = store.post("The original text").id
    out = str(tmp_path / "out.pdf")
    commands: dict[str, tuple[list[str], str, int]] = {
        # name: (argv with {} for the file, the file's name in messages, the cap)
        "style --file": (["style", "add-posts", style_id, "--file", "{}"], "", MAX_TEXT_FILE_BYTES),
        "calendar --pdf": (["calendar", "7", "--pdf", "{}"], "", MAX_PDF_BYTES),
        "carousel --logo": (["carousel", "create", "x", "--logo", "{}"], "logo file ", 0),
        "carousel --profile-image": (
            ["carousel", "create", "x", "--profile-image", "{}"],
            "profile image file ",
            0,
        ),
        "carousel --reference-image": (
            ["carousel", "create", "x", "--reference-image", "{}"],
            "reference image file ",
            MAX_IMAGE_BYTES,
        ),
        "carousel pdf": (["carousel", "pdf", "{}", "--output", out], "", MAX_SLIDE_HTML_BYTES),
        "posts import": (["posts", "import", "{}"], "", MAX_TEXT_FILE_BYTES),
    }
    cases: list[Case] = []
    for command, (argv, what, cap) in commands.items():
        prefix = f"{what}is " if what else ""
        targets = {"link": special.link, "fifo": special.fifo, "folder": special.folder}
        if command != "posts import":  # refused by its name (no .csv) before it is opened
            targets["/dev/zero"] = ZERO
        for kind, path in targets.items():
            filled = [str(path) if part == "{}" else part for part in argv]
            cases.append(Case(f"{command} {kind}", filled, f"{prefix}not a regular file: {path}"))
        if cap:
            big = oversize(tmp_path, f"{command.replace(' ', '_')}.csv", cap)
            filled = [str(big) if part == "{}" else part for part in argv]
            cases.append(Case(f"{command} oversize", filled, "larger than"))
    edits = {
        "link": 'ln -sf /dev/zero "$1"',
        "fifo": 'rm "$1" && mkfifo "$1"',
        "folder": 'rm "$1" && mkdir "$1"',
        "oversize": f'truncate -s {MAX_TEXT_FILE_BYTES + 1} "$1"',
    }
    for kind, body in edits.items():
        expected = "larger than" if kind == "oversize" else "not a regular file: "
        argv = ["posts", "edit", post_id, "--editor"]
        cases.append(Case(f"posts edit {kind}", argv, expected, editor(tmp_path, kind, body)))
    return cases


def test_every_command_refuses_special_and_oversize_files(store: Store, tmp_path: Path) -> None:
    cases = refusal_cases(store, tmp_path)
    results = run_all(cases)

    for case in cases:
        result = results.get(case.name)
        assert result is not None, f"{case.name}: not run, a case before it blocked"
        assert not result["blocked"], f"{case.name}: still running after {CASE_SECONDS} s"
        assert result["exception"] is None, (case.name, result["exception"])
        assert result["exit"] == 1, (case.name, result)
        assert case.expected in result["stderr"], (case.name, result["stderr"])
        assert "Traceback" not in result["stderr"], (case.name, result["stderr"])
        assert result["stdout"] == "", (case.name, result["stdout"])
        # Counted, not timed: what the kernel handed this process (first imports
        # included) stays far under what an endless read of /dev/zero takes in.
        assert result["read_mb"] < READ_MB, (case.name, result["read_mb"])
    # Nothing the refused commands named was written anywhere.
    shown = json.loads(CliRunner().invoke(app, ["posts", "recent", "--json"]).stdout)
    assert [post["postContent"] for post in shown["posts"]] == ["The original text"]
    assert not (tmp_path / "out.pdf").exists()


def test_a_symlink_to_a_regular_file_and_a_file_at_the_cap_are_read(tmp_path: Path) -> None:
    """The refusals are about what is opened, not about links or sizes as such."""
    exact = tmp_path / "exact.txt"
    exact.write_bytes(b"x" * 100)
    link = tmp_path / "link.txt"
    link.symlink_to(exact)

    assert read_regular_file(exact, 100) == b"x" * 100
    assert read_regular_file(link, 100) == b"x" * 100
    with pytest.raises(BadRequest) as caught:
        read_regular_file(exact, 99)
    assert caught.value.message == f"{exact} is larger than 99 bytes"


def test_the_size_is_counted_while_reading_not_taken_from_st_size() -> None:
    # A /proc file is a regular file whose st_size is 0 whatever it holds: a cap
    # judged by st_size would let it through whole.
    status = Path("/proc/self/status")
    assert status.stat().st_size == 0
    with pytest.raises(BadRequest) as caught:
        read_regular_file(status, 10, what="status file")
    assert caught.value.message == f"status file is larger than 10 bytes: {status}"
    assert read_regular_file(status, 1024 * 1024).startswith(b"Name:")


def test_a_missing_file_and_an_unopenable_one_are_named_without_exception_names(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "missing.txt"
    with pytest.raises(BadRequest) as caught:
        read_regular_file(missing, 10)
    assert caught.value.message == f"Cannot read {missing}: no such file"
    loop = tmp_path / "loop.txt"
    loop.symlink_to(loop)
    with pytest.raises(BadRequest) as caught:
        read_regular_file(loop, 10)
    assert caught.value.message.startswith(f"Cannot read {loop}: ")
    assert "Error" not in caught.value.message
