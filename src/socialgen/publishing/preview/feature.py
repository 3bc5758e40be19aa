"""Previews per network: how a post reads on each network before it goes out."""

from socialgen.app.registration import Feature

FEATURE = Feature(
    name="preview",
    order=72,  # after the outbox (71): its route follows publish's in /openapi.json
    routers=("socialgen.publishing.preview.api:router",),
    # posts preview: added to the posts group (posts/ cannot import publishing).
    extends=(("posts", "socialgen.publishing.preview.cli:extend_posts_group"),),
    mcp=("socialgen.publishing.preview.mcp_tools:register",),
)
