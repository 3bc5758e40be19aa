"""Social accounts: connecting one (`service.py`, secrets encrypted by
`publishing/secrets.py`), naming one (`refs.py`), its past posts brought in
(`history.py`, `history_rows.py`), their views (`schemas.py`) and faces (`api.py`,
`cli.py`, declared in `feature.py`). The SQL is in `repository.py` and
`repository_history.py`."""
