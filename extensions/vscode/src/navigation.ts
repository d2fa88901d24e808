// Go to Original Source and Go to Generated Position, and the two things every jump needs: opening a URI at a
// position, and asking which of several same-named bundles is meant (folder and build time, newest first).

import * as path from "node:path";
import * as vscode from "vscode";

import { code2Protocol, type ServerClient } from "./client";
import { describeBuildTime, newestFirst } from "./logic/buildTime";
import { errorText } from "./logic/errors";
import { originalLabel } from "./logic/status";
import { GENERATED_POSITIONS, ORIGINAL_POSITION, type Location as PLocation, type OriginalPosition } from "./protocol";

export interface GoToGeneratedArgs {
  uri?: string;
  position?: { line: number; character: number };
  /** false: return the locations without a quick pick or a jump (tests). */
  reveal?: boolean;
}

/** Opens `uri` (a file: or sourcemap-source: URI) at a 0-based position, in `column` when given (else the active one). */
export async function openAt(uri: string, line: number, character: number, column?: vscode.ViewColumn): Promise<vscode.TextEditor> {
  const pos = new vscode.Position(line, character);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  return vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), preview: false, ...(column !== undefined ? { viewColumn: column } : {}) });
}

/** Each distinct bundle's build time (its modification time) and how a Quick Pick shows it. */
async function buildTimes(uris: string[]): Promise<Map<string, { mtimeMs: number | undefined; detail: string }>> {
  const now = Date.now();
  const out = new Map<string, { mtimeMs: number | undefined; detail: string }>();
  for (const uri of new Set(uris)) {
    let mtimeMs: number | undefined;
    try {
      mtimeMs = (await vscode.workspace.fs.stat(vscode.Uri.parse(uri))).mtime;
    } catch {
      mtimeMs = undefined;
    }
    out.set(uri, { mtimeMs, detail: mtimeMs !== undefined ? describeBuildTime(mtimeMs, now) : "build time unknown" });
  }
  return out;
}

/** Asks which of several same-named bundles (file: URIs) is meant: folder and build time, newest first. */
export async function pickBundle(title: string, uris: string[]): Promise<string | undefined> {
  const builds = await buildTimes(uris);
  const items = newestFirst(
    uris.map((uri) => ({ uri, label: vscode.workspace.asRelativePath(vscode.Uri.parse(uri), false), ...builds.get(uri)! })),
  );
  const pick = await vscode.window.showQuickPick(
    items.map((i) => ({ label: i.label, detail: i.detail, uri: i.uri })),
    { title, placeHolder: "Pick the bundle (newest build first)", matchOnDetail: true, ignoreFocusOut: true },
  );
  return pick?.uri;
}

export async function goToOriginal(server: ServerClient): Promise<OriginalPosition | null | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    void vscode.window.showInformationMessage("Source Map: open a bundle and put the cursor on generated code.");
    return undefined;
  }
  const pos = editor.selection.active;
  let answer: OriginalPosition | null;
  try {
    answer = await server.request<OriginalPosition | null>(ORIGINAL_POSITION, {
      textDocument: { uri: code2Protocol(editor.document.uri) },
      position: { line: pos.line, character: pos.character },
    });
  } catch (e) {
    void vscode.window.showWarningMessage(`Source Map: ${errorText(e)}`);
    return undefined;
  }
  if (answer === null) {
    void vscode.window.showInformationMessage("Source Map: no mapping at this position.");
    return null;
  }
  if (answer.uri === null) {
    void vscode.window.showInformationMessage(
      `Source Map: ${originalLabel(answer)} is not available: no such local file and no sourcesContent in the map. Add a \`sourcemap.pathOverrides\` entry to point at it.`,
    );
    return answer;
  }
  await openAt(answer.uri, answer.line, answer.character);
  return answer;
}

export async function goToGenerated(server: ServerClient, args?: GoToGeneratedArgs): Promise<PLocation[] | undefined> {
  const editor = vscode.window.activeTextEditor;
  const uri = args?.uri ?? (editor !== undefined ? code2Protocol(editor.document.uri) : undefined);
  const position = args?.position ?? (editor !== undefined ? { line: editor.selection.active.line, character: editor.selection.active.character } : undefined);
  if (uri === undefined || position === undefined) {
    void vscode.window.showInformationMessage("Source Map: open an original source file and put the cursor on a line.");
    return undefined;
  }
  let locations: PLocation[];
  try {
    locations = await server.request<PLocation[]>(GENERATED_POSITIONS, { textDocument: { uri }, position });
  } catch (e) {
    void vscode.window.showWarningMessage(`Source Map: ${errorText(e)}`);
    return undefined;
  }
  if (args?.reveal === false) {
    return locations;
  }
  if (locations.length === 0) {
    void vscode.window.showInformationMessage(
      `Source Map: no bundle maps line ${position.line + 1} of this file. The maps searched are the workspace's *.map files and those its bundles name (sourceMappingURL or sourcemap.maps); node_modules and hidden folders are skipped.`,
    );
    return locations;
  }
  const only = locations.length === 1 ? locations[0] : undefined;
  if (only !== undefined) {
    await openAt(only.uri, only.range.start.line, only.range.start.character);
    return locations;
  }
  // Several bundles (an old build beside the new one, a debug and a release build): each with its build time.
  const builds = await buildTimes(locations.map((l) => l.uri));
  const bundles = builds.size;
  const items = newestFirst(
    locations.map((l) => {
      const u = vscode.Uri.parse(l.uri);
      return {
        label: `${path.basename(u.path)}:${l.range.start.line + 1}:${l.range.start.character + 1}`,
        description: vscode.workspace.asRelativePath(u, false),
        location: l,
        ...builds.get(l.uri)!,
      };
    }),
  );
  const pick = await vscode.window.showQuickPick(items, {
    title: bundles > 1 ? `Generated positions in ${bundles} bundles` : `Generated positions (${locations.length})`,
    placeHolder: bundles > 1 ? "Pick the bundle (newest build first)" : "Pick a generated position to open",
    matchOnDescription: true,
  });
  if (pick !== undefined) {
    await openAt(pick.location.uri, pick.location.range.start.line, pick.location.range.start.character);
  }
  return locations;
}
