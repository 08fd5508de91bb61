"""The shape the design notes promise, checked: no import circles in the apps, and a pure rules core."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = ("campaigns", "combat", "ships", "config")


def _modules() -> dict[str, Path]:
    found = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules `path` imports, at the top or inside a function alike (a deferred import that only
    dodges a circle is still a circle)."""

    def owner(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    deps = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            deps.update(owner(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                deps.add(full if full in modules else owner(node.module))
    return deps - {""}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for dep in graph[node]:
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_module_of_the_apps_imports_itself_back_through_others():
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_rules_core_never_imports_django_or_the_apps():
    modules = _modules()
    for name, path in modules.items():
        if name.startswith("combat.rules"):
            imported = {dep for dep in _imports(path, modules) if not dep.startswith("combat.rules")}
            assert imported == set(), name
            source = path.read_text()
            assert "import django" not in source and "from django" not in source, name


ROW_WRITES = {"save", "delete", "bulk_create", "bulk_update", "get_or_create", "update_or_create"}
QUERY_WRITES = {"create", "update"}  # also dict.update and the like: a write only on a manager or a query
READERS = (
    "combat/views.py",
    "combat/review_views.py",
    "combat/consumers.py",
    "combat/selectors.py",
    "combat/fragments.py",
    "combat/store.py",
    "combat/exports.py",
    "combat/review.py",
    "combat/charts.py",
)


def _writes(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = ast.unparse(node.func.value)
            if node.func.attr in ROW_WRITES or (
                node.func.attr in QUERY_WRITES
                and (".objects" in receiver or ".filter(" in receiver or ".exclude(" in receiver)
            ):
                found.append(f"{node.lineno} {receiver}.{node.func.attr}()")
    return found


def test_the_write_finder_finds_rows_written_and_not_dicts_updated():
    assert _writes("Job.objects.filter(pk=1).update(x=2)\nrow.save()\nfacts.update(x=1)") == [
        "1 Job.objects.filter(pk=1).update()",
        "2 row.save()",
    ]


def test_combat_writes_only_in_its_services_and_tasks():
    """Views, the socket and the read side never write a row themselves: they call combat.services (encounters)
    or combat.tasks (export jobs)."""
    offenders = {relative: _writes((ROOT / relative).read_text()) for relative in READERS}
    assert {relative: found for relative, found in offenders.items() if found} == {}
