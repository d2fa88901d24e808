// `sourcemap-source:` documents: original sources that exist only in a map's sourcesContent, asked of the server
// (`sourcemap/sourceContent`). The scheme is in the client's document selector, so hover and Go to Generated work
// inside them too. A restarted server may know other maps: open ones are asked again.

import * as vscode from "vscode";

import { code2Protocol, type ServerClient } from "./client";
import { errorText } from "./logic/errors";
import { extensionOf, languageForExtension } from "./logic/virtualUri";
import { SOURCE_CONTENT, VIRTUAL_SCHEME } from "./protocol";

export function registerVirtualDocuments(server: ServerClient): vscode.Disposable[] {
  const changed = new vscode.EventEmitter<vscode.Uri>();
  return [
    changed,
    vscode.workspace.registerTextDocumentContentProvider(VIRTUAL_SCHEME, {
      onDidChange: changed.event,
      async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        try {
          const answer = await server.request<{ text: string }>(SOURCE_CONTENT, { uri: code2Protocol(uri) });
          return answer.text;
        } catch (e) {
          server.log.error(`sourceContent ${uri.toString(true)}: ${errorText(e)}`);
          throw new Error(`sourcemap-ls could not give this source: ${errorText(e)}`);
        }
      },
    }),
    server.onDidChange((change) => {
      if (change !== "restarted") {
        return;
      }
      for (const doc of vscode.workspace.textDocuments) {
        if (doc.uri.scheme === VIRTUAL_SCHEME) {
          changed.fire(doc.uri);
        }
      }
    }),
    vscode.workspace.onDidOpenTextDocument((doc) => {
      // Language mode of a virtual source by its extension, when VS Code did not pick one.
      if (doc.uri.scheme === VIRTUAL_SCHEME && doc.languageId === "plaintext") {
        const lang = languageForExtension(extensionOf(doc.uri.path));
        if (lang !== undefined) {
          void vscode.languages.setTextDocumentLanguage(doc, lang).then(undefined, () => undefined);
        }
      }
    }),
  ];
}
