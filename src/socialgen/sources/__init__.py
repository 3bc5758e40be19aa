"""Outside content: fetching pages safely and turning them into text.

`guard.py` is the one SSRF guard every outbound request passes, `fetch.py` the capped
HTTP client built on it, `articles.py` the main-text extraction, and `urls.py` finds
links in what users type.

Video captions are `video.py`'s (a transcript, title and description through yt-dlp, no
media downloaded): `video_tracks.py` picks the subtitle track, `subtitles.py` turns it
into plain text, `video_errors.py` rewords yt-dlp's errors, and `guard_ytdlp.py` puts
the guard inside yt-dlp, which opens its own connections. `pdf.py` reads an uploaded
PDF's text; `condense.py` fits a long source into the model's context. `profiles/`
imports the posts of a profile (Bluesky, Mastodon, feeds, web pages).
"""
