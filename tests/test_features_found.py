"""Every `feature.py` under src/socialgen is found by socialgen.app.features, a slice's one
level down included (publishing/accounts/, publishing/outbox/): a declaration the scan
missed would drop its routes, commands and lifespan work without an error."""

from __future__ import annotations

import importlib
from pathlib import Path

from socialgen.app.features import PACKAGE, features


def test_every_feature_py_is_found() -> None:
    declared = [
        importlib.import_module(
            ".".join(("socialgen", *path.relative_to(PACKAGE).with_suffix("").parts))
        ).FEATURE
        for path in sorted(Path(PACKAGE).rglob("feature.py"))
    ]
    found = features()
    assert len(declared) >= 10
    missed = [feature.name for feature in declared if feature not in found]
    assert not missed, f"feature.py files socialgen.app.features does not find: {missed}"


def test_publishing_slices_declare_their_own_faces() -> None:
    by_name = {feature.name: feature for feature in features()}
    assert by_name["accounts"].routers == ("socialgen.publishing.accounts.api:router",)
    assert [group.name for group in by_name["accounts"].groups] == ["accounts"]
    outbox = by_name["outbox"]
    assert outbox.routers == ("socialgen.publishing.outbox.api:router",)
    assert [name for name, _ in outbox.commands] == ["publish-due"]
    assert [group for group, _ in outbox.extends] == ["posts"]
    assert outbox.lifespans == ("socialgen.publishing.outbox.scheduler:publishing_scheduler",)
    # The accounts' routes come first in /openapi.json, as when one feature held both.
    assert by_name["accounts"].order < outbox.order
    assert "publishing" not in by_name
