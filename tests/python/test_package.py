"""The installed package: what `pip install .` put into the environment."""

import ast
import re
from pathlib import Path

import latpoly

ROOT = Path(__file__).resolve().parents[2]


def test_type_stubs_are_installed_with_the_package():
    here = Path(latpoly.__file__).parent
    assert (here / "py.typed").is_file()
    assert (here / "__init__.pyi").is_file()


def test_stubs_declare_every_public_name():
    stub = ast.parse((Path(latpoly.__file__).parent / "__init__.pyi").read_text())
    declared = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert set(latpoly.__all__) <= declared, set(latpoly.__all__) - declared
    for name in latpoly.__all__:
        assert hasattr(latpoly, name)


def test_version_is_the_cargo_workspace_version():
    cargo = (ROOT / "Cargo.toml").read_text()
    section = cargo.split("[workspace.package]", 1)[1]
    version = re.search(r'^version\s*=\s*"([^"]+)"', section, re.M).group(1)
    assert latpoly.__version__ == version
