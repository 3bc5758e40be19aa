"""`socialgen publish-due`'s evergreen step: the reposts due within a day are written
after the publishing pass (publishing/outbox/cli.py calls this), so a cron job without
`serve` prepares them too (a day ahead: the pass that publishes one is a later one).
An idle call is one indexed read; the model is built only when a repost is written."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from socialgen.cli.support import console, current_runtime
from socialgen.publishing.evergreen.render_cli import print_prepared


def evergreen_step(engine: Engine, workspace_id: str | None, quiet: bool) -> dict[str, Any]:
    """{"evergreen": the preparation's summary}, for publish-due's --json; printed for
    a person unless `quiet` (--json) or nothing happened."""
    import asyncio

    from socialgen.publishing.evergreen.prepare import anything_to_prepare, prepare_due
    from socialgen.publishing.evergreen.schemas import PrepareData
    from socialgen.publishing.outbox.claim import worker_name

    data = PrepareData(written=0, refused=0, missed=0, runs=[])
    if anything_to_prepare(engine):
        runtime = current_runtime()
        data = asyncio.run(
            prepare_due(
                engine,
                runtime.text_model,
                worker=worker_name("publish-due"),
                max_tokens=runtime.settings.max_tokens,
                workspace_id=workspace_id,
            )
        )
    if data.runs and not quiet:
        print_prepared(console(), data)
    return {"evergreen": data.model_dump()}
