"""The prompt a session is given: its frozen memory blocks (:mod:`.blocks`) and the
whole prompt with the skills index, relevant skills and recalled sessions
(:mod:`.assemble`)."""
