"""Telegram over httpx: the adapter (`adapter.py`, what `registry.py` loads), the Bot
API client (`client.py`, the token kept out of every URL httpx sees), the text rules
(`text.py`), a part as the call that sends it (`media.py`), edits and deletes
(`editor.py`). Nothing is imported here, so `text.py` can be read without the client."""
