"""Studies: the folder, access codes and status (:mod:`~tradeoff.study.folder`), the
export (:mod:`~tradeoff.study.export`), opening a session
(:mod:`~tradeoff.study.opening`) and the population cache (:mod:`~tradeoff.study.cache`)."""
