#!/usr/bin/python3
"""include_rules.py on small made-up trees: a clean one passes; a loop, a panel including another
panel's header, core/ including ui/, app/ including a panel, core/model/ including core/train/ (and
back), core/heads/ including either, ui/ or app/ including core/model/format/, ui/ or app/ starting
a thread, ui/ or app/ calling a forward, and core/ starting a thread outside core/background and
core/parallel each fail with their message; those two may start threads, and a comment or a string
that names one is no call."""
import os
import subprocess
import sys
import tempfile

RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include_rules.py")


def run(files):
    with tempfile.TemporaryDirectory() as root:
        for path, content in files.items():
            includes, code = content if isinstance(content, tuple) else (content, "")
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write("".join(f'#include "{inc}"\n' for inc in includes) + "#include <vector>\n" + code)
        done = subprocess.run([sys.executable, RULES, root], capture_output=True, text=True)
        return done.returncode, done.stdout


CLEAN = {
    "core/a.h": [], "core/a.cpp": ["core/a.h"],
    "core/b.h": ["core/a.h"], "core/b.cpp": ["core/b.h"],
    "ui/view.h": ["core/a.h"],
    "ui/panels/learn/lesson.h": ["ui/view.h"], "ui/panels/learn/lesson.cpp": ["ui/panels/learn/lesson.h", "ui/panels/learn/lesson_checks.h"],
    "ui/panels/learn/lesson_checks.h": ["ui/view.h"], "ui/panels/learn/lesson_checks.cpp": ["ui/panels/learn/lesson_checks.h"],
    "ui/panels/explore/heatmap.h": ["ui/view.h"], "ui/panels/explore/heatmap.cpp": ["ui/panels/explore/heatmap.h"],
    "ui/panel_table.cpp": ["ui/panels/learn/lesson.h", "ui/panels/explore/heatmap.h"],
    "app/main.cpp": ["ui/view.h"],
    "core/heads/scores.h": ["core/a.h"], "core/heads/scores.cpp": ["core/heads/scores.h"],
    "core/model/forward.h": ["core/heads/scores.h"], "core/model/forward.cpp": ["core/model/forward.h"],
    "core/train/model.h": ["core/heads/scores.h"], "core/train/model.cpp": ["core/train/model.h"],
    "core/model/open.h": ["core/model/forward.h"],
    "core/model/format/checkpoint.h": ["core/model/open.h"], "core/model/format/checkpoint.cpp": ["core/model/format/checkpoint.h"],
    "ui/model_service.cpp": ["core/model/open.h"],
    "app/cli/cli_model.cpp": ["core/model/open.h"],
}


def check(name, changes, expected):
    files = dict(CLEAN)
    files.update(changes)
    code, out = run(files)
    ok = (code == 0) if expected is None else (code == 1 and expected in out)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": exit {code}, output:\n{out}"))
    return ok


