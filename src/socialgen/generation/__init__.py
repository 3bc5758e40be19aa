"""AI generation: chat, a single post, and a batch of five variations."""
