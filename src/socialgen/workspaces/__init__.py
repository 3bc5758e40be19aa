"""Workspaces, users, memberships and per-workspace usage."""
