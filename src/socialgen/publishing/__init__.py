"""Publishing: social accounts, the outbox of publications, the scheduler and metrics.

A post goes out as one publication per (post, account). The scheduler knows no
network: each network is one adapter module under `networks/` behind the protocol in
`networks/base.py`.

The networks are Bluesky, Mastodon and LinkedIn. The package is split in two slices,
each declaring its own faces in its `feature.py`: `accounts/` (social accounts, their
refs and past posts; its routes and the `accounts` command group) and `outbox/`
(queueing, claims, passes, the scheduler, metrics, dry runs; its routes, `publish-due`,
the posts group's publishing commands and the scheduler in `serve`'s lifespan). Shared
by both:

- `settings.py`: the publishing settings, from a Runtime's settings object, and
  `PublishTerms`, what a pass runs by.
- `secrets.py`: account secrets encrypted at rest with Fernet, the key outside the
  database.
- `loopback.py`: the one-shot loopback redirect for OAuth's authorization code flow.
- `registry.py`: `Networks`, the built-in table of network modules plus those a Runtime
  was handed (`Runtime(networks={"bluesky": scripted})`, `Networks.of(runtime)`), with
  the `NetworkSettings` its settings say (LinkedIn's API version and timeout, the
  Bluesky AppView). The faces hand it to every function that reaches a network;
  `PublishTerms` carries it for passes.
- `adapters.py`: an adapter for a stored account, built by its network's module.
- `networks_cli.py`: the networks a command runs with (its Runtime's).
- `networks/`: one package per network.
"""
