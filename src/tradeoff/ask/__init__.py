"""Ask: what a person is shown and asked.

* :mod:`~tradeoff.ask.scenario`: the scenario file (classes, costs, rewards, the strategy);
* :mod:`~tradeoff.ask.population`: the candidate classifiers a question can show;
* :mod:`~tradeoff.ask.queries`: a question (two options) and the space of questions;
* :mod:`~tradeoff.ask.presentation`: how an option and a trade-off are put in words;
* :mod:`~tradeoff.ask.shown`: what a question is taken to be about (its options as shown);
* :mod:`~tradeoff.ask.metric`: the linear metric the answers are about.
"""
