// The custom requests of sourcemap-ls (see docs/editors.md). Plain JSON shapes: positions are 0-based, UTF-16.

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Location {
  uri: string;
  range: Range;
}

export interface TextDocumentPositionParams {
  textDocument: { uri: string };
  position: Position;
}

/** `sourcemap/originalPosition` result (0-based). */
export interface OriginalPosition {
  source: string | null;
  /** Where an editor can open it (a file: or sourcemap-source: URI); null when neither exists. */
  uri: string | null;
  /** Where `uri` opens: the build's position, or its line's place now in a source file edited since the build. */
  line: number;
  character: number;
  /** The build's position (absent from older servers). */
  buildLine?: number;
  buildCharacter?: number;
  name: string | null;
}

export interface SymbolicateParams {
  text: string;
  uri?: string;
  /** The bundle chosen for a file that names several (an earlier answer's `ambiguous`): file as printed → URI. */
  bundles?: Record<string, string>;
}

/** A file named by frames that several bundles in the workspace could be: the user chooses. */
export interface AmbiguousFile {
  file: string;
  candidates: string[];
}

export interface SymbolicatedFrame {
  raw: string;
  text: string;
  generated: { file: string | null; line: number; character: number } | null;
  original: {
    source: string | null;
    line: number;
    character: number;
    name: string | null;
    function: string | null;
    functionSource: string | null;
    /** The map's `sources` string (`source` is the workspace path when the source resolved to a file there). */
    mapSource?: string | null;
  } | null;
  ignored: boolean;
  /** Why the frame stayed as it was (e.g. "native frame", "no mapping at this position"); null when mapped. */
  unresolved: string | null;
  /** `"line"`: a line-only frame, answered at line level (its characters mean nothing). */
  precision?: "line" | "column";
  /** The frame ran inside code made by eval: its position is the eval call site. */
  inEval?: boolean;
  /** Where to open the frame: today's file at the line's place now when the file was edited since the build and the
   * line was not; else the source's file or the build's copy. */
  location: Location | null;
  /** Where the original position is in the source's file today, when that file was edited since the build. */
  current?: { line: number; character: number; status: "unchanged" | "moved" | "changed" | "deleted" } | null;
}

export interface SymbolicateResult {
  text: string;
  frames: SymbolicatedFrame[];
  /** Files the server could not tell apart (absent from older servers). */
  ambiguous?: AmbiguousFile[];
}

/** `sourcemap/mapInfo` for a file: document: what the server knows of its map, whether or not it found one. The
 * client shows this and finds nothing itself, so the report cannot name another map than the one the server uses. */
export interface MapLookup {
  /** The bundle's absolute path. */
  bundle: string;
  /** The bundle's size on disk. */
  bundleBytes: number | null;
  /** The bundle's comment URL as written (a data: URL arrives shortened). */
  sourceMappingUrl: string | null;
  /** The map file; null for an inline map, or when there is no map. */
  map: string | null;
  foundBy: string | null;
  /** The map's size: its file's on disk, or an inline map's decoded length. */
  mapBytes: number | null;
  /** Why there is no usable map (the server's message). */
  problem: string | null;
  /** Where the server looked, in order, each with why it was not used; empty when a map was found. */
  tried: string[];
}

/** What `sourcemap/mapInfo` adds once the map is loaded. */
export interface LoadedMapInfo {
  isIndexMap: boolean;
  sections: number;
  sectionsIndexed: number;
  segments: number;
  mappingsBytes: number;
  indexBytes: number;
  names: number;
  debugId: string | null;
  sources: { url: string | null; uri: string | null; ignored: boolean }[];
  /** Whether the map fits this bundle (the server's fit check). */
  fit?: { verdict: "fits" | "misfit" | "unknown"; message: string } | null;
  /** What this map holds in memory now. */
  memory: MapMemory;
}

