"""Mode ``"whole-data"``: every row private, any estimator (``_fit``)."""
