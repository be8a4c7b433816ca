"""Measures what the upstream tools answer to each JSON type of each parameter and each shape of working
directory, and writes the tables the variants' fidelity tests read (variants/<id>/testdata/fidelity.yaml).

    ./extract.sh RYEOS TOOLREGISTRY_HUB TUNACODE /tmp/upstream
    python3.11 cases.py /tmp/upstream            # needs pydantic 2 (tunacode's validation)

Each case runs in a fresh workspace laid out as tree() does (the Go side lays the same one) under a
directory of its own; {ws} and {root} stand for the workspace and its parent in params and answers. Each
answer carries the upstream lines that produce it (cite), chosen by the rules below from what the case is.
"""
import json, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def tree(root):
    ws = os.path.join(root, "ws")
    for d in ("ws/sub", "ws/é-dir", "outside"):
        os.makedirs(os.path.join(root, d))
    open(os.path.join(ws, "notes.txt"), "w").close()
    os.symlink(os.path.join(root, "outside"), os.path.join(ws, "out"))
    os.symlink("loop2", os.path.join(ws, "loop"))
    os.symlink("loop", os.path.join(ws, "loop2"))
    os.symlink("sub", os.path.join(ws, "inlink"))
    return ws


# The values of each JSON type (and the edges of strings and numbers) sent for a parameter, as JSON text.
TYPES = [
    ("integer", "5"), ("zero", "0"), ("float", "1.5"), ("true", "true"), ("false", "false"),
    ("null", "null"), ("empty list", "[]"), ("list", '["x"]'), ("empty object", "{}"), ("object", '{"x": 1}'),
    ("huge float", "1e400"), ("huge integer", "123456789012345678901234567890"), ("NUL", '"a\\u0000b"'),
    ("unicode", '"é✓"'), ("empty", '""'),
]

# Working-directory shapes: a missing component then "..", a symlink out and back, a symlink out, a loop,
# a file, a file then "..", "~", unicode, NUL, absolute, a trailing slash, a symlink in then "..".
SHAPES = [
    ("missing then ..", "nope/../sub"), ("symlink out and back", "out/../ws/sub"), ("symlink out", "out"),
    ("loop", "loop"), ("file", "notes.txt"), ("file then ..", "notes.txt/.."), ("tilde", "~"),
    ("unicode", "é-dir"), ("NUL", "sub\u0000x"), ("absolute", "{ws}/sub"), ("trailing slash", "sub/"),
    ("missing then .. inside", "sub/./missing/.."), ("symlink in then ..", "inlink/.."), ("outside", "{root}/outside"),
]


def obj(**kw):
    return "{" + ", ".join(json.dumps(k) + ": " + v for k, v in kw.items()) + "}"


def cases(variant):
    out = []
    wd = {"rye": "working_dir", "toolregistry": "cwd", "tunacode": "cwd"}[variant]
    cmd = lambda v: obj(command=v)
    # command
    for name, v in TYPES + [("string", '"echo ok"'), ("list of strings", '["echo \\"$0\\" ok", "x"]'),
                            ("list with an integer", '["echo", 5]'), ("object of commands", '{"echo ok": 1}'),
                            ("NUL command", '"echo a\\u0000b"'), ("unicode command", '"echo héllo ✓"'),
                            ("blank", '"  "')]:
        out.append(("command/" + name, cmd(v), "command"))
    out.append(("command/absent", "{}", "command"))
    # timeout
    for name, v in TYPES + [("numeric string", '"5"'), ("negative", "-1"), ("negative huge float", "-1e400"),
                            ("past _PyTime_t", "9223372037"), ("under _PyTime_t", "9223372036"),
                            ("large float", "1e20"), ("integral float", "5.0"), ("tiny float", "1e-400")]:
        out.append(("timeout/" + name, obj(command='"echo ok"', timeout=v), "timeout"))
    # working directory: each type, then each shape
    for name, v in TYPES + [("string", '"sub"')]:
        out.append((wd + "/" + name, obj(command='"pwd"', **{wd: v}), "workdir"))
    for name, v in SHAPES:
        out.append((wd + "/shape " + name, obj(command='"pwd"', **{wd: json.dumps(v)}), "workdir"))
    if variant == "tunacode":
        for name, v in TYPES + [("pairs", '{"A": "x"}'), ("name with =", '{"A=B": "x"}'),
                                ("NUL in a value", '{"A": "x\\u0000y"}'), ("NUL in a name", '{"A\\u0000B": "x"}'),
                                ("integer value", '{"A": 5}'), ("empty name", '{"": "x"}'),
                                ("unicode pair", '{"É": "ü"}')]:
            out.append(("env/" + name, obj(command='"printenv A"', env=v), "env"))
        for name, v in TYPES + [("string false", '"false"'), ("string off", '"off"'), ("string yes", '"yes"'),
                                ("one", "1"), ("two", "2"), ("float zero", "0.0")]:
            out.append(("capture_output/" + name, obj(command='"true"', capture_output=v), "capture"))
    return out


def run(variant, upstream, params):
    root = tempfile.mkdtemp(prefix="probe")
    try:
        ws = tree(root)
        text = params.replace("{ws}", ws).replace("{root}", root)
        p = subprocess.run([sys.executable, os.path.join(HERE, "run1.py"), variant, upstream, ws, text],
                           capture_output=True, text=True, timeout=60)
        line = [l for l in p.stdout.splitlines() if l.startswith("ANSWER:")][-1]
        return line[len("ANSWER:"):].replace(ws, "{ws}").replace(root, "{root}")
    finally:
        shutil.rmtree(root)


