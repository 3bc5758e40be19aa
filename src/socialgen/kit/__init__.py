"""Small foundations every layer may use, importing nothing of socialgen above
`config/` and `store/`: domain errors (`errors.py`), every SPEC.md limit
(`limits.py`), UTC time (`clock.py`), ids and short ids (`ids.py`, `short_ids.py`),
incoming text checked (`text_check.py`), control characters found, removed or shown as
symbols (`control_chars.py`), files the user names and socialgen's own
kept private (`local_files.py`), uploads read with a cap (`uploads.py`), what a
Runtime keeps between calls (`kept.py`), body fields documented as the type a
service accepts (`body_fields.py`), and the base of the views every face gives
(`views.py`)."""
