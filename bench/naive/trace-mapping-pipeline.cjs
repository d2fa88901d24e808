// The naive crash pipeline a user writes first (issue 56's baseline): Sentry events as NDJSON on stdin, each frame
// looked up with @jridgewell/trace-mapping in the map of its release's file (`DIR/<release>/<url path>.map`), maps
// loaded once; the frame's position and the map's name there replace the printed ones; one event a line on stdout.
// No function names from code, no context lines, no fit check, no debug ids: positions and the map's names only.
//
//   node trace-mapping-pipeline.cjs RELEASES_DIR < events.ndjson > out.ndjson
// `TRACE_MAPPING` names the module to require (a path to @jridgewell/trace-mapping), else it is found from here.
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { TraceMap, originalPositionFor } = require(process.env.TRACE_MAPPING || '@jridgewell/trace-mapping');

const dir = process.argv[2];
const maps = new Map();
function mapOf(release, filename) {
  const key = `${release}\n${filename}`;
  if (maps.has(key)) return maps.get(key);
  let map = null;
  try {
    const p = filename.replace(/^[a-z]+:\/\/[^/]*/, '');
    map = new TraceMap(fs.readFileSync(path.join(dir, release, `${p}.map`), 'utf8'));
  } catch {}
  maps.set(key, map);
  return map;
}

const out = [];
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  const event = JSON.parse(line);
  for (const value of event.exception?.values ?? []) {
    for (const frame of value.stacktrace?.frames ?? []) {
      if (!frame.filename || !frame.lineno || !frame.colno) continue;
      const map = mapOf(event.release, frame.filename);
      if (!map) continue;
      const o = originalPositionFor(map, { line: frame.lineno, column: frame.colno - 1 });
      if (o.source == null) continue;
      frame.filename = o.source;
      frame.lineno = o.line;
      frame.colno = o.column + 1;
      if (o.name) frame.function = o.name;
    }
  }
  out.push(JSON.stringify(event));
  if (out.length >= 256) process.stdout.write(out.splice(0).join('\n') + '\n');
}).on('close', () => {
  if (out.length) process.stdout.write(out.join('\n') + '\n');
});