/** What one loaded map holds, in bytes: its index and its caches (under the server's one budget). */
export interface MapMemory {
  bufferBytes: number;
  checkpointBytes: number;
  namesBytes: number;
  functionMapBytes: number;
  scopesBytes: number;
  reverseBytes: number;
  outlineBytes: number;
  /** Where large sources' lines start. */
  lineStartsBytes: number;
  caches: CacheUsage[];
}

/** What one kind of cache holds. */
export interface CacheUsage {
  /** What the cache holds (`sourceTexts`, `maps`…). */
  kind: string;
  entries: number;
  bytes: number;
  /** Whether the budget may evict its entries (fit reports may not). */
  evictable: boolean;
}

/** The server's one cache budget, what is used of it, and by which caches. */
export interface BudgetReport {
  budgetBytes: number;
  usedBytes: number;
  /** Entries dropped to keep within the limit, since the start. */
  evictions: number;
  kinds: CacheUsage[];
}

/** What every `sourcemap/mapInfo` answer carries, a map loaded or not. */
export interface ServerMemory {
  /** The server's one cache budget and what each kind of cache holds in it. */
  caches: BudgetReport;
  /** Heap bytes the whole server holds now. */
  heapBytes: number;
}

export type MapInfo = MapLookup & Partial<ServerMemory> & Partial<LoadedMapInfo>;

export const ORIGINAL_POSITION = "sourcemap/originalPosition";
export const MAP_INFO = "sourcemap/mapInfo";
export const GENERATED_POSITIONS = "sourcemap/generatedPositions";
export const SOURCE_CONTENT = "sourcemap/sourceContent";
export const SYMBOLICATE = "sourcemap/symbolicate";
export const COMPOSITION = "sourcemap/composition";
export const VIRTUAL_SCHEME = "sourcemap-source";

/** `sourcemap/composition` result: a bundle's bytes by package and original source (source-map-explorer's rules). */
export interface CompositionResult {
  totalBytes: number;
  mappedBytes: number;
  unmappedBytes: number;
  eolBytes: number;
  sourceMapCommentBytes: number;
  packages: Array<{ name: string; size: number; files: Array<{ source: string; size: number; uri: string | null }> }>;
  /** The treemap page (self-contained HTML; a click on a file dispatches an `open-source` event with its name). */
  html: string;
}

export const PROFILE = "sourcemap/profile";

/** How `sourcemap/profile` groups its rows. */
export type ProfileGrouping = "function" | "file" | "package";

export interface ProfileParams {
  textDocument: { uri: string };
  by?: ProfileGrouping;
  top?: number;
  /** The map of frames that name no file (a Hermes bytecode profile's Hermes map). */
  map?: string;
}

/** One row of `sourcemap/profile`: a function (or file, or package) and its time. */
export interface ProfileRow {
  /** The original function's name; for an unmapped frame the profile's own name; null when grouped by file or package. */
  function: string | null;
  /** The original source as the server shows it (the workspace path when it resolved to a workspace file); for an
   * unmapped frame its script URL. */
  source: string | null;
  /** 0-based line of the function in `source`. */
  line: number | null;
  package: string | null;
  /** Not at an original position: engine frames, frames without a map or outside what it maps. */
  unmapped: boolean;
  selfMs: number;
  selfPercent: number;
  totalMs: number;
  totalPercent: number;
  /** Where the row opens: the original source (file or sourcemap-source: document) at its line. */
  location: Location | null;
}

/** `sourcemap/profile` result: where a CPU profile's time went, largest self time first. */
export interface ProfileResult {
  /** "Hermes sampling profile", "V8 .cpuprofile" or "Chrome trace". */
  format: string;
  samples: number;
  totalMs: number;
  /** Frames at bundle positions, and how many of them were mapped. */
  positioned: number;
  mapped: number;
  warnings: string[];
  /** Frames at bytecode addresses name no file, and no `map` was given for them. */
  needsMap: boolean;
  functions: ProfileRow[];
}
