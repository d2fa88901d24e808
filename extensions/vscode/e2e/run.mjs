// The page side of scripts/vscode-e2e: opens code-server in Debian's Chromium (playwright-core), waits for the
// extension's in-host checks (SOURCEMAP_E2E_OUT), then drives the UI as a person would: open the bundle, click and
// hover `math.add`, read the hover and the status bar, click the status bar item, run a command from the palette.
// Prints one PASS/FAIL line per check and "N passed, N failed"; exits 1 on any failure.
//
// node run.mjs --url URL --workspace DIR --results FILE --out DIR --screenshot FILE --expected-symbolicate FILE

import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .join("\u0000")
    .split(/\u0000?--/)
    .filter(Boolean)
    .map((a) => {
      const [k, ...v] = a.split("\u0000");
      return [k, v.join(" ")];
    }),
);
for (const k of ["url", "workspace", "results", "out"]) {
  if (!args[k]) {
    console.error(`run.mjs: --${k} is required`);
    process.exit(2);
  }
}
fs.mkdirSync(args.out, { recursive: true });

// The workspace path of the source (the map names a build machine's /home/ci/build/MyApp/src/App.js).
const HOVER_EXPECTED = "src/App.js:4:17";
const checks = [];
function record(name, ok, detail) {
  checks.push({ name, ok, detail });
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${ok ? "" : `\n     ${typeof detail === "string" ? detail : JSON.stringify(detail)}`.slice(0, 4000)}`);
}
async function step(name, f) {
  try {
    const r = await f();
    record(name, r.ok, r.detail);
  } catch (e) {
    record(name, false, String(e?.stack ?? e));
    await page?.screenshot({ path: path.join(args.out, `fail-${checks.length}.png`) }).catch(() => {});
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
  ],
});
let page;
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  page = await context.newPage();
  const consoleErrors = [];
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  await page.goto(`${args.url}/?folder=${encodeURIComponent(args.workspace)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: 60000 });
  console.log(`workbench up after ${((Date.now() - t0) / 1000).toFixed(1)}s`);

  // ---- the extension host's own checks ----
  const deadline = Date.now() + 180000;
  while (!fs.existsSync(args.results) && Date.now() < deadline) {
    await sleep(250);
  }
  if (!fs.existsSync(args.results)) {
    await page.screenshot({ path: path.join(args.out, "no-results.png") });
    record("extension host wrote its results", false, `no ${args.results} after 180 s (see the extension host log)`);
  } else {
    const host = JSON.parse(fs.readFileSync(args.results, "utf8"));
    console.log(`extension host checks took ${(host.ms / 1000).toFixed(1)}s:`);
    for (const c of host.checks) {
      record(`[host] ${c.name} (${c.ms} ms)`, c.ok, c.error ?? c.detail);
    }
    if (args["expected-symbolicate"]) {
      // The same trace through the CLI (`sourcemap-ls symbolicate`, run in the workspace folder, so it prints the
      // workspace paths the editor shows): the editor must show what the server says, the same text.
      const want = fs.readFileSync(args["expected-symbolicate"], "utf8").trimEnd();
      const got = (host.symbolicatedText ?? "").trimEnd();
      record("[host] symbolicated text equals `sourcemap-ls symbolicate` on the same trace", got === want, { got, want });
    }
  }

  // ---- the UI, as a person would ----
  const quickOpen = async (name) => {
    await page.locator(".monaco-workbench").click({ position: { x: 640, y: 5 } }).catch(() => {});
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 10000 });
    await input.fill(name);
    // Click the row whose file name is exactly `name` (`main.js`, not `main.js.map`): Enter right after typing can
    // still pick a recently opened file from the list shown before.
    const exact = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
    const row = page.locator(".quick-input-list .monaco-list-row", { has: page.locator(".label-name", { hasText: exact }) }).first();
    await row.waitFor({ state: "visible", timeout: 10000 });
    await sleep(300); // the list settles (its rows are reused while results arrive)
    await row.click();
    // The window title names the active editor: "main.js - ws - code-server".
    await page.waitForFunction((n) => document.title.replace(/^● /, "").startsWith(`${n} - `), name, { timeout: 15000 });
  };

  /** Screen coordinates of the character at `offset` in the first rendered line containing `needle`: editor lines,
   * or any other rows (`rows`, a selector: the terminal's DOM renderer has one div per row). */
  const charBox = async (needle, offset, rows = ".editor-instance .view-lines .view-line, .monaco-editor .view-lines .view-line") =>
    page.evaluate(
      ([needle, offset, rows]) => {
        const lines = [...document.querySelectorAll(rows)];
        for (const line of lines) {
          const text = (line.textContent ?? "").replace(/\u00a0/g, " ");
          const at = text.indexOf(needle);
          if (at < 0) continue;
          let want = at + offset;
          const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const len = n.textContent.length;
            if (want < len) {
              const r = document.createRange();
              r.setStart(n, want);
              r.setEnd(n, want + 1);
              const b = r.getBoundingClientRect();
              return { x: b.x + b.width / 2, y: b.y + b.height / 2, top: b.top, bottom: b.bottom, left: b.left };
            }
            want -= len;
          }
        }
        return null;
      },
      [needle, offset, rows],
    );

  /** The status bar's "Ln X, Col Y" once it shows line 4 (or whatever it shows after 10 s). */
  const cursorText = async () => {
    const item = page.locator('.statusbar-item:has-text("Ln ")').first();
    const end = Date.now() + 10000;
    let text = "";
    while (Date.now() < end) {
      text = (await item.innerText().catch(() => "")).trim();
      if (/Ln 4, Col 17/.test(text)) break;
      await sleep(200);
    }
    return text;
  };

  /** Runs a command from the palette (F1) by its title. */
  const palette = async (title) => {
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 10000 });
    await input.fill(`>${title}`);
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
    await row.waitFor({ state: "visible", timeout: 10000 });
    await row.click();
  };

  /** Screenshot of the visible Quick Pick (with some of the editor around it) to out/NAME and, if given, `copyTo`. */
  const shootQuickPick = async (name, copyTo) => {
    await sleep(400);
    const box = await page.locator(".quick-input-widget").boundingBox();
    if (box === null) return;
    const clip = { x: Math.max(0, box.x - 20), y: Math.max(0, box.y - 20), width: Math.min(1280, box.width + 40), height: Math.min(760, box.height + 120) };
    await page.screenshot({ path: path.join(args.out, name), clip });
    if (copyTo) fs.copyFileSync(path.join(args.out, name), copyTo);
  };

  /** Waits for the Quick Pick whose text has `title`, screenshots it (out/NAME, and `copyTo`), returns its rows. */
  const awaitQuickPick = async (title, name, copyTo) => {
    await page.locator(".quick-input-widget", { hasText: title }).first().waitFor({ state: "visible", timeout: 20000 });
    const rows = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts();
    await shootQuickPick(name, copyTo);
    return rows;
  };

  let addBox = null;
  await step("[page] open index.bundle from Quick Open", async () => {
    await quickOpen("index.bundle");
    await page.waitForSelector('.view-line:has-text("math.add")', { timeout: 15000 });
    addBox = await charBox("math.add", "math.".length + 1);
    return { ok: addBox !== null, detail: addBox };
  });

  await step("[page] status bar shows the original position after a click on math.add", async () => {
    await page.mouse.click(addBox.x, addBox.y);
    const item = page.locator('.statusbar-item:has-text("App.js:4:17")');
    await item.first().waitFor({ state: "visible", timeout: 15000 });
    const text = (await item.first().innerText()).trim();
    return { ok: text.includes("App.js:4:17"), detail: text };
  });

  await step("[page] hover on math.add shows the original source:line:column", async () => {
    await page.mouse.move(addBox.x, addBox.y + 200);
    await sleep(300);
    await page.mouse.move(addBox.x - 2, addBox.y);
    await page.mouse.move(addBox.x, addBox.y);
    const hover = page.locator(".monaco-hover-content", { hasText: HOVER_EXPECTED });
    await hover.first().waitFor({ state: "visible", timeout: 20000 });
    await sleep(400); // let the code frame render
    const text = await page.locator(".monaco-hover-content").allInnerTexts();
    const joined = text.join("\n---\n");
    // Screenshot: the hover and the line under it, padded.
    const box = await page.locator(".monaco-hover").filter({ hasText: HOVER_EXPECTED }).first().boundingBox();
    if (box !== null) {
      const x0 = Math.max(0, Math.min(box.x, addBox.left) - 80);
      const y0 = Math.max(0, Math.min(box.y, addBox.top) - 40);
      const x1 = Math.min(1280, Math.max(box.x + box.width, addBox.x) + 80);
      const y1 = Math.min(800, Math.max(box.y + box.height, addBox.bottom) + 40);
      const clip = { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
      await page.screenshot({ path: path.join(args.out, "hover.png"), clip });
      if (args.screenshot) {
        fs.mkdirSync(path.dirname(args.screenshot), { recursive: true });
        fs.copyFileSync(path.join(args.out, "hover.png"), args.screenshot);
      }
    }
    await page.screenshot({ path: path.join(args.out, "workbench-hover.png") });
    return { ok: joined.includes(HOVER_EXPECTED), detail: joined };
  });

  await step("[page] clicking the status bar item opens src/App.js at 4:17", async () => {
    await page.keyboard.press("Escape");
    await page.locator('.statusbar-item:has-text("App.js:4:17")').first().click();
    await page.waitForSelector('.tab.active:has-text("App.js")', { timeout: 15000 });
    const cursor = await cursorText();
    return { ok: /Ln 4, Col 17/.test(cursor), detail: cursor };
  });

  await step('[page] command palette "Source Map: Go to Original Source" from the bundle', async () => {
    await quickOpen("index.bundle");
    await page.waitForSelector('.view-line:has-text("math.add")', { timeout: 15000 });
    const b = await charBox("math.add", "math.".length + 1);
    await page.mouse.click(b.x, b.y);
    await palette("Source Map: Go to Original Source");
    await page.waitForSelector('.tab.active:has-text("App.js")', { timeout: 15000 });
    const cursor = await cursorText();
    return { ok: /Ln 4, Col 17/.test(cursor), detail: cursor };
  });

  await step("[page] Symbolicate Selection from the palette: ignore-listed frames dimmed and folded, Ctrl+click a frame", async () => {
    await page.keyboard.press("Control+B"); // hide the side bar: room for the long frames in the screenshot
    await quickOpen("metro-ignored.txt");
    await page.waitForSelector('.view-line:has-text("index.bundle")', { timeout: 15000 });
    await palette("Source Map: Symbolicate Selection");
    await page.waitForSelector('.tab.active:has-text("symbolicated")', { timeout: 15000 });
    await page.waitForSelector('.view-line:has-text("App.js:4:17")', { timeout: 15000 });
    // Folding and decorations land shortly after the editor opens: poll for them.
    const readView = () => page.evaluate(() => {
      const editor = [...document.querySelectorAll(".editor-instance .monaco-editor")].find((e) => (e.textContent ?? "").includes("App.js:4:17"));
      const lines = [...(editor?.querySelectorAll(".view-lines .view-line") ?? [])].sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
      return lines.map((l) => ({
        text: (l.textContent ?? "").replace(/\u00a0/g, " "),
        dimmed: [...l.querySelectorAll("span")].some((s) => getComputedStyle(s).opacity === "0.5"),
      }));
    });
    let view = await readView();
    let react = [];
    for (const end = Date.now() + 10000; Date.now() < end; ) {
      view = await readView();
      react = view.filter((l) => l.text.includes("react.production.js"));
      if (react.length === 1 && react[0].dimmed) break;
      await sleep(200);
    }
    await sleep(300);
    const box = await page.locator(".editor-instance").first().boundingBox();
    if (args["screenshot-symbolicate"] && box !== null) {
      await page.screenshot({ path: args["screenshot-symbolicate"], clip: { x: box.x, y: box.y, width: Math.min(box.width, 1200), height: 120 } });
    }
    await page.screenshot({ path: path.join(args.out, "symbolicate.png") });
    // Ctrl+click the first frame's link: src/App.js at 4:17.
    const b = await charBox("App.js:4:17", 2);
    await page.keyboard.down("Control");
    await page.mouse.click(b.x, b.y);
    await page.keyboard.up("Control");
    await page.waitForSelector('.tab.active:has-text("App.js")', { timeout: 15000 });
    const cursor = await cursorText();
    const ok = react.length === 1 && react[0].dimmed && /Ln 4, Col 17/.test(cursor);
    return { ok, detail: { visibleLines: view, cursorAfterClick: cursor } };
  });

  await step('[page] "Source Map: Show Bundle Composition" from the palette: the treemap in a webview', async () => {
    await page.keyboard.press("Escape");
    await quickOpen("index.bundle");
    await page.waitForSelector('.view-line:has-text("math.add")', { timeout: 15000 });
    await palette("Source Map: Show Bundle Composition");
    // A webview is an iframe holding the page's own iframe.
    const inner = page.frameLocator("iframe.webview.ready").last().frameLocator("iframe#active-frame");
    const packages = inner.locator(".node.package");
    await packages.first().waitFor({ state: "visible", timeout: 20000 });
    const names = await packages.locator(":scope > .label").allTextContents();
    const files = await inner.locator(".node.file").count();
    await sleep(300);
    const frame = await page.locator("iframe.webview.ready").last().boundingBox();
    if (args["screenshot-composition"] && frame !== null) {
      await page.screenshot({ path: args["screenshot-composition"], clip: frame });
    }
    await page.screenshot({ path: path.join(args.out, "composition.png") });
    const ok = names.some((n) => n.startsWith("node_modules/react")) && names.some((n) => n.startsWith("src")) && files >= 2;
    return { ok, detail: { packages: names, files } };
  });

  await step("[page] hover on a bundle line whose local source is an old checkout: the map's code, and why", async () => {
    await page.keyboard.press("Escape");
    await palette("View: Close All Editors");
    await quickOpen("main.js");
    await page.waitForSelector('.view-line:has-text("view();")', { timeout: 15000 });
    const at = await charBox("view();", 1);
    await page.mouse.move(at.x, at.y + 200);
    await sleep(300);
    await page.mouse.move(at.x - 2, at.y);
    await page.mouse.move(at.x, at.y);
    const hover = page.locator(".monaco-hover-content", { hasText: "changed here" });
    await hover.first().waitFor({ state: "visible", timeout: 20000 });
    await sleep(400);
    const text = (await page.locator(".monaco-hover-content").allInnerTexts()).join("\n---\n");
    const box = await page.locator(".monaco-hover").filter({ hasText: "changed here" }).first().boundingBox();
    if (box !== null) {
      const clip = { x: Math.max(0, box.x - 40), y: Math.max(0, Math.min(box.y, at.y) - 30), width: Math.min(1240, box.width + 80), height: Math.min(780, Math.abs(at.y - box.y) + box.height + 60) };
      await page.screenshot({ path: path.join(args.out, "decoy.png"), clip });
      if (args["screenshot-decoy"]) {
        fs.copyFileSync(path.join(args.out, "decoy.png"), args["screenshot-decoy"]);
      }
    }
    const ok = text.includes("metro-app/screen.js") && text.includes("has changed here since the build") && text.includes("return view();") && !text.includes("oldView");
    return { ok, detail: text };
  });

  await step("[page] a stack frame printed in the integrated terminal: hover shows the original, Ctrl+click opens it", async () => {
    await page.keyboard.press("Escape");
    await palette("Terminal: Create New Terminal");
    const rows = page.locator(".xterm-rows");
    await rows.first().waitFor({ state: "visible", timeout: 20000 });
    await sleep(1500); // the shell's prompt
    // Only the first frames, so that they are on screen in the panel.
    await page.keyboard.type("clear; head -4 traces/v8-node.txt\n", { delay: 10 });
    await page.locator(".xterm-rows", { hasText: "v8/app.min.js:1:311" }).first().waitFor({ state: "visible", timeout: 20000 });
    await sleep(500);
    const at = await charBox("at e (v8/app.min.js:1:50)", "at e (v8/".length + 2, ".xterm-rows > div");
    if (at === null) {
      return { ok: false, detail: "frame not found in the terminal rows" };
    }
    await page.mouse.move(at.x, at.y - 40);
    await sleep(300);
    await page.mouse.move(at.x, at.y);
    const tip = page.getByText("Open the original", { exact: false }).first();
    await tip.waitFor({ state: "visible", timeout: 20000 });
    const tipText = (await tip.innerText()).trim();
    await sleep(300);
    const box = await tip.boundingBox();
    if (box !== null) {
      const x0 = Math.max(0, Math.min(box.x, at.x) - 200);
      const y0 = Math.max(0, Math.min(box.y, at.y) - 60);
      const clip = { x: x0, y: y0, width: Math.min(1280 - x0, 900), height: Math.min(800 - y0, Math.abs(at.y - box.y) + box.height + 120) };
      await page.screenshot({ path: path.join(args.out, "terminal-link.png"), clip });
      if (args["screenshot-terminal"]) {
        fs.copyFileSync(path.join(args.out, "terminal-link.png"), args["screenshot-terminal"]);
      }
    }
    await page.keyboard.down("Control");
    await page.mouse.click(at.x, at.y);
    await page.keyboard.up("Control");
    await page.waitForFunction(() => document.title.replace(/^● /, "").startsWith("orders.js - "), null, { timeout: 15000 });
    const cursor = (await page.locator('.statusbar-item:has-text("Ln ")').first().innerText().catch(() => "")).trim();
    const ok = tipText.includes("orders.js:5:24") && /Ln 5, Col 24/.test(cursor);
    return { ok, detail: { tipText, cursor } };
  });

  await step("[page] Go to Generated Position from an original file whose bundles were never opened: pick the build", async () => {
    await page.keyboard.press("Escape");
    await palette("View: Close All Editors");
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 10000 });
    await input.fill("web/src/orders.js");
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: "web/src" }).first();
    await row.waitFor({ state: "visible", timeout: 10000 });
    await sleep(300);
    await row.click();
    await page.waitForFunction(() => document.title.replace(/^● /, "").startsWith("orders.js - "), null, { timeout: 15000 });
    await page.waitForSelector('.view-line:has-text("lineTotal(item)")', { timeout: 15000 });
    const at = await charBox("input.items.map", "input.items.".length + 1);
    await page.mouse.click(at.x, at.y);
    await palette("Source Map: Go to Generated Position");
    const rows = await awaitQuickPick("Generated positions in 2 bundles", "go-to-generated.png", args["screenshot-generated"]);
    // The newest build first: web/dist (the old one was built three days ago).
    const first = rows[0] ?? "";
    await page.locator(".quick-input-list .monaco-list-row").first().click();
    await page.waitForFunction(() => document.title.replace(/^● /, "").startsWith("shop.min.js - "), null, { timeout: 15000 });
    const ok = rows.length === 2 && first.includes("web/dist/shop.min.js") && first.includes("built ") && rows[1].includes("3 days ago");
    return { ok, detail: { rows } };
  });

  await step("[page] twin bundles: Symbolicate Selection asks which build, once, and maps the frame to it", async () => {
    await page.keyboard.press("Escape");
    await quickOpen("twins.txt");
    await page.waitForSelector('.view-line:has-text("twin.js:1:11")', { timeout: 15000 });
    await palette("Source Map: Symbolicate Selection");
    const rows = await awaitQuickPick("Which build produced this trace?", "twin-bundles.png", args["screenshot-twins"]);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "twins/b/twin.js" }).first().click();
    await page.waitForSelector('.tab.active:has-text("symbolicated")', { timeout: 15000 });
    const mapped = page.locator('.view-line:has-text("twin-b-src.js:1:1")');
    await mapped.first().waitFor({ state: "visible", timeout: 15000 });
    // Newest first: b was built now, a a day ago.
    const ok = rows.length === 2 && rows[0].includes("twins/b/twin.js") && rows[1].includes("1 day ago");
    return { ok, detail: { rows } };
  });

  await step("[page] a stale map: the map-mismatch warning in the editor and the Problems panel; hover says why", async () => {
    await page.keyboard.press("Escape");
    // Quick Open by path.
    await page.locator(".monaco-workbench").click({ position: { x: 640, y: 5 } }).catch(() => {});
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 10000 });
    await input.fill("stale/dist/cart.min.js");
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: "stale" }).first();
    await row.waitFor({ state: "visible", timeout: 10000 });
    await sleep(300);
    await row.click();
    await page.waitForSelector('.view-line:has-text("function o(r)")', { timeout: 15000 });
    // The Problems panel lists the warning.
    await palette("View: Focus Problems (Errors, Warnings, Infos)");
    const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "stops fitting" }).first();
    await problem.waitFor({ state: "visible", timeout: 20000 });
    const problemText = (await problem.innerText()).trim();
    // The cursor after the edit (main's `c.map(o)`), then the hover there: no answer, and why.
    const code = fs.readFileSync(path.join(args.workspace, "stale/dist/cart.min.js"), "utf8");
    const column = code.split("\n")[0].indexOf("c.map(o)") + 1;
    await palette("Go to Line/Column...");
    const goto = page.locator(".quick-input-widget input");
    await goto.waitFor({ state: "visible", timeout: 10000 });
    await goto.fill(`:1:${column}`);
    await page.keyboard.press("Enter");
    await sleep(500);
    await palette("Show or Focus Hover");
    const hover = page.locator(".monaco-hover", { hasText: "map-mismatch" }).first();
    await hover.waitFor({ state: "visible", timeout: 20000 });
    const hoverText = (await hover.innerText()).trim();
    await sleep(300);
    await page.screenshot({ path: path.join(args.out, "map-mismatch.png"), clip: { x: 0, y: 0, width: 1280, height: 800 } });
    if (args["screenshot-mismatch"]) {
      fs.copyFileSync(path.join(args.out, "map-mismatch.png"), args["screenshot-mismatch"]);
    }
    await page.keyboard.press("Escape");
    const ok = problemText.includes("stops fitting") && hoverText.includes("No answer here") && !hoverText.includes("index.js:");
    return { ok, detail: { problemText, hoverText } };
  });

  await step("[page] Attach Source Map… on a bundle without a map: pick the map, then hover shows the original", async () => {
    await page.keyboard.press("Escape");
    await quickOpen("legacy.js");
    await page.waitForSelector('.view-line:has-text("function greet")', { timeout: 15000 });
    await palette("Source Map: Attach Source Map…");
    const rows = await awaitQuickPick("Attach a source map to legacy.js", "attach.png", args["screenshot-attach"]);
    // The map in nomap/maps is the nearest to the bundle: listed first.
    await page.locator(".quick-input-list .monaco-list-row").first().click();
    await page.getByText("legacy.js now uses", { exact: false }).first().waitFor({ state: "visible", timeout: 15000 });
    const at = await charBox("function greet", "function ".length + 1);
    await page.mouse.move(at.x, at.y + 200);
    await sleep(300);
    await page.mouse.move(at.x - 2, at.y);
    await page.mouse.move(at.x, at.y);
    const hover = page.locator(".monaco-hover-content", { hasText: "greet.ts:1:" });
    await hover.first().waitFor({ state: "visible", timeout: 20000 });
    const text = (await page.locator(".monaco-hover-content").allInnerTexts()).join("\n---\n");
    const ok = (rows[0] ?? "").includes("legacy.js.map") && (rows[0] ?? "").includes("nomap/maps") && text.includes("greet.ts:1:");
    return { ok, detail: { rows, hover: text } };
  });

  await step('[page] "Source Map: Open Server Path Setting" shows the setting (the Remote tab in code-server)', async () => {
    await page.keyboard.press("Escape");
    await palette("Source Map: Open Server Path Setting");
    const item = page.locator(".settings-editor .setting-item-contents", { hasText: "Path to the" });
    await item.first().waitFor({ state: "visible", timeout: 20000 });
    // The selected scope tab: in code-server (a remote window) the Remote one, where the remote host's setting lives.
    const tabs = await page.evaluate(() =>
      [...document.querySelectorAll(".settings-editor .checked, .settings-editor [aria-checked='true'], .settings-editor [aria-selected='true']")]
        .map((e) => (e.textContent ?? "").trim())
        .filter((t) => /^(User|Remote|Workspace)/.test(t)),
    );
    const text = (await item.first().innerText()).replace(/\s+/g, " ");
    await page.screenshot({ path: path.join(args.out, "server-path-setting.png") });
    const ok = text.includes("Server: Path") && text.includes("sourcemap-ls") && tabs.some((t) => t.startsWith("Remote"));
    return { ok, detail: { text, tabs } };
  });

  /** The frame of a webview's page (a webview is an iframe holding the page's iframe) where `test` holds. */
  const webviewFrame = async (test, arg, ms = 20000) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      for (const f of page.frames()) {
        if (f === page.mainFrame()) continue;
        if (await f.evaluate(test, arg).catch(() => false)) return f;
      }
      await sleep(250);
    }
    return null;
  };
  /** What the Show Profile page shows: its header, column heads and first rows. */
  const readProfilePage = (frame) =>
    frame.evaluate(() => ({
      summary: document.querySelector(".summary")?.textContent ?? "",
      head: [...document.querySelectorAll("thead th")].map((t) => t.textContent ?? ""),
      rows: [...document.querySelectorAll("tbody tr")].slice(0, 8).map((tr) => ({
        name: tr.querySelector("td.what .name")?.firstChild?.textContent ?? "",
        place: tr.querySelector("td.what .source")?.textContent ?? "",
        self: tr.querySelector("td.self-ms")?.textContent ?? "",
        selfPercent: tr.querySelector("td.self-percent")?.textContent ?? "",
        total: tr.querySelector("td.total-ms")?.textContent ?? "",
        bar: tr.querySelector(".fill.self")?.getAttribute("style") ?? "",
        unmapped: tr.classList.contains("unmapped"),
      })),
    }));
  const profilePage = (firstHead) =>
    webviewFrame((h) => document.querySelector(".group button[data-by]") !== null && document.querySelector("thead th.what")?.firstChild?.textContent?.trim() === h, firstHead);

  let profileRow = null;
  await step('[page] a .cpuprofile from Quick Open, then "Source Map: Show Profile": the original functions, with bars', async () => {
    await page.keyboard.press("Escape");
    await palette("View: Close All Editors");
    if (await page.locator(".part.sidebar").isVisible().catch(() => false)) {
      await page.keyboard.press("Control+B"); // room for the panel beside the source
    }
    await quickOpen("workload.cpuprofile");
    // VS Code's profile viewer opens it; once its page has loaded it takes the focus (a palette opened before that
    // closes again).
    const viewer = await webviewFrame(() => (document.body?.innerText ?? "").includes("Self Time"));
    await sleep(500);
    await palette("Source Map: Show Profile");
    const frame = await profilePage("function");
    if (frame === null) {
      await page.screenshot({ path: path.join(args.out, "profile-missing.png") });
      return { ok: false, detail: { error: "no Show Profile page", profileViewerLoaded: viewer !== null } };
    }
    const view = await readProfilePage(frame);
    profileRow = view.rows[0] ?? null;
    const ok =
      profileRow?.name === "countPrimes" &&
      profileRow.place === "profile/src/primes.js:2" &&
      /^width:\d/.test(profileRow.bar) &&
      view.summary.startsWith("V8 .cpuprofile · ") &&
      / \d+ of \d+ frames mapped$/.test(view.summary) &&
      view.rows.some((r) => r.unmapped);
    return { ok, detail: view };
  });

  await step("[page] Show Profile: group by file, back by function, click countPrimes: primes.js at line 2 with its self time inline", async () => {
    let frame = await profilePage("function");
    if (frame === null) {
      return { ok: false, detail: "no Show Profile page" };
    }
    await frame.locator('.group button[data-by="file"]').click();
    frame = await profilePage("file");
    const byFile = frame === null ? null : await readProfilePage(frame);
    await frame?.locator('.group button[data-by="function"]').click();
    frame = await profilePage("function");
    await frame.locator("tbody tr.openable").first().click();
    await page.waitForFunction(() => document.title.replace(/^● /, "").startsWith("primes.js - "), null, { timeout: 15000 });
    const lens = page.locator(".editor-instance .codelens-decoration", { hasText: "ms self" }).first();
    await lens.waitFor({ state: "visible", timeout: 20000 });
    const lensText = (await lens.innerText()).replace(/\u00a0/g, " ").trim();
    let cursor = "";
    for (const end = Date.now() + 5000; Date.now() < end && !/Ln 2, Col 1\b/.test(cursor); await sleep(200)) {
      cursor = (await page.locator('.statusbar-item:has-text("Ln ")').first().innerText().catch(() => "")).trim();
    }
    await sleep(500);
    const editorPart = await page.locator(".part.editor").boundingBox();
    if (editorPart !== null) {
      await page.screenshot({ path: path.join(args.out, "profile.png"), clip: editorPart });
      if (args["screenshot-profile"]) {
        fs.copyFileSync(path.join(args.out, "profile.png"), args["screenshot-profile"]);
      }
    }
    // The lens's text after its stopwatch icon (a codicon: drawn by CSS, no text of its own).
    const icon = await lens.locator(".codicon-watch").count();
    const want = profileRow === null ? "" : `${profileRow.self} self (${profileRow.selfPercent}) · ${profileRow.total} total`;
    const ok = byFile?.rows[0]?.name === "profile/src/primes.js" && lensText === want && icon === 1 && /Ln 2, Col 1\b/.test(cursor);
    return { ok, detail: { byFile: byFile?.rows.slice(0, 3), lensText, want, icon, cursor } };
  });

  await step("[page] the CLI's --out profile in VS Code's own profile viewer (js-profile-table): original names", async () => {
    await page.keyboard.press("Escape");
    await palette("View: Close All Editors");
    await quickOpen("workload.original.cpuprofile");
    const frame = await webviewFrame(() => (document.body?.innerText ?? "").includes("countPrimes"));
    const text = frame === null ? "" : await frame.evaluate(() => document.body.innerText);
    await page.screenshot({ path: path.join(args.out, "profile-viewer.png") });
    const ok = text.includes("countPrimes") && text.includes("primes.js") && text.includes("runWorkload");
    return { ok, detail: text.slice(0, 1500) };
  });

  await page.screenshot({ path: path.join(args.out, "workbench-end.png") });
  fs.writeFileSync(path.join(args.out, "console-errors.txt"), consoleErrors.join("\n"));
} catch (e) {
  record("page driver", false, String(e?.stack ?? e));
  await page?.screenshot({ path: path.join(args.out, "driver-error.png") }).catch(() => {});
} finally {
  await browser.close();
}

fs.writeFileSync(path.join(args.out, "checks.json"), JSON.stringify(checks, null, 2));
const failed = checks.filter((c) => !c.ok).length;
console.log(`e2e: ${checks.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 && checks.length > 0 ? 0 : 1);
