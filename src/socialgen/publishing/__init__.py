"""Publishing: social accounts, the outbox of publications, the scheduler and metrics.

A post goes out as one publication per (post, account). The scheduler knows no
network: each network is one adapter module under `networks/` behind the protocol in
`networks/base.py`.
"""
