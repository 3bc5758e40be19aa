"""GET /api/v1/files over a real socket never follows a symlink planted under files/:
not one named like a stored file (to /etc/passwd, to a file of the same workspace),
not one in place of a folder (to a folder outside, to another workspace's folder).
Each answers the same 404 as a missing file, and nothing else leaks through the
store's readers either."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from socialgen.files.local import LocalFolder
from socialgen.kit.errors import NotFound
from tests.carousel_support import png
from tests.conftest import LiveServer, Store

NOT_FOUND = {"success": False, "message": "File not found"}
PASSWD = Path("/etc/passwd")


@pytest.fixture
def http(store: Store, live_server: LiveServer) -> Iterator[httpx.Client]:
    headers = {"x-api-key": store.api_key()}
    with httpx.Client(base_url=live_server.base_url, headers=headers, timeout=10) as client:
        yield client


def url(workspace_id: str, key: str) -> str:
    return f"/api/v1/files/{workspace_id}/{key}"


def test_symlinks_under_files_answer_404(store: Store, http: httpx.Client, tmp_path: Path) -> None:
    root = store.files().root
    workspace = root / store.workspace_id
    folder = workspace / "carousels" / "c1"
    folder.mkdir(parents=True)
    real = png("#ff0000", (8, 8))
    (folder / "slide-1.png").write_bytes(real)
    # A link to a system file, named like a slide.
    (folder / "leak.png").symlink_to(PASSWD)
    # A link to a real file of the same workspace: still a link, still refused.
    (folder / "alias.png").symlink_to(folder / "slide-1.png")
    # A folder outside the files root, linked in as if it were a carousel's folder.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(png("#00ff00", (8, 8)))
    (workspace / "carousels" / "elsewhere").symlink_to(outside)
    # Another workspace's folder, linked into this one.
    other = store.workspace("Other")
    theirs = root / other / "carousels" / "c2"
    theirs.mkdir(parents=True)
    (theirs / "private.png").write_bytes(png("#0000ff", (8, 8)))
    (workspace / "carousels" / "borrowed").symlink_to(theirs)
    # A FIFO named like a PDF: refused at once, not waited on.
    os.mkfifo(folder / "stall.pdf")

    served = http.get(url(store.workspace_id, "carousels/c1/slide-1.png"))
    assert served.status_code == 200  # the control: the route serves real files
    assert served.content == real
    assert served.headers["content-type"] == "image/png"
    assert served.headers["content-length"] == str(len(real))

    for key in (
        "carousels/c1/leak.png",
        "carousels/c1/alias.png",
        "carousels/elsewhere/secret.png",
        "carousels/borrowed/private.png",
        "carousels/c1/stall.pdf",
    ):
        response = http.get(url(store.workspace_id, key))
        assert response.status_code == 404, (key, response.status_code, response.text[:200])
        assert response.json() == NOT_FOUND, key
        assert b"root:" not in response.content


def test_the_store_readers_refuse_symlinks_too(store: Store) -> None:
    """FileStore.read (the CLI's local copies, migrations) and list() (the sweep,
    migrate) go through the same checks as serving."""
    files = store.files()
    folder = files.root / store.workspace_id / "carousels" / "c1"
    folder.mkdir(parents=True)
    (folder / "slide-1.png").write_bytes(b"real")
    (folder / "leak.png").symlink_to(PASSWD)

    assert files.read(store.workspace_id, "carousels/c1/slide-1.png") == b"real"
    with pytest.raises(NotFound) as caught:
        files.read(store.workspace_id, "carousels/c1/leak.png")
    assert caught.value.message == "File not found"
    keys = {item.key for item in LocalFolder(files.root).list()}
    assert keys == {f"{store.workspace_id}/carousels/c1/slide-1.png"}
