"""Mode ``"private-model"``: tune a DP learner, release the model (``_fit``)."""
