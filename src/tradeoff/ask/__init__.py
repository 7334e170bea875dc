"""Ask: what a person is shown and asked.

* :mod:`~tradeoff.ask.scenario`: the scenario file (classes, costs, rewards, the strategy);
* :mod:`~tradeoff.ask.population`: the candidate classifiers a question can show;
* :mod:`~tradeoff.ask.queries`: a question (two options) and the space of questions;
* :mod:`~tradeoff.ask.shown`: what the screen shows, the numbers a person reads and so
  answers on (an option's card, its options as shown, a question that cannot be answered);
* :mod:`~tradeoff.ask.words`: the prompts, a difference between models, a trade-off in words;
* :mod:`~tradeoff.ask.narrative`: what the weights mean, the trade-offs said in words;
* :mod:`~tradeoff.ask.aspects`: the same for options described by their aspects alone;
* :mod:`~tradeoff.ask.metric`: the linear metric the answers are about.
"""
