#!/usr/bin/env python3
"""The project as a patch series onto linux-source-6.12 (patches/steps).

The project's files are written as they are at the end of the series. A
step adds whole files and applies patches of patches/ to the kernel's own
files; what a later step adds to a file an earlier step brought is marked
in that file, on lines of their own:

    /* bts-series: from STEP */     lines kept from STEP on
    /* bts-series: until STEP */    lines kept before STEP only
    /* bts-series: end */           closes the innermost block

(or the same after "#" in Kconfig and Makefiles, " * " inside a comment).
Marker lines are never kept, and blocks nest.

tools/bts-dump is built from these files as they are (its Makefile knows
nothing of the series), so they must compile with every block in them.
Code an "until" block replaces is written there behind "//~" at the
start of each line: a comment to the compiler, and the code itself
(without the three characters) in the steps before STEP. "//~" lines
belong in "until" blocks only.

    mkseries.py patches             patches/ files, in the order applied
    mkseries.py strip FILE          FILE as it is after the last step
    mkseries.py series OUTDIR       the series: 0000 cover letter, then
                                    one git format-patch file per step
    mkseries.py tree STEP DIR       the touched files after STEP (for
                                    series-check's per-step builds)

Everything is generated: the series and the build always agree, and no
patch of the series is edited by hand.
"""
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
PRISTINE = os.path.join(BUILD, "pristine", "linux-source-6.12")
STEPS = os.path.join(TOP, "patches", "steps")
COVER = os.path.join(TOP, "patches", "cover-letter")
# where the overlay lives (harness/build-kernel.sh copies these)
OVERLAY_DIRS = ["arch", "include", "kernel", "Documentation", "tools"]
MARK = re.compile(r"bts-series:\s*(from|until|end)\b\s*([A-Za-z0-9_-]*)")
# the start of a line of code an until block keeps commented out (above)
UNTIL_CODE = "//~"


class Error(Exception):
    pass


class Step:
    def __init__(self, name):
        self.name = name
        self.subject = ""
        self.files = []
        self.patches = []
        self.body = []


def parse_steps():
    steps, excludes, cur, in_body = [], [], None, False
    with open(STEPS) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("step "):
                cur = Step(line.split()[1])
                steps.append(cur)
                in_body = False
                continue
            if in_body:
                cur.body.append(line)
                continue
            if line.startswith("#"):
                continue
            if not line.strip():
                if cur:
                    in_body = True
                continue
            key, _, val = line.partition(":")
            val = val.split()
            if key == "exclude":
                excludes += val
            elif cur is None:
                raise Error(f"patches/steps:{n}: {key}: before the first step")
            elif key == "subject":
                cur.subject = line.partition(":")[2].strip()
            elif key == "files":
                cur.files += val
            elif key == "patches":
                cur.patches += val
            else:
                raise Error(f"patches/steps:{n}: unknown key {key!r}")
    names = [s.name for s in steps]
    if len(set(names)) != len(names):
        raise Error("patches/steps: a step name is used twice")
    for s in steps:
        while s.body and not s.body[-1].strip():
            s.body.pop()
        if not s.subject or not s.body:
            raise Error(f"patches/steps: step {s.name} has no subject or no message")
    return steps, excludes


def overlay_files():
    out = subprocess.run(["git", "-C", TOP, "ls-files", "-co", "--exclude-standard",
                          "--"] + OVERLAY_DIRS, capture_output=True, text=True, check=True)
    return sorted(f for f in out.stdout.split("\n")
                  if f and os.path.isfile(os.path.join(TOP, f)))


def assign(steps, excludes):
    """{overlay file: index of the step that adds it}; every file has one."""
    files = overlay_files()
    owner = {}
    for i, s in enumerate(steps):
        for pat in s.files:
            hit = [f for f in files if f == pat or f.startswith(pat.rstrip("/") + "/")]
            if not hit:
                raise Error(f"patches/steps: step {s.name}: {pat} names no file")
            for f in hit:
                if f in owner:
                    raise Error(f"patches/steps: {f} is in steps {steps[owner[f]].name} and {s.name}")
                owner[f] = i
    left = [f for f in files if f not in owner and f.startswith(("arch/", "include/", "kernel/",
                                                                 "Documentation/", "tools/bts-dump/",
                                                                 "tools/testing/selftests/bts/"))
            and not any(fnmatch.fnmatch(f, e) for e in excludes)]
    if left:
        raise Error("patches/steps: in no step and not excluded: " + " ".join(left[:5]))
    return {f: i for f, i in owner.items() if not any(fnmatch.fnmatch(f, e) for e in excludes)}


