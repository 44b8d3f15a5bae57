// Tokenize documents with the editor extension's TextMate grammars, as VS Code does: vscode-textmate
// on the vscode-oniguruma regex engine (onig.wasm from node_modules). Driven by
// tests/editors/test_textmate.py, which needs node and the root package.json's devDependencies.
//
// stdin:  {"grammars": {"<scopeName>": "<path of a .tmLanguage.json>", ...},
//          "injections": {"<host scopeName>": ["<injected scopeName>", ...]},
//          "documents": [{"scope": "<scopeName>", "text": "<document>"}, ...]}
// stdout: one entry per document, one per line of it, one per token of the line:
//         [[[[start, end, ["<scope>", ...]], ...], ...], ...]   (start/end: UTF-16 columns)
// Exit status 2 with a message on stderr when a grammar cannot be loaded.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

async function main() {
  const request = await readStdin();
  const wasm = readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName) => {
      const path = request.grammars[scopeName];
      return path ? vsctm.parseRawGrammar(readFileSync(path, "utf8"), path) : null;
    },
    getInjections: (scopeName) => (request.injections || {})[scopeName],
  });
  const grammars = new Map();
  const out = [];
  for (const doc of request.documents) {
    if (!grammars.has(doc.scope)) {
      const grammar = await registry.loadGrammar(doc.scope);
      if (!grammar) {
        process.stderr.write(`cannot load grammar ${doc.scope}\n`);
        process.exit(2);
      }
      grammars.set(doc.scope, grammar);
    }
    const grammar = grammars.get(doc.scope);
    let state = vsctm.INITIAL;
    const lines = [];
    for (const raw of doc.text.split("\n")) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      const result = grammar.tokenizeLine(line, state);
      state = result.ruleStack;
      lines.push(
        result.tokens
          .map((t) => [t.startIndex, Math.min(t.endIndex, line.length), t.scopes])
          .filter(([start, end]) => end > start || line.length === 0),
      );
    }
    out.push(lines);
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
