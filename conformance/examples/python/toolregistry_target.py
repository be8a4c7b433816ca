"""A small implementation of the toolregistry contract (variants/toolregistry), served as a conformance
target with agentbash_wire:

    agentbash conformance toolregistry -baseline conformance/examples/python/baseline.yaml \
        -- python3 conformance/examples/python/toolregistry_target.py

It runs the command with /bin/sh -c in its own session (so a timeout kills the whole group), decodes each
stream as strict UTF-8 with universal newlines, cuts it at 65,536 bytes, and applies the deny list. What it
does not do yet is in baseline.yaml, each with its reason.
"""

import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentbash_wire  # noqa: E402

LIMIT = 65536
MARKER = "\n... [output truncated]"
PIPE_TO_SHELL = (re.compile(r"\b(?:curl|wget)\b.*\|\s*(?:bash|sh|zsh|dash)\b"), "pipe-to-shell execution detected")
SPLIT = re.compile(r"\s*(?:&&|\|\||;)\s*")
DENY = [(re.compile(p), reason) for p, reason in [
    (r"\brm\s+.*-[a-zA-Z]*r[a-zA-Z]*f[a-zA-Z]*\s+[/~*]|\brm\s+.*-[a-zA-Z]*f[a-zA-Z]*r[a-zA-Z]*\s+[/~*]",
     "Recursive forced deletion of root, home, or wildcard paths"),
    (r"\bmkfs\b", "Filesystem formatting"),
    (r"\bdd\s+.*\bif=", "Raw disk image write"),
    (r">\s*/dev/sd[a-z]", "Device overwrite"),
    (r"\bsudo\b", "Privilege escalation via sudo"),
    (r"\bsu\s+-", "User switching via su"),
    (r"\bchmod\s+.*-[a-zA-Z]*R.*\b777\b.*\s+/", "Recursive world-writable permission on root"),
    (r"\bchown\s+.*-[a-zA-Z]*R", "Recursive ownership change"),
    (r"\beval\b", "Arbitrary code evaluation"),
    (r"\bexec\b", "Process replacement via exec"),
    (r":\(\)\s*\{.*:\|:.*\}", "Fork bomb"),
    (r"\bgit\s+push\s+.*--force\b", "Force push"),
    (r"\bgit\s+reset\s+--hard\b", "Hard reset"),
    (r"\bgit\s+clean\s+.*-[a-zA-Z]*f", "Force clean"),
    (r"\bshutdown\b", "System shutdown"),
    (r"\breboot\b", "System reboot"),
    (r"\bhalt\b", "System halt"),
    (r"\bkill\s+.*-9\s+1\b", "Killing init process"),
]]


def validate(command):
    if PIPE_TO_SHELL[0].search(command):
        raise ValueError("Dangerous command blocked: " + PIPE_TO_SHELL[1])
    for segment in SPLIT.split(command):
        segment = segment.strip()
        for pattern, reason in DENY:
            if segment and pattern.search(segment):
                raise ValueError("Dangerous command blocked: " + reason)


def text(data):
    """Strict UTF-8, universal newlines, cut at LIMIT bytes (the cut decoded ignoring a split character)."""
    s = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    b = s.encode("utf-8")
    if len(b) > LIMIT:
        return b[:LIMIT].decode("utf-8", errors="ignore") + MARKER
    return s


class BashTool:
    def __init__(self, workspace):
        self.workspace = workspace

    def execute(self, command, timeout=120, cwd=None):
        validate(command)
        if cwd is not None:
            path = os.path.join(self.workspace, cwd) if cwd else cwd
            if cwd and not os.path.isdir(path):
                raise FileNotFoundError("Working directory does not exist: " + cwd)
        else:
            path = self.workspace
        proc = subprocess.Popen(["/bin/sh", "-c", command], cwd=path, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout if timeout is None or timeout > 0 else 0.001)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {"stdout": "", "stderr": "", "exit_code": -1, "timed_out": True}
        finally:
            # Whatever the shell left in its group (sleep 30 &) ends with the call.
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return {"stdout": text(out), "stderr": text(err), "exit_code": proc.returncode, "timed_out": False}


def handle(tool, params, workspace):
    if tool != "bash":
        raise agentbash_wire.ToolError("Error", "no tool " + repr(tool))
    return BashTool(workspace).execute(**params)


if __name__ == "__main__":
    agentbash_wire.serve(handle)
