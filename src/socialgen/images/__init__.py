"""Image bytes checked by their content, for every layer that takes images in
(uploads in the carousel slice, answers of image models in the ai gateway).

`check.py` lets in PNG, JPEG, WebP and GIF only, and refuses pixel bombs; `downscale.py`
decodes an image no larger than it will be shown (JPEG at a reduced scale, the others
reduced band by band).
"""
