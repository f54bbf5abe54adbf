"""The REPL protocol (:class:`~dspy_rlm.repl.base.REPL`) and its backends: the registry, the in-process and
foreign-interpreter backends, and the executor they share. The Linux sandbox backend is :mod:`dspy_rlm.sandbox`."""
