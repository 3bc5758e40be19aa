"""Where each owner's files live inside a workspace's file store.

The layout belongs to the files layer, not to the slice that writes the files:
deleting a post removes its carousel's folder, and posts sit below carousels, so
both name the folder from here.
"""

from __future__ import annotations

CAROUSELS_FOLDER = "carousels"  # <workspace>/carousels/<carousel id>/...


def carousel_folder(carousel_id: str) -> str:
    """The folder of one carousel's images, PDF and thumbnail."""
    return f"{CAROUSELS_FOLDER}/{carousel_id}"
