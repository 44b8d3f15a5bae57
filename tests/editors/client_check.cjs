// Run editors/vscode/extension.js outside VS Code, with stand-ins for the `vscode` API and for
// vscode-languageclient (not installed in CI), and print what the client was asked to start.
// Driven by tests/editors/test_vscode_extension.py.
//
// usage: node client_check.cjs <extension.js> '<scenario JSON>'
//   scenario: {"settings": {"posecode.server.command": [...]}, "folder": "/path",
//              "failStart": true, "changeSetting": {"posecode.server.command": [...]}}
// stdout: {"clients": [{id, name, serverOptions, documentSelector, started, stopped}, ...],
//          "errors": [messages shown], "output": [output channel lines], "subscriptions": n}
"use strict";

const Module = require("module");
const path = require("path");

const extensionPath = path.resolve(process.argv[2]);
const scenario = JSON.parse(process.argv[3] || "{}");
let settings = { ...(scenario.settings || {}) };
const record = { clients: [], errors: [], output: [], listeners: [] };

const vscode = {
  workspace: {
    getConfiguration: (section) => ({
      get: (key, fallback) => {
        const name = `${section}.${key}`;
        return Object.prototype.hasOwnProperty.call(settings, name) ? settings[name] : fallback;
      },
    }),
    workspaceFolders: scenario.folder ? [{ uri: { fsPath: scenario.folder } }] : undefined,
    onDidChangeConfiguration: (listener) => {
      record.listeners.push(listener);
      return { dispose() {} };
    },
  },
  window: {
    createOutputChannel: (name) => ({ name, appendLine: (line) => record.output.push(line), dispose() {} }),
    showErrorMessage: (message) => {
      record.errors.push(message);
      return Promise.resolve(undefined);
    },
  },
};

class LanguageClient {
  constructor(id, name, serverOptions, clientOptions) {
    this.info = { id, name, serverOptions, documentSelector: clientOptions.documentSelector,
                  started: false, stopped: false };
    record.clients.push(this.info);
  }
  async start() {
    this.info.started = true;
    if (scenario.failStart) throw new Error(`spawn ${this.info.serverOptions.command} ENOENT`);
  }
  async stop() {
    this.info.stopped = true;
  }
}
const languageclient = { LanguageClient, TransportKind: { stdio: 0, ipc: 1, pipe: 2, socket: 3 } };

const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === "vscode") return vscode;
  if (request === "vscode-languageclient/node") return languageclient;
  return load.call(this, request, parent, isMain);
};

(async () => {
  const extension = require(extensionPath);
  const context = { subscriptions: [] };
  await extension.activate(context);
  if (scenario.changeSetting) {
    settings = { ...settings, ...scenario.changeSetting };
    for (const listener of record.listeners) {
      await listener({ affectsConfiguration: (name) => Object.keys(scenario.changeSetting).includes(name) });
    }
  }
  await extension.deactivate();
  process.stdout.write(JSON.stringify({
    clients: record.clients, errors: record.errors, output: record.output,
    subscriptions: context.subscriptions.length,
  }));
})().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
