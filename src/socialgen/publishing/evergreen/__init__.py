"""Evergreen reposts (issue 41, item 3): a published post goes out again every N days,
at most K times or until a date, to the accounts chosen, each time as a fresh
variation the model writes from it, kept as a version of the original; each run is a
scheduled post of its own, so the outbox publishes it exactly once and its numbers
stay apart from the original's (docs/publishing.md, "Evergreen posts").

- `cadence.py`: the terms ("30d", a date) and when runs are due; `plans.py`: setting,
  changing and stopping a plan; `views.py`: plans and runs with their numbers.
- `prepare.py`: the preparer (claims, the model, `record.py`'s writes), run by
  `scheduler.py` in `serve`, by `publish-due` (`due_cli.py`) and on demand;
  `variation.py` asks the model, `checks.py` refuses copies, echoes and misfits.
- `candidates.py`: posts worth it (insights/evergreen_candidates.py judges them).
- Faces: `cli.py` (`posts evergreen`, shown by `render_cli.py`), `candidates_cli.py`
  (`insights evergreen`), `api.py` (`body_terms.py`), `mcp_tools.py`; `feature.py`.
"""
