"""Function-level imports that cost nothing at start-up, run by hand (not collected by pytest)::

    python benchmarks/bench_lazy_imports.py [FILE.py ...]

The project imports a module inside a function only when its command would not otherwise
load it (start-up: ``benchmarks/bench_startup.py``).  For each module of the CLI layer and
the library (or the files named), this imports the module alone in a fresh process and lists
its function-level imports whose module is then already loaded: those cost nothing at the
top of the module and belong there.  An empty list is the goal; a line printed is a move to
make (or a cycle to keep, said beside the import).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["sevendag_cli/cli.py", "sevendag_cli/commandline.py", "sevendag_cli/click_compat.py",
          "sevendag_cli/options.py", "sevendag_cli/output.py", "sevendag_cli/failure.py",
          "sevendag_cli/library.py", "sevendag_cli/encounter.py",
          *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "sevendag_cli" / "commands").glob("[!_]*.py"))]

PROBE = """\
import importlib.util, json, sys
import {module}
found = []
for line, module, name in json.loads(sys.argv[1]):
    if module not in sys.modules:
        continue
    if name is not None:
        whole = f"{{module}}.{{name}}"
        is_module = whole in sys.modules or (hasattr(sys.modules[module], "__path__")
                                             and importlib.util.find_spec(whole) is not None)
        if is_module and whole not in sys.modules:
            continue
        if not is_module and not hasattr(sys.modules[module], name):
            continue
    found.append([line, module, name])
print(json.dumps(found))
"""


def inner_imports(source: str) -> list[tuple[int, str, str | None]]:
    found: list[tuple[int, str, str | None]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Import):
                    found += [(sub.lineno, a.name, None) for a in sub.names]
                elif isinstance(sub, ast.ImportFrom) and sub.module and sub.level == 0:
                    found += [(sub.lineno, sub.module, a.name) for a in sub.names]
    return found


def main() -> None:
    files = sys.argv[1:] or LAYERS
    moves = 0
    for name in files:
        inner = inner_imports((ROOT / name).read_text("utf-8"))
        if not inner:
            continue
        module = name[:-3].replace("/", ".")
        done = subprocess.run([sys.executable, "-c", PROBE.format(module=module), json.dumps(inner)],
                              capture_output=True, text=True, cwd=ROOT, check=True)
        free = json.loads(done.stdout)
        moves += len(free)
        said = ", ".join(f"{m}{'.' + n if n else ''} (line {line})" for line, m, n in free)
        print(f"{name}: {len(inner)} function-level imports; free at the top: {said or 'none'}")
    print(f"{moves} to move")


if __name__ == "__main__":
    main()
