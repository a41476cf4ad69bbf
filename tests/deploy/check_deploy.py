#!/usr/bin/env python3
"""Structural checks of the deployment files (docker/, deploy/), run by CTest.

  check_deploy.py dockerfile [--repo ROOT] [--dockerfile FILE]
  check_deploy.py compose    [--repo ROOT] [--compose FILE]
  check_deploy.py systemd    [--repo ROOT] [--unit FILE]
  check_deploy.py config-keys [--repo ROOT]
  check_deploy.py self-test  [--repo ROOT]

Each check prints one line per problem and exits 1 if there is any. The image
cannot be built here (no container engine, no registry), so this is what keeps
the Dockerfile honest: the build stage runs the README's dependency installer
and a Release build for an explicit GPU architecture list; the runtime stage
installs no compiler, runs as a non-root user, has a HEALTHCHECK that asks the
daemon and an ENTRYPOINT that starts it with a config that is in the image; and
every file it copies from the repository exists and is not in .dockerignore.

self-test breaks copies of the real files in a temporary directory, one
mutation at a time, and requires each check to report the specific problem:
a check that cannot fail proves nothing.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib  # Python 3.11+
except ModuleNotFoundError:  # pragma: no cover - the machines here have 3.11
    tomllib = None

REPO_DEFAULT = Path(__file__).resolve().parents[2]
REQUIRED_ARCHS = {80, 89, 90}
# Packages/images that mean "a compiler in the runtime image".
COMPILER_PACKAGE_RE = re.compile(
    r"^(gcc|g\+\+|cpp|cc|c\+\+|clang(\+\+)?([-.\d]+)?|gcc-[\d.]+|g\+\+-[\d.]+|llvm([-.\d]+)?|nvcc|"
    r"build-essential|cmake|ninja-build|make|binutils|"
    r"cuda-toolkit[\w.-]*|cuda-nvcc[\w.-]*|cuda-compiler[\w.-]*|cuda-[\w.-]*-dev([\w.-]*)|cuda-libraries-dev[\w.-]*|"
    r"[\w.+-]+-dev)(=[\w.:~+-]+)?$"
)
INSTALL_RE = re.compile(r"\b(apt-get|apt|aptitude|dnf|yum|microdnf|apk|pip3?|conda)\b[^;&|]*?\b(install|add)\b([^;&|]*)")


# ---------------------------------------------------------------------------------
# Dockerfile parsing
# ---------------------------------------------------------------------------------
@dataclass
class Instruction:
    keyword: str
    args: str  # the instruction's arguments (continuations joined, heredoc bodies appended)
    line: int


@dataclass
class Stage:
    index: int
    name: str
    image: str  # with ARG defaults substituted
    line: int
    instructions: list = field(default_factory=list)
    args: dict = field(default_factory=dict)


def _substitute(text: str, env: dict) -> str:
    def repl(m):
        name = m.group(1) or m.group(3)
        default = m.group(2)
        value = env.get(name)
        if value in (None, "") and default is not None:
            return default
        return value if value is not None else m.group(0)

    return re.sub(r"\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)", repl, text)


def parse_dockerfile(text: str) -> tuple[list, dict]:
    """Returns (stages, global_args). Handles continuations, comments, heredocs."""
    lines = text.split("\n")
    instructions = []
    i = 0
    escape = "\\"
    while i < len(lines):
        raw = lines[i]
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        start = i + 1
        parts = [raw]
        while parts[-1].rstrip().endswith(escape) and i + 1 < len(lines):
            parts[-1] = parts[-1].rstrip()[:-1]
            i += 1
            nxt = lines[i]
            if nxt.strip().startswith("#"):  # comment lines inside a continuation are dropped
                parts.append(escape)
                continue
            parts.append(nxt)
        joined = " ".join(p.strip() for p in parts if p.strip() != escape)
        i += 1
        # Heredocs: <<EOF, <<-EOF, <<'EOF', <<"EOF".
        for m in re.finditer(r"<<(-?)([\"']?)([A-Za-z_][\w]*)\2", joined):
            dash, word = m.group(1), m.group(3)
            body = []
            while i < len(lines):
                line = lines[i]
                i += 1
                if (line.lstrip("\t") if dash else line) == word:
                    break
                body.append(line)
            else:
                raise ValueError(f"line {start}: heredoc {word} is never closed")
            joined += "\n" + "\n".join(body)
        keyword, _, rest = joined.partition(" ")
        instructions.append(Instruction(keyword.upper(), rest.strip(), start))

    stages: list[Stage] = []
    global_args: dict = {}
    for ins in instructions:
        if ins.keyword == "ARG":
            for tok in shlex.split(ins.args):
                name, eq, default = tok.partition("=")
                target = stages[-1].args if stages else global_args
                if eq:
                    target[name] = default
                elif stages:
                    target[name] = global_args.get(name, "")
                else:
                    target[name] = ""
            if stages:
                stages[-1].instructions.append(ins)
            continue
        if ins.keyword == "FROM":
            toks = [t for t in ins.args.split() if not t.startswith("--platform")]
            image = _substitute(toks[0], global_args)
            name = toks[2] if len(toks) >= 3 and toks[1].upper() == "AS" else str(len(stages))
            stages.append(Stage(len(stages), name, image, ins.line))
            continue
        if not stages:
            raise ValueError(f"line {ins.line}: {ins.keyword} before the first FROM")
        stages[-1].instructions.append(ins)
    return stages, global_args


def _copy_parts(args: str) -> tuple[dict, list, str]:
    """COPY/ADD arguments -> (flags, sources, dest)."""
    flags = {}
    rest = args.split("\n")[0].strip()
    while rest.startswith("--"):
        tok, _, rest = rest.partition(" ")
        key, _, value = tok[2:].partition("=")
        flags[key] = value
        rest = rest.strip()
    if rest.startswith("["):
        items = json.loads(rest)
    else:
        items = shlex.split(rest)
    if len(items) < 2:
        raise ValueError(f"COPY/ADD needs a source and a destination: {args!r}")
    return flags, items[:-1], items[-1]


def _exec_form(args: str) -> list:
    args = args.strip()
    if args.startswith("["):
        return json.loads(args)
    return shlex.split(args)


def _dockerignore_patterns(repo: Path) -> list:
    path = repo / ".dockerignore"
    if not path.exists():
        return []
    pats = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        neg = line.startswith("!")
        pat = line[1:] if neg else line
        pat = os.path.normpath(pat.strip("/")) if pat.strip("/") else pat
        pats.append((neg, pat))
    return pats


def _ignored(rel: str, patterns: list) -> bool:
    """Docker's rule: last matching pattern wins; a pattern also excludes everything under a match."""

    def match(pat: str, path: str) -> bool:
        regex = ""
        j = 0
        while j < len(pat):
            if pat.startswith("**/", j):
                regex += "(?:.*/)?"
                j += 3
            elif pat.startswith("**", j):
                regex += ".*"
                j += 2
            else:
                c = pat[j]
                regex += {"*": "[^/]*", "?": "[^/]"}.get(c, re.escape(c))
                j += 1
        return re.fullmatch(regex, path) is not None

    result = False
    parts = rel.split("/")
    prefixes = ["/".join(parts[: k + 1]) for k in range(len(parts))]
    for neg, pat in patterns:
        if any(match(pat, p) for p in prefixes):
            result = not neg
    return result


