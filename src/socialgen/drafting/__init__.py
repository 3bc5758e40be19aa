"""The drafting core, below every generating slice (chat/post/batch, calendars,
carousels): the model caller that streams text, structured plans, fan-out of
several drafts with one refund, saving drafts, prompts and post cleaning."""
