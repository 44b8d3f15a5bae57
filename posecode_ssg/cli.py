"""Command-line entry point: ``posecode-ssg build | serve | check | compile | new | eval``.

Each subcommand is thin: it parses its flags here and hands an
``argparse.Namespace`` to ``posecode_ssg.commands.<name>.run``, which returns
the process exit status (0 clean, 1 problems found, 2 usage error).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from posecode_ssg import __version__


def build_parser() -> argparse.ArgumentParser:
    """Return the argparse parser for every subcommand (flags are public contracts)."""
    parser = argparse.ArgumentParser(
        prog="posecode-ssg",
        description="Publish movement libraries written in Posecode v0.4 as static websites.",
    )
    parser.add_argument("--version", action="version", version=f"posecode-ssg {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("check", help="validate .posecode files and ```posecode fences like a compiler")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (.posecode, .md)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--strict", action="store_true", help="make warnings fail (exit 1)")
    p.add_argument("--config", metavar="FILE",
                   help="posecode.toml whose content folder links resolve in (default: ./posecode.toml if present)")

    p = sub.add_parser("compile", help="compile one document to motion JSON and/or an SVG poster")
    p.add_argument("file", metavar="FILE", help="a .posecode file, or a Markdown page (its ```posecode fences)")
    p.add_argument("--fence", type=int, default=1, metavar="N",
                   help="of a Markdown page, compile the N-th ```posecode fence (default 1)")
    p.add_argument("--json", action="store_true", help="print the compact motion JSON")
    p.add_argument("--poster", metavar="OUT.svg", help="write the SVG poster here")

    p = sub.add_parser("build", help="build the static site")
    p.add_argument("--config", metavar="FILE", help="posecode.toml (default: ./posecode.toml if present)")
    p.add_argument("--content", metavar="DIR", help="content folder (overrides the config)")
    p.add_argument("--out", metavar="DIR", help="output folder (default: site/)")
    p.add_argument("--strict", action="store_true", help="fail on warnings")

    p = sub.add_parser("serve", help="preview the site with live reload")
    p.add_argument("--config", metavar="FILE", help="posecode.toml to use (default: ./posecode.toml if present)")
    p.add_argument("--content", metavar="DIR", help="content folder (overrides the config)")
    p.add_argument("--watch", dest="watch", action=argparse.BooleanOptionalAction, default=True,
                   help="rebuild on every change and reload open pages (default: on)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default: %(default)s)")
    p.add_argument("--open", action="store_true", help="open a browser tab")

    p = sub.add_parser("new", help="scaffold a new movement library")
    p.add_argument("dir", metavar="DIR")
    from posecode_ssg.commands.new import TEMPLATES

    p.add_argument("--template", choices=list(TEMPLATES), default="basic",
                   help="what the library starts with: " + "; ".join(f"{k}: {v}" for k, v in TEMPLATES.items())
                   + " (default: %(default)s)")
    p.add_argument("--language", metavar="TAG",
                   help="the site's language, a BCP 47 tag such as de or pt-BR (docs/i18n.md); the starter's pages "
                        "are written in it where the template has them")
    p.add_argument("--title", metavar="TEXT", help="the library's name (default: DIR's name as written)")

    p = sub.add_parser("eval", help="sample the real runtime in headless Chromium and report contact fidelity")
    p.add_argument("paths", nargs="+", metavar="PATH", help=".posecode or .md files, or folders of them")
    p.add_argument("--hz", type=float, default=60.0,
                   help="samples per second over one whole loop (default: %(default)g)")
    p.add_argument("--json", action="store_true",
                   help='print {"passed", "documents": [...]} as JSON instead of the table')

    p = sub.add_parser("export", help="a movement as PNG, SVG, GIF, video, contact sheet, BVH or glTF (the solved motion)")
    p.add_argument("files", nargs="+", metavar="FILE", help=".posecode files or Markdown pages (their fences)")
    p.add_argument("-o", "--out", required=True, metavar="OUT",
                   help="the file to write (its extension picks the format), or a folder for several")
    p.add_argument("--format", choices=["png", "svg", "gif", "webm", "mp4", "sheet", "bvh", "gltf", "glb"],
                   help="the format (default: from OUT's extension; a contact sheet only with --format sheet)")
    p.add_argument("--fence", type=int, metavar="N", help="of a Markdown page, only its N-th ```posecode fence")
    p.add_argument("--width", type=int, metavar="W", help="image or video width in pixels")
    p.add_argument("--height", type=int, metavar="H", help="image or video height in pixels")
    p.add_argument("--fps", type=float, metavar="F", help="frames per second (GIF, video, BVH, glTF)")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--time", type=float, metavar="T", help="one frame at T seconds into the loop (png, svg)")
    when.add_argument("--phase", type=int, metavar="N", help="one frame at the end of the N-th step, from 1 (png, svg)")
    p.add_argument("--view", choices=["side", "front", "auto"], default="auto", help="camera (default: auto)")
    p.add_argument("--avatar", metavar="A", help="the body (avatar1, avatar2, ...)")
    p.add_argument("--flip", action="store_true", help="mirror left and right")
    p.add_argument("--renderer", choices=["3d", "2d"],
                   help="3d: the real player in headless Chromium (default for png, gif, video); 2d: the poster's figure")
    p.add_argument("--equipment", metavar="ITEMS", help="equipment words drawn on the figure (as the fence attribute)")
    p.add_argument("--mid", action="store_true", help="contact sheet: also the middle of each step")
    p.add_argument("--loops", type=int, metavar="N",
                   help="BVH and glTF: N loops one after another, the turns and travel carried on (default 1)")

    p = sub.add_parser("fmt", help="rewrite Posecode in its one canonical layout (.posecode files and fences in .md)")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (.posecode, .md)")
    p.add_argument("--check", action="store_true",
                   help="change nothing: list the files that would change and exit 1 if any would")

    p = sub.add_parser("lsp", help="run the Posecode language server on stdin/stdout (for editors)")
    p.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default and only transport)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns (and exits with) the subcommand's status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    try:
        module = importlib.import_module(f"posecode_ssg.commands.{args.command}")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("posecode_ssg.commands"):
            print(f"posecode-ssg: '{args.command}' is not available in this version", file=sys.stderr)
            return 2
        raise
    try:
        return int(module.run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (``posecode-ssg check ... | head``): stop quietly, as Unix tools do
        # (Python docs, "Note on SIGPIPE"); point stdout at devnull so the interpreter's final
        # flush cannot raise again
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