def _port_of(listen: str) -> int | None:
    m = re.fullmatch(r"(?:\[[^\]]*\]|[^:/]*):(\d+)", listen or "")
    return int(m.group(1)) if m else None


def _load_toml(path: Path, errors: list, what: str):
    if tomllib is None:
        errors.append("python3 has no tomllib (needs Python 3.11+)")
        return None
    try:
        return tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        errors.append(f"{what} {path}: unreadable TOML: {e}")
        return None


def _duration_s(text: str) -> float | None:
    """Daemon durations ("30s", "1500ms", "5m", "1h") and systemd time spans ("45s", "1min 30s", "90")."""
    text = str(text).strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    units = {"ms": 0.001, "msec": 0.001, "s": 1, "sec": 1, "second": 1, "seconds": 1, "m": 60, "min": 60,
             "minute": 60, "minutes": 60, "h": 3600, "hr": 3600, "hour": 3600, "hours": 3600}
    total = 0.0
    pos = 0
    for m in re.finditer(r"\s*(\d+(?:\.\d+)?)\s*([a-z]+)", text):
        if m.start() != pos or m.group(2) not in units:
            return None
        total += float(m.group(1)) * units[m.group(2)]
        pos = m.end()
    return total if pos == len(text) and pos > 0 else None


def check_dockerfile(repo: Path, dockerfile: Path) -> list:
    errors: list = []
    try:
        stages, global_args = parse_dockerfile(dockerfile.read_text())
    except (OSError, ValueError) as e:
        return [f"{dockerfile}: cannot parse: {e}"]
    if len(stages) < 2:
        return [f"{dockerfile}: needs a build stage and a runtime stage (multi-stage), found {len(stages)} stage(s)"]
    runtime = stages[-1]
    by_name = {s.name: s for s in stages}
    # The build stage: the one the runtime stage copies from.
    build = None
    for ins in runtime.instructions:
        if ins.keyword == "COPY":
            flags, _, _ = _copy_parts(ins.args)
            if "from" in flags:
                if flags["from"] not in by_name or by_name[flags["from"]].index >= runtime.index:
                    errors.append(f"line {ins.line}: COPY --from={flags['from']}: no earlier stage of that name")
                else:
                    build = by_name[flags["from"]]
    if build is None:
        errors.append("runtime stage copies nothing from a build stage (COPY --from=<stage>)")
        build = stages[0]
    env_build = dict(global_args, **build.args)
    env_runtime = dict(global_args, **runtime.args)

    # ---- build stage ---------------------------------------------------------------
    if not re.search(r"(^|/)cuda:[^ ]*devel", build.image):
        errors.append(f"build stage '{build.name}' image {build.image} is not an NVIDIA CUDA devel image")
    run_texts = [(ins, _substitute(ins.args, env_build)) for ins in build.instructions if ins.keyword == "RUN"]
    setup_runs = [ins for ins, t in run_texts
                  if re.search(r"(^|[\s;&|(])(\./)?scripts/setup\.sh\b", t)]
    if not setup_runs:
        errors.append(f"build stage '{build.name}' never runs scripts/setup.sh (the README's dependency installer)")
    else:
        first_setup = setup_runs[0].line
        brought = False
        for ins in build.instructions:
            if ins.keyword in ("COPY", "ADD") and ins.line < first_setup:
                flags, srcs, _ = _copy_parts(ins.args)
                if "from" not in flags and any(s in (".", "./", "scripts", "scripts/", "scripts/setup.sh")
                                               for s in srcs):
                    brought = True
        if not brought:
            errors.append(f"line {first_setup}: scripts/setup.sh runs before any COPY brings it into the image")
    all_build = "\n".join(t for _, t in run_texts)
    m = re.search(r"-DCMAKE_CUDA_ARCHITECTURES=(\"[^\"]*\"|'[^']*'|\S+)", all_build)
    if not m:
        errors.append("build stage sets no explicit -DCMAKE_CUDA_ARCHITECTURES list")
    else:
        value = m.group(1).strip("\"'")
        archs = {}
        for entry in filter(None, value.split(";")):
            am = re.fullmatch(r"(\d+)[af]?(-real|-virtual)?", entry)
            if not am:
                errors.append(f"CMAKE_CUDA_ARCHITECTURES entry {entry!r} is not NN, NN-real or NN-virtual")
                continue
            archs[int(am.group(1))] = entry
        missing = sorted(REQUIRED_ARCHS - set(archs))
        if missing:
            errors.append(f"CMAKE_CUDA_ARCHITECTURES={value} lacks {', '.join(map(str, missing))} "
                          f"(needs at least {', '.join(map(str, sorted(REQUIRED_ARCHS)))})")
        supported = _nvcc_archs()
        if supported:
            for a in sorted(archs):
                if a not in supported:
                    errors.append(f"CMAKE_CUDA_ARCHITECTURES: sm_{a} is not supported by this nvcc "
                                  f"(supports {', '.join(map(str, sorted(supported)))})")
    if not re.search(r"-DCMAKE_BUILD_TYPE=\"?Release\b", all_build):
        errors.append("build stage does not configure -DCMAKE_BUILD_TYPE=Release")
    if not re.search(r"-DCUZK_BUILD_TESTS=\"?OFF\b", all_build):
        errors.append("build stage does not turn the tests off (-DCUZK_BUILD_TESTS=OFF)")

    # ---- runtime stage -------------------------------------------------------------
    if "devel" in runtime.image or not re.search(r"(^|/)cuda:", runtime.image):
        errors.append(f"runtime stage image {runtime.image} must be an NVIDIA CUDA base/runtime image, not devel")
    for ins in runtime.instructions:
        if ins.keyword != "RUN":
            continue
        text = _substitute(ins.args, env_runtime)
        for im in INSTALL_RE.finditer(text):
            for tok in im.group(3).split():
                if tok.startswith("-"):
                    continue
                if COMPILER_PACKAGE_RE.match(tok):
                    errors.append(f"line {ins.line}: runtime stage installs {tok} (a compiler or build package)")
        if re.search(r"\b(nvcc|gcc|g\+\+|clang\+\+|clang|cmake|ninja)\b", text.split("\n")[0]) and \
                not INSTALL_RE.search(text):
            errors.append(f"line {ins.line}: runtime stage runs a compiler or build tool")
    copies_runtime = []
    for ins in runtime.instructions:
        if ins.keyword in ("COPY", "ADD"):
            flags, srcs, dest = _copy_parts(_substitute(ins.args, env_runtime))
            copies_runtime.append((ins, flags, srcs, dest))
            if "from" in flags:
                for s in srcs:
                    if re.match(r"/usr/local/cuda|/usr/(local/)?bin/(nvcc|gcc|g\+\+|cc|c\+\+|clang)", s):
                        errors.append(f"line {ins.line}: runtime stage copies {s} (compiler/toolkit) from {flags['from']}")
                    src_stage = by_name.get(flags["from"])
                    if src_stage and not any(s.rstrip("/") in i2.args for i2 in src_stage.instructions):
                        errors.append(f"line {ins.line}: COPY --from={flags['from']} {s}: nothing in stage "
                                      f"'{flags['from']}' produces {s}")
    users = [ins for ins in runtime.instructions if ins.keyword == "USER"]
    if not users:
        errors.append("runtime stage has no USER (it would run as root)")
    else:
        user = _substitute(users[-1].args.strip(), env_runtime)
        name = user.split(":")[0]
        if name in ("root", "0", "") or "$" in user:
            errors.append(f"line {users[-1].line}: runtime stage runs as {user!r} (must be a non-root user)")
    # Every COPY/ADD from the build context exists and is not excluded by .dockerignore.
    patterns = _dockerignore_patterns(repo)
    for st in stages:
        env = dict(global_args, **st.args)
        for ins in st.instructions:
            if ins.keyword not in ("COPY", "ADD"):
                continue
            flags, srcs, _ = _copy_parts(_substitute(ins.args, env))
            if "from" in flags:
                continue
            for s in srcs:
                if re.match(r"https?://|git@", s):
                    continue
                rel = os.path.normpath(s.lstrip("/"))
                if rel == ".":
                    continue
                matches = [p for p in repo.glob(rel)] if any(c in rel for c in "*?[") else \
                    ([repo / rel] if (repo / rel).exists() else [])
                if not matches:
                    errors.append(f"line {ins.line}: {ins.keyword} source {s} does not exist in the repository")
                elif all(_ignored(str(p.relative_to(repo)), patterns) for p in matches):
                    errors.append(f"line {ins.line}: {ins.keyword} source {s} is excluded by .dockerignore")
    healthchecks = [ins for ins in runtime.instructions if ins.keyword == "HEALTHCHECK"]
    health_cmd = []
    if not healthchecks or healthchecks[-1].args.strip().upper() == "NONE":
        errors.append("runtime stage has no HEALTHCHECK")
    else:
        hc = healthchecks[-1].args
        cmd_at = re.search(r"\bCMD\b", hc)
        health_cmd = _exec_form(hc[cmd_at.end():]) if cmd_at else []
        if not (health_cmd and os.path.basename(health_cmd[0]) == "cuzk-bench" and "status" in health_cmd
                and "--addr" in health_cmd):
            errors.append(f"line {healthchecks[-1].line}: HEALTHCHECK must ask the daemon through the client "
                          f"(cuzk-bench status --addr ...), got {health_cmd or hc!r}")
    entrypoints = [ins for ins in runtime.instructions if ins.keyword == "ENTRYPOINT"]
    config_path = None
    if not entrypoints:
        errors.append("runtime stage has no ENTRYPOINT")
    else:
        ep = _exec_form(entrypoints[-1].args)
        if not ep or os.path.basename(ep[0]) != "cuzk-daemon" or "--config" not in ep:
            errors.append(f"line {entrypoints[-1].line}: ENTRYPOINT must be cuzk-daemon --config FILE, got {ep}")
        else:
            k = ep.index("--config")
            config_path = ep[k + 1] if k + 1 < len(ep) else None
            if not config_path:
                errors.append("ENTRYPOINT --config has no file")
        for prog in [ep[0]] + ([health_cmd[0]] if health_cmd else []):
            if prog.startswith("/") and not any(prog == d or prog.startswith(d.rstrip("/") + "/")
                                                for _, _, _, d in copies_runtime):
                errors.append(f"{prog} is not in the runtime image (no COPY puts it there)")
    # The config given to --config is copied into the image; its ports are exposed and its
    # gRPC port is what the HEALTHCHECK asks; its parameter cache is a volume.
    exposed = set()
    for ins in runtime.instructions:
        if ins.keyword == "EXPOSE":
            for tok in _substitute(ins.args, env_runtime).split():
                exposed.add(int(tok.split("/")[0]))
    volumes = []
    for ins in runtime.instructions:
        if ins.keyword == "VOLUME":
            a = ins.args.strip()
            volumes += json.loads(a) if a.startswith("[") else a.split()
    if not exposed:
        errors.append("runtime stage EXPOSEs no port")
    if not volumes:
        errors.append("runtime stage declares no VOLUME")
    if config_path:
        srcs_for = [srcs for _, flags, srcs, d in copies_runtime if d == config_path and "from" not in flags]
        if not srcs_for:
            errors.append(f"--config {config_path}: no COPY from the repository puts a config there")
        elif (repo / srcs_for[0][0]).is_file():
            cfg_file = repo / srcs_for[0][0]
            cfg = _load_toml(cfg_file, errors, "container config")
            if cfg is not None:
                d = cfg.get("daemon", {})
                grpc_port = _port_of(d.get("listen", ""))
                if grpc_port is None:
                    errors.append(f"{cfg_file}: daemon.listen {d.get('listen')!r} is not host:port "
                                  "(a container needs TCP to publish the port)")
                for key in ("listen", "status_listen"):
                    p = _port_of(d.get(key, ""))
                    if p is not None and p not in exposed:
                        errors.append(f"{cfg_file}: daemon.{key} port {p} is not EXPOSEd")
                if health_cmd and "--addr" in health_cmd and grpc_port is not None:
                    addr = health_cmd[health_cmd.index("--addr") + 1] if health_cmd.index("--addr") + 1 < len(
                        health_cmd) else ""
                    if _port_of(addr) != grpc_port:
                        errors.append(f"HEALTHCHECK asks {addr!r} but the daemon listens on port {grpc_port}")
                cache = cfg.get("srs", {}).get("param_cache")
                if cache and cache not in volumes:
                    errors.append(f"{cfg_file}: srs.param_cache {cache} is not a VOLUME")
    return errors


