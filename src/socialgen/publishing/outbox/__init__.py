"""The outbox: one publication per (post, account), queued, claimed, sent and measured.

- `service.py`: queueing, over `repository.py`'s statements (a post's publications,
  queued ones moved or dropped, the post's lock, a one-publication post settled in one
  UPDATE).
- `claim.py`: exclusive claims (`FOR UPDATE SKIP LOCKED`, or SQLite's write lock; leases
  and a grace period), kept alive by `keeper.py`. Their statements are
  `repository_claim.py`'s, each UPDATE conditional on the worker still holding the row.
- `worker.py`: one claimed publication through its network, the answer recorded.
- `runner.py`: the passes `posts publish`, `publish-due` and the scheduler share;
  `scheduler.py` runs them inside `serve`'s lifespan.
- `metrics.py`: metrics snapshots read back from the networks, over
  `repository_metrics.py`; `posts stats` and the post_stats tool answer its `StatsView`.
- `media.py`: what a post carries to the networks besides its text (a carousel's media).
- `dryrun.py`: what each network would receive, without sending; for a handle no account
  has yet, `dryrun_unconnected.py` applies the networks' text rules and gives the
  command that connects it.
- `schedule_time.py`: the time a post is scheduled for, an ISO 8601 moment or "best".
- `schemas.py`: the bodies and views (`PublishBody`, `ScheduleBody`, `PublicationView`,
  `StatsView` ...), pydantic.
- Faces: `api.py`; `cli.py`, which adds `publish`, `schedule --to`, `stats` ... to the
  posts group (since `posts/` may not import it) and `publish-due`; the MCP tools
  schedule_post, publish_post and post_stats (`mcp_tools.py`). `feature.py` declares
  them and the scheduler.
"""
