"""Writes variants/codegensandbox/testdata/fidelity.yaml: what CodeGen-Sandbox's Bash (internal/tools/bash.go
at 455c1a27, served by mark3labs/mcp-go v0.49.0) answers to each JSON type of each parameter.

    python3 codegensandbox.py

The server is not built here (its dependencies are not at hand), so each answer is derived from the Go
code it cites, the way that code reads encoding/json's values (float64, string, bool, map, slice) with
type assertions: a value of another type is the zero value.
"""
import json, os

BASH = "internal/tools/bash.go"
TYPES = [
    ("integer", "5"), ("zero", "0"), ("float", "1.5"), ("true", "true"), ("false", "false"), ("null", "null"),
    ("empty list", "[]"), ("list", '["x"]'), ("empty object", "{}"), ("object", '{"x": 1}'),
    ("huge float", "1e400"), ("huge integer", "123456789012345678901234567890"), ("NUL", '"a\\u0000b"'),
    ("unicode", '"é✓"'), ("empty", '""'),
]
UNPARSABLE = ("server/request_handler.go:327-331 of mark3labs/mcp-go v0.49.0 (json.Unmarshal of the request "
              "fails: INVALID_REQUEST)")


def go_value(text):
    """What encoding/json puts in a map[string]any for the JSON text, or None for a number out of range."""
    v = json.loads(text)
    if isinstance(v, bool) or v is None or isinstance(v, (str, list, dict)):
        return v
    f = float(v)
    return None if f in (float("inf"), float("-inf")) else ("float64", f)


def unparsable(text):
    return {"rpc_error": {"code": -32600, "message": "unparsable tools/call request: json: cannot unmarshal number "
                          + text + " into Go struct field CallToolParams.params.arguments of type float64"}}


def go_quote(s):
    return json.dumps(s, ensure_ascii=False).replace("\\u0000", "\\x00")


def ok(out):
    return {"result": out}


def tool_error(msg):
    return {"error": {"type": "ToolError", "message": msg}}


def main():
    rows = []
    for name, text in TYPES + [("string", '"echo ok"'), ("NUL command", '"echo a\\u0000b"'),
                               ("unicode command", '"printf \'héllo ✓\'"'), ("failing", '"echo no; exit 3"')]:
        v = go_value(text)
        params = '{"command": %s, "description": "d"}' % text
        if text in ("1e400",):
            rows.append(("command/" + name, params, unparsable(text), UNPARSABLE))
        elif not isinstance(v, str) or v == "":
            rows.append(("command/" + name, params, tool_error("command is required"),
                         BASH + ":72-75 (args[\"command\"].(string) is \"\")"))
        elif "\x00" in v:
            rows.append(("command/" + name, params, tool_error("bash: fork/exec /bin/bash: invalid argument"),
                         BASH + ":59-65,145 (CombinedOutput: os/exec refuses the NUL, EINVAL; \"bash: %v\")"))
        elif v == "echo no; exit 3":
            rows.append(("command/" + name, params, ok("no\nexit: 3\n"), BASH + ":148-162 (formatBashOutput)"))
        elif v.startswith("printf"):
            rows.append(("command/" + name, params, ok("héllo ✓\n"), BASH + ":148-162 (formatBashOutput)"))
        else:
            rows.append(("command/" + name, params, tool_error("command is required") if v in ("a\x00b",) else
                         ok({"é✓": "/bin/bash: line 1: é✓: command not found\nexit: 127\n", "echo ok": "ok\n"}[v]),
                         BASH + ":59-67,148-162 (run, formatBashOutput)"))
    for name, text in TYPES:
        v = go_value(text)
        params = '{"command": "echo ok", "description": %s}' % text
        if text == "1e400":
            rows.append(("description/" + name, params, unparsable(text), UNPARSABLE))
        elif not isinstance(v, str) or v == "":
            rows.append(("description/" + name, params, tool_error("description is required"),
                         BASH + ":79-81 (args[\"description\"].(string) is \"\")"))
        else:
            rows.append(("description/" + name, params, ok("ok\n"), BASH + ":79-81 (recorded only)"))
    for name, text in TYPES + [("negative", "-1"), ("over the maximum", "601"), ("past int64", "1e19")]:
        v = go_value(text)
        params = '{"command": "echo ok", "description": "d", "timeout": %s}' % text
        if text == "1e400":
            rows.append(("timeout/" + name, params, unparsable(text), UNPARSABLE))
        else:
            rows.append(("timeout/" + name, params, ok("ok\n"),
                         BASH + ":88-99 (parseBashTimeout: not a float64, or int(v) <= 0, is 120 (int(v) of a float "
                         "past int64 is math.MinInt64 on amd64); above 600 is 600)"))
    for name, text in TYPES:
        v = go_value(text)
        params = '{"command": "echo ok", "description": "d", "run_in_background": %s}' % text
        if text == "1e400":
            rows.append(("run_in_background/" + name, params, unparsable(text), UNPARSABLE))
        elif v is True:
            continue  # a shell id: the behaviour tests
        else:
            rows.append(("run_in_background/" + name, params, ok("ok\n"),
                         BASH + ":51-53 (args[\"run_in_background\"].(bool) is false: the foreground)"))
    for name, text in TYPES + [("the workspace", '"ws"'), ("padded", '" ws "')]:
        v = go_value(text)
        params = '{"command": "echo ok", "description": "d", "workspace": %s}' % text
        cite = "internal/tools/workspace_dispatch.go (ResolveWorkspace at bf32e15b: the hint trimmed, a single workspace named after its directory)"
        if text == "1e400":
            rows.append(("workspace/" + name, params, unparsable(text), UNPARSABLE))
        elif isinstance(v, str) and v.strip() not in ("", "ws"):
            rows.append(("workspace/" + name, params, tool_error("unknown workspace %s; configured: ws" % go_quote(v.strip())), cite))
        else:
            rows.append(("workspace/" + name, params, ok("ok\n"), cite))
    rows.append(("arguments/not an object", "[]", tool_error("command is required"),
                 BASH + ":44 (args, _ := req.Params.Arguments.(map[string]any): nil), 72-75"))
    rows.append(("arguments/huge number in an unknown key", '{"command": "echo ok", "description": "d", "x": [1, {"y": -1e999}]}',
                 unparsable("-1e999"), UNPARSABLE))
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "..", "codegensandbox", "testdata", "fidelity.yaml")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("# What CodeGen-Sandbox's Bash answers to each JSON type of each parameter, derived from the Go code\n")
        f.write("# each case cites by variants/internal/fidelity/probe/codegensandbox.py; do not edit. Bash has no\n")
        f.write("# working-directory parameter (it runs in the workspace root). run_in_background true answers a\n")
        f.write("# shell id, left to the behaviour tests.\ncases:\n")
        for n, p, a, c in rows:
            f.write("  - name: %s\n    params: %s\n    answer: %s\n    cite: %s\n" % (
                json.dumps(n, ensure_ascii=False), json.dumps(p, ensure_ascii=False),
                json.dumps(json.dumps(a, ensure_ascii=False), ensure_ascii=False), json.dumps(c)))
    print(os.path.normpath(path), len(rows))


main()
