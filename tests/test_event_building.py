"""Events are built typed: only from their payload model, by Event.of, with no free-form
builder, no env switch and no second check in the printers; the per-token payloads'
unchecked hot path builds exactly the checked event."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from socialgen.events import Event, EventContractError
from socialgen.events.batch import NumberedPostIds
from socialgen.events.chat import ChatDelta, HistoryItem
from socialgen.events.registry import model_for
from tests.event_examples import EXAMPLES
from tests.test_event_contract import RENDERERS

ROOT = Path(__file__).resolve().parents[1]


TOKENS = [(name, data) for name, data in EXAMPLES if name.endswith("_delta")]


@pytest.mark.parametrize(("name", "data"), TOKENS, ids=[name for name, _ in TOKENS])
def test_a_token_built_unchecked_is_the_checked_event(name: str, data: dict[str, Any]) -> None:
    """The per-token payloads skip the runtime check (mypy checks their str fields):
    the event must be the one the checked constructor builds, to the byte."""
    model = model_for(name)
    fast = Event.of(model.token(**data))  # type: ignore[attr-defined]
    checked = Event.of(model(**data))
    assert fast.payload == checked.payload
    assert (fast.sse(), fast.json_line()) == (checked.sse(), checked.json_line())


def test_an_event_is_built_only_from_its_payload_model() -> None:
    delta = ChatDelta(text="x")
    numbered = NumberedPostIds(postId="p", conversationId="c", variationName="v")

    class Undeclared(ChatDelta):
        pass

    refused: list[Callable[[], object]] = [
        lambda: Event.of({"text": "x"}),  # type: ignore[arg-type]  # the old free form
        lambda: Event("chat_delta", {"text": "x"}),  # type: ignore[arg-type]
        lambda: Event.of(HistoryItem(role="user", content="x", createdAt="t")),  # type: ignore[arg-type]
        lambda: Event.of(delta, name="post_ids"),  # another event's name
        lambda: Event("content_delta", delta),
        lambda: Event.of(Undeclared(text="x")),  # a model no stream declares
        lambda: Event.of(numbered, name="post_6_post_ids"),  # N is 1..5
        lambda: Event("post_{N}_post_ids", numbered),
    ]
    for build in refused:
        with pytest.raises(EventContractError):
            build()
    with pytest.raises(ValueError, match="pattern"):
        Event.of(numbered)  # post_{N}_post_ids needs its own name
    assert Event.of(numbered, name="post_2_post_ids").name == "post_2_post_ids"
    assert Event.of(delta).data == {"text": "x"}


def _builders_used(path: Path) -> Iterator[tuple[int, str]]:
    """Calls of `event(...)`, or of `Event(...)` where it is socialgen's, and imports of
    the old builder and switch from socialgen.events."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ours = {"event"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "socialgen.events":
            ours |= {alias.asname or alias.name for alias in node.names}
            for alias in node.names:
                if alias.name in ("event", "checking", "CHECK_ENV"):
                    yield node.lineno, f"import {alias.name}"
    for node in ast.walk(tree):
        called = node.func if isinstance(node, ast.Call) else None
        if isinstance(called, ast.Name) and called.id in ours & {"event", "Event"}:
            yield node.lineno, f"{called.id}("


def test_no_free_form_event_builder_remains() -> None:
    """Every event in src/ is built as Event.of(SomePayload(...)): no `event(name, **kw)`
    builder, no direct Event(...) outside socialgen.events, no env switch for a check."""
    import socialgen.events

    assert set(socialgen.events.__all__) == {"Event", "EventContractError"}
    assert not hasattr(socialgen.events, "event") and not hasattr(socialgen.events, "checking")
    found = []
    for path in sorted((ROOT / "src" / "socialgen").rglob("*.py")):
        where = path.relative_to(ROOT)
        text = path.read_text(encoding="utf-8")
        if "CHECK_EVENTS" in text:
            found.append(f"{where}: an env switch for the event check")
        if path.parent.name == "events" and path.name == "__init__.py":
            continue
        found += [f"{where}:{line}: {what}" for line, what in _builders_used(path)]
    assert not found, "events must be built as Event.of(SomePayload(...)):\n" + "\n".join(found)


@pytest.mark.parametrize("path", RENDERERS)
def test_a_printer_does_not_check_an_event_again(path: str) -> None:
    """An event's payload was checked where it was built: a printer reads its attributes
    (item.payload), never validates it again per token."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    called = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "socialgen.events.registry"
        for alias in node.names
    }
    assert not called & {"read", "model_validate", "from_wire", "validate_python"}, path
    assert not imported, path
