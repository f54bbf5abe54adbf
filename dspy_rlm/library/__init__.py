"""The model's helper library: the functions the model's code calls inside the REPL (peek, search, chunking,
ranking, embeddings, structure detection and lookups). Stdlib-only at import time, so that
:func:`~dspy_rlm.library.helpers.standalone_source` can inline it into interpreters that cannot import us."""
