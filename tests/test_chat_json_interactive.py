"""Interactive `socialgen chat --json`: one conversation, as for a person. The JSON path
and the printer give the command the same ending (cli_events.stream_in_terminal), so
the second question goes on the first one's conversation here too."""

from __future__ import annotations

import json

from sqlmodel import col, select

from socialgen.store.engine import read_session
from socialgen.store.tables import Conversation, Message
from tests.conftest import Store
from tests.scripted_support import ScriptedAI


def test_interactive_json_chat_keeps_one_conversation(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    scripted_ai.intent = "chat"
    scripted_ai.chat_reply = lambda call: f"Answer to {call.prompt}."

    result = scripted_ai.invoke(["chat", "--json"], input="first\nsecond\n\n")

    assert result.exit_code == 0, result.output
    answers = [
        json.loads(line)["data"]
        for line in result.stdout.splitlines()
        if line.startswith("{") and '"chat_response"' in line
    ]
    assert len(answers) == 2
    assert answers[0]["conversationId"] == answers[1]["conversationId"]
    with read_session(store.engine) as session:
        assert len(session.exec(select(Conversation)).all()) == 1
        rows = session.exec(
            select(Message).order_by(col(Message.created_at), col(Message.id))
        ).all()
    assert [(m.role, m.content) for m in rows] == [
        ("user", "first"),
        ("assistant", "Answer to first."),
        ("user", "second"),
        ("assistant", "Answer to second."),
    ]
