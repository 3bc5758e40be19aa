"""The scripted models' answer to the toy feature's model call (tests/toy_feature.py),
declared here, beside the toy, and found by this module's name
(tests/doubles/scripted_replies.py): tests/scripted_support.py is not edited for it.
`scripted_ai.toy_word = "..."` changes the word."""

from __future__ import annotations

from tests.doubles.scripted_model import Reply, ScriptedCall
from tests.doubles.scripted_replies import ScriptedReply
from tests.toy_feature import WORD_PURPOSE


def _word(_call: ScriptedCall, word: str) -> Reply:
    return word


REPLIES = (ScriptedReply(WORD_PURPOSE, _word, knob="toy_word", default="pebble"),)
