#!/usr/bin/python3
"""The include rules of the source tree, checked from the #include lines alone.

1. No include loop among the files of core/, ui/ and app/, counting a .h and its .cpp as one
   file: a loop means neither half can be read, changed or tested without the other.
2. A panel (ui/panels/WORKSPACE/NAME.*, with its parts NAME_PART.* beside it) includes no other
   panel's header: panels share what they must through ui/view.h and the parts in ui/panels/shared/.
3. core/ includes nothing of ui/ or app/, ui/ nothing of app/, and app/ no panel: app/ reaches
   the panels through ui/ui.h.
4. core/model/ (the real checkpoints) and core/train/ (the tiny transformer) stand side by side:
   neither includes the other, and core/heads/, the analysis of heads both use, includes neither.
5. ui/ and app/ include nothing of core/model/format/: they open, list and read models through
   core/model/open.h, so that a format's details change in core/model/format/ alone.
6. ui/ and app/ start no thread (std::thread, std::async, core::background::start): a
   question asked off the frame runs on a core::Worker (core/worker.h), so that background work
   starts in core alone.
7. ui/ and app/ call no forward directly (a Model's forward or extend, generate_greedy, qk_stream,
   the head's logits): they ask a question through core's requests (core/model/requests/).
8. In core/, threads start in two places alone: core/background (a task on a thread of its own,
   and the core::Worker built on it) and core/parallel (its pool, through which every split of work
   across cores goes). Anywhere else std::thread and std::async are refused.

Rules 6, 7 and 8 read the code with its comments and strings taken out.

Usage: include_rules.py [SOURCE_DIR]   (exit 0, or 1 with one line per broken rule)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
DIRS = ("core", "ui", "app")


def sources(root):
    for top in DIRS:
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if name.endswith((".h", ".cpp")):
                    yield os.path.relpath(os.path.join(folder, name), root)


def unit(path):
    """A .h and its .cpp are one unit: the path without its extension."""
    return os.path.splitext(path)[0]


def includes(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        text = f.read()
    return [inc for inc in INCLUDE.findall(text) if os.path.isfile(os.path.join(root, inc))]


def loops(graph):
    """The strongly connected components of more than one unit (Tarjan, iteratively)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def cycle_in(graph, component):
    """One loop through the component, as a path that ends where it starts."""
    members = set(component)
    start = component[0]
    path, seen = [start], {start}
    while True:
        nxt = next(n for n in sorted(graph[path[-1]]) if n in members)
        if nxt in seen:
            return path[path.index(nxt):] + [nxt]
        path.append(nxt)
        seen.add(nxt)


def panel_of(root, header):
    """ui/panels/learn/lesson_checks.h belongs to the Lesson panel when ui/panels/learn/lesson.h exists."""
    folder, stem = os.path.split(unit(header))
    parts = stem.split("_")
    for k in range(1, len(parts) + 1):
        name = "_".join(parts[:k])
        if os.path.isfile(os.path.join(root, folder, name + ".h")):
            return os.path.join(folder, name)
    return os.path.join(folder, stem)


# (folder, folders it must not include, why)
SIDE_BY_SIDE = (
    ("core/model/", ("core/train/",), "core/model/ and core/train/ stand side by side; what both need goes below them"),
    ("core/train/", ("core/model/",), "core/model/ and core/train/ stand side by side; what both need goes below them"),
    ("core/heads/", ("core/model/", "core/train/"), "core/heads/ lies below core/model/ and core/train/"),
)


def folder_problem(path, inc):
    posix = path.replace(os.sep, "/")
    for folder, banned, why in SIDE_BY_SIDE:
        if posix.startswith(folder) and inc.startswith(banned):
            return f"{posix}: includes {inc}; {why}"
    return None


def broken_rules(root):
    problems = []
    graph = {}
    for path in sorted(sources(root)):
        graph.setdefault(unit(path), set())
        for inc in includes(root, path):
            if unit(inc) != unit(path):
                graph[unit(path)].add(unit(inc))
            top = path.split(os.sep)[0]
            into = inc.split("/")[0]
            panel_header = inc.startswith("ui/panels/") and not inc.startswith("ui/panels/shared/")  # parts, not panels
            if path.startswith("ui/panels/") and panel_header and panel_of(root, path) != panel_of(root, inc):
                problems.append(f"{path}: includes {inc}, another panel's header (share it through ui/view.h)")
            elif top == "core" and into in ("ui", "app"):
                problems.append(f"{path}: includes {inc}; core/ knows nothing of ui/ or app/")
            elif top == "ui" and into == "app":
                problems.append(f"{path}: includes {inc}; ui/ knows nothing of app/")
            elif top == "app" and panel_header:
                problems.append(f"{path}: includes {inc}; app/ reaches the panels through ui/ui.h")
            elif top in ("ui", "app") and inc.startswith("core/model/format/"):
                problems.append(f"{path}: includes {inc}; {top}/ opens models through core/model/open.h")
            elif folder_problem(path, inc):
                problems.append(folder_problem(path, inc))
    for path in sorted(sources(root)):
        if path.split(os.sep)[0] in ("ui", "app"):
            problems.extend(call_problems(root, path))
        elif path.split(os.sep)[0] == "core" and unit(path) not in THREAD_HOMES:
            problems.extend(core_thread_problems(root, path))
    for component in loops(graph):
        problems.append("include loop: " + " -> ".join(cycle_in(graph, component)) + f" ({len(component)} files)")
    return problems


# (what a call looks like, what it is) that ui/ and app/ must not make: rules 6 and 7.
THREADS = (
    (re.compile(r"\bstd::(thread|jthread)\b"), "starts a thread (std::thread)"),
    (re.compile(r"\bstd::async\b"), "starts a thread (std::async)"),
    (re.compile(r"\bbackground::start\b"), "starts a thread (core::background::start)"),
)
FORWARDS = (
    re.compile(r"(?:\.|->)\s*(forward|extend)\s*\("),
    re.compile(r"\b(generate_greedy|qk_stream|head_logits|fill_logits)\s*\("),
)
CODE_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)


def code_of(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return CODE_NOISE.sub('""', f.read())


def call_problems(root, path):
    """Rules 6 and 7 for one file of ui/ or app/."""
    found = []
    code = code_of(root, path)
    for pattern, what in THREADS:
        if pattern.search(code):
            found.append(f"{path}: {what}; run the work on a core::Worker (core/worker.h)")
    for pattern in FORWARDS:
        match = pattern.search(code)
        if match:
            found.append(f"{path}: calls {match.group(1)}() directly; ask the question through core/model/requests/")
    return found


# The units of core/ that start threads (rule 8).
THREAD_HOMES = ("core/background", "core/parallel")


def core_thread_problems(root, path):
    """Rule 8 for one file of core/ outside THREAD_HOMES."""
    code = code_of(root, path)
    return [f"{path.replace(os.sep, '/')}: {what}; core/ starts threads in core/background (a task, a core::Worker) or core/parallel "
            "(a split across cores) alone"
            for pattern, what in THREADS[:2] if pattern.search(code)]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems = broken_rules(root)
    for p in problems:
        print(p)
    checked = sum(1 for _ in sources(root))
    print(f"include rules: {checked} files, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
