"""Mastodon on Mastodon.py: the adapter (`adapter.py`, what `registry.py` loads), OAuth
app registration (`oauth.py`), the network's errors and Retry-After (`errors.py`), text
rules (`text.py`), past statuses (`history.py`). Nothing is imported here, so
`text.py` can be read without Mastodon.py."""
