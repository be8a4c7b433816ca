"""Serve a handler over the agentbash conformance wire protocol (conformance/PROTOCOL.md).

Standard library only. Make any implementation of a Bash-tool contract a conformance target in a few lines:

    import agentbash_wire

    def handle(tool, params, workspace):
        ...                      # return the tool's result: a dict, or a str for a text tool
        raise ValueError("...")  # or raise what the tool raises: the class name is the error type

    agentbash_wire.serve(handle)

Then: agentbash conformance VARIANT -- python3 my_target.py
"""

import json
import sys

__all__ = ["serve", "ToolError"]


class ToolError(Exception):
    """An error whose type is not a Python class name: ToolError("ModelRetry", "message")."""

    def __init__(self, type_, message):
        super().__init__(message)
        self.type = type_
        self.message = message


def _error(exc):
    if isinstance(exc, ToolError):
        return {"type": exc.type, "message": exc.message}
    # str(KeyError('command')) is "'command'", as Python shows it.
    return {"type": type(exc).__name__, "message": str(exc)}


def serve(handler, stdin=None, stdout=None):
    """Read one JSON request per line, call handler(tool, params, workspace), write one answer per line.

    Requests are answered one at a time, in order (a conformant target may do so). Returns at the end of
    the input. A line that is not JSON is answered with id null and the error type ProtocolError.
    """
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout
    for raw in stdin:
        if not raw.strip():
            continue
        try:
            req = json.loads(raw)
            rid = req.get("id")
        except (ValueError, AttributeError) as exc:
            answer = {"id": None, "error": {"type": "ProtocolError", "message": str(exc)}}
        else:
            try:
                result = handler(req.get("tool"), req.get("params"), req.get("workspace"))
                answer = {"id": rid, "result": result}
            except Exception as exc:  # the tool's raised error, whatever its class
                answer = {"id": rid, "error": _error(exc)}
        stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        stdout.flush()
