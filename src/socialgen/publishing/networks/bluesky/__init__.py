"""Bluesky, through the account's PDS with the atproto client: the adapter (`adapter.py`,
what `registry.py` loads), the session and its refresh (`session.py`), text rules and
facets (`text.py`), images fitted to the blob limit (`media.py`), past posts
(`history.py`). Nothing is imported here, so `text.py` can be read without atproto."""
