"""The two clients a remote model goes through (ai/registry.py picks): litellm for
every provider, and httpx straight to OpenAI-compatible endpoints. Tests that talk
to the fake OpenAI server run once per client: a `ClientFake` knows which."""

from __future__ import annotations

from socialgen.ai.model import TextModel
from socialgen.ai.openai_compatible import OpenAICompatibleModel
from socialgen.ai.remote import LiteLLMModel
from tests.fakes.openai_server import FakeOpenAI, Responder

CLIENTS = ("litellm", "httpx")


class ClientFake(FakeOpenAI):
    """The fake OpenAI server, and the client (one of CLIENTS) a test reaches it by."""

    def __init__(self, client: str, responder: Responder | None = None) -> None:
        super().__init__(responder)
        self.client = client
        self._kept: TextModel | None = None

    def kept_model(self) -> TextModel:
        """One model for the test, made at the first call: what the structured ladder
        learns about a model is kept on the model object, as a Runtime keeps its model."""
        if self._kept is None:
            self._kept = self.text_model()
        return self._kept

    def text_model(self, *, small: bool = False, timeout: float = 10) -> TextModel:
        kind = LiteLLMModel if self.client == "litellm" else OpenAICompatibleModel
        return kind(f"openai/{self.model}", api_base=self.base_url, timeout=timeout, small=small)
