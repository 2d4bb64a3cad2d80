"""The README's test command installs the Debian packages of packages.txt as root, through
sudo, or not at all where they are installed already: it began with `sudo`, which a root
container often lacks (exit 127). Run here with apt-get, dpkg-query, id and sudo replaced by
stubs on a PATH that holds nothing else but the few tools the installer uses."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = " ".join((ROOT / "packages.txt").read_text().split())
TOOLS = ("sh", "cat", "grep", "dirname", "env")  # what the installer runs besides the stubs


def readme_test_command() -> str:
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return next(line for block in blocks for line in block.splitlines()
                if "python -m pytest" in line)


def _stub(path: Path, body: str) -> None:
    path.write_text(f"#!{shutil.which('sh')}\n{body}\n")
    path.chmod(0o755)


def _install(tmp_path: Path, *, uid: int, sudo: bool, installed: bool
             ) -> tuple[subprocess.CompletedProcess, list[str]]:
    """The README command's install step on a machine of this kind; the commands the
    stubs were given."""
    tools, calls = tmp_path / "bin", tmp_path / "calls"
    tools.mkdir()
    for tool in TOOLS:
        (tools / tool).symlink_to(shutil.which(tool))
    _stub(tools / "id", f"echo {uid}")
    _stub(tools / "dpkg-query", "echo 'install ok installed'" if installed else "exit 1")
    _stub(tools / "apt-get", f'echo "apt-get $*" >> {calls}')
    if sudo:
        _stub(tools / "sudo", f'echo "sudo $*" >> {calls}; exec "$@"')
    install = readme_test_command().split(" && ")[0]
    done = subprocess.run([shutil.which("sh"), "-c", install], cwd=ROOT, env={
        "PATH": str(tools)}, capture_output=True, text=True, timeout=60)
    return done, calls.read_text().splitlines() if calls.exists() else []


def test_the_readme_s_test_command_installs_first_and_needs_no_sudo():
    command = readme_test_command()
    assert "sudo" not in command
    assert command.split(" && ")[1:] == ["pip install -e '.[test]'", "python -m pytest"]
    assert "sh .ci/install-packages" in (ROOT / ".ci" / "run").read_text()


def test_as_root_without_sudo_it_runs_apt_get_itself(tmp_path):
    done, calls = _install(tmp_path, uid=0, sudo=False, installed=False)
    assert done.returncode == 0, done.stderr
    assert calls == ["apt-get update -qq", f"apt-get install -y -qq {PACKAGES}"]


def test_as_another_user_it_runs_apt_get_through_sudo(tmp_path):
    done, calls = _install(tmp_path, uid=1000, sudo=True, installed=False)
    assert done.returncode == 0, done.stderr
    assert calls == ["sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq",
                     "apt-get update -qq",
                     f"sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
                     f"{PACKAGES}", f"apt-get install -y -qq {PACKAGES}"]


@pytest.mark.parametrize("uid", [0, 1000])
def test_with_the_packages_installed_it_needs_neither_root_nor_sudo(tmp_path, uid):
    done, calls = _install(tmp_path, uid=uid, sudo=False, installed=True)
    assert done.returncode == 0 and done.stderr == "" and calls == []


def test_without_root_or_sudo_it_says_what_to_install_in_one_line(tmp_path):
    done, calls = _install(tmp_path, uid=1000, sudo=False, installed=False)
    assert done.returncode == 1 and calls == []
    assert done.stderr == (f"install-packages: not installed: {PACKAGES}; as root, run "
                           f"apt-get install -y {PACKAGES}\n")
