#!/usr/bin/env python3
"""docs/formats.md's NumPy forward pass against `attnviz --forward`: train two tiny models (with and
without the MLP), run both on the same sequence, compare logits and attention.
usage: train_numpy_test.py ATTNVIZ FORMATS.md WORKDIR"""
import json, os, re, subprocess, sys
import numpy as np

attnviz, readme, workdir = sys.argv[1:4]
text = open(readme, encoding="utf-8").read()
snippet = re.search(r"<!-- numpy-forward:begin -->\n```python\n(.*?)```\n<!-- numpy-forward:end -->", text, re.S)
if not snippet:
    sys.exit("train_numpy_test: the document has no numpy-forward snippet")
namespace = {}
exec(snippet.group(1), namespace)

os.makedirs(workdir, exist_ok=True)
tokens = [3, 1, 4, 1, 5, 2]
for mlp in (False, True):
    path = os.path.join(workdir, f"numpy-check-{int(mlp)}.safetensors")
    args = [attnviz, "--train", "previous", "--layers", "2", "--heads", "2", "--d-model", "8", "--ctx", "8",
            "--vocab", "7", "--steps", "20", "--threads", "1", "--out", path] + (["--mlp"] if mlp else [])
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    out = json.loads(subprocess.run([attnviz, "--forward", path, "--sequence", " ".join(map(str, tokens))],
                                    check=True, capture_output=True, text=True).stdout)
    config, W = namespace["load"](path)
    logits, attention = namespace["forward"](config, W, tokens)
    for name, ours, theirs in (("logits", logits, out["logits"]), ("attention", attention, out["attention"])):
        theirs = np.array(theirs)
        if ours.shape != theirs.shape or not np.allclose(ours, theirs, rtol=0, atol=1e-10):
            sys.exit(f"train_numpy_test: {name} differ (mlp={mlp}): shapes {ours.shape} {theirs.shape}, "
                     f"largest difference {np.abs(ours - theirs).max() if ours.shape == theirs.shape else 'n/a'}")
print("train_numpy_test: the documented NumPy forward pass matches --forward, with and without the MLP")
