"""Puts a block comment at every space between tokens of the examples and golden inputs (their
line comments dropped; those with block comments or raw strings skipped), runs `cgraphc fmt`, and reports each comment
whose neighbouring tokens changed: LANGUAGE.md §14 says fmt keeps every comment next to the
token it was next to. The fuzzer checks that no comment is lost or reordered; this checks that
none moves. Reports the moves by kind (the tokens before and after, names as ID) with one
example each, and exits 1 if any moved. Not run by CI while moves remain (docs/language.md,
"fmt").

    python3 scripts/fmt_comment_stress.py [--line] [--max-moves N] [path/to/cgraphc]

--line inserts line comments (`//cN` and a line break) instead. Either way, a formatted text
that formats to something else is a failure (fmt must be idempotent). --max-moves N (default
0; -1: any) is how many moved comments pass: CTest runs the block comments with the moves of
the one documented exception (an `after` clause written before its statement moves to the
end) and the line comments with any number, since a line comment before a `{` moves by design.
"""
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

KEYWORDS = set("""include kernel host module source graph let cond if else while switch case repeat
parallel memcpy memset call after from as sizeof true false null const import struct for in
alloc free record wait on device group""".split())
TOKEN = re.compile(r'/\*c\d+\*/|"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|<<<|>>>|\.\.|\S')


def neighbours(text):
    """Each inserted comment's nearest tokens before and after, other comments skipped."""
    text = re.sub(r"//c(\d+)", r"/*c\1*/", text)  # an inserted line comment counts as the same comment
    tokens = TOKEN.findall(re.sub(r"//[^\n]*", "", text))
    out = {}
    for i, t in enumerate(tokens):
        if not t.startswith("/*c"):
            continue
        j = i - 1
        while j >= 0 and tokens[j].startswith("/*c"):
            j -= 1
        k = i + 1
        while k < len(tokens) and tokens[k].startswith("/*c"):
            k += 1
        out[t] = (tokens[j] if j >= 0 else None, tokens[k] if k < len(tokens) else None)
    return out


def kind(token):
    if token is None or token in KEYWORDS:
        return str(token)
    if re.match(r"[A-Za-z_]", token):
        return "ID"
    if token[0].isdigit():
        return "NUM"
    return "STR" if token.startswith('"') else token


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    args = sys.argv[1:]
    line = "--line" in args
    args = [a for a in args if a != "--line"]
    max_moves = 0
    if "--max-moves" in args:
        i = args.index("--max-moves")
        max_moves = int(args[i + 1])
        del args[i:i + 2]
    cgraphc = args[0] if args else os.path.join(root, "build/test/cgraphc")
    moves, example = collections.Counter(), {}
    files = inserted = unstable = 0
    with tempfile.TemporaryDirectory() as tmp:
        stressed = os.path.join(tmp, "stressed.cgraph")
        for path in sorted(glob.glob(f"{root}/examples/*.cgraph") + glob.glob(f"{root}/tests/golden/*/*.cgraph")):
            try:
                source = open(path, encoding="utf-8").read()
            except UnicodeDecodeError:
                continue  # a diagnostics golden of bad UTF-8
            if '"""' in source or "/*" in source:
                continue
            source = re.sub(r"//[^\n]*", "", source)  # its own line comments: only the inserted ones
            count = [0]

            def comment(_):
                count[0] += 1
                return f" //c{count[0]}\n " if line else f" /*c{count[0]}*/ "

            parts = re.split(r'("(?:[^"\\]|\\.)*")', source)
            text = "".join(p if p.startswith('"') else re.sub(r"[ ]+", comment, p) for p in parts)
            with open(stressed, "w") as f:
                f.write(text)
            result = subprocess.run([cgraphc, "fmt", stressed], capture_output=True, text=True)
            if result.returncode != 0:
                continue
            files += 1
            with open(stressed, "w") as f:
                f.write(result.stdout)
            again = subprocess.run([cgraphc, "fmt", stressed], capture_output=True, text=True)
            if again.stdout != result.stdout:
                unstable += 1
                print(f"not idempotent: {os.path.basename(path)}")
            before, after = neighbours(text), neighbours(result.stdout)
            inserted += len(before)
            for c, near in before.items():
                if after.get(c) != near:
                    k = (kind(near[0]), kind(near[1]))
                    moves[k] += 1
                    example.setdefault(k, f"{os.path.basename(path)}: {c} between {near[0]!r} and {near[1]!r}")
    for k, n in moves.most_common():
        print(f"{n:5} moved between {k[0]} and {k[1]}  (e.g. {example[k]})")
    print(f"{files} files, {sum(moves.values())} of {inserted} comments moved, {unstable} not idempotent")
    if files == 0:
        print("no file formatted: is the cgraphc path right?")
        return 1
    moved = sum(moves.values())
    return 1 if unstable or (max_moves >= 0 and moved > max_moves) else 0


if __name__ == "__main__":
    sys.exit(main())
