"""Content calendars: 7 or 30 days of drafts from a prompt, a video, articles or a PDF.

`plan.py` checks everything before the stream opens: the length, the sources, their URLs
(through the SSRF guard), the PDF, the style and the quota. `service.py` is the stream:
it reads the sources (`sources.py`: each video, article and PDF extracted and condensed
to its share), plans one distinct theme per day (`themes.py`; each theme marked
`source: "model"` or `"template"`), then writes one draft per day, each saved as it
completes. `rhythm.py` is the posting rhythm (when each post goes out), and `export.py`
writes a calendar as iCalendar, CSV and Markdown files.

The request is `schemas.py`'s, read from a JSON or multipart body by `body.py`. The
faces are `cli.py` (`socialgen calendar 7|30`), `api.py`, the terminal rendering
(`render.py`) and the MCP tool create_calendar with the week_plan prompt
(`mcp_tools.py`), declared in `feature.py`; the stream is listed in `streams.py`.
"""
