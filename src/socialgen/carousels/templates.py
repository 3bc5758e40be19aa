"""The slide templates a carousel can use, each with the theme it looks best in.

The Jinja2 files themselves are in the `templates/` folder beside this module,
one `<name>.html` per template (see `slides_html`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from socialgen.carousels.events import SlideTheme
from socialgen.carousels.slides import Theme
from socialgen.events.payload import WireObject
from socialgen.kit.errors import BadRequest


@dataclass(frozen=True)
class SlideTemplate:
    name: str  # also the file name: templates/<name>.html
    label: str
    description: str
    theme: Theme  # the default theme; a carousel may bring its own

    def view(self) -> TemplateView:
        """The template record of GET /api/v1/carousel/templates."""
        return TemplateView(
            name=self.name,
            label=self.label,
            description=self.description,
            theme=SlideTheme(**self.theme.as_dict()),
        )


class TemplateView(WireObject):
    name: str
    label: str
    description: str
    theme: SlideTheme = Field(description="The theme it looks best in.")


DEFAULT_TEMPLATE = "bold"

TEMPLATES: dict[str, SlideTemplate] = {
    template.name: template
    for template in (
        SlideTemplate(
            name="bold",
            label="Bold",
            description=(
                "Full-bleed image across the top half, a big heavy title, "
                "and a colour band with your handle along the bottom."
            ),
            theme=Theme(primary_color="#E4572E", background_color="#FFFFFF", font="DejaVu Sans"),
        ),
        SlideTemplate(
            name="editorial",
            label="Editorial",
            description=(
                "Magazine cover style: the image fills the slide under a dark fade, "
                "with a serif headline and light text on top."
            ),
            theme=Theme(primary_color="#D4A72C", background_color="#14171C", font="DejaVu Serif"),
        ),
        SlideTemplate(
            name="minimal",
            label="Minimal",
            description=(
                "Lots of white space, a thin accent rule, and the image as a "
                "rounded card between the title and the text."
            ),
            theme=Theme(primary_color="#0A66C2", background_color="#FAFAF7", font="DejaVu Sans"),
        ),
    )
}


def list_templates() -> list[SlideTemplate]:
    """All templates, by name."""
    return [TEMPLATES[name] for name in sorted(TEMPLATES)]


def get_template(name: str) -> SlideTemplate:
    try:
        return TEMPLATES[name]
    except KeyError:
        choices = ", ".join(sorted(TEMPLATES))
        raise BadRequest(f"Unknown template {name!r}; choose one of: {choices}") from None
