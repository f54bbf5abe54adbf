"""A question corpus apart from every evaluation (issue 28, items 3 and 6).

* ``tables.py`` -- a file read as a table by the corpus's own parsers (CSV, JSON records, AFM metrics, line
  tables, ``key: value`` files ...), independent of ``dspy_rlm``'s structure detection.
* ``facts.py`` -- the answerable facts of any table (lookup, multi_word, reverse, count, most_common, min_max,
  yes_no, two_hop), gold computed from the parsed rows.
* ``grammar.py`` -- a compositional phrasing grammar: families of question shapes, synonyms, word order,
  questions and imperatives, field named or not, case and small typos. Some families are held out of training.
* ``generated.py`` -- synthetic tables rendered in formats of the corpus's choosing.
* ``manifest.py`` -- which real files are training and which are the fresh test split (with their packages).
* ``build.py`` -- ``python -m benchmarks.corpus --split train|test``: the questions, with their contexts.
"""
