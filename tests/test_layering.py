"""Layering (DESIGN.md, "Layout"): what runs live imports no synthetic data, no training code
and no torch; the benchmarks import no training code; vision knows nothing of rules; each
folder depends only downward, and no module imports, through others, itself.

Read from the source, not from a run: every import a module holds counts, one inside a
function or under `if TYPE_CHECKING` too, for it runs (or is meant) somewhere.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# what runs in the product: `vision` but its synthetic data, and the packages around it
RUNTIME_PACKAGES = ("vision", "calibration", "tracker", "cards", "companion_api")
SYNTH = "vision.synth"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_path(name: str) -> Path | None:
    """The project file of a dotted module name, or None (a name from outside, or a name
    imported from a module rather than a module)."""
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


@cache
def imports(path: Path) -> frozenset[str]:
    """Every module an import in `path` names (`from a import b` names `a` and `a.b`, which
    may be a module), relative imports resolved, with the packages above each."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return frozenset(name.rsplit(".", k)[0] for name in names
                     for k in range(name.count(".") + 1))


def reached(path: Path) -> set[str]:
    """The modules `path` imports, and those they import, through the project's own files."""
    seen: set[str] = set()
    todo = [path]
    while todo:
        for name in imports(todo.pop()) - seen:
            seen.add(name)
            found = module_path(name)
            if found is not None:
                todo.append(found)
    return seen


def is_training(name: str) -> bool:
    """Training code: a `models.*_train` module, torch, or a project module importing torch."""
    found = module_path(name)
    return (within(name, "torch") or (within(name, "models") and name.endswith("_train"))
            or (found is not None and any(within(n, "torch") for n in imports(found))))


def files(*packages: str) -> list[Path]:
    return sorted(path for package in packages for path in (ROOT / package).rglob("*.py"))


RUNTIME = [path for path in files(*RUNTIME_PACKAGES) if not within(module_name(path), SYNTH)]
BENCH = sorted((ROOT / "bench").glob("*.py"))


def test_the_runtime_and_the_benchmarks_are_found():
    names = {module_name(path) for path in RUNTIME}
    assert {"vision.pipeline", "vision.classify", "cards", "companion_api.cli"} <= names
    assert not any(within(name, SYNTH) for name in names)
    assert {"recognize.py", "vision.py", "classifier.py"} <= {path.name for path in BENCH}


# `simulate` is a command of the one console script, so the CLI reaches the simulator, and
# only there, inside that command's handler (the live path never runs it)
SIMULATOR_DOOR = ("companion_api.cli", {"vision.synth", "vision.synth.game_video"})


@pytest.mark.parametrize("path", RUNTIME, ids=lambda p: str(p.relative_to(ROOT)))
def test_what_runs_live_imports_no_synthetic_data_no_models_and_no_torch(path: Path):
    wrong = {name for name in imports(path)
             if within(name, SYNTH) or within(name, "models") or within(name, "torch")}
    if module_name(path) == SIMULATOR_DOOR[0]:
        wrong -= SIMULATOR_DOOR[1]
    assert sorted(wrong) == []


@pytest.mark.parametrize("path", BENCH, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_benchmark_reaches_no_training_code(path: Path):
    assert sorted(name for name in reached(path) if is_training(name)) == []


@pytest.mark.parametrize("path", [p for p in RUNTIME if within(module_name(p), "vision")],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_vision_knows_nothing_of_rules(path: Path):
    """What runs live in `vision` reads cards, not games; the simulator in `vision.synth`
    replays a game's log to draw it, so it may."""
    assert sorted(name for name in imports(path) if within(name, "tracker")) == []


def test_the_layering_check_sees_local_and_relative_imports():
    # `imports` is what the tests above stand on: a function-local `import torch` and a
    # relative import of a training module count
    trainer = ROOT / "models" / "detect_train.py"
    assert is_training("models.detect_train") and is_training("models.training")
    assert "models.scene_training" in imports(trainer)
    assert not is_training("models.evaluate") and not is_training("vision.pipeline")


def test_importing_the_live_path_loads_neither_torch_nor_synthetic_data():
    code = ("import sys, vision, vision.pipeline, vision.classify, vision.detect; "
            "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith("
            "('torch.', 'vision.synth', 'models'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert run.stdout.strip() == "[]"


# --- import circles and the direction of dependence --------------------------------------

PACKAGES = ("cards", "tracker", "vision", "calibration", "models", "companion_api")


def named_modules(path: Path) -> set[str]:
    """The project modules an import in `path` names itself (`from a import b` names `a.b`
    where that is a module, else `a`), not the packages above them."""
    return {name for name in imports(path) if module_path(name) is not None
            and not any(other.startswith(name + ".") for other in imports(path)
                        if module_path(other) is not None)} - {module_name(path)}


def import_graph() -> dict[str, set[str]]:
    return {module_name(path): named_modules(path) for path in files(*PACKAGES)}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_among_the_projects_modules():
    assert circles(import_graph()) == []


def test_the_circle_check_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    graph = import_graph()
    assert "tracker.board" in graph["tracker.effects"]  # the words reach the game through it
    assert "tracker.engine" not in graph["tracker.effects"]


@pytest.mark.parametrize("package, below", [
    ("cards", ()),
    ("tracker", ("cards",)),
    ("calibration", ("cards",)),
    ("vision", ("cards",)),
    (SYNTH, ("cards", "vision", "tracker", "calibration")),
    ("models", ("cards", "vision")),
    ("companion_api", ("cards", "tracker", "vision", "calibration")),
])
def test_each_folder_depends_only_downward(package, below):
    """companion_api -> tracker, vision, calibration -> cards (DESIGN.md, "Layout"); the
    training code stands on vision (its renderer and runtime), and nothing on it; the game
    simulator (`vision.synth`) draws games, so it stands on the rules and the calibration
    markers too, and nothing that runs live stands on it."""
    allowed = {package.split(".")[0], *below}
    for path in files(package.replace(".", "/")):
        if package == "vision" and within(module_name(path), SYNTH):
            continue  # the simulator: its own row
        outside = {name.split(".")[0] for name in named_modules(path)} - allowed
        assert outside == set(), module_name(path)
