# Runs one case against one upstream tool and prints its answer as one JSON line after the marker
# ANSWER: {"result": ...} or {"error": {"type": ..., "message": ...}}.
# argv: VARIANT UPSTREAM_DIR WORKSPACE PARAMS_JSON (see cases.py; UPSTREAM_DIR is what extract.sh wrote).
import asyncio, json, os, sys

variant, upstream, ws, text = sys.argv[1:5]
os.chdir(ws)


def answer(d):
    sys.stdout.flush()
    print("ANSWER:" + json.dumps(d, ensure_ascii=False))


try:
    if variant == "rye":
        sys.path.insert(0, upstream)
        import rye_bash  # bash.py of leolilley/ryeos

        # The runner: execute(json.loads(args.params), args.project_path).
        answer({"result": rye_bash.execute(json.loads(text), ws)})
    elif variant == "toolregistry":
        sys.path.insert(0, upstream)
        import toolregistry_bash  # bash_tool.py of Oaklight/toolregistry-hub

        # A host that calls the method with the model's arguments as keywords.
        answer({"result": toolregistry_bash.BashTool.execute(**json.loads(text))})
    elif variant == "tunacode":
        sys.path.insert(0, os.path.join(upstream, "stubs"))
        from typing import Optional

        from pydantic import ValidationError, create_model

        from tunacode.tools.bash import bash

        # pydantic-ai validates the arguments against the signature (lax mode) and calls the tool with them.
        Args = create_model("bash", command=(str, ...), cwd=(Optional[str], None),
                            env=(Optional[dict[str, str]], None), timeout=(Optional[int], 30),
                            capture_output=(bool, True))
        try:
            m = Args.model_validate_json(text)
        except ValidationError as e:
            first = e.errors()[0]
            m = None
            answer({"error": {"type": "ValidationError",
                              "message": ".".join(map(str, first["loc"])) + ": " + first["msg"]}})
        if m is not None:
            answer({"result": asyncio.run(bash(**{k: getattr(m, k) for k in m.model_fields_set}))})
except BaseException as e:  # what escapes the tool is what its host reports
    answer({"error": {"type": type(e).__name__, "message": str(e)}})
