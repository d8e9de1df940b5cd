// Starts `kfam lsp` for the family files of a kfam manifest
// (`<manifest>/families/*.toml`); see docs/editors.md.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

exports.activate = async function activate() {
  const command = vscode.workspace.getConfiguration("kfam").get("path", "kfam");
  client = new LanguageClient(
    "kfam",
    "kfam",
    { command, args: ["lsp"] },
    {
      documentSelector: [
        { scheme: "file", language: "toml", pattern: "**/families/*.toml" },
      ],
    },
  );
  await client.start();
};

exports.deactivate = function deactivate() {
  return client ? client.stop() : undefined;
};
