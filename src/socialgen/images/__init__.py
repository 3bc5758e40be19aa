"""Image bytes checked by their content, for every layer that takes images in
(uploads in the carousel slice, answers of image models in the ai gateway)."""