_NVCC_CACHE: list = []


def _nvcc_archs() -> set:
    if _NVCC_CACHE:
        return _NVCC_CACHE[0]
    archs: set = set()
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if nvcc:
        try:
            out = subprocess.run([nvcc, "--list-gpu-arch"], capture_output=True, text=True, timeout=30).stdout
            archs = {int(x) for x in re.findall(r"compute_(\d+)", out)}
        except (OSError, subprocess.TimeoutExpired):
            archs = set()
    _NVCC_CACHE.append(archs)
    return archs


# ---------------------------------------------------------------------------------
# compose.yaml (no YAML library here: line-level checks of the keys that matter)
# ---------------------------------------------------------------------------------
def check_compose(repo: Path, compose: Path, dockerfile: Path | None = None) -> list:
    errors: list = []
    try:
        text = compose.read_text()
    except OSError as e:
        return [f"{compose}: {e}"]
    body = "\n".join(l.split(" #")[0] for l in text.splitlines() if not l.strip().startswith("#"))
    if not re.search(r"^\s*-?\s*driver:\s*nvidia\s*$", body, re.M) or \
            not re.search(r"capabilities:\s*\[\s*gpu\s*\]|capabilities:\s*\n\s*-\s*gpu", body):
        errors.append(f"{compose}: no GPU reservation (deploy.resources.reservations.devices: driver nvidia, "
                      "capabilities [gpu])")
    ctx = re.search(r"^\s*context:\s*(\S+)", body, re.M)
    dfile = re.search(r"^\s*dockerfile:\s*(\S+)", body, re.M)
    if not ctx or not dfile:
        errors.append(f"{compose}: build needs context and dockerfile")
    else:
        context = (compose.parent / ctx.group(1).strip("\"'")).resolve()
        if not (context / dfile.group(1).strip("\"'")).is_file():
            errors.append(f"{compose}: build dockerfile {dfile.group(1)} does not exist under context {context}")
        if context != repo.resolve():
            errors.append(f"{compose}: build context {context} is not the repository root {repo}")
    ports = set(int(p) for p in re.findall(r"^\s*-\s*\"?[^\s\"]*:(\d+)(?:/tcp)?\"?\s*$", body, re.M))
    mounts = set(re.findall(r"^\s*-\s*\"?[^\s\"]+:(/[^\s:\"]+)(?::ro|:rw)?\"?\s*$", body, re.M))
    if dockerfile is None:
        dockerfile = repo / "docker" / "Dockerfile"
    try:
        stages, gargs = parse_dockerfile(dockerfile.read_text())
        rt = stages[-1]
        env = dict(gargs, **rt.args)
        for ins in rt.instructions:
            if ins.keyword == "EXPOSE":
                for tok in _substitute(ins.args, env).split():
                    if int(tok.split("/")[0]) not in ports:
                        errors.append(f"{compose}: EXPOSEd port {tok} is not published")
            if ins.keyword == "VOLUME":
                a = ins.args.strip()
                for v in (json.loads(a) if a.startswith("[") else a.split()):
                    if v not in mounts:
                        errors.append(f"{compose}: image VOLUME {v} is not mounted")
    except (OSError, ValueError, IndexError) as e:
        errors.append(f"{dockerfile}: {e}")
    if not re.search(r"memlock:\s*(-1|\n\s*soft:\s*-1\s*\n\s*hard:\s*-1)", body):
        errors.append(f"{compose}: ulimits memlock is not unlimited (-1): pinned host memory needs it")
    grace = re.search(r"^\s*stop_grace_period:\s*(\S+)", body, re.M)
    cfg = _load_toml(repo / "docker" / "cuzk.docker.toml", errors, "container config")
    daemon_grace = _duration_s(cfg.get("daemon", {}).get("shutdown_grace", "30s")) if cfg is not None else None
    if not grace:
        errors.append(f"{compose}: no stop_grace_period (docker's default 10 s kills the daemon mid-shutdown)")
    elif daemon_grace is not None:
        g = _duration_s(grace.group(1).strip("\"'"))
        if g is None or g <= daemon_grace:
            errors.append(f"{compose}: stop_grace_period {grace.group(1)} is not longer than the daemon's "
                          f"shutdown_grace ({daemon_grace:g} s)")
    return errors


