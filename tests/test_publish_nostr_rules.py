"""Nostr's pure parts: NIP-19 names against NIP-19's own examples, BIP-340 signatures
against BIP-340's test vectors, the event id of NIP-01, and the text rules (threads at
NOTE_CHARACTERS, hashtags as t tags, media left out, the dry run's parts and command)."""

from __future__ import annotations

import hashlib
import json

import pytest

from socialgen.kit.errors import BadRequest
from socialgen.publishing.networks.base import MediaItem, PublishError
from socialgen.publishing.networks.nostr import keys, text
from socialgen.publishing.networks.nostr.relays import relay_urls
from tests.conftest import BACKEND

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)

# NIP-19's examples: the same key pair as npub and nsec, and their hex.
NIP19_PUB = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e"
NIP19_NPUB = "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg"
NIP19_SEC = "67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa"
NIP19_NSEC = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5"

# BIP-340's test vectors 0 to 2: secret key, public key, aux_rand, message, signature.
BIP340 = [
    (
        "0000000000000000000000000000000000000000000000000000000000000003",
        "F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "E907831F80848D1069A5371B402410364BDF1C5F8307B0084C55F1CE2DCA8215"
        "25F66A4A85EA8B71E482A74F382D2CE5EBEEE8FDB2172F477DF4900D310536C0",
    ),
    (
        "B7E151628AED2A6ABF7158809CF4F3C762E7160F38B4DA56A784D9045190CFEF",
        "DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659",
        "0000000000000000000000000000000000000000000000000000000000000001",
        "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
        "6896BD60EEAE296DB48A229FF71DFE071BDE413E6D43F917DC8DCF8C78DE3341"
        "8906D11AC976ABCCB20B091292BFF4EA897EFCB639EA871CFA95F6DE339E4B0A",
    ),
    (
        "C90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B14E5C9",
        "DD308AFEC5777E13121FA72B9CC1B7CC0139715309B086C960E18FD969774EB8",
        "C87AA53824B4D7AE2EB035A2B5BBBCCC080E76CDC6D1692C4B0B62D798E6D906",
        "7E2D58D8B3BCDF1ABADEC7829054F90DDA9805AAB56C77333024B9D0A508B75C",
        "5831AAEED7B44BB74E5EAB94BA9D4294C49BCF2A60728D8B4C200F50DD313C1B"
        "AB745879A5AD954A72C45A91C3A51D3C7ADEA98D82F8481E0E1E03674A6F3FB7",
    ),
]


def test_nip19_examples_encode_and_decode() -> None:
    assert keys.npub(NIP19_PUB) == NIP19_NPUB
    assert keys.pubkey_of_npub(NIP19_NPUB) == NIP19_PUB
    assert keys.bech32_decode(NIP19_NSEC) == ("nsec", bytes.fromhex(NIP19_SEC))
    signer = keys.signer_from(NIP19_NSEC)
    assert (signer.pubkey, signer.npub, signer.nsec) == (NIP19_PUB, NIP19_NPUB, NIP19_NSEC)
    assert keys.bech32_decode(NIP19_NSEC.upper()) == ("nsec", bytes.fromhex(NIP19_SEC))


def test_a_broken_checksum_or_mixed_case_is_not_a_key() -> None:
    typo = NIP19_NSEC[:-1] + ("q" if NIP19_NSEC[-1] != "q" else "p")
    assert keys.bech32_decode(typo) is None
    assert keys.bech32_decode(NIP19_NSEC[:10] + NIP19_NSEC[10:].upper()) is None
    with pytest.raises(BadRequest, match="not a Nostr private key") as refused:
        keys.signer_from(typo)
    assert typo not in refused.value.message  # a secret is never repeated


def test_a_hex_key_is_taken_an_npub_or_an_out_of_range_key_is_refused_clearly() -> None:
    assert keys.signer_from(NIP19_SEC.upper()).nsec == NIP19_NSEC
    with pytest.raises(BadRequest, match="public key"):
        keys.signer_from(NIP19_NPUB)
    with pytest.raises(BadRequest, match="out of range"):
        keys.signer_from("0" * 64)
    with pytest.raises(BadRequest, match="out of range"):
        keys.signer_from(format(keys.ORDER, "064x"))
    assert NIP19_SEC not in repr(keys.signer_from(NIP19_SEC))  # repr shows the npub only


