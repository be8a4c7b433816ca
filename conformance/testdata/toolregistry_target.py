#!/usr/bin/env python3
"""A small third-party wire-protocol target: toolregistry's BashTool.execute written from its docs, without
the deny list. The conformance suite shows where it departs from the spec (see README, "Checking another
implementation")."""
import json
import subprocess
import sys


def execute(params, workspace):
    command = params["command"]
    timeout = params.get("timeout", 120)
    cwd = params.get("cwd") or workspace
    try:
        p = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"stdout": "", "stderr": "", "exit_code": -1, "timed_out": True}
    return {"stdout": p.stdout, "stderr": p.stderr, "exit_code": p.returncode, "timed_out": False}


for line in sys.stdin:
    req = json.loads(line)
    try:
        answer = {"id": req["id"], "result": execute(req["params"], req["workspace"])}
    except Exception as e:  # the tool's raised error: its class name and message
        answer = {"id": req["id"], "error": {"type": type(e).__name__, "message": str(e)}}
    print(json.dumps(answer), flush=True)