def strip(lines, names, k, where):
    """@lines as they are after step index @k.

    Where lines were left out, the blank lines around them are tidied as
    a hand-written patch would have them: never two in a row, none just
    inside a brace.
    """
    idx = {n: i for i, n in enumerate(names)}
    out, stack, kinds, skip, gap = [], [], [], 0, False
    for n, line in enumerate(lines, 1):
        m = MARK.search(line)
        if not m:
            if "bts-series:" in line:
                raise Error(f"{where}:{n}: not a bts-series marker: {line.strip()}")
            if line.startswith(UNTIL_CODE) and "until" not in kinds:
                raise Error(f"{where}:{n}: {UNTIL_CODE} outside an until block")
            if skip:
                gap = True
                continue
            if line.startswith(UNTIL_CODE):
                line = line[len(UNTIL_CODE):]
            blank = not line.strip()
            if gap and out:
                last = out[-1]
                if blank and (not last.strip() or last.rstrip().endswith("{")):
                    continue
                if line.lstrip().startswith("}") and not last.strip():
                    out.pop()
            out.append(line)
            gap = False
            continue
        kind, step = m.groups()
        if kind == "end":
            if not stack:
                raise Error(f"{where}:{n}: bts-series: end without a block")
            kinds.pop()
            if not stack.pop():
                skip -= 1
            continue
        if step not in idx:
            raise Error(f"{where}:{n}: unknown step {step!r}")
        keep = idx[step] <= k if kind == "from" else idx[step] > k
        stack.append(keep)
        kinds.append(kind)
        if not keep:
            skip += 1
    if stack:
        raise Error(f"{where}: {len(stack)} bts-series block(s) not closed")
    return out