# ---------------------------------------------------------------------------------
# systemd unit
# ---------------------------------------------------------------------------------
def parse_unit(text: str) -> dict:
    sections: dict = {}
    current = None
    pending = ""
    for raw in text.splitlines():
        line = pending + raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            current = line.strip("[]")
            sections.setdefault(current, {})
            continue
        key, _, value = line.partition("=")
        sections.setdefault(current, {}).setdefault(key.strip(), []).append(value.strip())
    return sections


def check_systemd(repo: Path, unit: Path, run_analyze: bool = True) -> list:
    errors: list = []
    try:
        text = unit.read_text()
    except OSError as e:
        return [f"{unit}: {e}"]
    u = parse_unit(text)
    svc = u.get("Service", {})

    def get(key, section=svc):
        v = section.get(key)
        return v[-1] if v else None

    def need(key, pred, why):
        v = get(key)
        if v is None or not pred(v):
            errors.append(f"{unit.name}: [Service] {key}={v if v is not None else '(unset)'}: {why}")

    need("User", lambda v: v not in ("root", "0", ""), "needs a dedicated non-root user")
    need("Restart", lambda v: v in ("on-failure", "always", "on-abnormal"), "should restart on failure")
    need("LimitMEMLOCK", lambda v: v == "infinity", "pinned host memory needs LimitMEMLOCK=infinity")
    need("KillSignal", lambda v: v in ("SIGTERM", "TERM", "15"), "the daemon shuts down gracefully on SIGTERM")
    need("RuntimeDirectory", lambda v: bool(v.split()), "the socket directory")
    need("StateDirectory", lambda v: bool(v.split()), "the parameter cache / state directory")
    need("NoNewPrivileges", lambda v: v in ("yes", "true", "1"), "hardening")
    need("ProtectSystem", lambda v: v in ("strict", "full", "yes"), "hardening")
    for key in ("PrivateDevices", "MemoryDenyWriteExecute"):
        if get(key) in ("yes", "true", "1"):
            errors.append(f"{unit.name}: {key}=yes breaks CUDA (GPU device nodes / the driver's JIT)")
    if get("ProcSubset") == "pid":
        errors.append(f"{unit.name}: ProcSubset=pid hides /proc/driver/nvidia from the CUDA driver")
    if not u.get("Install", {}).get("WantedBy"):
        errors.append(f"{unit.name}: [Install] has no WantedBy")
    exec_start = get("ExecStart")
    cfg_path = None
    if not exec_start:
        errors.append(f"{unit.name}: no ExecStart")
    else:
        argv = shlex.split(exec_start.lstrip("-@:+!"))
        if not argv[0].startswith("/") or os.path.basename(argv[0]) != "cuzk-daemon":
            errors.append(f"{unit.name}: ExecStart must run cuzk-daemon by absolute path, got {argv[0]}")
        if "--config" in argv and argv.index("--config") + 1 < len(argv):
            cfg_path = argv[argv.index("--config") + 1]
        else:
            errors.append(f"{unit.name}: ExecStart has no --config FILE")
    # The config the unit is meant to run with (deploy/cuzk.toml -> /etc/cuzk/cuzk.toml).
    cfg_file = repo / "deploy" / "cuzk.toml"
    cfg = _load_toml(cfg_file, errors, "systemd config")
    if cfg is not None:
        d = cfg.get("daemon", {})
        grace = _duration_s(d.get("shutdown_grace", "30s"))
        stop = get("TimeoutStopSec")
        stop_s = _duration_s(stop) if stop else None
        if stop_s is None or grace is None or stop_s <= grace:
            errors.append(f"{unit.name}: TimeoutStopSec={stop} must be longer than daemon.shutdown_grace "
                          f"({d.get('shutdown_grace', '30s')} in {cfg_file.name}), or systemd kills a "
                          "graceful shutdown")
        listen = d.get("listen", "")
        runtime_dirs = (get("RuntimeDirectory") or "").split()
        if listen.startswith("unix://"):
            sock_dir = os.path.dirname(listen[len("unix://"):])
            if not any(sock_dir == "/run/" + r for r in runtime_dirs):
                errors.append(f"{cfg_file.name}: socket {listen} is not in the unit's RuntimeDirectory "
                              f"({', '.join('/run/' + r for r in runtime_dirs) or 'none'})")
        cache = cfg.get("srs", {}).get("param_cache", "")
        state_dirs = ["/var/lib/" + s for s in (get("StateDirectory") or "").split()]
        if cache and not any(cache == s or cache.startswith(s + "/") for s in state_dirs):
            errors.append(f"{cfg_file.name}: srs.param_cache {cache} is not under the unit's StateDirectory "
                          f"({', '.join(state_dirs) or 'none'}); ProtectSystem=strict makes it read-only")
        if cfg_path and cfg_path != "/etc/cuzk/cuzk.toml":
            errors.append(f"{unit.name}: --config {cfg_path} is not where docs/deploy.md installs deploy/cuzk.toml "
                          "(/etc/cuzk/cuzk.toml)")
    if run_analyze and shutil.which("systemd-analyze") and exec_start:
        errors += _systemd_analyze(unit, text, exec_start)
    return errors


