"""Stored files (carousel images, PDFs, thumbnails), one folder per workspace."""
