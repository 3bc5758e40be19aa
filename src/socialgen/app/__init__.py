"""The application's layer: the Runtime a command or request runs with
(`runtime.py`) and who a call runs as (`caller.py`: store, workspace, user, settings,
file store, rankers), the features and how they declare themselves (`registration.py`,
found by `features.py`), opening the store once (`startup.py`) and the docs' event
tables (`event_docs.py`). It sits below the drafting core and the faces, and names
nothing above it: the packages below describe what they need of a Runtime as a
protocol (`files/backends.py`'s `FilesHost`)."""
