#!/usr/bin/env python3
"""Mutation fuzz test of kernel-opt and emit-ptx.

Mutates the kernels of kernels_dsl/ and the lit inputs of test/ (each
`// -----` section on its own) and runs every mutant through kernel-opt
(with one of the pass pipelines the lit tests use) and emit-ptx (for one
target). A mutant fails the test when a tool crashes (a signal, an LLVM
fatal error or stack dump, an assertion), hangs, or rejects the mutant
without a located `error:` diagnostic (FILE:LINE:COL or loc(...)) or with
a zero exit status. A run hangs when it takes longer than the time limit
and than three times the unmutated section under the same arguments
(timed only when the limit is passed): a mutant of a whole kernel file
compiles every instance of it, as the file itself does.

The seed and the mutant count are fixed, and mutant N is built from a
random generator seeded with (seed, N) alone, so a run over one source
tree is reproducible (a new lit input changes the mutants) and
`--mutant N` rebuilds exactly one mutant. Failing mutants are kept under
WORK_DIR/failures, with failures.txt giving the command that reproduces
each.
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import time

# No __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutations  # noqa: E402

TARGETS = ["sm_80", "sm_90a", "sm_100a"]
# The pipelines the lit tests run, so each stage sees mutants of the IR it
# is written for (already laid-out inputs, dot loops, lowered inputs).
KERNEL_OPT_PIPELINES = [
    [],
    ["-tile-assign-layouts", "-canonicalize", "-cse"],
    ["-tile-assign-layouts", "-tile-allocate-shared",
     "-convert-tile-to-llvm"],
    ["-tile-assign-layouts=target=sm_90a", "-canonicalize",
     "-tile-pipeline-loads", "-canonicalize", "-cse"],
    ["-tile-assign-layouts=target=sm_90a", "-canonicalize",
     "-tile-allocate-shared", "-convert-tile-to-llvm=target=sm_90a"],
    ["-convert-tile-to-llvm"],
    ["--tile-to-ptx=target=sm_80"],
    ["--tile-to-ptx=target=sm_90a"],
    ["--tile-to-ptx=target=sm_100a num-warps=2"],
]

CRASH_MARKERS = [
    "PLEASE submit a bug report",
    "Stack dump:",
    "Assertion `",
    "LLVM ERROR:",
    "UNREACHABLE executed",
    "terminate called",
]
# A diagnostic MLIR's SourceMgr handler prints with a source position, or
# with the printed location when it has none in the file.
LOCATED_ERROR = re.compile(
    r"^(?!<unknown>)[^\s:]+:\d+:\d+: error:|^loc\(.*\): error:", re.M)
ANY_ERROR = re.compile(r"\berror:")
SPLIT_MARKER = re.compile(r"^// -----\s*$", re.M)
COMMENT_LINE = re.compile(r"^\s*//")
# lit annotations after code: kernel-opt, like mlir-opt 22, reports an
# unmet one as an error (and exits 0) even without --verify-diagnostics.
TRAILING_ANNOTATION = re.compile(r"\s*// expected-.*$")

# Mutants whose failures are known and are to be fixed outside the code
# this test guards: (mutator, seed section prefix, open issue). Empty when
# every failure is to be fixed.
KNOWN_FAILURES = []


def collect_seeds(src_root):
    """Returns [(name, text)]: each section of each kernel and lit input,
    without comment-only and blank lines (so line edits hit code)."""
    paths = []
    for sub in ("kernels_dsl", "test"):
        for dirpath, dirnames, filenames in os.walk(
                os.path.join(src_root, sub)):
            dirnames.sort()
            paths += [os.path.join(dirpath, f) for f in sorted(filenames)
                      if f.endswith(".mlir")]
    seeds = []
    for path in paths:
        rel = os.path.relpath(path, src_root)
        with open(path, encoding="utf-8") as f:
            sections = SPLIT_MARKER.split(f.read())
        for i, section in enumerate(sections):
            lines = [TRAILING_ANNOTATION.sub("", l)
                     for l in section.split("\n")
                     if l.strip() and not COMMENT_LINE.match(l)]
            if lines:
                seeds.append(("%s#%d" % (rel, i), "\n".join(lines) + "\n"))
    return seeds


def make_mutant(seeds, seed, index):
    """Mutant `index`: its text, what it came from, and the two commands'
    arguments (without tool and file)."""
    rng = random.Random(seed * 1000003 + index)
    # Half the mutants come from the real kernels, which reach every pass;
    # the others from a lit input file, each file as likely as another
    # however many sections it has.
    files = sorted({s[0].split("#")[0] for s in seeds})
    kernels = [f for f in files if f.startswith("kernels_dsl/")]
    path = rng.choice(kernels if kernels and rng.random() < 0.5 else files)
    name, text = rng.choice([s for s in seeds
                             if s[0].split("#")[0] == path])
    text, applied = mutations.mutate(rng, text)
    opt_args = rng.choice(KERNEL_OPT_PIPELINES) + ["-o", os.devnull]
    ptx_args = ["--target=" + rng.choice(TARGETS), "-o", os.devnull]
    # emit-ptx's own options: the pipeline's knobs and what it prints.
    if rng.random() < 0.2:
        ptx_args.append("--num-stages=" + rng.choice(["1", "2", "3"]))
    if rng.random() < 0.2:
        ptx_args.append("--num-warps=" + rng.choice(["1", "2", "8", "16"]))
    if rng.random() < 0.3:
        ptx_args.append(rng.choice(["--emit=llvm", "--emit=mlir",
                                    "--metadata", "--summary"]))
    return {"index": index, "seed_section": name, "mutators": applied,
            "text": text, "runs": [("kernel-opt", opt_args),
                                   ("emit-ptx", ptx_args)]}


def known_failure(mutant):
    for mutator, section, issue in KNOWN_FAILURES:
        if (mutator in mutant["mutators"]
                and mutant["seed_section"].startswith(section)):
            return issue
    return None


def check(proc_rc, output):
    """Why a run's result is a failure, or None."""
    for marker in CRASH_MARKERS:
        if marker in output:
            return "crash (%s)" % marker
    if proc_rc < 0:
        return "crash (signal %d)" % -proc_rc
    if proc_rc == 0:
        if ANY_ERROR.search(output):
            return "error diagnostic with exit status 0"
        return None
    if not LOCATED_ERROR.search(output):
        return "rejected (exit %d) without a located error" % proc_rc
    return None


