"""Shared by the report scripts: run a table function over result files given on the command line."""
import json


def print_tables(paths, table, doc):
    if not paths:
        print(doc)
        return 2
    for p in paths:
        with open(p) as f:
            print(table(json.load(f)))
        print()
    return 0
