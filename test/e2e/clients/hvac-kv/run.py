"""Runs one of hvac's KV test modules (v1 or v2) with unittest against Latchkey and prints one
JSON object: the hvac version, the mounts the tests asked for, and each test's outcome
(pass, fail: an assertion failed, error: a request raised, skip) with its last traceback line."""
import importlib
import importlib.metadata
import json
import logging
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import parameterized  # noqa: F401
except ImportError:
    sys.path.append(os.path.join(HERE, "fallback"))

from tests.utils import hvac_integration_test_case as case  # noqa: E402


class Outcomes(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.outcomes = {}

    def addSuccess(self, test):
        self.outcomes[test.id()] = {"result": "pass"}

    def addFailure(self, test, err):
        self.outcomes[test.id()] = {"result": "fail", "detail": self._exc_info_to_string(err, test).strip().splitlines()[-1]}

    def addError(self, test, err):
        self.outcomes[test.id()] = {"result": "error", "detail": self._exc_info_to_string(err, test).strip().splitlines()[-1]}

    def addSkip(self, test, reason):
        self.outcomes[test.id()] = {"result": "skip", "detail": reason}


def main():
    logging.disable(logging.CRITICAL)
    case.CONTROL = os.environ["LATCHKEY_CONTROL"]
    module = importlib.import_module("tests.integration_tests.api.secrets_engines.%s" % sys.argv[1])
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = Outcomes()
    suite.run(result)
    print(json.dumps({"hvac": importlib.metadata.version("hvac"), "enabled": case.ENABLED, "tests": result.outcomes}))


main()
