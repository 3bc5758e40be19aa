"""`socialgen insights rank POST_ID...`: drafts ranked by the creator's own history.

`rank_command` joins the `insights` group through insights/feature.py:
`extends=(("insights", "socialgen.insights.rank_cli:extend_insights_group"),)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from socialgen.cli.support import (
    JsonOpt,
    WorkspaceOpt,
    current_runtime,
    emit,
    open_workspace,
    styled,
)
from socialgen.kit.limits import MAX_RANKED_POSTS

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rich.console import Console

    from socialgen.insights.schemas import RankedDrafts

PostIdsArg = Annotated[
    list[str],
    typer.Argument(
        help=f"The posts to rank (drafts, usually), at most {MAX_RANKED_POSTS}.",
        show_default=False,
    ),
]


def extend_insights_group(group: typer.Typer) -> None:
    group.command("rank")(rank_command)


def rank_command(
    post_ids: PostIdsArg, workspace: WorkspaceOpt = None, json_output: JsonOpt = False
) -> None:
    """Rank drafts by how well they are likely to do, learnt from your published posts.

    Shows next to the order how often the ranker ordered your latest posts right
    (heldOutAccuracy; 0.5 is chance) and whether that is enough to trust it."""
    from socialgen.cli.refs import resolve_each, shortener
    from socialgen.insights.ranking import rank_posts
    from socialgen.store.engine import read_session

    if len(post_ids) > MAX_RANKED_POSTS:  # before finding each one
        from socialgen.insights.ranking import TOO_MANY_POST_IDS
        from socialgen.kit.errors import BadRequest

        raise BadRequest(TOO_MANY_POST_IDS)
    engine, workspace_id = open_workspace(workspace)
    post_ids = resolve_each(engine, workspace_id, "post", post_ids)
    with read_session(engine) as session:
        data = rank_posts(session, workspace_id, post_ids, current_runtime().held.rankers)
        snippets = _snippets(session, workspace_id, [row.postId for row in data.ranked])
    shorten = shortener(engine, "post", workspace_id)  # asked only when a table is drawn
    emit(
        json_output,
        data.json_data(),
        lambda out: _print_ranking(out, data, snippets, shorten(list(snippets))),
    )


def _snippets(session: Any, workspace_id: str, post_ids: list[str]) -> dict[str, str]:
    from socialgen.posts.service import get_post
    from socialgen.posts.views import snippet

    return {
        post_id: snippet(get_post(session, workspace_id, post_id).content) for post_id in post_ids
    }


_TABLE_FRAME = 13  # four columns: five rules and a space either side of each cell


def _print_ranking(
    out: Console, data: RankedDrafts, snippets: dict[str, str], short: Mapping[str, str]
) -> None:
    from rich.table import Table

    table = Table(title="Drafts, likeliest to do well first", title_justify="left")
    # The place, score and short id (what `posts show` takes) whole; the opening takes
    # what is left of the width. Rich measures a no-wrap cell at its full length and,
    # given a long opening, squeezed the place and the score to nothing at 80 columns:
    # the opening's width is capped.
    ids = {row.postId: short.get(row.postId, row.postId) for row in data.ranked}
    id_width = max(len(shown) for shown in ids.values())
    place_width = len(str(len(data.ranked)))
    table.add_column("#", no_wrap=True)
    table.add_column("score", no_wrap=True)
    table.add_column("post", no_wrap=True)
    table.add_column(
        "opening",
        overflow="ellipsis",
        no_wrap=True,
        max_width=max(1, out.width - place_width - len("score") - id_width - _TABLE_FRAME),
    )
    for place, row in enumerate(data.ranked, start=1):
        table.add_row(str(place), f"{row.score:.2f}", ids[row.postId], snippets[row.postId])
    out.print(table)
    out.print(trust_line(data))


def trust_line(data: RankedDrafts) -> Any:
    """How far to trust the order, in a sentence."""
    accuracy = data.heldOutAccuracy
    if accuracy is None:
        return styled(
            ("Not confident:", "yellow"),
            f" {data.posts} measured published posts are too few to learn from;"
            " the order is a guess.",
        )
    measured = (
        f"on your latest posts it ordered {accuracy:.0%} of {data.pairs} pairs right"
        " (50% is chance)"
    )
    if data.confident:
        return styled(("Confident:", "green"), f" {measured}.")
    return styled(("Not confident:", "yellow"), f" {measured}: too close to chance to rely on.")
