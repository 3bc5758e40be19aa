"""X (Twitter) over httpx, API v2: the adapter (`adapter.py`, what `registry.py` loads),
the client and token refresh (`client.py`), OAuth 2.0 sign-in with PKCE (`oauth.py`),
twitter-text's weighted count and the thread split (`text.py`), images (`media.py`),
finding a post already live (`lookup.py`), past posts and counts (`history.py`).
Nothing is imported here, so `text.py` can be read without the client."""
