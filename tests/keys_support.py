"""The secret keys a Runtime made now holds: the test's home (its key file) and
SOCIALGEN_SECRET_KEY as the test set it. A Runtime reads them once, with the rest of
its settings; a test that changes the variable asks again."""

from __future__ import annotations

from socialgen.app.runtime import Runtime
from socialgen.publishing.secrets import SecretKeys


def keys_now() -> SecretKeys:
    return SecretKeys.of(Runtime())
