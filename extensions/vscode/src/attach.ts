// Attach Source Map…: ties a bundle to a map the user picks (a file, or a loopback URL) through this workspace's
// `sourcemap.maps` setting, so it is remembered and every request uses it; and the quick fix that offers it on the
// server's no-source-map and map-mismatch diagnostics.

import * as path from "node:path";
import * as vscode from "vscode";

import { isLoopbackUrl, mapsEntry, nearbyMaps, offersAttach, withEntry, type MapsEntry } from "./logic/attach";

export interface AttachArgs {
  /** The bundle (a file: URI string); default: the active editor's document. */
  bundle?: string;
  /** A map file path, or a loopback URL; default: asked (Quick Pick, file dialog, input box). */
  map?: string;
}

export async function attachSourceMap(log: vscode.LogOutputChannel, args?: AttachArgs): Promise<MapsEntry | undefined> {
  const active = vscode.window.activeTextEditor?.document.uri;
  const bundle = args?.bundle !== undefined ? vscode.Uri.parse(args.bundle) : active;
  if (bundle === undefined || bundle.scheme !== "file") {
    void vscode.window.showInformationMessage("Source Map: open the bundle to attach a source map to.");
    return undefined;
  }
  const map = args?.map ?? (await askForMap(bundle));
  if (map === undefined) {
    return undefined;
  }
  const config = vscode.workspace.getConfiguration("sourcemap");
  if (isLoopbackUrl(map) && config.get<boolean>("devServer") !== true) {
    const turnOn = args?.map !== undefined ? "Turn On" : await vscode.window.showWarningMessage(
      "Source Map: fetching a map from a loopback URL needs sourcemap.devServer, which is off.",
      "Turn On",
      "Cancel",
    );
    if (turnOn !== "Turn On") {
      return undefined;
    }
    await config.update("devServer", true, vscode.ConfigurationTarget.Workspace);
  }
  const folder = vscode.workspace.getWorkspaceFolder(bundle)?.uri.fsPath;
  const entry = mapsEntry(folder, bundle.fsPath, map);
  const current = config.inspect<Record<string, string>>("maps")?.workspaceValue;
  const target = vscode.workspace.workspaceFolders !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update("maps", withEntry(current, entry), target);
  log.info(`Attached ${entry.map} to ${entry.glob} (sourcemap.maps)`);
  if (args?.map === undefined) {
    void vscode.window.showInformationMessage(
      `Source Map: ${path.basename(bundle.fsPath)} now uses ${entry.map}. Saved in ${target === vscode.ConfigurationTarget.Workspace ? "this workspace's" : "your user"} settings (sourcemap.maps).`,
    );
  }
  return entry;
}

/** The map to attach: a .map file found nearby, another file (dialog), or a loopback URL. */
async function askForMap(bundle: vscode.Uri): Promise<string | undefined> {
  const found = await vscode.workspace.findFiles("**/*.map", "**/node_modules/**", 200);
  const nearby = nearbyMaps(bundle.fsPath, found.map((u) => u.fsPath));
  type Item = vscode.QuickPickItem & { action: "file" | "browse" | "url"; map?: string };
  const items: Item[] = [
    ...nearby.map((m): Item => ({ label: `$(file) ${path.basename(m)}`, description: vscode.workspace.asRelativePath(m, false), action: "file", map: m })),
    { label: "$(folder-opened) Choose a .map file…", action: "browse" },
    { label: "$(globe) Enter a loopback URL…", description: "a dev server on localhost (needs sourcemap.devServer)", action: "url" },
  ];
  const pick = await vscode.window.showQuickPick(items, {
    title: `Attach a source map to ${path.basename(bundle.fsPath)}`,
    placeHolder: "The map's file (maps in the workspace, nearest first), or a loopback URL",
    matchOnDescription: true,
    ignoreFocusOut: true,
  });
  if (pick === undefined) {
    return undefined;
  }
  if (pick.action === "file") {
    return pick.map;
  }
  if (pick.action === "browse") {
    const chosen = await vscode.window.showOpenDialog({
      defaultUri: vscode.Uri.file(path.dirname(bundle.fsPath)),
      canSelectMany: false,
      openLabel: "Attach",
      title: `Source map for ${path.basename(bundle.fsPath)}`,
      filters: { "Source maps": ["map", "json"], "All files": ["*"] },
    });
    return chosen?.[0]?.fsPath;
  }
  return vscode.window.showInputBox({
    title: `Source map URL for ${path.basename(bundle.fsPath)}`,
    prompt: "A loopback http:// URL that serves the map (localhost, 127.0.0.1 or [::1])",
    value: "http://localhost:8081/index.map",
    ignoreFocusOut: true,
    validateInput: (v) => (isLoopbackUrl(v) ? undefined : "Only http:// URLs on localhost, 127.0.0.1 or [::1] are fetched."),
  });
}

/** The quick fix on a bundle's no-source-map or map-mismatch diagnostic: Attach Source Map… for that bundle. */
export function registerAttachQuickFix(): vscode.Disposable {
  return vscode.languages.registerCodeActionsProvider(
    { scheme: "file", pattern: "**/*.{js,mjs,cjs,bundle,jsbundle}" },
    {
      provideCodeActions: (doc, _range, context) =>
        context.diagnostics
          .filter((d) => offersAttach(d.code))
          .slice(0, 1)
          .map((d) => {
            const action = new vscode.CodeAction("Attach Source Map…", vscode.CodeActionKind.QuickFix);
            action.diagnostics = [d];
            action.isPreferred = true;
            action.command = { title: "Attach Source Map…", command: "sourcemap.attachSourceMap", arguments: [{ bundle: doc.uri.toString() }] };
            return action;
          }),
    },
    { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] },
  );
}
