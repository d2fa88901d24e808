// Show Map Info: asks the server about the active bundle (`sourcemap/mapInfo`, the position under the cursor, the
// outline's modules), adds its diagnostics, and opens the report (logic/mapInfo.ts) as a `sourcemap-info:` document.

import * as path from "node:path";
import * as vscode from "vscode";
import { DocumentSymbolRequest, type DocumentSymbol, type SymbolInformation } from "vscode-languageclient/node";

import { code2Protocol, type ServerClient } from "./client";
import { errorText } from "./logic/errors";
import { formatMapInfo, type ModuleInfo } from "./logic/mapInfo";
import { originalLabel } from "./logic/status";
import { MAP_INFO, ORIGINAL_POSITION, type MapInfo, type OriginalPosition } from "./protocol";

export const INFO_SCHEME = "sourcemap-info";

export class MapInfoReports implements vscode.Disposable {
  private readonly reports = new Map<string, string>();
  /** A report shown again for the same bundle replaces the open document's text. */
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly server: ServerClient) {
    this.disposables = [
      this.changed,
      vscode.workspace.registerTextDocumentContentProvider(INFO_SCHEME, {
        onDidChange: this.changed.event,
        provideTextDocumentContent: (uri) => this.reports.get(uri.toString()) ?? "",
      }),
    ];
  }

  async show(): Promise<string | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || editor.document.uri.scheme !== "file") {
      void vscode.window.showInformationMessage("Source Map: open a bundle to see its map.");
      return undefined;
    }
    const doc = editor.document;
    const uri = code2Protocol(doc.uri);
    let modules: ModuleInfo[] | undefined;
    let serverError: string | undefined;
    let cursor: string | undefined;
    let server: MapInfo | undefined;
    const client = await this.server.ready();
    if (client !== undefined) {
      const pos = editor.selection.active;
      try {
        const o = await client.sendRequest<OriginalPosition | null>(ORIGINAL_POSITION, {
          textDocument: { uri },
          position: { line: pos.line, character: pos.character },
        });
        cursor = o === null ? "no mapping" : `${originalLabel(o)}${o.name !== null ? ` (${o.name})` : ""}`;
      } catch (e) {
        serverError = errorText(e);
      }
      try {
        server = (await client.sendRequest<MapInfo | null>(MAP_INFO, { textDocument: { uri } })) ?? undefined;
      } catch (e) {
        serverError ??= errorText(e);
      }
      try {
        const symbols = await client.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
        modules = (symbols ?? []).map((s: DocumentSymbol | SymbolInformation) =>
          "range" in s
            ? { name: s.name, detail: s.detail, startLine: s.range.start.line }
            : { name: s.name, startLine: s.location.range.start.line },
        );
      } catch (e) {
        serverError ??= errorText(e);
      }
    } else {
      serverError = this.server.notRunningReason();
    }
    const diagnostics = vscode.languages
      .getDiagnostics(doc.uri)
      .filter((d) => d.source === undefined || d.source.includes("sourcemap"))
      .map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
    const report = formatMapInfo({
      document: vscode.workspace.asRelativePath(doc.uri),
      server,
      displayPath: (p) => vscode.workspace.asRelativePath(p),
      modules,
      serverError,
      cursor,
      diagnostics,
    });
    const infoUri = vscode.Uri.from({ scheme: INFO_SCHEME, path: `/Map info - ${path.basename(doc.uri.fsPath)}.txt` });
    this.reports.set(infoUri.toString(), report);
    this.changed.fire(infoUri);
    const infoDoc = await vscode.workspace.openTextDocument(infoUri);
    await vscode.window.showTextDocument(infoDoc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    return report;
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
