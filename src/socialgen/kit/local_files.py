"""Reading a file the user named on the command line (`--file`, `--pdf`, `--logo`,
slide HTML, imports, the `--editor` result): regular files only, with a cap.

Why not `path.read_bytes()`: a device (`/dev/zero`, or a symlink to it) never ends
and reports size 0, so a size check on `st_size` passes and the read fills memory; a
FIFO with no writer blocks `open()` forever. So the file is opened without blocking,
judged by `fstat` on what was opened (not by the path, which a symlink or a rename
can change), and read at most `limit + 1` bytes whatever its size claims.

Also here: writing socialgen's own files (SOCIALGEN_HOME), and the exports the user
asks for, private to their user.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Generator
from pathlib import Path

from socialgen.kit.errors import BadRequest
from socialgen.kit.uploads import size_text

# Text a command reads from a file (posts to import, a style's example posts, the
# edited post): far above any real use, small enough to hold in memory.
MAX_TEXT_FILE_BYTES = 16 * 1024 * 1024
_CHUNK = 1024 * 1024
# O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting.
# O_NOCTTY: naming a terminal device must not make it the process's terminal.
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def not_a_regular_file(path: Path, what: str | None = None) -> BadRequest:
    prefix = f"{what} is " if what else ""
    return BadRequest(f"{prefix}not a regular file: {path}")


def read_regular_file(
    path: Path, limit: int, *, what: str | None = None, too_large: str | None = None
) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them.

    `what` names the file in messages ("brand logo file"); without it they read
    "Cannot read PATH: ...". `too_large` replaces the message for a file over `limit`.
    Every failure is a BadRequest whose message names the path, never an exception.
    """
    fd = _open_regular(path, what)
    try:
        data = _read_at_most(fd, limit + 1)  # one byte more tells "too large"
    except OSError as error:
        raise _read_error(path, error, what) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _too_large(path, limit, what, too_large)
    return data


def regular_file_chunks(
    path: Path, limit: int, *, what: str | None = None, too_large: str | None = None
) -> Generator[bytes]:
    """read_regular_file in chunks of up to 1 MB, for a file read as it streams (a
    large archive is never held whole). The file is opened at the first chunk and
    closed when the chunks end or the iterator is closed."""
    fd = _open_regular(path, what)
    try:
        total = 0
        while True:
            try:
                chunk = os.read(fd, _CHUNK)
            except OSError as error:
                raise _read_error(path, error, what) from None
            if not chunk:
                return
            total += len(chunk)
            if total > limit:
                raise _too_large(path, limit, what, too_large)
            yield chunk
    finally:
        os.close(fd)


def _open_regular(path: Path, what: str | None) -> int:
    """A descriptor of the regular file at `path`, opened without blocking."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        raise _open_error(path, error, what) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise not_a_regular_file(path, what)
        # A regular file never blocks; clear the flag so reads behave as usual.
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except OSError as error:
        os.close(fd)
        raise _read_error(path, error, what) from None
    except BadRequest:
        os.close(fd)
        raise
    return fd


def _too_large(path: Path, limit: int, what: str | None, too_large: str | None) -> BadRequest:
    if too_large is not None:
        return BadRequest(too_large)
    where = f"{what} is" if what else f"{path} is"
    suffix = f": {path}" if what else ""
    return BadRequest(f"{where} larger than {size_text(limit)}{suffix}")


def _read_at_most(fd: int, count: int) -> bytes:
    # The size is counted as the bytes arrive: st_size can be stale or a lie.
    data = bytearray()
    while len(data) < count:
        chunk = os.read(fd, min(_CHUNK, count - len(data)))
        if not chunk:
            break
        data += chunk
    return bytes(data)


def _open_error(path: Path, error: OSError, what: str | None) -> BadRequest:
    if error.errno in (errno.ENXIO, errno.EISDIR, errno.ENODEV):
        return not_a_regular_file(path, what)  # a socket, a directory, a device
    if error.errno in (errno.ENOENT, errno.ENOTDIR):
        return BadRequest(
            f"{what} not found: {path}" if what else f"Cannot read {path}: no such file"
        )
    return _read_error(path, error, what)


def _read_error(path: Path, error: OSError, what: str | None) -> BadRequest:
    reason = error.strerror or "the file cannot be read"
    if what:
        return BadRequest(f"{what} cannot be read: {path} ({reason})")
    return BadRequest(f"Cannot read {path}: {reason}")


# --- socialgen's own files: private to the user who runs it ---------------------------
# SOCIALGEN_HOME holds posts, e-mails, token hashes and encrypted secrets: its folders
# are 0700 and its files 0600, whatever the umask (a mode given to mkdir or open is
# only ever narrowed by the umask, never widened, so these are exact).
PRIVATE_FOLDER = 0o700
PRIVATE_FILE = 0o600
_OPEN_TO_OTHERS = 0o077


def make_private_folders(path: Path) -> None:
    """`mkdir -p path`, every folder it creates 0700 (Path.mkdir gives the parents
    it creates the default mode, whatever `mode` says)."""
    missing: list[Path] = []
    folder = path
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_FOLDER)
        except FileExistsError:  # another process made it meanwhile
            continue


def open_private(path: Path, flags: int = os.O_WRONLY | os.O_CREAT | os.O_TRUNC) -> int:
    """os.open for writing a file of ours: created 0600, and an existing one narrowed
    to 0600 too (its old mode would otherwise stay)."""
    fd = os.open(path, flags | os.O_CLOEXEC, PRIVATE_FILE)
    try:
        if os.fstat(fd).st_mode & _OPEN_TO_OTHERS:
            os.fchmod(fd, PRIVATE_FILE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_private_file(path: Path, data: bytes) -> None:
    """Write `data` to `path`, a file the user named for an export (posts, a calendar,
    the insights page, a carousel PDF): 0600 as socialgen's own files are, since it
    holds unpublished posts, and an existing file is narrowed to 0600 too. Raises
    OSError; the caller says which file could not be written."""
    with os.fdopen(open_private(path), "wb") as out:
        out.write(data)


def tighten(path: Path, *, deep: bool = False) -> int:
    """Take group and other access away from `path` (folders 0700, files 0600; a
    symlink is left alone, never followed); with `deep`, from everything under a
    folder that was open (one already 0700 was made by socialgen as it is now, its
    contents private too: no walk on every start). Returns how many modes changed."""
    changed = _tighten_one(path)
    if deep and changed and path.is_dir() and not path.is_symlink():
        for folder, folders, names in os.walk(path):
            for name in (*folders, *names):
                changed += _tighten_one(Path(folder, name))
    return changed


def _tighten_one(path: Path) -> int:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return 0
    if stat.S_ISDIR(info.st_mode):
        wanted = PRIVATE_FOLDER
    elif stat.S_ISREG(info.st_mode):
        wanted = PRIVATE_FILE
    else:
        return 0  # a symlink (chmod would follow it), a socket, a FIFO
    if not info.st_mode & _OPEN_TO_OTHERS:
        return 0
    try:
        os.chmod(path, wanted)
    except OSError:
        return 0  # not ours (another user's file in a shared folder): left as it is
    return 1
