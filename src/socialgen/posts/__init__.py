"""Posts, their versions, and the conversations that produced them."""
