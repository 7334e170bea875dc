"""Choose: from the learned metric to a model.

* :mod:`~tradeoff.choose.stakeholder`: a replayed session, and its posterior mean weights;
* :mod:`~tradeoff.choose.pool_metric`: the metric on a pool, ω ↔ weights;
* :mod:`~tradeoff.choose.rank`: a pool ranked by COPA, a baseline or the metric;
* :mod:`~tradeoff.choose.recommend`: the Bayes pick, with P(best);
* :mod:`~tradeoff.choose.informed`: a person's candidates in the order their answers informed;
* :mod:`~tradeoff.choose.robustness`: rank acceptability and what would change the pick;
* :mod:`~tradeoff.choose.selection`: one person's or a group's pick from a pool;
* :mod:`~tradeoff.choose.change_words`: what would change a pick, in words;
* :mod:`~tradeoff.choose.words`: the words about a decision;
* :mod:`~tradeoff.choose.candidates`: the models a decision is made among;
* :mod:`~tradeoff.choose.decide`: the decision use case (session + pool → pick);
* :mod:`~tradeoff.choose.report`: a study's report.

The modules stand in layers (pyproject.toml, "Layers inside choose"): each imports only
modules below it, at import time or inside a function.
"""
