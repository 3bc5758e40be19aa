"""Nostr: kind-1 notes signed with the user's key and sent to the account's relays
over websockets. The adapter (`adapter.py`, what `registry.py` loads), keys and
signatures (`keys.py`), the relay client behind the SSRF guard (`relays.py`), reading
notes and their reactions back (`history.py`), the text rules (`text.py`). Nothing is
imported here, so `text.py` can be read without the client."""
