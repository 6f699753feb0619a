"""The ``memoir`` command groups.  :mod:`memoir.cli` is the root and adds each of them
explicitly; :mod:`memoir.commands.base` holds what they share."""
