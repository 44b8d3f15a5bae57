"""The VS Code extension in editors/vscode/ (issue 26 item 4): its manifest declares the language,
the generated grammars and the server setting; the language configuration's comment and
indentation rules; the client starts ``posecode-ssg lsp`` over stdio for Posecode and Markdown
documents (run under node with stand-ins for the ``vscode`` API and vscode-languageclient, which
CI does not install); the root package.json only gains the two test devDependencies."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from posecode_ssg.language import textmate

from .conftest import missing, under_ci
from .support import EXTENSION, HERE, REPO, TEXTMATE_PACKAGES


def manifest() -> dict:
    """editors/vscode/package.json."""
    return json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))


def test_manifest_declares_the_language_grammars_and_setting():
    m = manifest()
    assert m["name"] == "posecode" and m["main"] == "./extension.js" and "vscode" in m["engines"]
    (lang,) = m["contributes"]["languages"]
    assert lang["id"] == "posecode" and lang["extensions"] == [".posecode"]
    assert (EXTENSION / lang["configuration"]).is_file()
    grammars = {g["scopeName"]: g for g in m["contributes"]["grammars"]}
    main, inj = grammars["source.posecode"], grammars["markdown.posecode.codeblock"]
    assert main["language"] == "posecode"
    assert json.loads((EXTENSION / main["path"]).read_text())["scopeName"] == "source.posecode"
    assert (EXTENSION / main["path"]).name == textmate.GRAMMAR_FILE
    assert (EXTENSION / inj["path"]).name == textmate.INJECTION_FILE
    assert json.loads((EXTENSION / inj["path"]).read_text())["scopeName"] == "markdown.posecode.codeblock"
    assert inj["injectTo"] == ["text.html.markdown"] and "language" not in inj
    assert inj["embeddedLanguages"] == {textmate.EMBEDDED_SCOPE: "posecode"}
    setting = m["contributes"]["configuration"]["properties"]["posecode.server.command"]
    assert setting["default"] == ["posecode-ssg", "lsp"] and setting["type"] == "array"
    assert {"onLanguage:posecode", "onLanguage:markdown"} <= set(m["activationEvents"])
    assert "vscode-languageclient" in m["dependencies"]


def test_the_client_library_is_declared_by_the_extension_only():
    root = json.loads((REPO / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((REPO / "package-lock.json").read_text(encoding="utf-8"))
    for section in ("dependencies", "devDependencies"):
        assert "vscode-languageclient" not in root.get(section, {})
    for name in TEXTMATE_PACKAGES:
        spec = root["devDependencies"][name]
        assert lock["packages"][f"node_modules/{name}"]["version"] == spec
        assert lock["packages"][f"node_modules/{name}"]["dev"] is True
        assert lock["packages"][""]["devDependencies"][name] == spec


def test_language_configuration_comments_and_step_block_indentation():
    conf = json.loads((EXTENSION / "language-configuration.json").read_text(encoding="utf-8"))
    assert conf["comments"] == {"lineComment": "#"}
    assert {"open": '"', "close": '"', "notIn": ["string", "comment"]} in conf["autoClosingPairs"]
    increase = re.compile(conf["indentationRules"]["increaseIndentPattern"])
    decrease = re.compile(conf["indentationRules"]["decreaseIndentPattern"])
    opens = ['posecode exercise "Squat"', '  step "Down" 1.5s settle:', '  step "Up" 2s drive:  # up',
             "  pose start = standing:", "  pose start = plank:  // override"]
    stays = ["  rig humanoid", "  pose start = standing", "    knees: flex 90", "    ground-lock: feet",
             '    cue "Sit: back"', "  repeat 8", "# step:"]
    assert all(increase.search(line) for line in opens)
    assert not any(increase.search(line) for line in stays)
    assert not any(decrease.search(line) for line in opens + stays)
    before = re.compile(conf["onEnterRules"][0]["beforeText"])
    assert before.search(opens[1]) and not before.search(stays[2])
    assert conf["folding"]["offSide"] is True


def test_package_files_readme_and_ignore_list():
    readme = (EXTENSION / "README.md").read_text(encoding="utf-8")
    for needed in ("npx @vscode/vsce package", "~/.vscode/extensions", 'pip install "posecode-ssg[lsp]"',
                   "posecode.server.command", "python3 -m posecode_ssg.language.textmate"):
        assert needed in readme
    ignored = [line.strip() for line in (EXTENSION / ".vscodeignore").read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith("#")]
    assert ".vscode/**" in ignored
    for shipped in ("extension.js", "package.json", "language-configuration.json", "syntaxes/**", "README.md"):
        assert shipped not in ignored


def run_client(node: str, scenario: dict) -> dict:
    """What tests/editors/client_check.cjs reports for ``scenario``."""
    proc = subprocess.run([node, str(HERE / "client_check.cjs"), str(EXTENSION / "extension.js"),
                           json.dumps(scenario)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_client_starts_the_server_over_stdio_for_posecode_and_markdown(node):
    out = run_client(node, {"folder": str(REPO)})
    (client,) = out["clients"]
    assert client["serverOptions"]["command"] == "posecode-ssg"
    assert client["serverOptions"]["args"] == ["lsp"]
    assert client["serverOptions"]["transport"] == 0          # TransportKind.stdio
    assert client["serverOptions"]["options"] == {"cwd": str(REPO)}
    languages = {s["language"] for s in client["documentSelector"]}
    assert languages == {"posecode", "markdown"}
    assert client["started"] and client["stopped"] and not out["errors"]


def test_client_uses_the_setting_and_restarts_when_it_changes(node):
    venv = ["/opt/venv/bin/posecode-ssg", "lsp"]
    out = run_client(node, {"settings": {"posecode.server.command": venv},
                            "changeSetting": {"posecode.server.command": ["python3", "-m", "posecode_ssg", "lsp"]}})
    first, second = out["clients"]
    assert [first["serverOptions"]["command"], *first["serverOptions"]["args"]] == venv
    assert first["stopped"]
    assert second["serverOptions"]["command"] == "python3"
    assert second["serverOptions"]["args"] == ["-m", "posecode_ssg", "lsp"]


def test_client_reports_a_server_that_does_not_start_and_a_bad_setting(node):
    out = run_client(node, {"failStart": True, "settings": {"posecode.server.command": []}})
    (client,) = out["clients"]
    assert client["serverOptions"]["command"] == "posecode-ssg"      # the bad setting: the default
    (message,) = out["errors"]
    assert "posecode-ssg lsp" in message and 'pip install "posecode-ssg[lsp]"' in message
    assert any("must be a list of strings" in line for line in out["output"])


def test_missing_tools_skip_locally_but_fail_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert under_ci()
    with pytest.raises(pytest.fail.Exception):
        missing("node is not installed")
    monkeypatch.delenv("CI")
    assert not under_ci()
    with pytest.raises(pytest.skip.Exception):
        missing("node is not installed")
