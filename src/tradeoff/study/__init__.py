"""Studies: the folder (:mod:`~tradeoff.study.folder`), its files opened safely
(:mod:`~tradeoff.study.files`), access codes (:mod:`~tradeoff.study.codes`), wrong codes
(:mod:`~tradeoff.study.attempts`), withdrawal (:mod:`~tradeoff.study.withdrawals`), which
session files count (:mod:`~tradeoff.study.counted`), the coordinator's status
(:mod:`~tradeoff.study.status`), the export (:mod:`~tradeoff.study.export`), opening a
session (:mod:`~tradeoff.study.opening`) and the population cache
(:mod:`~tradeoff.study.cache`)."""
