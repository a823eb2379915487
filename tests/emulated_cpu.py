#!/usr/bin/env python3
"""The test suite as another x86-64 CPU runs it, under QEMU's user-mode emulator.

usage: tests/emulated_cpu.py BUILD [--cpu MODEL] [-R REGEX] [-E REGEX] [--no-unit] [-j JOBS]

attnviz chooses its kernels from what cpuid says (core/kernels.h). ATTNVIZ_KERNELS can make an AVX-512
machine run the AVX2 path, but not make it answer cpuid as a CPU without AVX-512, so the choices and
messages of such a CPU on its own (the level it picks, what `--fast` says the CPU lacks) need one.
QEMU's user-mode emulator (Debian: qemu-user, 7.2) answers cpuid as the named model and runs AVX2,
FMA and F16C in software, each fused multiply-add rounded once as the hardware rounds it.

MODEL defaults to EPYC-Milan: AMD's Zen 3, with AVX2, FMA and F16C, and neither AVX-512 nor AVX-VNNI.
Every test of BUILD's ctest list that runs attnviz or the unit tests runs with those programs under
QEMU, as ctest would run them, with their environment and working directory; but without -R or -E,
the unit tests (unless --no-unit) go in runs of UNIT_CHUNK cases, one process each, not one a case. The tests that never run either program are left out. One line
per test; exit status 1 if any failed.

The emulator runs attnviz 10 to 40 times slower than the hardware, so this is a check to run by hand
(docs/architecture.md, "Testing"), not a stage of CI.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time

SLOWER = 40      # a test's ctest TIMEOUT times this, under the emulator
UNIT_CHUNK = 30  # unit test cases per process (doctest's --first and --last)


def cpu_option(qemu, model):
    """-cpu MODEL without the features that QEMU's TCG cannot give (it warns about each on every start,
    and those warnings would land in the tests' stderr). None of them is one attnviz asks about."""
    run = subprocess.run([qemu, "-cpu", model, "/bin/true"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"emulated_cpu: {qemu} -cpu {model} does not start: {run.stderr.strip()}")
    dropped = re.findall(r"requested feature: CPUID\.[0-9A-F]+H:[A-Z]+\.([a-z0-9_-]+) \[bit", run.stderr)
    return ",".join([model] + ["-" + f for f in dropped])


def wrapper(folder, qemu, cpu, program):
    """An executable script of program's name in folder that runs program under the emulator."""
    path = os.path.join(folder, os.path.basename(program))
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\nexec {qemu} -cpu {cpu} {program} "$@"\n')
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def unit_runs(unit, wrapped_unit, props):
    """The unit tests' cases in runs of UNIT_CHUNK, counted by the program itself (natively)."""
    out = subprocess.run([unit, "--count"], capture_output=True, text=True).stdout
    count = int(re.search(r"passing the current filters: (\d+)", out).group(1))
    return [(f"the unit tests, cases {first}-{min(count, first + UNIT_CHUNK - 1)} of {count}",
             [wrapped_unit, f"--first={first}", f"--last={first + UNIT_CHUNK - 1}"], props)
            for first in range(1, count + 1, UNIT_CHUNK)]


def ctest_list(build):
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["tests"]


def properties(test):
    return {p["name"]: p["value"] for p in test.get("properties", [])}


def run_one(name, command, props):
    env = dict(os.environ)
    for item in props.get("ENVIRONMENT", []):
        key, _, value = item.partition("=")
        env[key] = value
    timeout = max(600.0, float(props.get("TIMEOUT", 1500.0)) * SLOWER)
    start = time.time()
    try:
        run = subprocess.run(command, cwd=props.get("WORKING_DIRECTORY"), env=env, capture_output=True, text=True, timeout=timeout)
        ok, tail = run.returncode == 0, (run.stdout + run.stderr).strip().splitlines()[-8:]
    except subprocess.TimeoutExpired:
        ok, tail = False, [f"timed out after {timeout:.0f} s"]
    return name, ok, time.time() - start, tail


def select(a, build, wrapped, unit):
    """(name, command, properties) of each run: the tests of BUILD that start a wrapped program, their
    commands pointing at the wrappers."""
    jobs, unit_props = [], None
    for t in ctest_list(build):
        command = t.get("command") or []
        if a.include and not re.search(a.include, t["name"]):
            continue
        if a.exclude and re.search(a.exclude, t["name"]):
            continue
        if not any(arg in wrapped for arg in command):
            continue
        if command[0] == unit and not (a.include or a.exclude):  # every case: in runs of UNIT_CHUNK below
            unit_props = properties(t)
            continue
        if command[0] == unit and a.no_unit:
            continue
        jobs.append((t["name"], [wrapped.get(arg, arg) for arg in command], properties(t)))
    if unit_props is not None and not a.no_unit:
        jobs = unit_runs(unit, wrapped[unit], unit_props) + jobs
    return jobs


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("build")
    p.add_argument("--cpu", default="EPYC-Milan", help="a model of `qemu-x86_64 -cpu help` (default: EPYC-Milan, Zen 3)")
    p.add_argument("-R", dest="include", default="", help="only the tests whose names match")
    p.add_argument("-E", dest="exclude", default="", help="not the tests whose names match")
    p.add_argument("--no-unit", action="store_true", help="leave out the unit tests")
    p.add_argument("-j", dest="jobs", type=int, default=2)
    a = p.parse_args()
    qemu = shutil.which("qemu-x86_64")
    if not qemu:
        sys.exit("emulated_cpu: qemu-x86_64 is missing (Debian: apt-get install qemu-user)")
    build = os.path.abspath(a.build)
    attnviz, unit = os.path.join(build, "attnviz"), os.path.join(build, "tests", "attnviz_tests")
    cpu = cpu_option(qemu, a.cpu)
    folder = tempfile.mkdtemp(prefix="attnviz-emulated-")
    wrapped = {path: wrapper(folder, qemu, cpu, path) for path in (attnviz, unit)}
    jobs = select(a, build, wrapped, unit)

    version = subprocess.run([wrapped[attnviz], "--version"], capture_output=True, text=True).stdout.strip()
    print(f"emulated_cpu: {len(jobs)} runs on {a.cpu}, where `attnviz --version` says:\n  " + version.replace("\n", "\n  "))
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        # each as it ends: in order, one slow run of unit cases held back every report after it
        for done in concurrent.futures.as_completed([pool.submit(run_one, *j) for j in jobs]):
            name, ok, seconds, tail = done.result()
            print(f"{'passed' if ok else 'FAILED'} {seconds:7.1f} s  {name}", flush=True)
            if not ok:
                failed += 1
                print("    " + "\n    ".join(tail))
    shutil.rmtree(folder, ignore_errors=True)
    print(f"emulated_cpu: {len(jobs) - failed} of {len(jobs)} passed on {a.cpu}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
