import assert from "node:assert/strict";
import { test } from "node:test";

import {
  barWidth,
  escapeHtml,
  inlineTimes,
  isGrouping,
  lensTitle,
  MAX_LISTED_ROWS,
  profileHtml,
  rowLabel,
  rowPlace,
  summaryText,
} from "../src/logic/profile";
import type { ProfileResult, ProfileRow } from "../src/protocol";

const at = (uri: string, line: number) => ({ uri, range: { start: { line, character: 0 }, end: { line, character: 0 } } });

const hot: ProfileRow = {
  function: "countPrimes",
  source: "profile/src/primes.js",
  line: 1,
  package: "profile",
  unmapped: false,
  selfMs: 812.34,
  selfPercent: 41.19,
  totalMs: 900.06,
  totalPercent: 45.6,
  location: at("file:///ws/profile/src/primes.js", 1),
};
const gc: ProfileRow = {
  function: "(garbage collector)",
  source: null,
  line: null,
  package: null,
  unmapped: true,
  selfMs: 5.6,
  selfPercent: 0.4,
  totalMs: 5.6,
  totalPercent: 0.4,
  location: null,
};
const internal: ProfileRow = { ...gc, function: "toRealPath", source: "node:internal/modules/helpers" };
const result: ProfileResult = {
  format: "V8 .cpuprofile",
  samples: 1387,
  totalMs: 1514.73,
  positioned: 62,
  mapped: 3,
  warnings: ["2 samples name no node"],
  needsMap: false,
  functions: [hot, gc, internal],
};

test("the inline self time: self ms and %, total ms, after VS Code's stopwatch icon", () => {
  assert.equal(lensTitle(hot), "$(watch) 812.3 ms self (41.2 %) · 900.1 ms total");
});

test("rows: the function, source:line with the line 1-based, unmapped rows keep the profile's names", () => {
  assert.equal(rowLabel(hot, "function"), "countPrimes");
  assert.equal(rowPlace(hot), "profile/src/primes.js:2");
  assert.equal(rowLabel({ ...hot, function: null, line: null }, "file"), "profile/src/primes.js");
  assert.equal(rowPlace({ ...hot, line: null }), "profile/src/primes.js");
  assert.equal(rowLabel({ ...hot, function: null, source: null, line: null }, "package"), "profile");
  assert.equal(rowLabel(gc, "package"), "(garbage collector)");
  assert.equal(rowPlace(gc), "");
  assert.equal(rowPlace(internal), "node:internal/modules/helpers");
});

test("the header: format, samples, total time, N of M frames mapped", () => {
  assert.equal(summaryText(result), "V8 .cpuprofile · 1387 samples · 1514.7 ms · 3 of 62 frames mapped");
  assert.equal(summaryText({ ...result, samples: 1 }).includes("1 sample ·"), true);
});

test("inline times: one per located row, keyed by the caller's normal form of the URI; unmapped rows have none", () => {
  const second: ProfileRow = { ...hot, function: "sieve", selfMs: 1, selfPercent: 0.1, location: at("file:///ws/profile/src/primes.js", 9) };
  const other: ProfileRow = { ...hot, function: "checksumText", location: at("sourcemap-source:///text.js?map=/ws/a.map&source=1", 0) };
  const m = inlineTimes([hot, gc, second, other], (u) => u.toUpperCase());
  assert.deepEqual([...m.keys()], ["FILE:///WS/PROFILE/SRC/PRIMES.JS", "SOURCEMAP-SOURCE:///TEXT.JS?MAP=/WS/A.MAP&SOURCE=1"]);
  assert.deepEqual(
    m.get("FILE:///WS/PROFILE/SRC/PRIMES.JS")?.map((t) => [t.line, t.row]),
    [
      [1, 0],
      [9, 2],
    ],
  );
  assert.equal(m.get("FILE:///WS/PROFILE/SRC/PRIMES.JS")?.[0]?.title, lensTitle(hot));
  assert.equal(inlineTimes([gc, internal], (u) => u).size, 0);
});

test("bars stay within their cell", () => {
  assert.equal(barWidth(41.2), 41.2);
  assert.equal(barWidth(-1), 0);
  assert.equal(barWidth(140), 100);
  assert.equal(barWidth(Number.NaN), 0);
});

