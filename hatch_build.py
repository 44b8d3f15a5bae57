"""Hatchling build hook: bundle the browser runtime with esbuild before the wheel is assembled.

The runtime's sources are ES modules in ``posecode_ssg/runtime/`` importing ``three`` (pinned in
``package.json`` / ``package-lock.json``). Browsers get one file, so every wheel build (the editable
one made by ``pip install -e .`` included) runs:

1. ``npm ci --ignore-scripts`` when ``node_modules/three`` or ``node_modules/terser`` is absent (npm 11 skips install scripts
   anyway; esbuild's native binary comes from its optional ``@esbuild/<platform>`` package);
2. ``npm run build``: esbuild bundles ``posecode_ssg/runtime/index.js`` with only the named three.js
   imports it uses into ``posecode_ssg/runtime/dist/posecode-runtime.js`` (minified ESM, three's MIT
   ``@license`` block kept at the end of the file), then terser compresses and mangles that file
   once more with ``terser.json`` (about 1 KB less gzip of our own code than esbuild's minifier
   alone, 0.5 KB more from renaming our internal property names; issue 4 budget);
3. copies ``node_modules/three/LICENSE`` to ``posecode_ssg/runtime/dist/THREE-LICENSE.txt``.

Both outputs are gitignored and declared as build artifacts so they land in the wheel. Facts behind
this recipe (three >= 0.186 ships no minified files, the PyPI ``esbuild`` shim is broken):
``../shared/design/browser-stack.md`` section 4.

Environment: ``POSECODE_SKIP_JS_BUILD=1`` keeps an existing bundle as it is. Without Node.js/npm
the hook warns and builds the wheel without a bundle (the Python side still works; pages then load
no player and show their SVG posters).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

DIST = Path("posecode_ssg") / "runtime" / "dist"
BUNDLE = DIST / "posecode-runtime.js"
LICENSE = DIST / "THREE-LICENSE.txt"


class RuntimeBundleHook(BuildHookInterface):
    """Build ``posecode-runtime.js`` + ``THREE-LICENSE.txt`` and add them to the wheel."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        root = Path(self.root)
        bundle, licence = root / BUNDLE, root / LICENSE
        if not (os.environ.get("POSECODE_SKIP_JS_BUILD") == "1" and bundle.exists()):
            self._build(root)
        for rel, path in ((BUNDLE, bundle), (LICENSE, licence)):
            if path.exists():
                build_data.setdefault("artifacts", []).append(rel.as_posix())

    def _build(self, root: Path) -> None:
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None:
            self.app.display_warning(
                "posecode-ssg: Node.js/npm not found; the browser runtime bundle "
                f"({BUNDLE.as_posix()}) was not built. Install Node.js >= 18 and reinstall."
            )
            return
        if not all((root / "node_modules" / dep / "package.json").exists() for dep in ("three", "terser")):
            self.app.display_info("posecode-ssg: npm ci --ignore-scripts (three.js, esbuild, terser)")
            self._run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], root)
        self.app.display_info(f"posecode-ssg: esbuild + terser -> {BUNDLE.as_posix()}")
        self._run([npm, "run", "--silent", "build"], root)
        shutil.copyfile(root / "node_modules" / "three" / "LICENSE", root / LICENSE)

    @staticmethod
    def _run(cmd: list[str], cwd: Path) -> None:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(
                f"posecode-ssg runtime build failed: {' '.join(cmd)} exited {proc.returncode}\n"
                f"{proc.stdout}\n{proc.stderr}"
            )
