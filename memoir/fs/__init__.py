"""File-system safety below a home: walking to a file without following a link
(:mod:`memoir.fs.safefs`), memoir's own private folders (:mod:`memoir.fs.folder`) and
the cross-process lock (:mod:`memoir.fs.locking`).  Every layer above may use it; it
knows nothing of events or journals."""
