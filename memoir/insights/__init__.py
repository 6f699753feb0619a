"""Learning from tool errors (seed 003): error signatures, and the steps of the pipeline
a caller drives — hints, ``memory_search``, candidates a person accepts or rejects, the
scheduled pass.  Counting and promotion happen when turns are recorded
(:mod:`memoir.sessions.turns`)."""