test("the page: header, warnings, grouping buttons, a row per answer row with both bars, unmapped rows marked", () => {
  const html = profileHtml(result, { title: "workload.cpuprofile", by: "function", nonce: "abc" });
  assert.match(html, /script-src 'nonce-abc'/);
  assert.match(html, /<script nonce="abc">/);
  assert.match(html, /V8 \.cpuprofile · 1387 samples · 1514\.7 ms · 3 of 62 frames mapped/);
  assert.match(html, /<li>2 samples name no node<\/li>/);
  assert.match(html, /<button data-by="function" class="active" aria-pressed="true">Function<\/button>/);
  assert.match(html, /<button data-by="package" aria-pressed="false">Package<\/button>/);
  const rows = html.match(/<tr data-row="\d+"[^>]*>.*?<\/tr>/g) ?? [];
  assert.equal(rows.length, 3);
  assert.match(rows[0] ?? "", /class="openable"/);
  // The times first (a narrow panel keeps them), then what the row is.
  assert.match(rows[0] ?? "", /^<tr[^>]*><td class="num self-ms">812\.3 ms<\/td><td class="num self-percent">41\.2 %<\/td><td class="bar"><div class="fill self" style="width:41\.2%"><\/div><\/td>/);
  assert.match(
    rows[0] ?? "",
    /<td class="what" title="countPrimes · profile\/src\/primes\.js:2 · profile"><div class="name">countPrimes<\/div><div class="place"><span class="source">profile\/src\/primes\.js:2<\/span><span class="package">profile<\/span><\/div><\/td><\/tr>$/,
  );
  assert.match(rows[0] ?? "", /<div class="fill total" style="width:45\.6%">/);
  assert.match(rows[1] ?? "", /class="unmapped"/);
  assert.doesNotMatch(rows[1] ?? "", /openable|tabindex/);
  assert.match(rows[1] ?? "", /<div class="name">\(garbage collector\) <span class="tag">not mapped<\/span><\/div><\/td>/);
  // An unmapped frame's script is where it is; it has no package.
  assert.match(rows[2] ?? "", /<div class="name">toRealPath <span class="tag">not mapped<\/span><\/div><div class="place"><span class="source">node:internal\/modules\/helpers<\/span><\/div>/);
  assert.match(html, /<th class="num">self<\/th>.*<th class="what">function <span class="sub">source:line · package<\/span><\/th>/);
});

test("the page by file and by package: the file and its package, the package alone; names are escaped", () => {
  const byFile = profileHtml({ ...result, functions: [{ ...hot, function: null, line: null, source: "src/<a>.js" }] }, { title: "p", by: "file", nonce: "n" });
  assert.match(byFile, /<th class="what">file <span class="sub">package<\/span><\/th><\/tr>/);
  assert.match(byFile, /<div class="name">src\/&lt;a&gt;\.js<\/div><div class="place"><span class="package">profile<\/span><\/div><\/td><\/tr>/);
  const byPackage = profileHtml({ ...result, functions: [{ ...hot, function: null, source: null, line: null }] }, { title: "p", by: "package", nonce: "n" });
  assert.match(byPackage, /<th class="what">package<\/th><\/tr>/);
  assert.match(byPackage, /<td class="what" title="profile"><div class="name">profile<\/div><\/td><\/tr>/);
  assert.equal(escapeHtml(`"'&`), "&quot;&#39;&amp;");
});

test("the page lists at most MAX_LISTED_ROWS rows and counts the rest", () => {
  const many = Array.from({ length: MAX_LISTED_ROWS + 7 }, (_, i) => ({ ...hot, function: `f${i}` }));
  const html = profileHtml({ ...result, functions: many }, { title: "p", by: "function", nonce: "n" });
  assert.equal((html.match(/<tr data-row=/g) ?? []).length, MAX_LISTED_ROWS);
  assert.match(html, /… and 7 more rows/);
  assert.match(profileHtml({ ...result, functions: [] }, { title: "p", by: "function", nonce: "n" }), /no samples/);
});

test("groupings", () => {
  assert.equal(isGrouping("file"), true);
  assert.equal(isGrouping("module"), false);
  assert.equal(isGrouping(undefined), false);
});
