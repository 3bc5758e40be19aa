"""Processes a bench starts and watches: `socialgen serve`, the CLI's keys and tokens,
and what /proc says about a process."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

# Settings a bench sets itself: inherited ones would point it at the user's own store
# or provider.
INHERITED_NOT = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PYTHONPROFILEIMPORTTIME")


def socialgen_command() -> list[str]:
    """The `socialgen` of the running environment."""
    script = Path(sys.executable).parent / "socialgen"
    return [str(script)] if script.exists() else [sys.executable, "-m", "socialgen"]


def tree_command(src: Path, where: Path) -> list[str]:
    """`socialgen` as another checkout (its src/ is `src`, put first on PYTHONPATH by the
    caller) installs it: a console script written into `where` from that checkout's own
    pyproject.toml, since the installed script names this tree's entry point, which an
    older tree may not have (socialgen.cli:main before cli/ was a package). Written as
    pip writes one, so both trees pay the same start-up."""
    import tomllib

    project = tomllib.loads((src.parent / "pyproject.toml").read_text(encoding="utf-8"))
    module, _, function = project["project"]["scripts"]["socialgen"].partition(":")
    script = where / "socialgen-of-tree"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nfrom {module} import {function}\n"
        f"if __name__ == '__main__':\n    sys.exit({function}())\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return [str(script)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def environ(values: Mapping[str, str | None]) -> Iterator[None]:
    """This process's environment with `values` for the block (None: unset), restored
    afterwards: for code that reads its settings on each call."""
    saved = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def bench_home(prefix: str, keep: bool = False) -> Iterator[Path]:
    """A temporary SOCIALGEN_HOME, removed afterwards unless `keep`."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield home
    finally:
        if keep:
            print(f"\nkept {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)


def bench_env(home: Path, database_url: str | None = None, **extra: str) -> dict[str, str]:
    """This process's environment without any SOCIALGEN_* or OpenAI setting, on `home`
    (and `database_url` when given), plus `extra`."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("SOCIALGEN_") and key not in INHERITED_NOT
    }
    env["SOCIALGEN_HOME"] = str(home)
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    if database_url is not None:
        env["SOCIALGEN_DATABASE_URL"] = database_url
    return env | extra


def _cli_json(
    arguments: list[str], env: Mapping[str, str], program: Sequence[str] | None = None
) -> dict[str, str]:
    done = subprocess.run(
        [*(program or socialgen_command()), *arguments],
        env=dict(env),
        capture_output=True,
        timeout=60,
    )
    if done.returncode != 0:
        error = done.stderr.decode(errors="replace")
        raise SystemExit(f"socialgen {' '.join(arguments[:2])} failed:\n{error}")
    data: dict[str, str] = json.loads(done.stdout)
    return data


def create_key(env: Mapping[str, str], program: Sequence[str] | None = None) -> tuple[str, str]:
    """(API key, workspace id) from `socialgen key create --json` (`program`'s, for
    another tree), bound to the default workspace; it creates and migrates the store
    when there is none yet."""
    data = _cli_json(["key", "create", "--name", "bench", "--json"], env, program)
    return str(data["apiKey"]), str(data["workspaceId"])


def create_token(env: Mapping[str, str], email: str = "owner@localhost") -> str:
    """A one-day bearer token for `email` (the local owner by default)."""
    data = _cli_json(["token", "create", email, "--days", "1", "--json"], env)
    return str(data["token"])


def start_server(
    env: Mapping[str, str],
    port: int,
    log: Path,
    cwd: Path | None = None,
    program: Sequence[str] | None = None,
) -> subprocess.Popen[bytes]:
    """`socialgen serve` on 127.0.0.1:port, once it answers (30 s at most). `program`:
    another `socialgen` (tests.race_cli: one with a test network in its Runtime)."""
    command = [*(program or socialgen_command()), "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port)]
    with log.open("wb") as sink:
        server = subprocess.Popen(
            command, env=dict(env), stdout=sink, stderr=subprocess.STDOUT, cwd=cwd
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"server exited ({server.returncode}):\n{log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=1).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    stop_server(server)
    raise SystemExit(f"server did not answer within 30 s:\n{log.read_text()[-2000:]}")


def stop_server(server: subprocess.Popen[bytes]) -> str:
    """Stop it (SIGTERM, then SIGKILL after 10 s); says how it ended."""
    if server.poll() is not None:
        return f"had exited ({server.returncode})"
    server.terminate()
    try:
        server.wait(timeout=10)
        return f"SIGTERM, exit status {server.returncode}"
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        return "did not stop within 10 s of SIGTERM: killed"


@dataclass
class Server:
    """A running `socialgen serve`; `stopped` says how it ended once it has."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path
    stopped: str = ""

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> str:
        if not self.stopped:
            self.stopped = stop_server(self.process)
        return self.stopped


@contextmanager
def serve(
    env: Mapping[str, str],
    log: Path,
    cwd: Path | None = None,
    program: Sequence[str] | None = None,
) -> Iterator[Server]:
    """`socialgen serve` on a free port for the block, stopped after it."""
    port = free_port()
    server = Server(start_server(env, port, log, cwd, program), port, log)
    try:
        yield server
    finally:
        server.stop()


@dataclass(frozen=True)
class Status:
    rss_kb: int
    hwm_kb: int
    threads: int
    fds: int


def proc_status(pid: int) -> Status:
    """VmRSS, VmHWM (peak RSS), threads and open descriptors, from /proc (Linux)."""
    fields: dict[str, str] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        fields[name] = value.strip()
    return Status(
        rss_kb=int(fields["VmRSS"].split()[0]),
        hwm_kb=int(fields["VmHWM"].split()[0]),
        threads=int(fields["Threads"]),
        fds=len(os.listdir(f"/proc/{pid}/fd")),
    )


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process and its waited-for children, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


@dataclass
class Lines:
    """A child's stdout, split into lines stamped (time.monotonic) as they were read."""

    lines: list[tuple[float, str]]
    stderr: str
    returncode: int
    spawned: float
    ended: float


def run_lines(
    command: Sequence[str],
    env: Mapping[str, str],
    timeout: float,
    on_spawn: Callable[[int], None] | None = None,
) -> Lines:
    """Run a child to its end, stamping each stdout line when it arrives; unbuffered
    reads, so a stamp is when the child wrote the line, not when a buffer filled.
    `on_spawn` gets the child's pid as soon as it exists."""
    spawned = time.monotonic()
    child = subprocess.Popen(
        command, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0
    )
    assert child.stdout is not None and child.stderr is not None
    if on_spawn is not None:
        on_spawn(child.pid)
    errors: list[bytes] = []
    err_pipe = child.stderr
    # stderr drains on its own thread so a chatty child never blocks on a full pipe.
    drain = threading.Thread(target=lambda: errors.append(err_pipe.read()), daemon=True)
    drain.start()
    timer = threading.Timer(timeout, child.kill)
    timer.start()
    lines: list[tuple[float, str]] = []
    pending = b""
    fd = child.stdout.fileno()
    try:
        while True:
            data = os.read(fd, 65536)
            stamp = time.monotonic()
            if not data:
                break
            pending += data
            *complete, pending = pending.split(b"\n")
            lines.extend((stamp, line.decode()) for line in complete if line.strip())
        child.wait()
    finally:
        timer.cancel()
    ended = time.monotonic()
    drain.join(timeout=5)
    stderr = b"".join(errors).decode(errors="replace")
    return Lines(lines, stderr, child.returncode, spawned, ended)
