"""Nostr keys and events: NIP-19's bech32 names (nsec, npub, note), NIP-01's event id,
and BIP-340 Schnorr signatures over secp256k1 (coincurve, libsecp256k1's bindings).

An event's id is the sha256 of the canonical JSON array
`[0, pubkey, created_at, kind, tags, content]` (no spaces, UTF-8, non-ASCII kept as
it is): the signature is not part of it, so the same note signed twice is the same
event, and a relay that has it answers "duplicate". That is what makes a resend
harmless (adapter.py relies on it).

bech32 is written here (BIP-173's checksum, not bech32m: NIP-19 uses the original),
small and checked against NIP-19's own examples in the tests.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from typing import Any

from coincurve import PrivateKey, PublicKeyXOnly

from socialgen.kit.errors import BadRequest

_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX128 = re.compile(r"[0-9a-f]{128}")
# secp256k1's group order: a private key is a number from 1 to ORDER - 1.
ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def _polymod(values: list[int]) -> int:
    check = 1
    for value in values:
        top = check >> 25
        check = (check & 0x1FFFFFF) << 5 ^ value
        for bit, generator in enumerate(_GENERATOR):
            if (top >> bit) & 1:
                check ^= generator
    return check


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _convert(data: bytes | list[int], source: int, target: int, pad: bool) -> list[int] | None:
    """Regroup `data`'s bits from `source`-bit to `target`-bit values (None: invalid)."""
    acc = bits = 0
    out: list[int] = []
    top = (1 << target) - 1
    for value in data:
        if value < 0 or value >> source:
            return None
        acc = (acc << source) | value
        bits += source
        while bits >= target:
            bits -= target
            out.append((acc >> bits) & top)
    if pad and bits:
        out.append((acc << (target - bits)) & top)
    elif not pad and (bits >= source or (acc << (target - bits)) & top):
        return None
    return out


def bech32_encode(hrp: str, data: bytes) -> str:
    words = _convert(data, 8, 5, True) or []
    polymod = _polymod([*_hrp_expand(hrp), *words, 0, 0, 0, 0, 0, 0]) ^ 1
    checksum = [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(_CHARSET[w] for w in [*words, *checksum])


def bech32_decode(text: str) -> tuple[str, bytes] | None:
    """(hrp, data) of a bech32 string; None when it is not one (a wrong checksum too)."""
    if text.lower() != text and text.upper() != text:
        return None  # mixed case is refused by BIP-173
    text = text.lower()
    hrp, one, rest = text.rpartition("1")
    if not one or not hrp or len(rest) < 6 or any(c not in _CHARSET for c in rest):
        return None
    words = [_CHARSET.index(c) for c in rest]
    if _polymod([*_hrp_expand(hrp), *words]) != 1:
        return None
    data = _convert(words[:-6], 5, 8, False)
    return None if data is None else (hrp, bytes(data))


def npub(pubkey_hex: str) -> str:
    return bech32_encode("npub", bytes.fromhex(pubkey_hex))


def note_name(event_id: str) -> str:
    """NIP-19's `note1...` for an event id: what Nostr web viewers take in their path."""
    return bech32_encode("note", bytes.fromhex(event_id))


def pubkey_of_npub(value: str) -> str | None:
    """The hex public key an `npub1...` names; None when it is not one."""
    decoded = bech32_decode(value.strip())
    if decoded is None or decoded[0] != "npub" or len(decoded[1]) != 32:
        return None
    return decoded[1].hex()


@dataclass(frozen=True)
class Signer:
    """A private key, and what it is known by: its x-only public key (hex) and npub.
    `repr` shows the npub only: the key must never reach a log line."""

    secret: bytes
    pubkey: str

    def __repr__(self) -> str:
        return f"Signer({self.npub})"

    @property
    def npub(self) -> str:
        return npub(self.pubkey)

    @property
    def nsec(self) -> str:
        return bech32_encode("nsec", self.secret)

    def sign(self, message: bytes, aux: bytes | None = None) -> bytes:
        """BIP-340 signature of a 32-byte message; `aux`: the auxiliary randomness
        (fresh random bytes unless a test vector names them)."""
        return PrivateKey(self.secret).sign_schnorr(message, os.urandom(32) if aux is None else aux)


def signer_from(value: str) -> Signer:
    """The key in `value`: an `nsec1...` (NIP-19) or the same 32 bytes as 64 hex
    digits. A BadRequest that never repeats the value otherwise (it is a secret)."""
    text = value.strip()
    if text.lower().startswith("npub1"):
        raise BadRequest(
            "That is a public key (npub): socialgen signs notes with your private key, "
            "the nsec1... your Nostr app shows under keys or backup"
        )
    if _HEX64.fullmatch(text.lower()):
        secret = bytes.fromhex(text.lower())
    else:
        decoded = bech32_decode(text)
        if decoded is None or decoded[0] != "nsec" or len(decoded[1]) != 32:
            raise BadRequest(
                "The key is not a Nostr private key: give the nsec1... your Nostr app "
                "shows (or the same key as 64 hex digits)"
            )
        secret = decoded[1]
    if not 0 < int.from_bytes(secret, "big") < ORDER:
        raise BadRequest("The key is not a valid secp256k1 private key (out of range)")
    pubkey = PublicKeyXOnly.from_secret(secret).format().hex()
    return Signer(secret=secret, pubkey=pubkey)


def serialise(event: dict[str, Any]) -> bytes:
    """NIP-01's canonical form of an event, whose sha256 is its id."""
    body = [0, event["pubkey"], event["created_at"], event["kind"], event["tags"], event["content"]]
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def event_id(event: dict[str, Any]) -> str:
    return hashlib.sha256(serialise(event)).hexdigest()


def signed_event(
    signer: Signer, kind: int, content: str, tags: list[list[str]], created_at: int
) -> dict[str, Any]:
    """A complete event: id and signature over what is given, nothing else chosen here
    (created_at is the caller's, so the same note can be made again with the same id)."""
    event: dict[str, Any] = {
        "pubkey": signer.pubkey,
        "created_at": created_at,
        "kind": kind,
        "tags": tags,
        "content": content,
    }
    event["id"] = event_id(event)
    event["sig"] = signer.sign(bytes.fromhex(event["id"])).hex()
    return event


def verify_event(event: Any) -> bool:
    """Whether `event` (as a relay handed it back) is well formed, its id is the hash of
    its content, and its signature is its author's. A relay's answer is not trusted:
    an event that fails is not counted."""
    try:
        fields_ok = (
            isinstance(event, dict)
            and isinstance(event.get("kind"), int)
            and isinstance(event.get("created_at"), int)
            and isinstance(event.get("content"), str)
            and isinstance(event.get("tags"), list)
            and all(
                isinstance(tag, list) and all(isinstance(x, str) for x in tag)
                for tag in event["tags"]
            )
            and _HEX64.fullmatch(str(event.get("id"))) is not None
            and _HEX64.fullmatch(str(event.get("pubkey"))) is not None
            and _HEX128.fullmatch(str(event.get("sig"))) is not None
        )
        if not fields_ok or event_id(event) != event["id"]:
            return False
        key = PublicKeyXOnly(bytes.fromhex(event["pubkey"]))
        return bool(key.verify(bytes.fromhex(event["sig"]), bytes.fromhex(event["id"])))
    except (ValueError, TypeError):  # a public key off the curve, a bad length
        return False
