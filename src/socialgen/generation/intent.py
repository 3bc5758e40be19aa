"""Does a chat message ask for a post, or is it a question?

Clear wording decides first: an imperative or a "can you ..." with a writing verb
("draft an update", "turn this into ...", "help me announce ...") asks for a post;
a question or thanks with none of those is chat. Words like "post" or "hook"
alone decide nothing ("how long should a post be?" is a question). Only messages
the wording leaves open go to the model: capable models through a structured
answer; models whose profile plans in lines (small ones) as one word under a
grammar. The embedded 135M model alone routes little better than chance; with the
wording first the labelled set in tests/data routes right (see bench/quality.py).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from socialgen.ai.model import FormatRefused, ModelError, Output, TextModel, complete
from socialgen.ai.structured import ask_structured, remember_grammar_refused, takes_grammar
from socialgen.drafting.planning import answers_in_lines
from socialgen.drafting.prompts import Prompts

IntentName = Literal["post", "chat"]
_prompts = Prompts("socialgen.generation")

# Verbs that ask for writing when they open a sentence or follow "can you" etc.
_WRITING_VERBS = (
    "write|draft|compose|create|make|turn|rewrite|reword|redo|polish|edit|shorten|expand|"
    "craft|generate|produce|prepare|put together|whip up|flesh|convert|transform|adapt|"
    "announce|share|tell|say|celebrate|congratulate|thank|introduce|promote|post|publish|"
    "give me|come up with|spin|summari[sz]e|repurpose|build|pen|jot|try another|try again"
)
_LEAD_IN = (
    r"(?:(?:ok(?:ay)?|so|now|alright|great|cool|yes|yeah|sure|please|pls|then|and|just|"
    r"go ahead and)[,!.]?\s+)*"
)
_IMPERATIVE = re.compile(rf"^{_LEAD_IN}(?:{_WRITING_VERBS})\b")
_ASKED_TO = re.compile(
    rf"\b(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+|maybe\s+|just\s+)?"
    rf"(?:help\s+me\s+)?(?:{_WRITING_VERBS})\b"
    rf"|\bhelp\s+me\s+(?:to\s+)?(?:{_WRITING_VERBS})\b"
    r"|\b(?:would|do)\s+you\s+mind\s+\w+ing\b"
    r"|\b(?:i|we)\s+want\s+to\s+(?:share|tell|announce|celebrate|thank|congratulate)\b"
    rf"|\b(?:i|we)\s+(?:need|want|would like|'d like)\s+(?:you\s+to\s+(?:{_WRITING_VERBS})\b"
    r"|(?:a|an|some|something|one|my|the)\b)"
    rf"|\blet'?s\s+(?:{_WRITING_VERBS}|do|go|have)\b"
    r"|\b(?:you|u)\s+(?:do|write|draft)\s+(?:it|one|that)\b"
    r"|\bcan\s+i\s+(?:get|have)\s+(?:a|an|some|something|one)\b"
)
# A request with no verb: "linkedin post on remote work pls", "something about X, please".
_NOUN_REQUEST = re.compile(
    r"^(?:(?:a|an|one|some|quick|short)\s+)*(?:linkedin\s+)?"
    r"(?:post|update|caption|announcement|something|teaser|version)\b"
    r"|\b(?:need|want)\s+(?:a|an|some|something|content|copy)\b"
)
_QUESTION_START = re.compile(
    r"^(?:what|what's|whats|how|why|when|where|who|which|whose|is|are|was|were|do|does|did|"
    r"should|shall|would|could|can|will|may|might|am|isn't|aren't|don't|doesn't)\b"
)
_THANKS = re.compile(
    r"^(?:thanks|thx|ty|appreciate|cheers|great|perfect|nice|cool|awesome|"
    r"never mind|nevermind|nvm|got it|ok(?:ay)?|hi|hello|hey)\b|\bthank(?:s| you)\b"
)
# Quoted text is material, not the request ("is 'I'm excited to announce' bad?").
# A single quote opens only after a non-letter: "here's" is no quote.
_QUOTED = re.compile(
    r"\"[^\"]*\"|(?<!\w)'[^']{3,}'(?!\w)|\u201c[^\u201d]*\u201d|\u2018[^\u2019]{3,}\u2019"
)
# Asking to be told, not written for: "just tell me the structure".
_ADVICE = re.compile(r"\b(?:tell me|explain|show me|walk me through|what do you think)\b")
_SENTENCES = re.compile(r"[^.!?\n]+[.!?]*")


class Intent(BaseModel):
    intent: str = Field(description='"post" or "chat"', pattern="^(post|chat)$")


def intent_from_wording(message: str) -> IntentName | None:
    """Post or chat when the wording is clear, None when it leaves it open."""
    text = _QUOTED.sub(" ", message.lower().replace("\u2019", "'"))
    sentences = [s.strip(" ,;:-") for s in _SENTENCES.findall(text) if s.strip(" ,;:-")]
    asks = any(_asks_for_writing(sentence) for sentence in sentences)
    if asks:
        return "post"
    clauses = [c.strip() for s in sentences for c in s.split(",")]
    if any(
        s.endswith("?") or _QUESTION_START.search(s) or _THANKS.search(s) or _ADVICE.search(s)
        for s in clauses
    ):
        return "chat"
    return None


def _asks_for_writing(sentence: str) -> bool:
    if _ASKED_TO.search(sentence):
        return True
    # "Do emojis make a post look bad?" opens with a verb but asks nothing.
    if sentence.endswith("?"):
        return False
    return bool(_IMPERATIVE.search(sentence) or _NOUN_REQUEST.search(sentence))


async def classify_intent(model: TextModel, message: str) -> IntentName:
    decided = intent_from_wording(message)
    if decided is not None:
        return decided
    if answers_in_lines(model):
        return await _small_model_intent(model, message)
    answer = await ask_structured(
        model,
        [{"role": "user", "content": _prompts.render("intent", message=message)}],
        Intent,
        max_tokens=20,
    )
    return "post" if answer is not None and answer.intent == "post" else "chat"


async def _small_model_intent(model: TextModel, message: str) -> IntentName:
    """One word, under a grammar where the provider takes one: a 135M model can do
    that much (and a model that plans in lines answers a word better than JSON)."""
    prompt = _prompts.render("intent_small", message=message[:1000])
    grammar = 'root ::= " "? ("post" | "chat")' if takes_grammar(model) else None
    try:
        text = await _one_word(model, prompt, grammar)
    except FormatRefused:
        remember_grammar_refused(model)
        try:
            text = await _one_word(model, prompt, None)
        except ModelError:
            return "chat"
    except ModelError:
        return "chat"  # an answer, not a saved post, is the safe side of a doubt
    return "post" if "post" in text.lower() else "chat"


async def _one_word(model: TextModel, prompt: str, grammar: str | None) -> str:
    return await complete(
        model,
        [{"role": "user", "content": prompt}],
        output=Output(mode="text", grammar=grammar) if grammar else None,
        max_tokens=3,
        temperature=0.0,
        purpose="intent",
    )
