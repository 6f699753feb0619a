"""Episodic recall: the session search index (:mod:`.index`, BM25 with the semantic
extra's vectors where installed), relevance fusion, summaries and the session-search
tool's handler."""
