"""Content styles: writing styles learned from example posts."""
