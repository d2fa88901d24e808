// Test mode for scripts/vscode-e2e: switched on by SOURCEMAP_E2E_OUT (given to code-server). Runs the checks from
// inside the extension host, through VS Code's own command API (the same providers a user's hover or F12 reaches),
// and writes each check's outcome to that file as JSON. The workspace is the fixture laid out by the script:
// index.bundle(+.map) and src/ (Metro fixture), traces/v8-node.txt with traces/v8/app.min.js(+.map), demo/src/,
// profiles/workload.cpuprofile (node --cpu-prof of profile/dist/workload.min.js, built from profile/src/).

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";

import type { SourceMapExtension } from "./api";
import type { MapsEntry } from "./logic/attach";
import { formatBytes } from "./logic/mapInfo";
import { MAP_INFO, type CompositionResult, type Location as PLocation, type MapInfo, type ProfileResult, type SymbolicateResult } from "./protocol";

interface Check {
  name: string;
  ok: boolean;
  ms: number;
  detail: unknown;
  error?: string;
}

// The source resolved to src/App.js in the workspace: the hover names it so (the map's path is in its footer).
const HOVER_EXPECTED = "src/App.js:4:17";
const HOVER_MAP_SOURCE = "/home/ci/build/MyApp/src/App.js";
const VIRTUAL_EXPECTED = "exports.createElement = function (type) {";
const SYMBOLICATED_EXPECTED = "at parseOrder (demo/src/orders.js:5:24)";

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Calls `f` until `ok` accepts its value or `ms` pass; returns the last value. */
async function until<T>(f: () => Thenable<T> | T, ok: (v: T) => boolean, ms = 30000): Promise<T> {
  const end = Date.now() + ms;
  let last: T = await f();
  while (!ok(last) && Date.now() < end) {
    await sleep(250);
    last = await f();
  }
  return last;
}

function hoverText(hovers: vscode.Hover[] | undefined): string {
  return (hovers ?? [])
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === "string" ? c : "value" in c ? c.value : ""))
    .join("\n---\n");
}

function locationsOf(defs: Array<vscode.Location | vscode.LocationLink> | undefined): Array<{ uri: string; line: number; character: number }> {
  return (defs ?? []).map((d) =>
    "targetUri" in d
      ? { uri: d.targetUri.toString(true), line: (d.targetSelectionRange ?? d.targetRange).start.line, character: (d.targetSelectionRange ?? d.targetRange).start.character }
      : { uri: d.uri.toString(true), line: d.range.start.line, character: d.range.start.character },
  );
}

async function show(uri: vscode.Uri, pos?: vscode.Position): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(uri);
  const selection = pos !== undefined ? new vscode.Range(pos, pos) : undefined;
  return vscode.window.showTextDocument(doc, { preview: false, ...(selection !== undefined ? { selection } : {}) });
}

function columnOf(doc: vscode.TextDocument, line: number, needle: string): number {
  const at = doc.lineAt(line).text.indexOf(needle);
  if (at < 0) {
    throw new Error(`"${needle}" is not on line ${line + 1} of ${doc.uri.fsPath}`);
  }
  return at;
}

