"""Content calendars: 7 or 30 days of drafts from a prompt, a video, articles or a PDF."""