def _systemd_analyze(unit: Path, text: str, exec_start: str) -> list:
    """systemd-analyze verify on a copy whose ExecStart program is a stub (the real one is
    installed at deploy time); any message (unknown key, bad value) counts as a failure."""
    prog = shlex.split(exec_start.lstrip("-@:+!"))[0]
    with tempfile.TemporaryDirectory() as tmp:
        stub = Path(tmp) / "cuzk-daemon"
        stub.write_text("#!/bin/sh\nexit 0\n")
        stub.chmod(0o755)
        copy = Path(tmp) / unit.name
        copy.write_text(text.replace(prog, str(stub)))
        try:
            r = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            return [f"systemd-analyze verify could not run: {e}"]
        msgs = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
        out = []
        if r.returncode != 0 or msgs:
            out.append(f"{unit.name}: systemd-analyze verify (exit {r.returncode}): " +
                       ("; ".join(m.replace(str(copy), unit.name) for m in msgs) or "no message"))
        return out


# ---------------------------------------------------------------------------------
# config keys: our configs use only keys the daemon documents (daemon/cuzk.example.toml)
# ---------------------------------------------------------------------------------
def check_config_keys(repo: Path) -> tuple[list, bool]:
    example = repo / "daemon" / "cuzk.example.toml"
    if not example.exists():
        return [], False
    errors: list = []
    ex = _load_toml(example, errors, "example config")
    if ex is None:
        return errors, True
    for rel in ("docker/cuzk.docker.toml", "deploy/cuzk.toml"):
        cfg = _load_toml(repo / rel, errors, "config")
        if cfg is None:
            continue
        for section, keys in cfg.items():
            if not isinstance(keys, dict) or section not in ex:
                errors.append(f"{rel}: section [{section}] is not in daemon/cuzk.example.toml")
                continue
            for key in keys:
                if key not in ex[section]:
                    errors.append(f"{rel}: [{section}] {key} is not a key of daemon/cuzk.example.toml")
    return errors, True


