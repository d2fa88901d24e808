// How a bundle is told apart from a same-named one in a Quick Pick: its folder and when it was built (its file's
// modification time), newest first.

/** "built 2026-11-30 14:02 · 3 hours ago" (local time). */
export function describeBuildTime(mtimeMs: number, nowMs: number): string {
  const d = new Date(mtimeMs);
  const pad = (n: number): string => String(n).padStart(2, "0");
  const stamp = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return `built ${stamp} · ${age(nowMs - mtimeMs)}`;
}

function age(ms: number): string {
  if (ms < 0) {
    return "in the future";
  }
  const s = Math.floor(ms / 1000);
  const units: Array<[number, string]> = [
    [86400 * 365, "year"],
    [86400 * 30, "month"],
    [86400, "day"],
    [3600, "hour"],
    [60, "minute"],
  ];
  for (const [size, name] of units) {
    if (s >= size) {
      const n = Math.floor(s / size);
      return `${n} ${name}${n === 1 ? "" : "s"} ago`;
    }
  }
  return "just now";
}

/** Candidates sorted newest build first; unknown times last, in their given order. */
export function newestFirst<T extends { mtimeMs: number | undefined }>(items: T[]): T[] {
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => (b.item.mtimeMs ?? -Infinity) - (a.item.mtimeMs ?? -Infinity) || a.i - b.i)
    .map((x) => x.item);
}
