"""Discord, through a channel's webhook over httpx: the adapter (`adapter.py`, what
`registry.py` loads), the webhook's HTTP calls and their failures (`client.py`), the
webhook URL read and checked (`webhook.py`), the text rules (`text.py`) and the files a
message carries (`media.py`). Nothing is imported here, so `text.py` can be read
without the client."""
