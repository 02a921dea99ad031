"""Latchkey's stand-in for hvac's tests/utils: the Vault version its tests gate on.

Latchkey answers as current Vault 1.x releases do; the tests are gated as against Vault 1.15.
"""
import operator

VAULT_VERSION = (1, 15, 0)


def _parse(version):
    return tuple(int(x) for x in version.split("."))


def if_vault_version(supported_version, comparison=operator.lt):
    return comparison(VAULT_VERSION, _parse(supported_version))


def vault_version_lt(supported_version):
    return if_vault_version(supported_version, comparison=operator.lt)


def vault_version_ge(supported_version):
    return if_vault_version(supported_version, comparison=operator.ge)


def vault_version_eq(supported_version):
    return if_vault_version(supported_version, comparison=operator.eq)
