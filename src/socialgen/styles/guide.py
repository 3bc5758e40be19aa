"""A content style as instructions for the model: its derived profile, plus the
examples closest to the topic as few-shot context."""

from __future__ import annotations

from sqlmodel import Session

from socialgen.styles.service import get_style, style_posts

EXAMPLES_IN_PROMPT = 3
EXAMPLE_CHARS = 1500  # keeps three examples inside a small model's context


def style_guide(
    session: Session, workspace_id: str, style_id: str | None, topic: str
) -> str | None:
    """The style's instructions for a post about `topic`; None without a style.

    An unknown style (or one of another workspace) is "Content style not found".
    """
    if style_id is None or not style_id.strip():
        return None
    from socialgen.styles.profile import describe_profile, profile_from_dict
    from socialgen.styles.similarity import closest_examples

    style = get_style(session, workspace_id, style_id)
    lines = [f'Write in the style "{style.name}".']
    if style.description:
        lines.append(style.description)
    if style.profile:
        lines.extend(f"- {line}" for line in describe_profile(profile_from_dict(style.profile)))
    examples = closest_examples(
        topic,
        [(post.id, post.content) for post in style_posts(session, style.id)],
        k=EXAMPLES_IN_PROMPT,
    )
    if examples:
        lines.append("Posts written in this style (match their voice, not their topic):")
        for _, text in examples:
            lines.append(f"---\n{text[:EXAMPLE_CHARS]}\n---")
    return "\n".join(lines)
