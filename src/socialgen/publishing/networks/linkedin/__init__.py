"""LinkedIn over httpx: the adapter (`adapter.py`, what `registry.py` loads), the REST
client and token refresh (`client.py`), OAuth sign-in (`oauth.py`), little text
(`text.py`), images and documents (`media.py`), past posts (`history.py`). Nothing is
imported here, so `text.py` can be read without the client."""