def seed_seconds(tool_path, seed_text, args, work_dir, index, limit):
    """How long the tool takes on the unmutated section, or None past
    `limit` seconds."""
    path = os.path.join(work_dir, "mutants", "seed-%05d.mlir" % index)
    with open(path, "w", encoding="utf-8") as f:
        f.write(seed_text)
    start = time.monotonic()
    try:
        subprocess.run([tool_path, path] + args, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=limit)
        return time.monotonic() - start
    except subprocess.TimeoutExpired:
        return None
    finally:
        os.remove(path)


def run_mutant(mutant, tools, work_dir, timeout, seed_text):
    path = os.path.join(work_dir, "mutants", "mutant-%05d.mlir"
                        % mutant["index"])
    with open(path, "w", encoding="utf-8") as f:
        f.write(mutant["text"])
    failures = []
    accepted = []
    env = dict(os.environ, LLVM_DISABLE_SYMBOLIZATION="1")
    for tool, args in mutant["runs"]:
        cmd = [tools[tool], path] + args
        limit = timeout
        while True:
            try:
                proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, env=env,
                                      timeout=limit)
                output = proc.stderr.decode("utf-8", "replace")
                why = check(proc.returncode, output)
                if proc.returncode == 0:
                    accepted.append(tool)
                break
            except subprocess.TimeoutExpired:
                output, why = "", "hang (no exit after %d s)" % limit
            if limit > timeout:
                break
            # As slow as its source is not a hang: allow three times the
            # unmutated section's own time.
            seconds = seed_seconds(tools[tool], seed_text, args, work_dir,
                                   mutant["index"], 3 * timeout)
            if seconds is None or 3 * seconds <= timeout:
                break
            limit = int(3 * seconds) + 1
        if why:
            failures.append({"tool": tool, "cmd": cmd, "why": why,
                             "output": output})
    if failures:
        kept = os.path.join(work_dir, "failures",
                            os.path.basename(path))
        shutil.copyfile(path, kept)
        for f in failures:
            f["cmd"] = [kept if a == path else a for a in f["cmd"]]
    os.remove(path)
    return failures, accepted


