"""Learning what works from the creator's own numbers: their published posts with the
engagement they got (`history.py`), what each post's text is like (`text_features.py`),
and the analyses built on them. numpy, scipy, scikit-learn and matplotlib are imported only
inside the modules that run an analysis, never by `socialgen --help`."""
