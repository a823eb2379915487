#!/usr/bin/env python3
"""How long loading a large tokenizer.json takes: attnviz against the Hugging Face tokenizers library
(the npm package tokenizers, the same Rust engine as Python's), alternating, in the same run.

    bench/tokenizer_load.py [ROUNDS]            default 7

Needs build/attnviz (or $ATTNVIZ), node, and the npm package tokenizers: from $NODE_PATH, else
installed once into $DIR/node (npm install tokenizers@0.23.2). The two files come from
bench/make_big_tokenizers.py, written once into $DIR (default /tmp/attnviz-bench-tokenizers).

Each round runs, for each file, `attnviz --tokenize FILE --text TEXT` and a node process that loads
the same file with Tokenizer.fromFile and encodes TEXT; the order inside a round alternates. Both
are timed as whole processes (start, read, parse, build, encode, exit), and node's fromFile call
also alone, from inside node. The two must give the same ids. Prints each run, the medians and the
load average before and after.
"""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DIR = os.environ.get("DIR", "/tmp/attnviz-bench-tokenizers")
ATTNVIZ = os.environ.get("ATTNVIZ", os.path.join(ROOT, "build", "attnviz"))
TEXT = "Hello world, the quick brown fox.\n\n  Numbers 12345, 日本語のテキスト and an emoji 😀"

NODE_SCRIPT = """
const tk = require('tokenizers');
const t0 = process.hrtime.bigint();
const t = tk.Tokenizer.fromFile(process.argv[1]);
const t1 = process.hrtime.bigint();
t.encode(process.argv[2]).then((e) => console.log(JSON.stringify({ load_ms: Number(t1 - t0) / 1e6, ids: e.getIds() })));
"""


def node_path():
    if os.environ.get("NODE_PATH"):
        return os.environ["NODE_PATH"]
    folder = os.path.join(DIR, "node")
    if not os.path.isdir(os.path.join(folder, "node_modules", "tokenizers")):
        os.makedirs(folder, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--prefix", folder, "tokenizers@0.23.2"], check=True)
    return os.path.join(folder, "node_modules")


def files():
    names = ["gemma3", "llama3"]
    paths = [os.path.join(DIR, n, "tokenizer.json") for n in names]
    if not all(os.path.exists(p) for p in paths):
        subprocess.run([sys.executable, os.path.join(HERE, "make_big_tokenizers.py"), DIR], check=True)
    return list(zip(names, paths))


def timed(cmd, env=None):
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return (time.perf_counter() - t0) * 1000, json.loads(out)


def load():
    return "%.2f" % os.getloadavg()[0]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    env = dict(os.environ, NODE_PATH=node_path())
    todo = files()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(json.dumps({"started": time.strftime("%H:%M:%S"), "load": load(), "commit": commit, "rounds": rounds}))
    times = {name: {"attnviz": [], "node": [], "node_from_file": []} for name, _ in todo}
    for r in range(rounds):
        for name, path in todo:
            runs = [("attnviz", [ATTNVIZ, "--tokenize", path, "--text", TEXT], None), ("node", ["node", "-e", NODE_SCRIPT, path, TEXT], env)]
            if r % 2:
                runs.reverse()
            ids = {}
            for who, cmd, e in runs:
                ms, out = timed(cmd, e)
                times[name][who].append(ms)
                ids[who] = out["ids"]
                if who == "node":
                    times[name]["node_from_file"].append(out["load_ms"])
            if ids["attnviz"] != ids["node"]:
                sys.exit("%s: attnviz gives %s, tokenizers %s" % (name, ids["attnviz"], ids["node"]))
            print(json.dumps({"round": r, "file": name, "attnviz_ms": round(times[name]["attnviz"][-1], 1),
                              "node_ms": round(times[name]["node"][-1], 1), "node_from_file_ms": round(times[name]["node_from_file"][-1], 1),
                              "load": load()}))
    for name, path in todo:
        t = times[name]
        print(json.dumps({"file": name, "mb": round(os.path.getsize(path) / 1e6, 1),
                          "attnviz_median_ms": round(statistics.median(t["attnviz"]), 1),
                          "attnviz_range_ms": [round(min(t["attnviz"]), 1), round(max(t["attnviz"]), 1)],
                          "node_median_ms": round(statistics.median(t["node"]), 1),
                          "node_range_ms": [round(min(t["node"]), 1), round(max(t["node"]), 1)],
                          "node_from_file_median_ms": round(statistics.median(t["node_from_file"]), 1),
                          "same_ids": True}))
    print(json.dumps({"finished": time.strftime("%H:%M:%S"), "load": load()}))


if __name__ == "__main__":
    main()
