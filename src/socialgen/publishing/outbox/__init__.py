"""The outbox: one publication per (post, account), queued (`service.py`), claimed
(`claim.py`, kept alive by `keeper.py`), sent through its network (`worker.py`) in
passes (`runner.py`) that `posts publish`, `publish-due` and the scheduler
(`scheduler.py`) share; metrics (`metrics.py`), carousel media (`media.py`), dry runs
(`dryrun.py`), their views (`schemas.py`) and faces (`api.py`, `cli.py`, declared in
`feature.py`). The SQL of all of them is in `repository.py`, `repository_claim.py` and
`repository_metrics.py`."""
