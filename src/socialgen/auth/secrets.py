"""Secrets are random, shown once, and stored only as SHA-256 hashes.

They carry 256 bits of entropy, so a fast hash is enough: there is nothing to
brute-force, unlike a password. Lookups are by hash, never by plaintext.
"""

from __future__ import annotations

import hashlib
import secrets

API_KEY_PREFIX = "sgk_"
TOKEN_PREFIX = "sgt_"
DISPLAY_CHARS = 12


def new_secret(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def display_prefix(secret: str) -> str:
    return secret[:DISPLAY_CHARS]
