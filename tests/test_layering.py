"""Layering (DESIGN.md, "Layout"): each folder depends only downward, with no exception.

    companion_api                       the server and the command line
      -> tracker.camera                 frames in, events out
           -> tracker.rules             the rules engine: no pixels
           -> vision, calibration       what runs on a picture: no rules
                -> cards                the card ids

`companion_api` reaches the rooms below it only through their front doors (the package
itself: `from tracker.camera import CameraFeed`, never `tracker.camera.feed`). The
simulator, the training code and the benchmarks stand on the product; the product stands on
none of them, nor on torch. `models` holds data (the shipped ONNX files), no code.

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

# each package, and what it may import of the project besides itself
FLOORS: dict[str, tuple[str, ...]] = {
    "tracker": (),  # its two rooms' index, nothing more
    "cards": (),
    "models": (),
    "calibration": ("cards",),
    "vision": ("cards",),
    "tracker.rules": ("cards",),
    "tracker.camera": ("tracker.rules", "vision", "calibration", "cards"),
    "companion_api": ("tracker.rules", "tracker.camera", "vision", "calibration", "cards"),
    "simulator": ("tracker", "vision", "calibration", "cards", "companion_api"),
    "training": ("simulator", "vision", "calibration", "cards", "tracker"),
    # the benchmarks score the models as their training does (held-out designs, matching),
    # with none of its torch (below)
    "bench": ("training", "simulator", "companion_api", "tracker", "vision", "calibration",
              "cards"),
}
PRODUCT = ("cards", "models", "calibration", "vision", "tracker", "companion_api")
# what `companion_api` may name of the rooms below: their front doors, not their modules
FRONT_DOORS = ("tracker.rules", "tracker.camera", "vision", "calibration", "cards")
PIXELS = ("cv2", "numpy", "onnxruntime", "vision", "calibration")


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


def package_of(name: str) -> str | None:
    """The row of FLOORS a dotted name belongs to (the most specific), or None."""
    rows = [p for p in FLOORS if within(name, p)]
    return max(rows, key=len) if rows else None


@cache
def named(path: Path) -> frozenset[str]:
    """Every dotted name an import in `path` names, relative imports resolved: `import a.b`
    names `a.b`; `from a import b` names `a` and `a.b` (which may be a module or a name)."""
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
    return frozenset(names)


def imports(path: Path) -> frozenset[str]:
    """The modules `path` imports (the names above, cut to modules that exist or to names
    from outside the project), with the packages above each."""
    found = set()
    for name in named(path):
        while "." in name and module_path(name) is None and module_path(
                name.rsplit(".", 1)[0]) is not None:
            name = name.rsplit(".", 1)[0]  # `from a import b` where b is a name in a
        found.update(name.rsplit(".", k)[0] for k in range(name.count(".") + 1))
    return frozenset(found)


def files(package: str) -> list[Path]:
    return sorted((ROOT / package.replace(".", "/")).rglob("*.py"))


def modules_of(package: str) -> list[Path]:
    """The files of a FLOORS row."""
    return [p for p in files(package) if package_of(module_name(p)) == package]


def named_modules(path: Path) -> set[str]:
    """The project modules an import in `path` names itself (`from a import b` names `a.b`
    where that is a module, else `a`), not the packages above them."""
    mine = imports(path)
    return {name for name in mine if module_path(name) is not None
            and not any(other.startswith(name + ".") for other in mine
                        if module_path(other) is not None)} - {module_name(path)}


ROWS = [(package, path) for package in FLOORS for path in modules_of(package)]


def test_every_module_is_in_a_row_and_the_rows_are_found():
    everything = {module_name(p) for package in ("cards", "models", "calibration", "vision",
                                                 "tracker", "companion_api", "simulator",
                                                 "training", "bench") for p in files(package)}
    placed = {module_name(p) for _, p in ROWS}
    assert everything == placed
    assert {"tracker.camera.feed", "tracker.rules.engine", "companion_api.cli",
            "simulator.game_video", "training.detect_train", "bench.track"} <= placed


@pytest.mark.parametrize("package, path", ROWS,
                         ids=[str(p.relative_to(ROOT)) for _, p in ROWS])
def test_each_module_imports_only_its_floors(package: str, path: Path):
    allowed = (package, *FLOORS[package])
    wrong = {name for name in named_modules(path) if not any(within(name, a) for a in allowed)}
    assert sorted(wrong) == []


@pytest.mark.parametrize("path", [p for p in files("companion_api")],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_server_uses_the_front_doors_of_the_rooms_below(path: Path):
    """`companion_api` names `tracker.camera`, `tracker.rules`, `vision`, `calibration` and
    `cards`, and what they export, never the modules inside them."""
    inside = {name for name in named(path) if module_path(name) is not None
              and not within(name, "companion_api") and name not in FRONT_DOORS}
    assert sorted(inside) == []


@pytest.mark.parametrize("path", [p for package in PRODUCT for p in files(package)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_product_imports_no_simulator_no_training_no_bench_and_no_torch(path: Path):
    wrong = {name for name in imports(path)
             if any(within(name, p) for p in ("simulator", "training", "bench", "torch"))}
    assert sorted(wrong) == []


@pytest.mark.parametrize("path", [*files("tracker/rules"), ROOT / "tracker" / "__init__.py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_rules_know_nothing_of_pixels(path: Path):
    assert sorted(n for n in imports(path) if any(within(n, p) for p in PIXELS)) == []


def test_models_holds_data_not_code():
    assert [p.name for p in (ROOT / "models").glob("*.py")] == ["__init__.py"]
    source = (ROOT / "models" / "__init__.py").read_text()
    assert not [n for n in ast.parse(source).body if not isinstance(n, ast.Expr)]


def test_the_layering_check_sees_local_relative_and_from_imports():
    # `imports` is what the tests above stand on: a function-local import, a relative one,
    # and `from package import module` all count
    assert "training.scene_training" in imports(ROOT / "training" / "detect_train.py")
    assert "tracker.rules.engine" in imports(ROOT / "tracker" / "camera" / "live.py")
    assert "torch" in imports(ROOT / "training" / "training.py")
    reader = imports(ROOT / "tracker" / "camera" / "reader.py")
    assert "vision.pipeline" in reader and "vision.pipeline.Recognizer" not in reader


def test_importing_the_product_loads_neither_torch_nor_the_simulator():
    code = ("import sys, vision, vision.pipeline, companion_api.app, companion_api.cli, "
            "tracker.camera, tracker.camera.feed; companion_api.cli.build_parser(); "
            "print(sorted(m for m in sys.modules if m.startswith(("
            "'torch', 'simulator.game', 'simulator.render', 'training'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert run.stdout.strip() == "[]"


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


@pytest.mark.parametrize("path", files("bench"), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_benchmark_reaches_no_torch(path: Path):
    """A benchmark runs with the product's dependencies and the simulator's: no training."""
    assert sorted(name for name in reached(path) if within(name, "torch")) == []


# --- import circles ------------------------------------------------------------------------

def import_graph() -> dict[str, set[str]]:
    return {module_name(path): named_modules(path) for _, path in ROWS}


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
    assert "tracker.rules.board" in graph["tracker.rules.effects"]  # the words reach it so
    assert "tracker.rules.engine" not in graph["tracker.rules.effects"]
    assert "tracker.camera.reconcile" not in graph["tracker.camera.stabilize"]
