"""The application's layer: the Runtime a command or request runs with
(`runtime.py`), the features and how they declare themselves (`registration.py`,
found by `features.py`), opening the store once (`startup.py`) and the docs' event
tables (`event_docs.py`)."""
