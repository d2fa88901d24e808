// Bundle composition: "Source Map: Show Bundle Composition" asks the server (`sourcemap/composition`) what the active
// bundle is made of, shows the server's treemap page in a webview (a click on a file opens that original source)
// and the same data as a tree in the Explorer ("Bundle Composition": packages → files, sized and in share).

import * as path from "node:path";
import * as vscode from "vscode";

import { code2Protocol, type ServerClient } from "./client";
import { errorText } from "./logic/errors";
import { COMPOSITION, type CompositionResult } from "./protocol";

export const VIEW_ID = "sourcemapComposition";

type Node =
  | { kind: "package"; name: string; size: number; files: CompositionResult["packages"][number]["files"] }
  | { kind: "file"; source: string; size: number; uri: string | null }
  | { kind: "other"; label: string; size: number };

export function formatBytes(n: number): string {
  return n >= 1048576 ? `${(n / 1048576).toFixed(2)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`;
}

export function share(part: number, total: number): string {
  return total === 0 ? "0 %" : `${((100 * part) / total).toFixed(1)} %`;
}

/** The tree's top level: packages largest first, then the bytes no source owns. */
export function topNodes(r: CompositionResult): Node[] {
  const nodes: Node[] = r.packages.map((p) => ({ kind: "package", name: p.name, size: p.size, files: p.files }));
  for (const [label, size] of [
    ["[unmapped]", r.unmappedBytes],
    ["[EOLs]", r.eolBytes],
    ["[sourceMappingURL]", r.sourceMapCommentBytes],
  ] as const) {
    if (size > 0) nodes.push({ kind: "other", label, size });
  }
  return nodes;
}

/** The webview's page: the server's treemap, with clicks on files posted to the extension. */
export function webviewHtml(r: CompositionResult): string {
  const bridge =
    "<script>const vscodeApi = acquireVsCodeApi();" +
    'window.addEventListener("open-source", (e) => vscodeApi.postMessage({ type: "open", source: e.detail }));</script>';
  return r.html.includes("</body>") ? r.html.replace("</body>", `${bridge}</body>`) : r.html + bridge;
}

export class CompositionTree implements vscode.TreeDataProvider<Node> {
  private result: CompositionResult | undefined;
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  set(result: CompositionResult): void {
    this.result = result;
    this.changed.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    if (this.result === undefined) return [];
    if (node === undefined) return topNodes(this.result);
    if (node.kind === "package") return node.files.map((f) => ({ kind: "file", source: f.source, size: f.size, uri: f.uri }));
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const total = this.result?.totalBytes ?? 0;
    const description = `${formatBytes(node.size)} · ${share(node.size, total)}`;
    if (node.kind === "package") {
      const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.Collapsed);
      item.description = description;
      item.tooltip = `${node.name}: ${node.size} bytes (${share(node.size, total)}), ${node.files.length} files`;
      return item;
    }
    if (node.kind === "file") {
      const item = new vscode.TreeItem(node.source.split("/").pop() ?? node.source, vscode.TreeItemCollapsibleState.None);
      item.description = description;
      item.tooltip = `${node.source}: ${node.size} bytes (${share(node.size, total)})`;
      if (node.uri !== null) {
        item.command = { title: "Open", command: "vscode.open", arguments: [vscode.Uri.parse(node.uri)] };
      }
      return item;
    }
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.description = description;
    return item;
  }
}

/** Opens `source` of the result: its local file, virtual document or copy. */
export async function openSource(r: CompositionResult, source: string): Promise<boolean> {
  const file = r.packages.flatMap((p) => p.files).find((f) => f.source === source);
  if (file?.uri === null || file?.uri === undefined) {
    void vscode.window.showInformationMessage(`Source Map: ${source} is not available locally or in the map.`);
    return false;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(file.uri));
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.One });
  return true;
}

/** Show Bundle Composition: one webview panel, reused for each bundle shown, beside the Explorer's tree. */
export class CompositionView implements vscode.Disposable {
  readonly tree = new CompositionTree();
  panel: vscode.WebviewPanel | undefined;
  /** The current panel page's clicks: replaced with the page, since each page knows only its own result. */
  private messages: vscode.Disposable | undefined;
  private readonly registration: vscode.Disposable;

  constructor(private readonly server: ServerClient) {
    this.registration = vscode.window.registerTreeDataProvider(VIEW_ID, this.tree);
  }

  /** The active bundle's treemap in the webview and its tree in the Explorer. */
  async show(): Promise<CompositionResult | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || editor.document.uri.scheme !== "file") {
      void vscode.window.showInformationMessage("Source Map: open a bundle to see what it is made of.");
      return undefined;
    }
    const uri = editor.document.uri;
    let result: CompositionResult | null;
    try {
      result = await this.server.request<CompositionResult | null>(COMPOSITION, { textDocument: { uri: code2Protocol(uri) } });
    } catch (e) {
      void vscode.window.showErrorMessage(`Source Map: composition failed: ${errorText(e)}`);
      return undefined;
    }
    if (result === null) {
      void vscode.window.showInformationMessage(`Source Map: ${path.basename(uri.fsPath)} has no source map.`);
      return undefined;
    }
    const r = result;
    this.tree.set(r);
    const title = `Composition: ${path.basename(uri.fsPath)}`;
    if (this.panel === undefined) {
      const panel = vscode.window.createWebviewPanel("sourcemapComposition", title, vscode.ViewColumn.Beside, { enableScripts: true });
      panel.onDidDispose(() => (this.panel = undefined));
      this.panel = panel;
    }
    const panel = this.panel;
    panel.title = title;
    panel.webview.html = webviewHtml(r);
    this.messages?.dispose();
    this.messages = panel.webview.onDidReceiveMessage((m: { type?: string; source?: string }) => {
      if (m.type === "open" && typeof m.source === "string") void openSource(r, m.source);
    });
    panel.reveal(vscode.ViewColumn.Beside, true);
    return r;
  }

  dispose(): void {
    this.messages?.dispose();
    this.registration.dispose();
  }
}