def cite(variant, role, params, answer):
    a = json.loads(answer)
    err = a.get("error", {})
    res = a.get("result")
    msg = err.get("message", "") if err else (res.get("error", "") if isinstance(res, dict) else "")
    text = json.dumps(a)
    if variant == "rye":
        f = "rye/rye/.ai/tools/rye/bash/bash.py"
        if err.get("type") == "KeyError":
            return f + ":61 (params[\"command\"])"
        if "Symlink loop" in msg or (err and role == "workdir" and "null byte" in msg):
            return f + ":69 (Path.resolve(): os.path.realpath, then stat)"
        if err and role == "workdir":
            return f + ":66 (Path(working_dir))"
        if "outside the project" in msg:
            return f + ":71-75 (is_relative_to after resolve())"
        if "not found" in msg:
            return f + ":77-81 (exists() of the resolved path)"
        if "timed out" in msg:
            return f + ":119-124 (TimeoutExpired)"
        if msg:
            return f + ":85-93,125-126 (subprocess.run raises inside the try: str(e))"
        if role == "workdir":
            return f + ":65-83 (`if working_dir:`, resolve(), the checks), 86-118 (run in it)"
        return f + ":86-118 (subprocess.run, the result dict)"
    if variant == "toolregistry":
        f = "src/toolregistry_hub/bash_tool.py"
        if "unexpected keyword" in msg or "required positional" in msg:
            return f + ":142-146 (execute's signature)"
        if "expected string or bytes-like object" in msg:
            return f + ":84,174 (_PIPE_EXEC_RE.search(command))"
        if err.get("type") == "ValueError" and "Dangerous" in msg:
            return f + ":83-95 (_validate_command)"
        if err and role == "workdir" and err.get("type") == "TypeError":
            return f + ":178 (Path(cwd))"
        if "does not exist" in msg:
            return f + ":177-180 (Path(cwd).is_dir())"
        if '"timed_out": true' in text:
            return f + ":197-205 (TimeoutExpired)"
        if err:
            return f + ":183-190 (subprocess.run raises, uncaught)"
        return f + ":183-196 (subprocess.run, the result dict)"
    f = "src/tunacode/tools/bash.py"
    if err.get("type") == "ValidationError":
        return f + ":35-41 (the signature pydantic-ai validates; host validation)"
    if "Timeout must be" in msg:
        return f + ":157-161 (_validate_inputs: timeout range)"
    if "Working directory" in msg:
        return f + ":163-167 (_validate_inputs: os.path.isdir(cwd))"
    if "timed out" in msg:
        return f + ":76-83 (asyncio.wait_for)"
    if err.get("type") == "ModelRetry":
        return f + ":104-152,169-173 (the command checks)"
    if err.get("type") == "ToolExecutionError":
        return f + ":67-73 (create_subprocess_shell: Popen raises), tools/decorators.py:113-116 (base_tool)"
    return f + ":57-93,198-223 (run with what pydantic made of the arguments, the formatted text)"


def main():
    upstream = os.path.abspath(sys.argv[1])
    import platform
    for variant in ("rye", "toolregistry", "tunacode"):
        rows, skipped, racy = [], [], []
        for name, params, role in cases(variant):
            # Run three times: a case whose answer depends on timing (tunacode's asyncio timeout of 0
            # racing the command: ModelRetry, or at times ToolExecutionError "Tool 'bash' failed: ") is
            # left out, its answer being no contract.
            runs = [run(variant, upstream, params) for _ in range(3)]
            ans = runs[0]
            if len(set(runs)) > 1:
                racy.append(name)
                continue
            if "Infinity" in ans or "NaN" in ans:
                skipped.append(name)  # the host prints JSON no JSON reader takes (json.dumps of inf)
                continue
            rows.append((name, params, ans, cite(variant, role, params, ans)))
        path = os.path.join(VARIANTS, variant, "testdata", "fidelity.yaml")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("# What %s's upstream answers to each JSON type of each parameter and each shape of working\n" % variant)
            f.write("# directory: measured by variants/internal/fidelity/probe/cases.py (CPython %s, pydantic %s);\n"
                    % (platform.python_version(), __import__("pydantic").VERSION))
            f.write("# do not edit. {ws} is the workspace, {root} its parent (laid out as fidelity.Tree does); cite\n")
            f.write("# names the upstream lines that produce the answer.\n")
            if skipped:
                f.write("# Left out: %s (upstream prints a JSON document with Infinity, which no JSON reader takes).\n"
                        % ", ".join(skipped))
            if racy:
                f.write("# Left out, their upstream answers differing from run to run: %s.\n" % ", ".join(racy))
            f.write("cases:\n")
            for name, params, ans, c in rows:
                f.write("  - name: %s\n    params: %s\n    answer: %s\n    cite: %s\n"
                        % (json.dumps(name, ensure_ascii=False), json.dumps(params, ensure_ascii=False),
                           json.dumps(ans, ensure_ascii=False), json.dumps(c)))
        print(path, len(rows))


if __name__ == "__main__":
    main()
