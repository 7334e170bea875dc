"""The study web page: participants answer in any browser, as plain HTML forms.

A face like :mod:`tradeoff.tui` and :mod:`tradeoff.cli` (docs/architecture.md, "The study
web page"): ``server`` (the pages and what they refuse), ``held`` (participants' engines
in memory, their files locked only while written), ``pages`` (what each page shows),
``i18n`` (the message catalogue), ``serving`` (one or several processes until SIGTERM).
"""
