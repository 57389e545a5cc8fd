"""Mode ``"private-model"`` (tune a DP learner, release the model): the fit
(``_fit``), random stopping (``_stopping``), diffprivlib's models as
candidates (``_diffprivlib``) and pipelines' public steps
(``_public_steps``). Public names live in :mod:`sklearn_dpbo.model_selection`.
"""
