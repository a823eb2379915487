#!/usr/bin/env python3
"""Every path that a document names exists in the tree.

usage: doc_paths_test.py ROOT DOC.md [DOC.md ...]

A path is a `code span` that starts with one of the repository's top folders (app/, core/, ui/, tests/,
bench/, docs/, assets/, packaging/, third_party/, .ci/) or is a top-level file (CMakeLists.txt, build.sh,
README.md). `a.{h,cpp}` stands for a.h and a.cpp, `*` for any name, and a trailing `:name` or `::name`
(a function) is not part of the path. A path with a placeholder in capitals (`ui/panels/NAME.cpp`, a
file a recipe tells you to write) needs only its folder to exist; a stem (`core/model/session`) stands
for its .h or .cpp."""
import glob, itertools, os, re, sys

TOP = ("app/", "core/", "ui/", "tests/", "bench/", "docs/", "assets/", "packaging/", "third_party/", ".ci/")
TOP_FILES = ("CMakeLists.txt", "build.sh", "README.md")


def expand(path):
    """a.{h,cpp} -> [a.h, a.cpp]; nested braces are not used in our docs."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return list(itertools.chain.from_iterable(expand(path[:m.start()] + alt + path[m.end():]) for alt in m.group(1).split(",")))


def named_paths(text):
    for span in re.findall(r"`([^`\n]+)`", text):
        for word in span.split():
            word = re.sub(r"(::|:)[A-Za-z_].*$", "", word).rstrip(".,;)")
            if word.startswith(TOP) or word in TOP_FILES:
                yield word


def missing(root, text):
    for path in named_paths(text):
        for p in expand(path):
            if re.search(r"[A-Z]{3,}", os.path.basename(p)):
                p = os.path.dirname(p)
            full = os.path.join(root, p)
            if "*" in p:
                found = glob.glob(full)
            else:
                found = any(os.path.exists(full + ext) for ext in ("", ".h", ".cpp"))
            if not found:
                yield path, p


def main():
    root, docs = sys.argv[1], sys.argv[2:]
    bad, checked = [], 0
    for doc in docs:
        text = open(doc, encoding="utf-8").read()
        checked += sum(1 for _ in named_paths(text))
        bad += [f"{os.path.relpath(doc, root)}: `{path}` names {p}, which does not exist" for path, p in missing(root, text)]
    if checked < 20:
        bad.append(f"only {checked} paths were found in {', '.join(docs)}: the reader is broken")
    for line in bad:
        print(line)
    print(f"doc_paths_test: {checked} paths read, {len(bad)} missing")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
