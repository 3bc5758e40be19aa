"""Everything checked and resolved before a carousel is made: prompt, template,
style, the user's images, the author, and the quota. A refusal here happens
before any work and before the stream opens, so HTTP answers it with a status."""

from __future__ import annotations

from dataclasses import dataclass, field

from socialgen.app.caller import Caller
from socialgen.carousels.schemas import CarouselRequest
from socialgen.carousels.templates import DEFAULT_TEMPLATE, SlideTemplate, get_template
from socialgen.carousels.uploads import CheckedImage
from socialgen.kit.ids import new_id
from socialgen.kit.limits import DEFAULT_SLIDE_HEIGHT, DEFAULT_SLIDE_WIDTH
from socialgen.store.engine import transaction
from socialgen.store.tables import User
from socialgen.styles.guide import style_guide
from socialgen.workspaces.bootstrap import LOCAL_OWNER_EMAIL
from socialgen.workspaces.repository import find_user
from socialgen.workspaces.service import workspace_owner
from socialgen.workspaces.usage import reserve_posts


@dataclass(frozen=True)
class Artwork:
    """The user's own images, already checked by content."""

    references: list[CheckedImage] = field(default_factory=list)
    logo: CheckedImage | None = None
    profile_image: CheckedImage | None = None


@dataclass(frozen=True)
class CarouselPlan:
    caller: Caller
    carousel_id: str
    request: CarouselRequest
    template: SlideTemplate
    style: str | None
    author_name: str | None
    artwork: Artwork
    reservation_id: str  # the quota ledger row (workspaces/usage.py)
    width: int = DEFAULT_SLIDE_WIDTH
    height: int = DEFAULT_SLIDE_HEIGHT
    reserved: int = 1  # the carousel's post


def prepare_carousel(
    caller: Caller,
    request: CarouselRequest,
    artwork: Artwork,
    *,
    display_name: str | None = None,
) -> CarouselPlan:
    """`display_name`: the author's name on the slides (the CLI's --name or `name`
    setting); without it, the signed-in user's account name, never a login name."""
    template = get_template(request.template or DEFAULT_TEMPLATE)
    with transaction(caller.engine) as session:
        style = style_guide(session, caller.workspace_id, request.content_style_id, request.prompt)
        author_id = caller.user_id or workspace_owner(session, caller.workspace_id)
        author = find_user(session, author_id)
        reservation_id = reserve_posts(session, caller.workspace_id, 1)
    return CarouselPlan(
        caller=caller,
        carousel_id=new_id(),
        request=request,
        template=template,
        style=style,
        author_name=display_name or _account_name(author),
        artwork=artwork,
        reservation_id=reservation_id,
    )


def _account_name(author: User | None) -> str | None:
    """The name a user gave their account. Not the local owner's: first run names
    it after the machine's login (workspaces/bootstrap.py), which is nobody's
    display name; and not an email's local part, which is a login too."""
    if author is None or author.email == LOCAL_OWNER_EMAIL:
        return None
    return author.name or None