def signature(failure):
    """A short key to group failures with the same cause."""
    out = failure["output"]
    for pattern in (r"LLVM ERROR: [^\n]*", r"Assertion `[^\n]*",
                    r"^\d+\.\s+Running pass '[^\n]*", r"error: [^\n]*"):
        m = re.search(pattern, out, re.M)
        if m:
            return failure["tool"] + ": " + re.sub(r"\d+", "N", m.group(0))
    return failure["tool"] + ": " + failure["why"]


def shell_quote(args):
    return " ".join("'%s'" % a if re.search(r"[^\w@%+=:,./-]", a) else a
                    for a in args)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kernel-opt", required=True)
    parser.add_argument("--emit-ptx", required=True)
    parser.add_argument("--src-root", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--mutants", type=int, default=2000)
    parser.add_argument("--mutant", type=int, action="append",
                        help="run only this mutant (repeatable)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=60,
                        help="seconds one tool run may take")
    opts = parser.parse_args()

    tools = {"kernel-opt": os.path.abspath(opts.kernel_opt),
             "emit-ptx": os.path.abspath(opts.emit_ptx)}
    work_dir = os.path.abspath(opts.work_dir)
    shutil.rmtree(os.path.join(work_dir, "failures"), ignore_errors=True)
    for sub in ("mutants", "failures"):
        os.makedirs(os.path.join(work_dir, sub), exist_ok=True)

    seeds = collect_seeds(opts.src_root)
    indices = opts.mutant or range(opts.mutants)
    mutants = [make_mutant(seeds, opts.seed, i) for i in indices]
    seed_texts = dict(seeds)
    start = time.monotonic()
    skipped = []
    failed = []
    accepted = {tool: 0 for tool in tools}
    # Two processes at most: the CI machines have two cores.
    jobs = max(1, min(opts.jobs, 2))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = pool.map(
            lambda m: (m, run_mutant(m, tools, work_dir, opts.timeout,
                                     seed_texts[m["seed_section"]])),
            mutants)
        for mutant, (failures, passed) in results:
            for tool in passed:
                accepted[tool] += 1
            if not failures:
                continue
            issue = known_failure(mutant)
            if issue:
                skipped.append((mutant, issue))
            else:
                failed.append((mutant, failures))
    elapsed = time.monotonic() - start

    groups = {}
    # Every failing run, not only the first of each group printed below.
    with open(os.path.join(work_dir, "failures", "failures.txt"), "w",
              encoding="utf-8") as listing:
        for mutant, failures in failed:
            for f in failures:
                groups.setdefault(signature(f), []).append((mutant, f))
                listing.write("mutant %d (%s; %s): %s\n  %s\n" % (
                    mutant["index"], mutant["seed_section"],
                    ", ".join(mutant["mutators"]), f["why"],
                    shell_quote(f["cmd"])))
    for sig, members in sorted(groups.items()):
        mutant, f = members[0]
        print("FAIL: %s: %s (%d mutant(s): %s)" % (
            f["why"], sig, len(members),
            ", ".join(str(m["index"]) for m, _ in members[:10])))
        print("  from %s by %s" % (mutant["seed_section"],
                                   ", ".join(mutant["mutators"])))
        print("  reproduce: " + shell_quote(f["cmd"]))
        print("  regenerate: %s %s --kernel-opt %s --emit-ptx %s "
              "--src-root %s --work-dir %s --seed %d --mutant %d" % (
                  sys.executable, os.path.abspath(__file__),
                  tools["kernel-opt"], tools["emit-ptx"],
                  os.path.abspath(opts.src_root), work_dir, opts.seed,
                  mutant["index"]))
        tail = f["output"].strip().split("\n")[-12:]
        print("    " + "\n    ".join(tail))
    for mutant, issue in skipped:
        print("known failure (%s): mutant %d" % (issue, mutant["index"]))
    print("%d mutants of %d seed sections, accepted by kernel-opt %d, "
          "by emit-ptx %d; %d failing mutants, %d known failures; %.1f s" % (
              len(mutants), len(seeds), accepted["kernel-opt"],
              accepted["emit-ptx"], len(failed), len(skipped), elapsed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
