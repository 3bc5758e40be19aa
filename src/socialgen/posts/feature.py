"""Posts and conversations: list, read, edit, schedule, export, delete."""

from socialgen.registration import Feature

FEATURE = Feature(
    name="posts",
    order=10,
    routers=("socialgen.posts.api:router",),
    groups=(("posts", "socialgen.posts.cli:app"),),
    commands=(("conversations", "socialgen.posts.cli:conversations"),),
)
