"""``pathlogic passes [--json]``: every registered pass (``optimize --passes`` names) with one
line on what it does, the paper and section it implements and the pipeline it is usually run in
(the registry, ``pylogic/transforms/registry.py``, owns all three; docs/passes.md has the long
form). A pass made of steps (PRE(MR) = its restructuring step, then motion) is listed just before
its first step, with its steps. No pass module is imported. ``optimize --list-passes`` prints the
same.
"""
from __future__ import annotations

import sys


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("passes", description=__doc__,
                              help="list the passes optimize can run, with what each does")
    p.add_argument("--json", action="store_true",
                   help="a JSON list of {name, summary, paper, pipeline, fixpoint, steps}")
    p.set_defaults(func=run)


def pass_entries() -> list[dict]:
    """One dict per registered pass, in registration order, each composite just before its
    first step (``steps``: what runs), read without loading a pass."""
    from pylogic.transforms.registry import COMPOSITES, PASSES
    first = {c.steps[0]: c for c in COMPOSITES.values()}
    entries = []
    for name in PASSES:
        for spec, steps in ([(first[name], list(first[name].steps))] if name in first else []) \
                + [(PASSES.declared(name), [name])]:
            entries.append({"name": spec.name, "summary": spec.summary, "paper": spec.paper,
                            "pipeline": spec.pipeline, "fixpoint": spec.fixpoint,
                            "steps": steps})
    return entries


def print_passes(as_json: bool = False) -> None:
    """The listing on stdout: per pass its name and summary, then its paper and pipeline."""
    import json
    entries = pass_entries()
    if as_json:
        json.dump(entries, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return
    width = max(len(e["name"]) for e in entries)
    pad = " " * (width + 2)
    for e in entries:
        print(f"{e['name']:<{width}}  {e['summary']}" + ("  [iterated]" if e["fixpoint"] else ""))
        if e["steps"] != [e["name"]]:
            print(f"{pad}steps: {','.join(e['steps'])}")
        if e["paper"]:
            print(f"{pad}paper: {e['paper']}")
        if e["pipeline"]:
            print(f"{pad}pipeline: {e['pipeline']}")
    from pylogic.report.docs import doc_path
    made = sum(e["steps"] != [e["name"]] for e in entries)
    print(f"\n{len(entries)} passes ({made} made of steps); run them with: pathlogic optimize FILE --passes P1,P2,... "
          f"(each in full: {doc_path('passes.md')})")


def run(args) -> int:
    print_passes(args.json)
    return 0



def add_list_option(parser) -> None:
    """``optimize --list-passes``: prints the listing and exits at once (like ``--help``: the
    required FILE and ``--passes`` are not asked for)."""
    import argparse

    class ListPasses(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            print_passes(False)
            parser.exit(0)
    parser.add_argument("--list-passes", action=ListPasses, nargs=0,
                        help="list every pass with what it does, its paper and pipeline "
                             "(= pathlogic passes), then exit")
