"""Pixelfed, which speaks the Mastodon API: the adapter (`adapter.py`, on the Mastodon
adapter and Mastodon.py), the instance's refusals read as the outbox needs them
(`errors.py`), the look on the account for a post an earlier attempt may have made
(`finding.py`), and the text rules (`text.py`: a caption, an image required). Nothing
is imported here, so `text.py` can be read without Mastodon.py."""
