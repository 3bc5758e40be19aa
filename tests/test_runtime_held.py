"""What a Runtime holds (issue 29): the text models it built and the PDF render pool,
shared with the Runtimes derived from it and with no other; the network modules it was
handed. A test wanting a clean slate builds a fresh Runtime: nothing is reset."""

from __future__ import annotations

from typing import Any

import pytest

from socialgen.ai.structured import current_rung, profile_of
from socialgen.app.runtime import Runtime
from socialgen.kit.errors import BadRequest
from socialgen.publishing.registry import BUILT_IN, Networks
from tests.doubles.scripted_model import ScriptedModel
from tests.fakes.scripted_network import ScriptedNetwork


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[ScriptedModel]:
    """Every model the registry builds, in order (a new one each call, as the real one)."""
    models: list[ScriptedModel] = []

    def registry_model(settings: Any, folder: Any) -> ScriptedModel:
        models.append(ScriptedModel(name="the-configured-model"))
        return models[-1]

    monkeypatch.setattr("socialgen.ai.registry.text_model", registry_model)
    return models


def test_a_runtime_builds_its_model_once_and_a_derived_one_shares_it(
    built: list[ScriptedModel],
) -> None:
    runtime = Runtime()
    model = runtime.text_model()
    assert runtime.text_model() is model
    assert runtime.derived(port=9123).text_model() is model  # a request's overrides
    assert len(built) == 1


def test_a_fresh_runtime_has_a_fresh_model_and_what_was_learnt_stays_with_the_old(
    built: list[ScriptedModel],
) -> None:
    old = Runtime().text_model()
    profile_of(old).rung = 1  # the provider refused json_schema once
    new = Runtime().text_model()
    assert new is not old and len(built) == 2
    assert (current_rung(old), current_rung(new)) == ("json_object", "json_schema")


def test_a_derived_runtime_naming_another_model_gets_that_one(
    built: list[ScriptedModel], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_MODEL", "openai/first")
    runtime = Runtime()
    first = runtime.text_model()
    other = runtime.derived(model="openai/second").text_model()
    assert other is not first and runtime.text_model() is first


def test_the_render_pool_is_the_runtimes_and_its_derived_ones() -> None:
    runtime = Runtime()
    pool = runtime.render_pool()
    try:
        assert runtime.derived(port=9123).render_pool() is pool
        other = Runtime()
        assert other.render_pool() is not pool
        other.held.close()
    finally:
        runtime.held.close()
    assert runtime.held.render_pool is None  # closed: the next render makes a new one


def test_networks_handed_in_win_and_the_others_stay_built_in() -> None:
    scripted = ScriptedNetwork("bluesky")
    networks = Networks.of(Runtime(networks={"bluesky": scripted, "racenet": scripted}))
    assert networks.module("bluesky") is scripted
    assert networks.module("Racenet ") is scripted  # names are matched lower-cased
    assert networks.module("mastodon") is not scripted
    assert networks.known() == (*BUILT_IN, "racenet")
    assert Networks.of(Runtime()).module("bluesky") is not scripted  # nothing registered
    assert Networks.of(Runtime()).known() == BUILT_IN
    with pytest.raises(BadRequest, match="Unknown network 'myspace'"):
        networks.module("myspace")


def test_a_fixture_may_fill_the_networks_after_the_runtime_is_built() -> None:
    """The app of a test is built before its network fixture runs: the Runtime reads
    the mapping it was handed at each use (and never changes it)."""
    given: dict[str, Any] = {}
    runtime = Runtime(networks=given)
    scripted = given["bluesky"] = ScriptedNetwork("bluesky")
    assert Networks.of(runtime).module("bluesky") is scripted
    assert Networks.of(runtime.derived(port=9123)).module("bluesky") is scripted
