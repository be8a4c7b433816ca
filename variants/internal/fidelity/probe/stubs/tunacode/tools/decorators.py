# probe stub: the wrapper semantics of tunacode/tools/decorators.py:103-116 at 529f1380
from functools import wraps
from pydantic_ai.exceptions import ModelRetry
class ToolExecutionError(Exception):
    pass
def base_tool(func):
    @wraps(func)
    async def wrapper(*a, **k):
        try:
            return await func(*a, **k)
        except ModelRetry:
            raise
        except Exception as e:
            raise ToolExecutionError("Tool '%s' failed: %s" % (func.__name__, e)) from e
    return wrapper