# ---------------------------------------------------------------------------------
# self-test: every check must catch a deliberately broken copy
# ---------------------------------------------------------------------------------
def _mutate(text: str, old: str, new: str) -> str:
    if old not in text:
        raise AssertionError(f"self-test: the real file no longer contains {old!r}; update the mutation")
    return text.replace(old, new, 1)


def self_test(repo: Path) -> list:
    failures: list = []
    dockerfile = (repo / "docker" / "Dockerfile").read_text()
    unit = (repo / "deploy" / "cuzk-daemon.service").read_text()
    compose = (repo / "docker" / "compose.yaml").read_text()
    arch_line = re.search(r'ARG CUDA_ARCHITECTURES="[^"]*"', dockerfile).group(0)
    docker_mutations = [
        ("no setup.sh", lambda t: re.sub(r"RUN [^\n]*scripts/setup\.sh[^\n]*", "RUN true", t), "scripts/setup.sh"),
        ("setup.sh before its COPY", lambda t: _mutate(t, "COPY scripts/setup.sh scripts/setup.sh\n", ""),
         "before any COPY brings it"),
        ("compiler in runtime", lambda t: _mutate(t, "COPY --from=build /opt/cuzk /opt/cuzk",
                                                  "RUN apt-get update && apt-get install -y --no-install-recommends "
                                                  "libgomp1 g++-13\nCOPY --from=build /opt/cuzk /opt/cuzk"),
         "installs g++-13"),
        ("dev package in runtime", lambda t: _mutate(t, "COPY --from=build /opt/cuzk /opt/cuzk",
                                                     "RUN apt-get install -y cuda-nvcc-13-0 libgrpc++-dev\n"
                                                     "COPY --from=build /opt/cuzk /opt/cuzk"),
         "installs cuda-nvcc-13-0"),
        ("devel runtime image", lambda t: _mutate(t, "ARG CUDA_RUNTIME_FLAVOR=base", "ARG CUDA_RUNTIME_FLAVOR=devel"),
         "not devel"),
        ("root user", lambda t: re.sub(r"\nUSER [^\n]*", "\nUSER root", t), "must be a non-root user"),
        ("no user", lambda t: re.sub(r"\nUSER [^\n]*", "", t), "no USER"),
        ("missing COPY source", lambda t: _mutate(t, "COPY docker/cuzk.docker.toml", "COPY docker/cuzk.missing.toml"),
         "does not exist in the repository"),
        ("no healthcheck", lambda t: re.sub(r"\nHEALTHCHECK [^\n]*\\\n[^\n]*", "", t), "no HEALTHCHECK"),
        ("no entrypoint", lambda t: re.sub(r"\nENTRYPOINT [^\n]*", "", t), "no ENTRYPOINT"),
        ("arch list without 89", lambda t: _mutate(t, arch_line, arch_line.replace("89-real;", "")), "lacks 89"),
        ("healthcheck on another port", lambda t: _mutate(t, '"--addr", "127.0.0.1:9820"', '"--addr", "127.0.0.1:1"'),
         "HEALTHCHECK asks"),
        ("tests on", lambda t: _mutate(t, "-DCUZK_BUILD_TESTS=OFF", "-DCUZK_BUILD_TESTS=ON"), "tests off"),
    ]
    unit_mutations = [
        ("root", lambda t: _mutate(t, "User=cuzk", "User=root"), "non-root user"),
        ("no memlock", lambda t: _mutate(t, "LimitMEMLOCK=infinity\n", ""), "LimitMEMLOCK"),
        ("short stop timeout", lambda t: _mutate(t, "TimeoutStopSec=45s", "TimeoutStopSec=10s"), "TimeoutStopSec=10s"),
        ("PrivateDevices", lambda t: _mutate(t, "NoNewPrivileges=yes", "NoNewPrivileges=yes\nPrivateDevices=yes"),
         "PrivateDevices=yes breaks CUDA"),
        ("no runtime dir", lambda t: re.sub(r"\nRuntimeDirectory=[^\n]*", "", t), "RuntimeDirectory"),
        ("restart never", lambda t: _mutate(t, "Restart=on-failure", "Restart=no"), "restart on failure"),
    ]
    if shutil.which("systemd-analyze"):
        unit_mutations.append(("typo only systemd sees", lambda t: _mutate(t, "LockPersonality=yes", "LockPersonalty=yes"),
                               "systemd-analyze verify"))
    compose_mutations = [
        ("no gpu", lambda t: _mutate(t, "capabilities: [gpu]", "capabilities: [utility]"), "no GPU reservation"),
        ("short grace", lambda t: _mutate(t, "stop_grace_period: 45s", "stop_grace_period: 10s"), "stop_grace_period"),
        ("unpublished port", lambda t: re.sub(r'\n\s*- "\$\{CUZK_STATUS_BIND[^\n]*', "", t), "9821 is not published"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        for name, mutate, expect in docker_mutations:
            f = tmpdir / ("Dockerfile." + re.sub(r"\W+", "_", name))
            try:
                f.write_text(mutate(dockerfile))
            except AssertionError as e:
                failures.append(str(e))
                continue
            errs = check_dockerfile(repo, f)
            if not any(expect in e for e in errs):
                failures.append(f"Dockerfile mutation '{name}' was not caught (wanted '{expect}', got {errs})")
        for name, mutate, expect in unit_mutations:
            f = tmpdir / re.sub(r"\W+", "_", name) / "cuzk-daemon.service"
            f.parent.mkdir()
            try:
                f.write_text(mutate(unit))
            except AssertionError as e:
                failures.append(str(e))
                continue
            errs = check_systemd(repo, f)
            if not any(expect in e for e in errs):
                failures.append(f"unit mutation '{name}' was not caught (wanted '{expect}', got {errs})")
        for name, mutate, expect in compose_mutations:
            d = tmpdir / ("compose_" + re.sub(r"\W+", "_", name))
            d.mkdir()
            f = d / "compose.yaml"
            try:
                f.write_text(mutate(compose))
            except AssertionError as e:
                failures.append(str(e))
                continue
            # Same relative build context as the real file: point it back at the repository.
            f.write_text(f.read_text().replace("context: ..", f"context: {repo}"))
            errs = check_compose(repo, f)
            if not any(expect in e for e in errs):
                failures.append(f"compose mutation '{name}' was not caught (wanted '{expect}', got {errs})")
        # The .dockerignore matcher itself.
        pats = [(False, "build*"), (False, "**/node_modules"), (False, ".git"), (True, "build-keep")]
        for rel, want in [("build/bin/x", True), ("build-deploy", True), ("build-keep", False), ("docker/Dockerfile", False),
                          ("tests/oracle/node_modules/a/b.js", True), (".git/HEAD", True), ("tools/build.cpp", False)]:
            if _ignored(rel, pats) != want:
                failures.append(f".dockerignore matcher: {rel} ignored={not want}, expected {want}")
    return failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("check", choices=["dockerfile", "compose", "systemd", "config-keys", "self-test"])
    ap.add_argument("--repo", type=Path, default=REPO_DEFAULT)
    ap.add_argument("--dockerfile", type=Path)
    ap.add_argument("--compose", type=Path)
    ap.add_argument("--unit", type=Path)
    a = ap.parse_args()
    repo = a.repo.resolve()
    if a.check == "dockerfile":
        errs = check_dockerfile(repo, a.dockerfile or repo / "docker" / "Dockerfile")
    elif a.check == "compose":
        errs = check_compose(repo, a.compose or repo / "docker" / "compose.yaml")
    elif a.check == "systemd":
        errs = check_systemd(repo, a.unit or repo / "deploy" / "cuzk-daemon.service")
        if not shutil.which("systemd-analyze"):
            print("note: systemd-analyze not installed; structural checks only")
    elif a.check == "config-keys":
        errs, ran = check_config_keys(repo)
        if not ran:
            print("SKIP: daemon/cuzk.example.toml does not exist yet (the daemon's documented keys)")
            return 77
    else:
        errs = self_test(repo)
    for e in errs:
        print(f"FAIL: {e}")
    if not errs:
        print(f"ok: {a.check}")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