def main():
    results = [
        check("a clean tree passes", {}, None),
        # a.cpp includes b.h, b.h includes a.h: the pair a.h/a.cpp and b are a loop of two files.
        check("a loop through a .cpp", {"core/a.cpp": ["core/a.h", "core/b.h"]}, "include loop: core/a -> core/b -> core/a (2 files)"),
        check("a panel including another panel's header", {"ui/panels/learn/lesson.cpp": ["ui/panels/learn/lesson.h", "ui/panels/explore/heatmap.h"]},
              "ui/panels/learn/lesson.cpp: includes ui/panels/explore/heatmap.h, another panel's header"),
        check("core/ including ui/", {"core/b.cpp": ["core/b.h", "ui/view.h"]}, "core/b.cpp: includes ui/view.h; core/ knows nothing"),
        check("app/ including a panel", {"app/main.cpp": ["ui/panels/explore/heatmap.h"]}, "app/main.cpp: includes ui/panels/explore/heatmap.h; app/ reaches"),
        check("core/model/ including core/train/", {"core/model/forward.cpp": ["core/model/forward.h", "core/train/model.h"]},
              "core/model/forward.cpp: includes core/train/model.h; core/model/ and core/train/ stand side by side"),
        check("core/train/ including core/model/", {"core/train/model.cpp": ["core/train/model.h", "core/model/forward.h"]},
              "core/train/model.cpp: includes core/model/forward.h; core/model/ and core/train/ stand side by side"),
        check("core/heads/ including core/model/", {"core/heads/scores.cpp": ["core/heads/scores.h", "core/model/forward.h"]},
              "core/heads/scores.cpp: includes core/model/forward.h; core/heads/ lies below"),
        check("core/heads/ including core/train/", {"core/heads/scores.h": ["core/train/model.h"]},
              "core/heads/scores.h: includes core/train/model.h; core/heads/ lies below"),
        check("ui/ including core/model/format/", {"ui/model_service.cpp": ["core/model/format/checkpoint.h"]},
              "ui/model_service.cpp: includes core/model/format/checkpoint.h; ui/ opens models through core/model/open.h"),
        check("app/ including core/model/format/", {"app/cli/cli_model.cpp": ["core/model/open.h", "core/model/format/checkpoint.h"]},
              "app/cli/cli_model.cpp: includes core/model/format/checkpoint.h; app/ opens models through core/model/open.h"),
        check("ui/ starting a std::thread", {"ui/model_service.cpp": (["core/model/open.h"], "void f() { std::thread t([] {}); t.join(); }\n")},
              "ui/model_service.cpp: starts a thread (std::thread); run the work on a core::Worker"),
        check("app/ starting std::async", {"app/main.cpp": (["ui/view.h"], "auto f = std::async(std::launch::async, [] { return 1; });\n")},
              "app/main.cpp: starts a thread (std::async)"),
        check("a panel starting core::background::start", {"ui/panels/explore/heatmap.cpp": (["ui/panels/explore/heatmap.h"], "core::background::start(work);\n")},
              "ui/panels/explore/heatmap.cpp: starts a thread (core::background::start)"),
        check("a panel calling a model's forward", {"ui/panels/learn/lesson.cpp": (["ui/panels/learn/lesson.h"], "const auto r = m.model->forward(ids, options);\n")},
              "ui/panels/learn/lesson.cpp: calls forward() directly; ask the question through core/model/requests/"),
        check("app/ calling generate_greedy", {"app/cli/cli_model.cpp": (["core/model/open.h"], "auto made = core::model::generate_greedy(*m.model, ids, 5);\n")},
              "app/cli/cli_model.cpp: calls generate_greedy() directly"),
        check("app/ extending a cache", {"app/cli/cli_model.cpp": (["core/model/open.h"], "model.extend(cache, ids, fo);\n")},
              "app/cli/cli_model.cpp: calls extend() directly"),
        check("core/ starting a std::thread outside its two homes", {"core/train/model.cpp": (["core/train/model.h"], "void f() { std::thread t([] {}); t.join(); }\n")},
              "core/train/model.cpp: starts a thread (std::thread); core/ starts threads in core/background"),
        check("core/ starting std::async outside its two homes", {"core/b.h": (["core/a.h"], "auto f = std::async(std::launch::async, [] { return 1; });\n")},
              "core/b.h: starts a thread (std::async); core/ starts threads in core/background"),
        check("core/background and core/parallel starting threads and a comment or string naming one pass",
              {"core/background.cpp": ([], "void start() { std::thread([] {}).detach(); }\n"),
               "core/background.h": ([], "auto meanwhile() { return std::async(std::launch::async, [] { return 1; }); }\n"),
               "core/parallel.cpp": ([], "void pool() { std::thread([] {}).detach(); }\n"),
               "core/b.cpp": (["core/b.h"], "// not std::thread\nconst char* s = \"std::async\";\n"),
               "ui/model_service.cpp": (["core/model/open.h"], "// not std::thread, nor m.model->forward(ids)\nconst char* s = \"std::async\";\n")}, None),
    ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
