from tests.conftest import Store


def test_store_fixture_has_default_workspace_and_owner(store: Store) -> None:
    assert store.workspace_id
    post = store.post("hello world")
    assert post.workspace_id == store.workspace_id
