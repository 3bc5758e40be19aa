"""The text gateway: one contract over litellm providers and the embedded model."""
