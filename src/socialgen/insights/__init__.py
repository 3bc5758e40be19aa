"""Learning what works from the creator's own numbers (docs/insights.md).

The creator's published posts come with the engagement they got (`history.py`), and what
each post's text is like with them (`text_features.py`); the queries are
`repository.py`'s (published rows, the newest metric snapshots, posts to rank, scheduled
times). numpy, scipy, scikit-learn and matplotlib are imported only inside the modules
that run an analysis, never by `socialgen --help`.

- `analysis.py`: the whole analysis, without a database: engagement relative to the
  creator's baseline (`baseline.py`, `relative.py`), findings (`findings.py`, over
  `candidates.py`), slots of the week (`slots.py`).
- `report.py`: the report of one workspace, shaped by `schemas.py`.
- `suggest.py`, `best_time.py`: when to post next, in the creator's zone (`zones.py`).
- `ranking.py`: drafts ranked by the creator's own ranker (`ranker.py`, over
  `ranker_features.py`, `text_cues.py`, `ranker_model.py` and `pairs.py`).
- `top_posts.py`: the best posts by relative engagement, which a style learns from.
- Faces: `cli.py` (`socialgen insights`; `terminal.py`, the charts of `charts_cli.py`,
  `charts_terminal.py`, `html_page.py` and `html_charts.py`; `rank_cli.py`), `api.py`,
  `rank_api.py` and the MCP tools insights and rank_drafts (`mcp_tools.py`), declared in
  `feature.py`.
"""
