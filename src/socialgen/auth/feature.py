"""API keys and bearer tokens for the HTTP API."""

from socialgen.registration import Feature

FEATURE = Feature(
    name="auth",
    order=50,
    groups=(("key", "socialgen.auth.cli:key_app"), ("token", "socialgen.auth.cli:token_app")),
)
