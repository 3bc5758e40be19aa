"""What a Runtime keeps (kept.py), as the trained rankers use it: made once per key
(a workspace and its history), the least recently used let go past the limit, none
shared between Runtimes."""

from __future__ import annotations

from collections.abc import Callable

from socialgen.app.runtime import Runtime
from socialgen.kit.kept import Kept


def maker(made: list[str], name: str) -> Callable[[], str]:
    def make() -> str:
        made.append(name)
        return name

    return make


def test_a_value_is_made_once_per_key() -> None:
    kept: Kept[tuple[str, int], str] = Kept(8)
    made: list[str] = []
    assert kept.get_or_make(("ws", 1), maker(made, "a")) == "a"
    assert kept.get_or_make(("ws", 1), maker(made, "again")) == "a"
    assert made == ["a"]
    kept.get_or_make(("ws", 2), maker(made, "b"))  # the history changed: a new key
    assert made == ["a", "b"]


def test_the_least_recently_used_value_goes_first() -> None:
    kept: Kept[str, str] = Kept(2)
    made: list[str] = []
    kept.get_or_make("a", maker(made, "a"))
    kept.get_or_make("b", maker(made, "b"))
    kept.get_or_make("a", maker(made, "a again"))  # used: b is now the oldest
    kept.get_or_make("c", maker(made, "c"))
    assert len(kept) == 2
    kept.get_or_make("a", maker(made, "a lost"))
    kept.get_or_make("b", maker(made, "b again"))
    assert made == ["a", "b", "c", "b again"]


def test_each_runtime_keeps_its_own_rankers_and_a_derived_one_shares_them() -> None:
    one, other = Runtime(), Runtime()
    try:
        assert one.held.rankers is not other.held.rankers
        assert one.derived(max_tokens=64).held.rankers is one.held.rankers
    finally:
        one.close()
        other.close()
