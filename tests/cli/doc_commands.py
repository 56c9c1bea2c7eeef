#!/usr/bin/env python3
"""doc_commands.py FILE... - the benchrun commands of Markdown files, for
tests/cli/0810-doc-commands.sh.

A command is a line of a ```sh fenced block that starts with `benchrun `
(optionally after `$ `); a trailing backslash joins the next line. Output: one
record per command, NUL-terminated: FILE:LINE <TAB> ACTION <TAB> COMMAND, where
ACTION is
  run N     run it; expect exit status N (0, or `# exit N` at the end)
  synopsis  a usage line: an option in brackets ([--dry-run]) or an UPPERCASE
            placeholder word (CONF, PMC_DIR); shown, not run
  skip      the line ends with `# no-test: <reason>` (needs a GPU, Slurm, ...)
"""
import re
import shlex
import sys

PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*[A-Z0-9]$")
BRACKET = re.compile(r"\[\s*(-|[A-Z<])")


def commands(path):
    fence, buf, start = None, "", 0
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.rstrip("\n")
            m = re.match(r"^\s*```(\S*)", s)
            if m and not buf:
                fence = None if fence is not None else m.group(1)
                continue
            if fence != "sh":
                continue
            if buf:
                buf += " " + s.strip()
            elif re.match(r"^\s*(\$ )?benchrun ", s):
                buf, start = re.sub(r"^\s*(\$ )?", "", s), n
            else:
                continue
            if buf.endswith("\\"):
                buf = buf[:-1].rstrip()
                continue
            yield start, buf
            buf = ""


def action(cmd):
    if re.search(r"#\s*no-test\b", cmd):
        return "skip"
    code = re.search(r"#\s*exit\s+(\d+)\s*$", cmd)
    try:
        words = shlex.split(cmd, comments=True)
    except ValueError:
        return "run 0"          # let bash report the quoting error
    body = cmd.split(" #")[0]
    if BRACKET.search(body) or any(PLACEHOLDER.match(w) for w in words):
        return "synopsis"
    return "run %s" % (code.group(1) if code else "0")


def main(paths):
    for p in paths:
        for n, cmd in commands(p):
            sys.stdout.write("%s:%d\t%s\t%s\0" % (p, n, action(cmd), cmd))


if __name__ == "__main__":
    main(sys.argv[1:])
