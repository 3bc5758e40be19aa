"""The CLI's words for the HTTP API's field names in a shared service's message.

The services check a request once for both faces, in SPEC.md's words ("calendarLength
must be 7 or 30"): right for an API client, a puzzle at the terminal, where the value
came from `calendar DAYS`. The CLI's error handler (cli.support.SocialgenGroup) puts
each field name it knows as the option or argument that carries it. Names of an
import file's columns (publishedAt, postUrl) are the file's own words and stay.
"""

from __future__ import annotations

import re

# Whole messages (or their start) that name several fields in API order.
_PHRASES = {
    "Give at least one source: prompt, youtubeUrl, articleUrls or pdf": (
        "Give at least one source: --prompt, --video, --article or --pdf"
    ),
    "prompt is longer than": "--prompt is longer than",
}
# Field -> the CLI's name for it (an option, or an argument's metavar).
_FIELDS = {
    "calendarLength": "DAYS",
    "youtubeUrl": "--video",
    "articleUrls": "--article",
    "userInput": "TOPIC",
    "postIds": "--regenerate",
    "slideCount": "--slides",
    "slideIndex": "INDEX",
    "carouselId": "CAROUSEL_ID",
    "socialMediaHandle": "--handle",
    "userProfileImage": "--profile-image",
    "referenceImages": "--reference-image",
    "nextCursor": "cursor printed with the previous page",
}
# Where one field is a different argument per command.
_BY_COMMAND = {"chat": {"userInput": "MESSAGE"}}
_FIELD = re.compile(r"\b(" + "|".join(_FIELDS) + r")\b")


def cli_message(message: str, command: str | None = None) -> str:
    """`message` with API field names put as `command`'s options and arguments."""
    for phrase, words in _PHRASES.items():
        message = message.replace(phrase, words)
    names = {**_FIELDS, **_BY_COMMAND.get(command or "", {})}
    return _FIELD.sub(lambda found: names[found.group(1)], message)
