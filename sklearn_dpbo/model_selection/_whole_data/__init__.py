"""Mode ``"whole-data"`` (every row private, any estimator): the fit
(``_fit``), its releases from the part-score matrix (``_releases``) and the
per-part typing of the rows (``_part_types``). Public names live in
:mod:`sklearn_dpbo.model_selection`.
"""
