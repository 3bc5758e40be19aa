"""Carousels: a plan of slides, an image per slide, HTML slides, a vector PDF."""
