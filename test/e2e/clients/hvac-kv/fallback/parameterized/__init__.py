"""A stand-in for the `parameterized` package's `parameterized.expand` and `param`, used only when
that package is not installed: one test method per case, named as parameterized names them
(<method>_<index>_<first argument, made safe>)."""
import functools
import inspect
import re


class param(object):
    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs


def _as_param(case):
    if isinstance(case, param):
        return case
    if isinstance(case, (tuple, list)):
        return param(*case)
    return param(case)


def _safe(value):
    return re.sub(r"\W+", "_", str(value)).strip("_")


class parameterized(object):
    @staticmethod
    def expand(cases):
        namespace = inspect.currentframe().f_back.f_locals

        def decorator(func):
            for i, case in enumerate(_as_param(c) for c in cases):
                name = "%s_%d_%s" % (func.__name__, i, _safe(case.args[0]) if case.args else "")

                def make(case=case):
                    @functools.wraps(func)
                    def test(self):
                        return func(self, *case.args, **case.kwargs)

                    return test

                method = make()
                method.__name__ = name
                namespace[name] = method
            return None

        return decorator
