"""HTML to PDF and PDF to thumbnail; nothing here knows what a carousel is."""
