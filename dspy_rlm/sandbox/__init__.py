"""The Linux sandbox: the ``subprocess`` REPL backend (:class:`~dspy_rlm.sandbox.backend.SubprocessREPL`), its
worker, the zygote that forks workers, and the isolation around them (namespaces, the minimal root, seccomp)."""