def read_lines(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read().splitlines(keepends=True)


def write_lines(path, lines, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.writelines(lines)
    if mode is not None:
        os.chmod(path, mode)


def patched_files(patch):
    with open(os.path.join(TOP, "patches", patch)) as f:
        return [m.group(1) for m in re.finditer(r"^\+\+\+ b/(\S+)", f.read(), re.M)]


def build_tree(steps, owner, k, dest):
    """Every file the series touches, as it is after step index @k, in @dest."""
    names = [s.name for s in steps]
    touched = sorted({f for s in steps for p in s.patches for f in patched_files(p)})
    if not os.path.isfile(os.path.join(PRISTINE, "Makefile")):
        raise Error(f"{PRISTINE} is missing: 'make pristine' unpacks it "
                    "(from Debian's linux-source-6.12: 'make deps')")
    for f in touched:
        src = os.path.join(PRISTINE, f)
        if os.path.exists(src):
            os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
            shutil.copyfile(src, os.path.join(dest, f))
    for s in steps[:k + 1]:
        for p in s.patches:
            # --batch, no terminal: a file that is missing is an error,
            # never a "File to patch:" prompt
            r = subprocess.run(["patch", "-d", dest, "-p1", "-N", "-s", "--batch",
                                "--no-backup-if-mismatch", "-r", "-",
                                "-i", os.path.join(TOP, "patches", p)],
                               stdin=subprocess.DEVNULL, capture_output=True, text=True)
            if r.returncode:
                raise Error(f"patches/{p} does not apply at step {s.name}: {r.stdout}{r.stderr}")
    for f in touched:
        path = os.path.join(dest, f)
        if os.path.exists(path):
            write_lines(path, strip(read_lines(path), names, k, f))
    for f, i in owner.items():
        if i <= k:
            src = os.path.join(TOP, f)
            write_lines(os.path.join(dest, f), strip(read_lines(src), names, k, f),
                        os.stat(src).st_mode & 0o777)


def git(cwd, *args, **kw):
    return subprocess.run(["git", "-C", cwd] + list(args), check=True,
                          capture_output=True, text=True, **kw).stdout


def ident():
    name = subprocess.run(["git", "-C", TOP, "config", "user.name"], capture_output=True,
                          text=True).stdout.strip()
    mail = subprocess.run(["git", "-C", TOP, "config", "user.email"], capture_output=True,
                          text=True).stdout.strip()
    if not name or not mail:
        raise Error("git config user.name and user.email are not set: they sign the series")
    return name, mail


def series(outdir):
    outdir = os.path.abspath(outdir)
    steps, excludes = parse_steps()
    owner = assign(steps, excludes)
    name, mail = ident()
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=mail,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=mail,
               GIT_AUTHOR_DATE="2026-12-01T00:00:00Z", GIT_COMMITTER_DATE="2026-12-01T00:00:00Z")
    with tempfile.TemporaryDirectory(dir=BUILD) as tmp:
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        git(repo, "init", "-q")
        # the base: the pristine files the series touches, as Debian's
        # linux-source-6.12 has them (a 6.12 stable release, not v6.12)
        build_tree(steps, owner, -1, repo)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--allow-empty", "-m", "linux-source-6.12", env=env)
        base = git(repo, "rev-parse", "HEAD").strip()
        for k, s in enumerate(steps):
            for f in git(repo, "ls-files").split("\n"):
                if f:
                    os.unlink(os.path.join(repo, f))
            build_tree(steps, owner, k, repo)
            git(repo, "add", "-A")
            msg = f"{s.subject}\n\n" + "\n".join(s.body) + f"\n\nSigned-off-by: {name} <{mail}>\n"
            git(repo, "commit", "-q", "--allow-empty", "-F", "-", input=msg, env=env)
        cover = ""
        if os.path.exists(COVER):
            with open(COVER) as f:
                cover = f.read()
        git(repo, "format-patch", "-q", "--rfc", "--numbered", "--signature=bts", "--cover-letter",
            "--no-binary", "-o", outdir, f"{base}..HEAD", env=env)
        stat = git(repo, "diff", "--stat=72", "--summary", base, "HEAD")
    # the cover letter: patches/cover-letter's subject and text, git's shortlog and diffstat
    c = [f for f in os.listdir(outdir) if f.startswith("0000-")][0]
    subj, _, text = cover.partition("\n")
    nums = len(steps)
    with open(os.path.join(outdir, c)) as f:
        tmpl = f.read()
    tmpl = tmpl.replace("*** SUBJECT HERE ***", subj.strip() or "bts: a branch flight recorder")
    head, _, rest = tmpl.partition("*** BLURB HERE ***")
    shortlog = rest.split("\n\n", 1)[1] if "\n\n" in rest else rest
    body = text.strip() + f"\n\nSigned-off-by: {name} <{mail}>\n"
    with open(os.path.join(outdir, c), "w") as f:
        f.write(head + body + "\n" + shortlog)
    print(f"series: {nums} patches and a cover letter in {outdir}")


def main():
    try:
        if len(sys.argv) >= 2 and sys.argv[1] == "patches":
            steps, _ = parse_steps()
            print("\n".join(p for s in steps for p in s.patches))
        elif len(sys.argv) == 3 and sys.argv[1] == "strip":
            steps, _ = parse_steps()
            names = [s.name for s in steps]
            sys.stdout.writelines(strip(read_lines(sys.argv[2]), names, len(names) - 1,
                                        sys.argv[2]))
        elif len(sys.argv) == 3 and sys.argv[1] == "series":
            series(sys.argv[2])
        elif len(sys.argv) == 2 and sys.argv[1] == "steps":
            steps, _ = parse_steps()
            print("\n".join(s.name for s in steps))
        elif len(sys.argv) == 4 and sys.argv[1] == "tree":
            steps, excludes = parse_steps()
            names = [s.name for s in steps]
            if sys.argv[2] not in names:
                raise Error(f"no step {sys.argv[2]}")
            build_tree(steps, assign(steps, excludes), names.index(sys.argv[2]), sys.argv[3])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except Error as e:
        print(f"series: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
