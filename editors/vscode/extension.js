// The Posecode extension's client: starts the posecode-ssg language server (`posecode-ssg lsp`, or
// the command in the `posecode.server.command` setting) and talks to it over stdin/stdout with
// vscode-languageclient, for Posecode files and for the ```posecode fences of Markdown files.
// Highlighting needs no server: it comes from the TextMate grammars in syntaxes/.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

const DEFAULT_COMMAND = ["posecode-ssg", "lsp"];
const INSTALL_HINT = "Install it with `pip install \"posecode-ssg[lsp]\"` or set `posecode.server.command`.";

/** @type {LanguageClient | undefined} */
let client;
/** @type {vscode.OutputChannel | undefined} */
let output;

/** The server command from the settings: a non-empty array of strings, else the default. */
function serverCommand() {
  const value = vscode.workspace.getConfiguration("posecode").get("server.command", DEFAULT_COMMAND);
  const valid = Array.isArray(value) && value.length > 0
    && value.every((part) => typeof part === "string" && part.length > 0);
  if (!valid) {
    output.appendLine(`posecode.server.command must be a list of strings; using ${JSON.stringify(DEFAULT_COMMAND)}`);
    return DEFAULT_COMMAND;
  }
  return value;
}

/** Create and start a client for the configured command; report a server that will not start. */
async function startClient() {
  const [command, ...args] = serverCommand();
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  const serverOptions = {
    command,
    args,
    transport: TransportKind.stdio,
    options: folder ? { cwd: folder.uri.fsPath } : {},
  };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "posecode" },
      { scheme: "untitled", language: "posecode" },
      { scheme: "file", language: "markdown" },
      { scheme: "untitled", language: "markdown" },
    ],
    outputChannel: output,
  };
  client = new LanguageClient("posecode", "Posecode language server", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (err) {
    const shown = [command, ...args].join(" ");
    output.appendLine(`could not start \`${shown}\`: ${err && err.message ? err.message : err}`);
    vscode.window.showErrorMessage(`Posecode: could not start the language server (\`${shown}\`). ${INSTALL_HINT}`);
  }
}

/** Stop the running client, if any. */
async function stopClient() {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop();
    } catch (err) {
      // a server that never started cannot be stopped: nothing left to clean up
    }
  }
}

/** VS Code calls this on opening a Posecode or Markdown file. */
async function activate(context) {
  output = vscode.window.createOutputChannel("Posecode");
  context.subscriptions.push(output);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("posecode.server.command")) {
        await stopClient();
        await startClient();
      }
    }),
  );
  await startClient();
}

/** VS Code calls this on shutdown: stop the server. */
function deactivate() {
  return stopClient();
}

module.exports = { activate, deactivate, DEFAULT_COMMAND };