export async function runE2E(ext: SourceMapExtension, out: string): Promise<void> {
  const checks: Check[] = [];
  const started = Date.now();
  const check = async (name: string, f: () => Promise<{ ok: boolean; detail: unknown }>): Promise<void> => {
    const t = Date.now();
    try {
      const r = await f();
      checks.push({ name, ok: r.ok, ms: Date.now() - t, detail: r.detail });
    } catch (e) {
      checks.push({ name, ok: false, ms: Date.now() - t, detail: null, error: e instanceof Error ? `${e.message}\n${e.stack ?? ""}` : String(e) });
    }
    ext.server.log.info(`[e2e] ${name}: ${checks[checks.length - 1]?.ok === true ? "pass" : "FAIL"}`);
  };

  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (folder === undefined) {
    fs.writeFileSync(out, JSON.stringify({ error: "no workspace folder", checks }, null, 2));
    return;
  }
  const file = (...parts: string[]): vscode.Uri => vscode.Uri.joinPath(folder, ...parts);
  const bundleUri = file("index.bundle");
  const appUri = file("src", "App.js");
  const traceUri = file("traces", "v8-node.txt");
  const workloadUri = file("profiles", "workload.cpuprofile");
  const originalProfileUri = file("profiles", "workload.original.cpuprofile");
  const primesUri = file("profile", "src", "primes.js");
  const mainUri = file("profile", "src", "main.js");

  await check("server resolved and running", async () => {
    const client = await ext.server.ready();
    const res = ext.server.resolution;
    const expect = process.env.SOURCEMAP_E2E_EXPECT_SERVER;
    const ok = client !== undefined && res?.ok === true && (expect === undefined || expect === "" || res.source === expect);
    return {
      ok,
      detail: {
        resolution: res,
        server: client?.initializeResult?.serverInfo,
        expectedSource: expect,
      },
    };
  });

  let bundleDoc: vscode.TextDocument | undefined;
  let addPos = new vscode.Position(2, 88);
  await check("hover on math.add shows the original source:line:column", async () => {
    const editor = await show(bundleUri);
    bundleDoc = editor.document;
    addPos = new vscode.Position(2, columnOf(editor.document, 2, "math.add") + "math.".length);
    const hovers = await until(
      () => vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", bundleUri, addPos),
      (h) => hoverText(h).includes(HOVER_EXPECTED),
    );
    const text = hoverText(hovers);
    return {
      ok: text.includes(`**\`${HOVER_EXPECTED}\`**`) && text.includes(`source \`${HOVER_MAP_SOURCE}\``),
      detail: { position: { line: addPos.line, character: addPos.character }, text },
    };
  });

  await check("definition goes to src/App.js line 4 (0-based 3)", async () => {
    const defs = await until(
      () => vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>("vscode.executeDefinitionProvider", bundleUri, addPos),
      (d) => locationsOf(d).some((l) => l.uri.endsWith("/src/App.js")),
    );
    const locs = locationsOf(defs);
    const hit = locs.find((l) => l.uri === appUri.toString(true));
    return { ok: hit !== undefined && hit.line === 3 && hit.character === 16, detail: { expected: appUri.toString(true), locations: locs } };
  });

  await check("never the wrong file: bare-name and stale decoys are not opened; the same text with CRLF is", async () => {
    const rnBundle = file("rn-build", "main.js");
    await show(rnBundle);
    const defAt = async (line: number, want: (uri: string) => boolean): Promise<string[]> =>
      locationsOf(
        await until(
          () => vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>("vscode.executeDefinitionProvider", rnBundle, new vscode.Position(line, 0)),
          (d) => locationsOf(d).some((l) => want(l.uri)),
          15000,
        ),
      ).map((l) => l.uri);
    // index.js: only the root's unrelated index.js shares the bare name; the map's text is shown.
    const index = await defAt(0, (u) => u.startsWith("sourcemap-source:"));
    // screen.js: metro-app/screen.js is an old checkout whose frame line differs; the map's text is shown and the hover
    // says what changed.
    const screen = await defAt(1, (u) => u.startsWith("sourcemap-source:"));
    const hover = hoverText(
      await until(
        () => vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", rnBundle, new vscode.Position(1, 0)),
        (h) => hoverText(h).includes("changed here"),
        10000,
      ),
    );
    // same.js: the map's text with CRLF endings on disk: the local file.
    const sameUri = file("metro-app", "same.js").toString(true);
    const same = await defAt(2, (u) => u === sameUri);
    // Go to Original Source on the index.js line opens the map's text, not the decoy.
    await show(rnBundle, new vscode.Position(0, 0));
    await vscode.commands.executeCommand("sourcemap.goToOriginal");
    const opened = vscode.window.activeTextEditor?.document;
    const ok =
      index.length === 1 &&
      index[0]?.includes("metro-app/index.js") === true &&
      screen.length === 1 &&
      screen[0]?.startsWith("sourcemap-source:") === true &&
      hover.includes("metro-app/screen.js") &&
      hover.includes("has changed here since the build") &&
      hover.includes("return view();") &&
      same.length === 1 &&
      same[0] === sameUri &&
      opened?.uri.scheme === "sourcemap-source" &&
      opened.getText().startsWith("// app entry");
    return { ok, detail: { index, screen, hover, same, opened: opened?.uri.toString(true) } };
  });

  await check("command Go to Original Source opens src/App.js at 4:17", async () => {
    await show(bundleUri, addPos);
    const answer = await vscode.commands.executeCommand("sourcemap.goToOriginal");
    const active = vscode.window.activeTextEditor;
    const sel = active?.selection.active;
    const detail = { answer, activeEditor: active?.document.uri.toString(true), line: sel?.line, character: sel?.character };
    return { ok: active?.document.uri.toString() === appUri.toString() && sel?.line === 3 && sel.character === 16, detail };
  });

  await check("status bar shows the original position under the cursor", async () => {
    await show(bundleUri, addPos);
    const view = await until(
      async () => {
        await sleep(200); // the selection event's debounce
        return ext.status.refresh();
      },
      (v) => v?.text.includes("App.js:4:17") === true,
      15000,
    );
    // The workspace path, not the map's build-machine path; that one is in the tooltip.
    const workspacePath = view?.text.endsWith(" src/App.js:4:17") === true && view.tooltip.includes(`Source in the map: ${HOVER_MAP_SOURCE}`);
    const atStart = await (async () => {
      // Line 1, column 1 (`var __BUNDLE_START_TIME__`) has no mapping: the item hides.
      await show(bundleUri, new vscode.Position(0, 0));
      await sleep(200);
      return ext.status.refresh();
    })();
    await show(bundleUri, addPos);
    await ext.status.refresh();
    return { ok: workspacePath && atStart === undefined, detail: { atAdd: view, atUnmapped: atStart ?? null } };
  });

  let virtualUri: vscode.Uri | undefined;
  await check("virtual document for the sourcesContent-only source (react)", async () => {
    const doc = bundleDoc ?? (await vscode.workspace.openTextDocument(bundleUri));
    const pos = new vscode.Position(3, columnOf(doc, 3, "createElement"));
    const defs = await until(
      () => vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>("vscode.executeDefinitionProvider", bundleUri, pos),
      (d) => locationsOf(d).some((l) => l.uri.startsWith("sourcemap-source:")),
    );
    const def = (defs ?? []).find((d) => ("targetUri" in d ? d.targetUri : d.uri).scheme === "sourcemap-source");
    if (def === undefined) {
      return { ok: false, detail: { locations: locationsOf(defs) } };
    }
    virtualUri = "targetUri" in def ? def.targetUri : def.uri;
    const vdoc = await vscode.workspace.openTextDocument(virtualUri);
    await vscode.window.showTextDocument(vdoc, { preview: false });
    const lang = await until(
      () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === virtualUri?.toString())?.languageId ?? vdoc.languageId,
      (l) => l === "javascript",
      5000,
    );
    const text = vdoc.getText();
    return {
      ok: text.startsWith(VIRTUAL_EXPECTED) && lang === "javascript",
      detail: { uri: virtualUri.toString(true), languageId: lang, text },
    };
  });

  await check("Go to Generated Position from src/App.js (and from the virtual document)", async () => {
    await show(bundleUri); // the bundle's map is loaded (reverse lookups search loaded maps)
    const fromApp = await vscode.commands.executeCommand<PLocation[]>("sourcemap.goToGenerated", {
      uri: appUri.toString(),
      position: { line: 3, character: 16 },
      reveal: false,
    });
    const hit = (fromApp ?? []).find((l) => l.uri.endsWith("/index.bundle") && l.range.start.line === 2);
    // The command itself, from the editor: one answer → it jumps into the bundle.
    await show(appUri, new vscode.Position(3, 16));
    await vscode.commands.executeCommand("sourcemap.goToGenerated");
    const active = vscode.window.activeTextEditor;
    const jumped = { uri: active?.document.uri.toString(true), line: active?.selection.active.line, character: active?.selection.active.character };
    let fromVirtual: PLocation[] | undefined;
    if (virtualUri !== undefined) {
      await show(virtualUri, new vscode.Position(0, 8));
      fromVirtual = await vscode.commands.executeCommand<PLocation[]>("sourcemap.goToGenerated", { reveal: false });
    }
    const virtualHit = (fromVirtual ?? []).some((l) => l.uri.endsWith("/index.bundle") && l.range.start.line === 3);
    return {
      ok: hit !== undefined && jumped.uri === bundleUri.toString(true) && jumped.line === 2 && virtualHit,
      detail: { fromApp, jumped, fromVirtual },
    };
  });

  await check("Go to Generated from a file whose bundles were never opened: both builds, found in the workspace", async () => {
    // web/dist/shop.min.js names ../maps/shop.min.js.map; web/old/shop.min.js has a sidecar map. Neither was opened.
    const orders = file("web", "src", "orders.js");
    const opened = vscode.workspace.textDocuments.filter((d) => d.uri.path.includes("/web/")).map((d) => d.uri.toString(true));
    const locations = await vscode.commands.executeCommand<PLocation[]>("sourcemap.goToGenerated", {
      uri: orders.toString(),
      position: { line: 4, character: 23 },
      reveal: false,
    });
    const bundles = [...new Set((locations ?? []).map((l) => vscode.workspace.asRelativePath(vscode.Uri.parse(l.uri), false)))].sort();
    const ok = opened.length === 0 && bundles.length === 2 && bundles[0] === "web/dist/shop.min.js" && bundles[1] === "web/old/shop.min.js";
    return { ok, detail: { openedBefore: opened, bundles, locations } };
  });

  await check("twin bundles: the server asks which build; the choice maps the frame to that build's source", async () => {
    const twins = file("traces", "twins.txt");
    const text = fs.readFileSync(twins.fsPath, "utf8");
    const asked = await ext.server.request<SymbolicateResult>("sourcemap/symbolicate", { text, uri: twins.toString() });
    const ambiguous = asked.ambiguous ?? [];
    const candidates = (ambiguous[0]?.candidates ?? []).map((c) => vscode.workspace.asRelativePath(vscode.Uri.parse(c), false)).sort();
    const b = file("twins", "b", "twin.js").toString();
    const r = await ext.symbolicate.symbolicateText(text, twins, "twins.txt", { [ambiguous[0]?.file ?? ""]: b });
    const shown = r?.result.text ?? "";
    // The same frame printed in a terminal: a link that asks for the build when clicked.
    const terminal = vscode.window.createTerminal({ name: "e2e twins", cwd: file("traces").fsPath });
    const links = await ext.terminalLinks.provideTerminalLinks({ line: "    at f (https://cdn.example.com/static/twin.js:1:11)", terminal }, new vscode.CancellationTokenSource().token);
    terminal.dispose();
    const terminalOk = links.length === 1 && links[0]?.choose?.candidates.length === 2 && (links[0]?.tooltip ?? "").includes("click to choose the build");
    const ok =
      ambiguous.length === 1 &&
      candidates.join(",") === "twins/a/twin.js,twins/b/twin.js" &&
      asked.frames[0]?.location === null &&
      (asked.frames[0]?.unresolved ?? "").includes("2 bundles could be https://cdn.example.com/static/twin.js") &&
      shown.includes("at f (twin-b-src.js:1:1)") &&
      terminalOk;
    return { ok, detail: { ambiguous, unresolved: asked.frames[0]?.unresolved, shown, terminalLinks: links.map((l) => l.tooltip) } };
  });

  await check("a stale map: the map-mismatch warning, no answer where it does not fit, Attach Source Map… offered", async () => {
    const stale = file("stale", "dist", "cart.min.js");
    const editor = await show(stale);
    const diagnostics = await until(
      () => vscode.languages.getDiagnostics(stale),
      (d) => d.some((x) => (typeof x.code === "object" ? x.code.value : x.code) === "map-mismatch"),
      20000,
    );
    const warning = diagnostics.find((x) => (typeof x.code === "object" ? x.code.value : x.code) === "map-mismatch");
    const main = new vscode.Position(0, columnOf(editor.document, 0, "c.map(o)"));
    const after = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", stale, main));
    const before = hoverText(
      await vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", stale, new vscode.Position(0, 49)),
    );
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      "vscode.executeCodeActionProvider",
      stale,
      warning?.range ?? new vscode.Range(0, 0, 0, 0),
    );
    const info = await vscode.commands.executeCommand<string>("sourcemap.showMapInfo");
    const ok =
      warning?.severity === vscode.DiagnosticSeverity.Warning &&
      warning.message.includes("stops fitting") &&
      after.includes("map-mismatch") &&
      !after.includes("index.js:") &&
      before.includes("orders.js:5:24") &&
      (actions ?? []).some((a) => a.title === "Attach Source Map…") &&
      (info ?? "").includes("Fits this bundle: NO");
    return { ok, detail: { warning: warning?.message, range: warning?.range, after, before, info } };
  });

  await check("an unsaved banner on a bundle under a scoped package (VS Code writes @ as %40): the code answered where the edit moved it, the banner said to be an edit", async () => {
    const scoped = file("node_modules", "@scope", "pkg", "dist", "scoped.min.js");
    const editor = await show(scoped);
    const at = (c: number): Thenable<vscode.Hover[]> =>
      vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", scoped, new vscode.Position(0, c));
    const before = hoverText(await until(() => at(49), (h) => hoverText(h).includes("orders.js:5:24")));
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), "/* banner */"));
    // At once: the code at its new place answers as before the edit (the server carries the position through the
    // edit it saw), the banner is text no build wrote, and no map-mismatch is published for an edit it saw.
    const moved = hoverText(await at(49 + 12));
    const banner = hoverText(await at(5));
    await new Promise((r) => setTimeout(r, 1500));
    const diagnostics = vscode.languages.getDiagnostics(scoped);
    await editor.edit((e) => e.delete(new vscode.Range(0, 0, 0, 12)));
    const again = hoverText(await until(() => at(49), (h) => hoverText(h).includes("orders.js:5:24")));
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
    const ok =
      scoped.toString().includes("%40scope") &&
      before.includes("orders.js:5:24") &&
      moved.includes("orders.js:5:24") &&
      banner.includes("written by an edit") &&
      !banner.includes("orders.js:") &&
      !diagnostics.some((d) => (typeof d.code === "object" ? d.code.value : d.code) === "map-mismatch") &&
      again.includes("orders.js:5:24");
    return { ok, detail: { uri: scoped.toString(), before, moved, banner, diagnostics: diagnostics.map((d) => d.message), again } };
  });

  await check("bundles with raw NEL, LS, PS, VT, FF and CRLF: each segment, placed by VS Code's own line model, hovers as its original place", async () => {
    const truth = JSON.parse(fs.readFileSync(file("line-breaks", "dist", "truth.json").fsPath, "utf8")) as {
      bundles: Array<{
        bundle: string;
        positions: Array<{ lsp: { line: number; character: number }; original: { source: string; line: number; column: number } }>;
      }>;
    };
    const results: Array<{ bundle: string; right: number; of: number; firstWrong?: string }> = [];
    for (const b of truth.bundles) {
      const uri = file("line-breaks", "dist", b.bundle);
      const document = await vscode.workspace.openTextDocument(uri);
      // The text VS Code holds and sends the server (a file with mixed line ends is given one, rollup-crlf.js's).
      // Where each LSP line starts in it (breaks at \r\n, \n, \r only), as UTF-16 offsets: the segment's offset,
      // then VS Code's own model (`positionAt`) says which line and column it is on.
      const text = document.getText();
      const starts = [0];
      for (let i = 0; i < text.length; i++) {
        if (text[i] === "\r" && text[i + 1] === "\n") i++;
        if (text[i] === "\n" || text[i] === "\r") starts.push(i + 1);
      }
      const result: { bundle: string; right: number; of: number; firstWrong?: string } = { bundle: b.bundle, right: 0, of: b.positions.length };
      for (const p of b.positions) {
        const at = document.positionAt((starts[p.lsp.line] ?? 0) + p.lsp.character);
        const hovers = await vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", uri, at);
        const want = `${p.original.source.split("/").pop()}:${p.original.line}:${p.original.column + 1}\``;
        if (hoverText(hovers).includes(want)) result.right++;
        else result.firstWrong ??= `${at.line}:${at.character} want ${want}, got ${hoverText(hovers).slice(0, 120)}`;
      }
      results.push(result);
    }
    return { ok: results.length === 3 && results.every((r) => r.right === r.of), detail: results };
  });

  await check("a 3.2 MB one-line bundle (@babel/standalone): a hover past column 150,000 answered while documentLink runs", async () => {
    const babel = file("node_modules", "@babel", "standalone", "babel.min.js");
    const want = JSON.parse(fs.readFileSync(file("babel-expected.json").fsPath, "utf8")) as {
      line: number;
      character: number;
      expected: string;
    };
    const started = Date.now();
    await show(babel);
    const at = new vscode.Position(want.line, want.character);
    const hovers = await until(
      () => vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", babel, at),
      (h) => hoverText(h).includes(want.expected),
      60000,
    );
    const ms = Date.now() - started;
    const links = await vscode.commands.executeCommand<vscode.DocumentLink[]>("vscode.executeLinkProvider", babel);
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
    const text = hoverText(hovers);
    return { ok: text.includes(want.expected) && Array.isArray(links), detail: { want, ms, text: text.slice(0, 300) } };
  });

  await check("CSS bundles (sass expanded and compressed with its byte-order mark, tailwind): hover gives Mozilla's source:line:column, definition opens the .scss", async () => {
    const wants = JSON.parse(fs.readFileSync(file("css-expected.json").fsPath, "utf8")) as Array<{
      bundle: string;
      line: number;
      character: number;
      source: string;
      expected: string;
    }>;
    const seen: Array<{ bundle: string; text: string; definition: string | undefined }> = [];
    let ok = true;
    for (const want of wants) {
      const css = file("css", "dist", ...want.bundle.split("/"));
      const editor = await show(css);
      const at = new vscode.Position(want.line, want.character);
      const text = hoverText(
        await until(
          () => vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", css, at),
          (h) => hoverText(h).includes(want.expected),
        ),
      );
      let definition: string | undefined;
      if (want.source.endsWith(".scss")) {
        const defs = await vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>(
          "vscode.executeDefinitionProvider",
          css,
          at,
        );
        definition = locationsOf(defs)[0]?.uri;
        ok &&= definition?.endsWith(`/css/${want.source}`) === true;
      }
      ok &&= text.includes(want.expected) && editor.document.languageId === "css";
      // VS Code's own CSS hover comes first: keep ours.
      const ours = text.slice(Math.max(0, text.indexOf("**`")));
      seen.push({ bundle: want.bundle, text: ours.slice(0, 200), definition });
      await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
    }
    return { ok, detail: { wants, seen } };
  });

  await check("Show Map Info on a bundle without a map: the server's problem and every place it looked, in order", async () => {
    const legacy = file("nomap", "dist", "legacy.js");
    await show(legacy);
    const answer = await ext.server.request<MapInfo | null>(MAP_INFO, { textDocument: { uri: legacy.toString() } });
    const report = (await vscode.commands.executeCommand<string>("sourcemap.showMapInfo")) ?? "";
    const tried = answer?.tried ?? [];
    const listed = tried.map((t, n) => `    ${n + 1}. ${t}`).join("\n");
    const ok =
      answer !== null &&
      answer.map === null &&
      answer.problem !== null &&
      tried.some((t) => t.includes("legacy.js.map")) &&
      report.includes(`Why: ${answer.problem}`) &&
      report.includes(`Looked for, in order:\n${listed}\n`) &&
      report.includes(`Bundle: nomap/dist/legacy.js (${formatBytes(fs.statSync(legacy.fsPath).size)} on disk)`);
    return { ok, detail: { answer, report } };
  });

  await check("Attach Source Map: the note and its quick fix on a bundle without a map; attached, it is served", async () => {
    const legacy = file("nomap", "dist", "legacy.js");
    await show(legacy);
    const diagnostics = await until(
      () => vscode.languages.getDiagnostics(legacy),
      (d) => d.some((x) => (typeof x.code === "object" ? x.code.value : x.code) === "no-source-map"),
      15000,
    );
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>("vscode.executeCodeActionProvider", legacy, new vscode.Range(0, 0, 0, 0));
    const fix = (actions ?? []).find((a) => a.title === "Attach Source Map…");
    const before = await vscode.commands.executeCommand<string>("sourcemap.showMapInfo");
    const map = file("nomap", "maps", "legacy.js.map").fsPath;
    const entry = await vscode.commands.executeCommand<MapsEntry | undefined>("sourcemap.attachSourceMap", { bundle: legacy.toString(), map });
    const saved = vscode.workspace.getConfiguration("sourcemap").inspect<Record<string, string>>("maps")?.workspaceValue;
    const hovers = await until(
      () => vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", legacy, new vscode.Position(0, 9)),
      (h) => hoverText(h).includes("greet.ts:1:"),
      15000,
    );
    const cleared = await until(
      () => vscode.languages.getDiagnostics(legacy),
      (d) => d.length === 0,
      15000,
    );
    await show(legacy);
    const after = await vscode.commands.executeCommand<string>("sourcemap.showMapInfo");
    // Detached again, for the page's own attach through the UI.
    await vscode.workspace.getConfiguration("sourcemap").update("maps", undefined, vscode.ConfigurationTarget.Workspace);
    const ok =
      fix !== undefined &&
      fix.command?.command === "sourcemap.attachSourceMap" &&
      (before ?? "").includes("No source map is in use for this bundle. What to do:") &&
      entry?.glob === "nomap/dist/legacy.js" &&
      entry.map === "nomap/maps/legacy.js.map" &&
      saved?.["nomap/dist/legacy.js"] === "nomap/maps/legacy.js.map" &&
      hoverText(hovers).includes("greet.ts:1:") &&
      cleared.length === 0 &&
      (after ?? "").includes("the sourcemap.maps setting names it");
    return {
      ok,
      detail: { diagnostics: diagnostics.map((d) => [d.code, d.message]), fix: fix?.title, entry, saved, hover: hoverText(hovers), before, after },
    };
  });

  await check("Open Settings for the server path shows sourcemap.server.path (the Remote tab in a remote window)", async () => {
    const command = await vscode.commands.executeCommand<string>("sourcemap.openServerPathSetting");
    const tab = await until(
      () => vscode.window.tabGroups.activeTabGroup.activeTab?.label ?? "",
      (l) => l.includes("Settings"),
      10000,
    );
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
    const remote = vscode.env.remoteName;
    const ok = tab.includes("Settings") && command === (remote !== undefined ? "workbench.action.openRemoteSettings" : "workbench.action.openSettings");
    return { ok, detail: { command, tab, remoteName: remote ?? null } };
  });

  let symbolicatedText = "";
  await check("Symbolicate Selection on traces/v8-node.txt", async () => {
    await show(traceUri);
    const r = await vscode.commands.executeCommand<{ uri: string; result: { text: string; frames: unknown[] } } | undefined>("sourcemap.symbolicateSelection");
    if (r === undefined) {
      return { ok: false, detail: "no result" };
    }
    symbolicatedText = r.result.text;
    const resultUri = vscode.Uri.parse(r.uri);
    const links = await until(
      () => vscode.commands.executeCommand<vscode.DocumentLink[]>("vscode.executeLinkProvider", resultUri),
      (l) => (l ?? []).length > 0,
      10000,
    );
    const linkInfo = (links ?? []).map((l) => ({
      line: l.range.start.line,
      start: l.range.start.character,
      end: l.range.end.character,
      text: vscode.workspace.textDocuments.find((d) => d.uri.toString() === resultUri.toString())?.getText(l.range),
      target: l.target?.toString(true),
    }));
    const orders = file("demo", "src", "orders.js").toString(true);
    const first = linkInfo[0];
    const firstOk = first?.target === `${orders}#L5,24` && first.text === "demo/src/orders.js:5:24";
    // Following the link's target (what a click does) opens orders.js at 5:24.
    let followed: unknown = null;
    if (first?.target !== undefined) {
      await vscode.commands.executeCommand("vscode.open", vscode.Uri.parse(first.target));
      const a = vscode.window.activeTextEditor;
      followed = { uri: a?.document.uri.toString(true), line: a?.selection.active.line, character: a?.selection.active.character };
    }
    return {
      ok: symbolicatedText.includes(SYMBOLICATED_EXPECTED) && firstOk,
      detail: { text: symbolicatedText, links: linkInfo, followed, frames: r.result.frames.length },
    };
  });

  await check("traces as found: Symbolicate Selection on a logcat log and on a JSON log line (pino) keeps their shape", async () => {
    type Result = { uri: string; result: { text: string; frames: Array<{ location: PLocation | null }> } } | undefined;
    await show(file("traces", "logcat.txt"));
    const logcat = await vscode.commands.executeCommand<Result>("sourcemap.symbolicateSelection");
    const logcatText = logcat?.result.text ?? "";
    await show(file("traces", "service.ndjson"));
    const pino = await vscode.commands.executeCommand<Result>("sourcemap.symbolicateSelection");
    const pinoText = pino?.result.text ?? "";
    let stack = "";
    try {
      stack = (JSON.parse(pinoText.trim()) as { err: { stack: string } }).err.stack;
    } catch {
      stack = "(not JSON)";
    }
    const ok =
      logcatText.includes("12-01 07:00:00.123  4321  4377 E ReactNativeJS:     at parseOrder (demo/src/orders.js:5:24)") &&
      stack.includes("    at parseOrder (demo/src/orders.js:5:24)\n") &&
      (pino?.result.frames ?? []).some((f) => f.location !== null);
    return { ok, detail: { logcat: logcatText.split("\n").slice(0, 4), pino: pinoText.slice(0, 400) } };
  });

  await check("Symbolicate a Metro trace: 3 ignore-listed react frames folded, links to src/App.js and into the virtual source", async () => {
    const metroTrace = file("traces", "metro-ignored.txt");
    await show(metroTrace);
    const r = await vscode.commands.executeCommand<{ uri: string; result: { text: string; frames: Array<{ ignored: boolean; location: PLocation | null }> } } | undefined>(
      "sourcemap.symbolicateSelection",
    );
    if (r === undefined) {
      return { ok: false, detail: "no result" };
    }
    const ignored = r.result.frames.filter((f) => f.ignored).length;
    // The run of three ignore-listed frames (lines 3-5) folds under its first line.
    const resultEditor = vscode.window.activeTextEditor;
    const visible = (resultEditor?.visibleRanges ?? []).map((v) => [v.start.line, v.end.line]);
    const folded = resultEditor?.document.uri.toString() === r.uri && !visible.some(([a, b]) => (a ?? 0) <= 3 && 3 <= (b ?? 0)) && visible.some(([a, b]) => (a ?? 0) <= 2 && 2 <= (b ?? 0));
    const links = await until(
      () => vscode.commands.executeCommand<vscode.DocumentLink[]>("vscode.executeLinkProvider", vscode.Uri.parse(r.uri)),
      (l) => (l ?? []).length > 0,
      10000,
    );
    const targets = (links ?? []).map((l) => l.target?.toString(true) ?? "");
    const virtualTarget = targets.find((t) => t.startsWith("sourcemap-source:"));
    let opened: string | undefined;
    if (virtualTarget !== undefined) {
      await vscode.commands.executeCommand("vscode.open", vscode.Uri.parse(virtualTarget));
      opened = vscode.window.activeTextEditor?.document.getText();
    }
    return {
      ok: ignored === 3 && folded && targets.some((t) => t.endsWith("/src/App.js#L4,17")) && opened?.startsWith(VIRTUAL_EXPECTED) === true,
      detail: { text: r.result.text, ignored, visibleRanges: visible, folded, targets, openedVirtual: opened?.slice(0, 60) },
    };
  });

  await check("stack frames in the log itself link to original sources (server documentLink)", async () => {
    await show(traceUri);
    const links = await until(
      () => vscode.commands.executeCommand<vscode.DocumentLink[]>("vscode.executeLinkProvider", traceUri),
      (l) => (l ?? []).some((x) => x.target?.path.endsWith("/demo/src/orders.js") === true),
      10000,
    );
    const info = (links ?? []).map((l) => ({ line: l.range.start.line, target: l.target?.toString(true) }));
    return { ok: info.filter((l) => l.target?.includes("/demo/src/") === true).length === 4, detail: info };
  });

  await check("terminal links: a V8 frame printed in the terminal links to the original position", async () => {
    const terminal = vscode.window.createTerminal({ name: "e2e links", cwd: file("traces").fsPath });
    const source = new vscode.CancellationTokenSource();
    const line = "    at e (v8/app.min.js:1:50)";
    const links = await ext.terminalLinks.provideTerminalLinks({ line, terminal }, source.token);
    const none = await ext.terminalLinks.provideTerminalLinks({ line: "$ ls -la", terminal }, source.token);
    const link = links[0];
    const linked = link === undefined ? "" : line.slice(link.startIndex, link.startIndex + link.length);
    if (link !== undefined) {
      await ext.terminalLinks.handleTerminalLink(link);
    }
    const a = vscode.window.activeTextEditor;
    const opened = { uri: a?.document.uri.toString(true), line: a?.selection.active.line, character: a?.selection.active.character };
    terminal.dispose();
    const orders = file("demo", "src", "orders.js").toString(true);
    return {
      ok: links.length === 1 && linked === "v8/app.min.js:1:50" && none.length === 0 && opened.uri === orders && opened.line === 4 && opened.character === 23,
      detail: { links: links.map((l) => ({ start: l.startIndex, length: l.length, tooltip: l.tooltip, uri: l.uri })), linked, opened },
    };
  });

  await check("Show Map Info on index.bundle", async () => {
    await show(bundleUri, addPos);
    const report = await vscode.commands.executeCommand<string>("sourcemap.showMapInfo");
    // The map's size is its file's on disk (not the server's buffer, which sheds what the index does not need).
    const mapSize = formatBytes(fs.statSync(file("index.bundle.map").fsPath).size);
    const ok =
      report !== undefined &&
      report.includes(`Map: index.bundle.map (${mapSize} on disk) — found by sourceMappingURL`) &&
      report.includes("sourceMappingURL: index.bundle.map") &&
      report.includes("/home/ci/build/MyApp/src/App.js") &&
      report.includes("react.production.js") &&
      report.includes("found by sourceMappingURL") &&
      report.includes("index memory:") &&
      report.includes(HOVER_EXPECTED);
    return { ok, detail: report };
  });

  await check("Show Bundle Composition on index.bundle: treemap webview, Explorer tree, click opens the source", async () => {
    await show(bundleUri);
    const r = await vscode.commands.executeCommand<CompositionResult | undefined>("sourcemap.showComposition");
    const tree = ext.composition.tree;
    const top = tree.getChildren();
    const labels = top.map((n) => String(tree.getTreeItem(n).label));
    const react = r?.packages.find((p) => p.name === "node_modules/react");
    const src = r?.packages.find((p) => p.name === "src");
    const sum = r === undefined ? -1 : r.mappedBytes + r.unmappedBytes + r.eolBytes + r.sourceMapCommentBytes;
    const files = src === undefined ? [] : tree.getChildren(top[labels.indexOf("src")]).map((n) => tree.getTreeItem(n));
    const app = files.find((f) => f.label === "App.js");
    const panelShown = ext.composition.panel !== undefined && ext.composition.panel.webview.html.includes("acquireVsCodeApi");
    // The tree's click on App.js opens the local file.
    if (app?.command !== undefined) {
      await vscode.commands.executeCommand(app.command.command, ...(app.command.arguments ?? []));
    }
    const opened = vscode.window.activeTextEditor?.document.uri.toString(true) ?? "";
    const ok =
      r !== undefined &&
      sum === r.totalBytes &&
      react !== undefined &&
      react.files.some((f) => f.uri?.startsWith("sourcemap-source:") === true) &&
      src !== undefined &&
      labels.includes("node_modules/react") &&
      labels.includes("src") &&
      panelShown &&
      opened === appUri.toString(true);
    return {
      ok,
      detail: {
        labels,
        packages: r?.packages.map((p) => [p.name, p.size, p.files.map((f) => f.uri)]),
        totalBytes: r?.totalBytes,
        sum,
        opened,
        panelShown,
        panelAfterClick: ext.composition.panel !== undefined,
      },
    };
  });

  // What the profile page says it drew. A webview that code-server keeps hidden (another editor took its column)
  // runs no script until shown: after half the time the panel is shown again, as a person would click its tab, and
  // the times that took are counted (`revealedAgain`, in the checks' details), so that a panel that never draws
  // still fails.
  let revealedAgain = 0;
  const pageRendered = async (
    done: (p: typeof ext.profile.rendered) => boolean,
    ms: number,
  ): Promise<typeof ext.profile.rendered> => {
    const first = await until(() => ext.profile.rendered, done, ms / 2);
    if (done(first)) {
      return first;
    }
    revealedAgain += 1;
    ext.profile.reveal();
    return until(() => ext.profile.rendered, done, ms / 2);
  };

  await check("Show Profile on a real `node --cpu-prof` recording of a minified esbuild bundle: the original functions, in the panel", async () => {
    // The recording names the bundle's minified functions (c, u, i); the server names the original ones.
    const raw = JSON.parse(fs.readFileSync(workloadUri.fsPath, "utf8")) as { nodes: Array<{ callFrame: { functionName: string; url: string } }> };
    const minified = [...new Set(raw.nodes.filter((n) => n.callFrame.url.endsWith("/workload.min.js")).map((n) => n.callFrame.functionName))].sort();
    // Opened as a person does: VS Code shows a .cpuprofile in its profile viewer (a custom editor), and the command
    // takes the profile from the active tab.
    await vscode.commands.executeCommand("vscode.open", workloadUri);
    const input = await until(
      () => vscode.window.tabGroups.activeTabGroup.activeTab?.input,
      (i) => (i instanceof vscode.TabInputCustom || i instanceof vscode.TabInputText) && i.uri.toString() === workloadUri.toString(),
      15000,
    );
    const r = await vscode.commands.executeCommand<ProfileResult | undefined>("sourcemap.showProfile");
    const rows = r?.functions ?? [];
    const top = rows[0];
    const loop = rows.find((x) => x.function === "runWorkload");
    const rendered = await pageRendered((p) => p !== undefined, 15000);
    const html = ext.profile.panel?.webview.html ?? "";
    const ok =
      minified.includes("c") &&
      !minified.includes("countPrimes") &&
      r !== undefined &&
      r.format === "V8 .cpuprofile" &&
      r.samples > 100 &&
      r.mapped > 0 &&
      top?.function === "countPrimes" &&
      top.source === "profile/src/primes.js" &&
      top.line === 1 &&
      top.unmapped === false &&
      top.selfPercent > 50 &&
      top.location !== null &&
      vscode.Uri.parse(top.location.uri).toString() === primesUri.toString() &&
      loop?.source === "profile/src/main.js" &&
      loop.line === 3 &&
      loop.totalPercent > 90 &&
      rows.some((x) => x.unmapped && x.location === null) &&
      rendered?.first === "countPrimes" &&
      rendered.rows === Math.min(rows.length, 500) &&
      html.includes(`${r.mapped} of ${r.positioned} frames mapped`) &&
      html.includes("profile/src/primes.js:2");
    return {
      ok,
      detail: {
        minifiedInTheRecording: minified,
        revealedAgain,
        tab: input instanceof vscode.TabInputCustom ? { custom: input.viewType } : String(input),
        format: r?.format,
        samples: r?.samples,
        positioned: r?.positioned,
        mapped: r?.mapped,
        warnings: r?.warnings,
        top: rows.slice(0, 5),
        rendered,
      },
    };
  });

  await check("Show Profile: a row's click opens its original source at the line; by file and by package the server regroups", async () => {
    const row = ext.profile.shown?.listed.functions[0];
    const editor = await ext.profile.openRow(0);
    const opened = { uri: editor?.document.uri.toString(true), line: editor?.selection.active.line, column: editor?.viewColumn };
    const byFile = await ext.profile.group("file");
    const fileRendered = await pageRendered((p) => p?.first === "profile/src/primes.js", 10000);
    const byPackage = await ext.profile.group("package");
    const byFunction = await ext.profile.group("function");
    const ok =
      row?.function === "countPrimes" &&
      opened.uri === primesUri.toString(true) &&
      opened.line === 1 &&
      byFile?.functions[0]?.source === "profile/src/primes.js" &&
      byFile.functions[0].function === null &&
      fileRendered?.first === "profile/src/primes.js" &&
      (byPackage?.functions.length ?? 0) > 0 &&
      byPackage?.functions.every((x) => x.unmapped || (x.function === null && x.source === null)) === true &&
      byFunction?.functions[0]?.function === "countPrimes";
    return {
      ok,
      detail: { opened, byFile: byFile?.functions.slice(0, 3), byPackage: byPackage?.functions.slice(0, 3), fileRendered },
    };
  });

  await check("inline self times: a CodeLens at countPrimes in primes.js with its self time; gone when the panel closes", async () => {
    const row = ext.profile.shown?.functions.functions.find((x) => x.function === "countPrimes");
    // What a person reads, from the answer's numbers.
    const want =
      row === undefined ? "" : `$(watch) ${row.selfMs.toFixed(1)} ms self (${row.selfPercent.toFixed(1)} %) · ${row.totalMs.toFixed(1)} ms total`;
    await show(primesUri);
    const lensesOf = async (uri: vscode.Uri): Promise<Array<{ line: number; title: string }>> =>
      ((await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri, 10)) ?? [])
        .filter((l) => l.command?.title.startsWith("$(watch) ") === true)
        .map((l) => ({ line: l.range.start.line, title: l.command?.title ?? "" }));
    const shown = await until(() => lensesOf(primesUri), (l) => l.length > 0, 10000);
    await vscode.workspace.openTextDocument(mainUri); // the lenses of a document VS Code has loaded
    const mainLenses = await lensesOf(mainUri);
    ext.profile.panel?.dispose();
    const afterClose = await until(() => lensesOf(primesUri), (l) => l.length === 0, 10000);
    const ok =
      want !== "" &&
      shown.length === 1 &&
      shown[0]?.line === 1 &&
      shown[0].title === want &&
      mainLenses.some((l) => l.line === 3) &&
      afterClose.length === 0 &&
      ext.profile.panel === undefined;
    return { ok, detail: { want, shown, mainLenses, afterClose } };
  });

  await check("the CLI's --out profile (original names) opens in VS Code's profile viewer (ms-vscode.vscode-js-profile-table)", async () => {
    const viewer = vscode.extensions.getExtension("ms-vscode.vscode-js-profile-table");
    const written = JSON.parse(fs.readFileSync(originalProfileUri.fsPath, "utf8")) as { nodes: Array<{ callFrame: { functionName: string; url: string; lineNumber: number } }> };
    const named = written.nodes.map((n) => n.callFrame).filter((f) => f.functionName === "countPrimes");
    await vscode.commands.executeCommand("vscode.open", originalProfileUri);
    const input = await until(
      () => vscode.window.tabGroups.activeTabGroup.activeTab?.input,
      (i) => i instanceof vscode.TabInputCustom && i.uri.toString() === originalProfileUri.toString(),
      15000,
    );
    const viewType = input instanceof vscode.TabInputCustom ? input.viewType : null;
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
    const ok =
      viewer !== undefined &&
      named.length > 0 &&
      named.every((f) => f.url.endsWith("src/primes.js") && f.lineNumber === 1) &&
      viewType === "jsProfileVisualizer.cpuprofile.table";
    return { ok, detail: { viewer: viewer?.id ?? null, viewerVersion: viewer?.packageJSON?.version ?? null, viewType, countPrimesFrames: named } };
  });

  await check("Show Profile on a real Hermes bytecode profile: unmapped until its Hermes map is chosen, then in original functions", async () => {
    const hermes = file("hermes", "metro.inventory.bytecode.json");
    const map = file("hermes", "inventory.hbc.map");
    // Bytecode frames name no file: the server maps them only through the map the client names (Choose Source Map…).
    const before = await ext.profile.show(hermes);
    const after = await ext.profile.show(hermes, map);
    const names = (after?.functions ?? []).filter((r) => !r.unmapped).map((r) => r.function);
    ext.profile.panel?.dispose();
    const ok =
      before?.needsMap === true &&
      before.mapped === 0 &&
      after?.needsMap === false &&
      (after?.mapped ?? 0) > 500 &&
      names.includes("baseClone") &&
      names.includes("Inventory#snapshot");
    return { ok, detail: { before: before && { needsMap: before.needsMap, mapped: before.mapped }, after: after && { needsMap: after.needsMap, mapped: after.mapped }, names: names.slice(0, 12) } };
  });

  await check("Show Profile on a real Chrome DevTools trace: its script URL leads to the bundle in the workspace, rows in original functions", async () => {
    // Recorded by Chromium (fixtures/profiles): `Profile` and `ProfileChunk` events, frames at
    // http://profiles.test/dist/esbuild/inventory.js, which is chrome/dist/esbuild/inventory.js here.
    const trace = file("chrome", "esbuild.inventory.trace.json");
    const shown = await ext.profile.show(trace);
    const rows = (shown?.functions ?? []).filter((r) => !r.unmapped);
    const names = rows.map((r) => r.function);
    const clone = rows.find((r) => r.function === "baseClone");
    ext.profile.panel?.dispose();
    const ok =
      shown?.format === "Chrome trace" &&
      shown.needsMap === false &&
      (shown.mapped ?? 0) > 400 &&
      names.includes("baseAssignValue") &&
      clone !== undefined &&
      clone.source?.endsWith("lodash/_baseClone.js") === true &&
      clone.location !== null;
    return { ok, detail: { format: shown?.format, positioned: shown?.positioned, mapped: shown?.mapped, names: names.slice(0, 12), baseClone: clone } };
  });

  await check("settings reach the server without a reload (pathOverrides)", async () => {
    const config = vscode.workspace.getConfiguration("sourcemap");
    const vendored = file("vendor", "react", "cjs", "react.production.js");
    const doc = bundleDoc ?? (await vscode.workspace.openTextDocument(bundleUri));
    const pos = new vscode.Position(3, columnOf(doc, 3, "createElement"));
    const where = async (): Promise<string[]> =>
      locationsOf(await vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>("vscode.executeDefinitionProvider", bundleUri, pos)).map((l) => l.uri);
    await config.update("pathOverrides", { "/home/ci/build/MyApp/node_modules/*": "${workspaceFolder}/vendor/*" }, vscode.ConfigurationTarget.Workspace);
    const after = await until(where, (u) => u.includes(vendored.toString(true)), 15000);
    await config.update("pathOverrides", undefined, vscode.ConfigurationTarget.Workspace);
    const reset = await until(where, (u) => u.some((x) => x.startsWith("sourcemap-source:")), 15000);
    return {
      ok: after.includes(vendored.toString(true)) && reset.some((x) => x.startsWith("sourcemap-source:")),
      detail: { withOverride: after, afterReset: reset },
    };
  });

  await check("Restart Server, then hover again", async () => {
    const before = ext.server.client;
    await vscode.commands.executeCommand("sourcemap.restartServer");
    const fresh = ext.server.client !== undefined && ext.server.client !== before && ext.server.client.isRunning();
    const hovers = await until(
      () => vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", bundleUri, addPos),
      (h) => hoverText(h).includes(HOVER_EXPECTED),
      15000,
    );
    return { ok: fresh && hoverText(hovers).includes(HOVER_EXPECTED), detail: { newClient: fresh } };
  });

  await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  const result = {
    passed: checks.filter((c) => c.ok).length,
    failed: checks.filter((c) => !c.ok).length,
    ms: Date.now() - started,
    symbolicatedText,
    checks,
  };
  const tmp = `${out}.tmp`;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(tmp, JSON.stringify(result, null, 2));
  fs.renameSync(tmp, out);
  ext.server.log.info(`[e2e] wrote ${out}: ${result.passed} passed, ${result.failed} failed`);
}
