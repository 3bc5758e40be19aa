"""Threads (Meta) over httpx: the adapter (`adapter.py`, what `registry.py` loads), the
Graph API client and token refresh (`client.py`), the two-step publication of a
container (`containers.py`), finding a post on the account after an unanswered
publish (`lookup.py`), past posts and counts (`history.py`), the browser sign-in
(`oauth.py`) and the text rules (`text.py`). Nothing is imported here, so `text.py`
can be read without the client."""
