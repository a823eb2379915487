"""What the NumPy tests of attnviz's command line share. Each runs as TEST.py ATTNVIZ WORKDIR: the
fixture checkpoints are written into WORKDIR, attnviz's JSON is compared with a NumPy reference,
every failure is one line on stderr as it is found, and the test exits non-zero when any was."""
import json
import os
import subprocess
import sys

import numpy as np

attnviz, workdir = sys.argv[1:3]
TEST = os.path.splitext(os.path.basename(sys.argv[0]))[0]
failures = []


def fail(message):
    failures.append(message)
    print(f"{TEST}: FAIL " + message, file=sys.stderr)


def run(*args):
    return subprocess.run([attnviz, *args], capture_output=True, text=True)


def output_of(*args):
    """attnviz ARGS's JSON, or None after a failure naming its exit and stderr."""
    r = run(*args)
    if r.returncode != 0:
        fail(f"{' '.join(args[:2])}: exit {r.returncode}: {r.stderr.strip()}")
        return None
    return json.loads(r.stdout)


def close(name, got, reference, rel=1e-4):
    """A failure unless `got` has the reference's shape and lies within rel of its largest value."""
    got, reference = np.asarray(got, np.float64), np.asarray(reference, np.float64)
    if got.shape != reference.shape:
        return fail(f"{name}: shape {got.shape}, the reference has {reference.shape}")
    err = np.abs(got - reference).max() / max(np.abs(reference).max(), 1e-30)
    if not err <= rel:
        fail(f"{name}: largest difference {err:.3g} of the largest value (tolerance {rel})")


def forward_checked(name, path, ids, logits, attention, against=""):
    """attnviz --forward PATH on `ids`, its logits and attention held to the reference's (`against` says
    which, in the messages): its JSON and stderr, or (None, stderr) after a failure naming the exit."""
    r = run("--forward", path, "--sequence", " ".join(map(str, ids)))
    if r.returncode != 0:
        fail(f"{name}: --forward exited {r.returncode}: {r.stderr.strip()}")
        return None, r.stderr
    out = json.loads(r.stdout)
    close(f"{name} at {len(ids)} positions: logits{against}", out["logits"], logits)
    close(f"{name} at {len(ids)} positions: attention{against}", out["attention"], attention)
    return out, r.stderr


def write_fixtures():
    """The checkpoints of tests/fixtures/make_checkpoints.py, into WORKDIR."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "make_checkpoints.py")
    subprocess.run(["/usr/bin/python3", script, workdir], check=True)


def vocab_size(name):
    """Fixture `name`'s vocabulary size (a multimodal config's is its text_config's)."""
    config = json.load(open(os.path.join(workdir, name, "config.json")))
    return config.get("text_config", config)["vocab_size"]


def finish(passed):
    """Exits with the count of failures, if any; else prints `passed` after the test's name."""
    if failures:
        sys.exit(f"{TEST}: {len(failures)} failures")
    print(f"{TEST}: {passed}")
