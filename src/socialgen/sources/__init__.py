"""Outside content: fetching pages safely and turning them into text.

`guard` is the one SSRF guard every outbound request passes, `fetch` the capped
HTTP client built on it, `articles` the main-text extraction, `urls` finds links
in what users type.
"""
