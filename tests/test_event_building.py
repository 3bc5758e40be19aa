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
from socialgen.events.chat import ChatDelta, HistoryItem
from socialgen.events.registry import model_for, models
from socialgen.generation.batch_events import NumberedPostIds
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


def _unchecked_builds(path: Path) -> Iterator[tuple[int, str]]:
    """The two ways round a payload's check: `Event(...)` built directly (the name is
    then not the model's own), and pydantic's `model_construct(...)` (no validation)
    anywhere but a per-token `token` method."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_token = {
        id(node)
        for method in ast.walk(tree)
        if isinstance(method, ast.FunctionDef) and method.name == "token"
        for node in ast.walk(method)
    }
    ours = {  # socialgen's Event under the name it is imported as (ics.py has another)
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "socialgen.events"
        for alias in node.names
        if alias.name == "Event"
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id in ours:
            yield node.lineno, f"{node.func.id}("
        called = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        if called == "model_construct" and id(node) not in in_token:
            yield node.lineno, "model_construct("


def test_every_event_in_src_is_built_checked() -> None:
    """Every event in src/ is built as Event.of(SomePayload(...)): the package exports no
    other builder, nothing constructs Event(...) or skips the check with
    model_construct outside the per-token hot path, and that hot path exists only on
    the token deltas, each of them proven above to build the checked event."""
    import socialgen.events

    assert set(socialgen.events.__all__) == {"Event", "EventContractError"}
    found = []
    for path in sorted((ROOT / "src" / "socialgen").rglob("*.py")):
        if path.parent.name == "events" and path.name == "__init__.py":
            continue
        where = path.relative_to(ROOT)
        found += [f"{where}:{line}: {what}" for line, what in _unchecked_builds(path)]
    assert not found, "events must be built as Event.of(SomePayload(...)):\n" + "\n".join(found)
    unchecked = {name for name, model in models().items() if hasattr(model, "token")}
    assert unchecked == {name for name, _ in TOKENS}, "a token path without its proof above"


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