@pytest.mark.parametrize("vector", BIP340, ids=["v0", "v1", "v2"])
def test_signatures_match_bip340_test_vectors(vector: tuple[str, ...]) -> None:
    secret, public, aux, message, signature = (bytes.fromhex(v) for v in vector)
    signer = keys.signer_from(secret.hex())
    assert signer.pubkey == public.hex()
    assert signer.sign(message, aux) == signature
    event_like = {"pubkey": public.hex(), "sig": signature.hex()}
    assert _verifies(event_like, message)
    flipped = bytes([signature[0] ^ 1]) + signature[1:]
    assert not _verifies({**event_like, "sig": flipped.hex()}, message)


def _verifies(event: dict[str, str], message: bytes) -> bool:
    from coincurve import PublicKeyXOnly

    key = PublicKeyXOnly(bytes.fromhex(event["pubkey"]))
    return bool(key.verify(bytes.fromhex(event["sig"]), message))


def test_an_event_id_is_the_hash_of_nip01s_serialisation_and_the_signature_checks() -> None:
    signer = keys.signer_from(NIP19_NSEC)
    event = keys.signed_event(signer, 1, 'Grüße "quoted"\n#nostr', [["t", "nostr"]], 1700000000)
    expected = json.dumps(
        [0, NIP19_PUB, 1700000000, 1, [["t", "nostr"]], 'Grüße "quoted"\n#nostr'],
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert keys.serialise(event) == expected.encode()  # no spaces, UTF-8 kept as it is
    assert event["id"] == hashlib.sha256(expected.encode()).hexdigest()
    assert keys.verify_event(event)
    again = keys.signed_event(signer, 1, event["content"], event["tags"], 1700000000)
    assert again["id"] == event["id"]  # the same note, whatever the signature's nonce
    assert not keys.verify_event({**event, "content": "changed"})
    assert not keys.verify_event({**event, "sig": "0" * 128})
    assert not keys.verify_event({**event, "tags": [["t", 3]]})


def test_a_long_post_becomes_notes_cut_at_paragraphs_numbered_on_request() -> None:
    paragraph = "Small teams ship weekly. " * 60  # 1,500 characters
    post = "\n\n".join([paragraph.strip()] * 6)  # two a note
    parts = text.split(post)
    assert len(parts) == 3 and all(len(part) <= text.NOTE_CHARACTERS for part in parts)
    assert "\n\n".join(parts) == post  # cut at paragraph ends only
    numbered = text.split(post, number=True)
    assert [part[-4:] for part in numbered] == [" 1/3", " 2/3", " 3/3"]
    assert all(len(part) <= text.NOTE_CHARACTERS for part in numbered)
    one_word = "x" * 9000
    assert [len(part) for part in text.split(one_word)] == [4000, 4000, 1000]
    assert text.split("  short  ") == ["short"]


def test_hashtags_become_lower_case_t_tags_each_once() -> None:
    note = "Shipping #Weekly with #nostr and #weekly again, not a#tag, nor &#39; nor ##no, but #x-"
    assert text.hashtags(note) == ["weekly", "nostr", "x"]
    assert text.hashtags("#" + " #".join(f"t{i}" for i in range(30))) == [
        f"t{i}" for i in range(text.MAX_HASHTAGS)
    ]


def test_the_dry_run_parts_say_what_is_left_out_and_how_to_connect() -> None:
    image = MediaItem(kind="image", data=b"png", mime_type="image/png")
    pdf = MediaItem(kind="document", data=b"pdf", mime_type="application/pdf")
    parts = text.parts_of("One #idea.", False, (image, image, pdf))
    ((note, details),) = parts
    assert note == "One #idea." and details["hashtags"] == ["idea"]
    assert details["leftOut"][0].startswith("2 images left out")
    assert "public host" in details["leftOut"][0] and "1 document" in details["leftOut"][1]
    long_parts = text.unconnected_parts("word " * 1700, True)
    assert len(long_parts) == 3 and long_parts[1][1]["in_reply_to"].startswith("part 1")
    assert "leftOut" not in long_parts[0][1]
    with pytest.raises(PublishError, match="no text"):
        text.unconnected_parts("   ", False)
    assert text.connect_command(NIP19_NPUB) == "socialgen accounts add nostr --nsec-stdin"


def test_relay_lists_are_normalised_and_anything_else_refused() -> None:
    given = " WSS://Relay.Example.com/ , ws://127.0.0.1:7777,wss://relay.example.com"
    assert relay_urls(given) == ["wss://relay.example.com", "ws://127.0.0.1:7777"]
    for bad in ("https://relay.example.com", "relay.example.com", "wss://u:p@r.example", ""):
        with pytest.raises(BadRequest):
            relay_urls(bad)
    with pytest.raises(BadRequest, match="At most"):
        relay_urls(",".join(f"wss://r{i}.example.com" for i in range(13)))
