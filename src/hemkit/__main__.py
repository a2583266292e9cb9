"""``python -m hemkit`` runs the command line."""

from hemkit.cli import main

main()
