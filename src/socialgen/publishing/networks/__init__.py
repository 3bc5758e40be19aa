"""One package per social network, behind `base.NetworkAdapter`.

`base.py` is the contract between the outbox and a network: the adapter protocol, the
post going out and what comes back, `PublishError`, and the `NetworkSettings` a
Runtime's settings give. Each network is a package (`bluesky/`, `mastodon/`,
`linkedin/`) whose `adapter.py` meets the protocol (Bluesky on atproto, Mastodon on
Mastodon.py, LinkedIn over httpx), beside its text rules (`text.py`, which dry runs read
without the client) and, as it needs them, its session or client, OAuth, media and
history modules. `guarded_http.py` puts the SSRF guard on every request a network client
sends.

Which module speaks for a network, and the table a Runtime may extend, is
`publishing/registry.py`'s; an adapter for a stored account is built by
`publishing/adapters.py`.
"""
