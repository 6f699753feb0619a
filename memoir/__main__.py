"""``python -m memoir``: the same command line as the ``memoir`` console script."""

from memoir.cli import main

if __name__ == "__main__":
    main()
