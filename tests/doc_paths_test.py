#!/usr/bin/env python3
"""Every path that a document names exists in the tree, and docs/architecture.md names every unit.

usage: doc_paths_test.py ROOT DOC.md [DOC.md ...]
       doc_paths_test.py --catch-an-unnamed-unit     (the unit check on a made-up tree must fail)

A path is a `code span` that starts with one of the repository's top folders (app/, core/, ui/, tests/,
bench/, docs/, assets/, packaging/, third_party/, .ci/) or is a top-level file (CMakeLists.txt, build.sh,
README.md). `a.{h,cpp}` stands for a.h and a.cpp, `*` for any name, and a trailing `:name` or `::name`
(a function) is not part of the path. A path with a placeholder in capitals (`ui/panels/NAME.cpp`, a
file a recipe tells you to write) needs only its folder to exist; a stem (`core/model/session`) stands
for its .h or .cpp.

When ROOT/docs/architecture.md is among the documents, every header under core/, ui/ and app/ must be
named there: by its path (a glob such as `ui/panels/*` names what it matches), or by its stem in a code
span of the bullet that describes its folder (`- `core/model/arch/` — … `rotary` …`) or of a bullet
around it."""
import fnmatch, glob, itertools, os, re, sys, tempfile

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


def folder_sections(text):
    """{folder: the text of each bullet that starts with `folder/`, its nested lines included}."""
    lines, sections = text.split("\n"), {}
    for i, line in enumerate(lines):
        m = re.match(r"( *)- `([a-z_/]+/)`", line)
        if not m:
            continue
        indent, end = len(m.group(1)), i + 1
        while end < len(lines) and not re.match(r" {0,%d}(- |\S)" % indent, lines[end]):
            end += 1
        sections.setdefault(m.group(2), []).append("\n".join(lines[i:end]))
    return sections


def span_words(text):
    return {w for span in re.findall(r"`([^`\n]+)`", text) for w in re.split(r"[^A-Za-z0-9_*./{},-]", span) if w}


def unnamed_units(root):
    """The headers under core/, ui/ and app/ that docs/architecture.md does not name."""
    text = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
    paths = [p for w in span_words(text) for p in expand(w.rstrip(".,;)"))]
    sections = {folder: span_words("\n".join(texts)) for folder, texts in folder_sections(text).items()}
    for top in ("core", "ui", "app"):
        for header in sorted(glob.glob(os.path.join(root, top, "**", "*.h"), recursive=True)):
            rel = os.path.relpath(header, root)
            stem = os.path.basename(rel)[:-2]
            if any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel[:-2], p) for p in paths if "/" in p):
                continue
            around = [words for folder, words in sections.items() if rel.startswith(folder)]
            if not any(stem in re.split(r"[./{},]", w) or any(fnmatch.fnmatch(stem, part) for part in re.split(r"[./{},]", w) if "*" in part)
                       for words in around for w in words):
                yield rel


def catch_an_unnamed_unit():
    with tempfile.TemporaryDirectory() as root:
        for rel in ("core/x/named.h", "core/x/lost.h", "ui/named_by_path.h", "docs/architecture.md"):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            open(os.path.join(root, rel), "w").write("")
        open(os.path.join(root, "docs", "architecture.md"), "w").write(
            "- `core/x/` — `named` and `other`\n- `ui/` — `ui/named_by_path.h`\n")
        lost = list(unnamed_units(root))
    print(f"unnamed: {lost}")
    sys.exit(0 if lost == ["core/x/lost.h"] else 1)


def main():
    if sys.argv[1:] == ["--catch-an-unnamed-unit"]:
        return catch_an_unnamed_unit()
    root, docs = sys.argv[1], sys.argv[2:]
    bad, checked = [], 0
    for doc in docs:
        text = open(doc, encoding="utf-8").read()
        checked += sum(1 for _ in named_paths(text))
        bad += [f"{os.path.relpath(doc, root)}: `{path}` names {p}, which does not exist" for path, p in missing(root, text)]
    if os.path.join(root, "docs", "architecture.md") in [os.path.normpath(d) for d in docs]:
        bad += [f"docs/architecture.md: {rel} is not named there (its stem in its folder's bullet, or its path)" for rel in unnamed_units(root)]
    if checked < 20:
        bad.append(f"only {checked} paths were found in {', '.join(docs)}: the reader is broken")
    for line in bad:
        print(line)
    print(f"doc_paths_test: {checked} paths read, {len(bad)} missing")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
