"""API keys, bearer tokens and workspace access."""
