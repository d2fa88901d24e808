// The custom requests of sourcemap-ls (see the server's README). Plain JSON shapes: positions are 0-based, UTF-16.

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

/** `sourcemap/originalPosition` result (0-based line and character in the original source). */
export interface OriginalPosition {
  source: string | null;
  /** Where an editor can open it (a file: or sourcemap-source: URI); null when neither exists. */
  uri: string | null;
  line: number;
  character: number;
  name: string | null;
}

export interface SymbolicateParams {
  text: string;
  uri?: string;
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
  } | null;
  ignored: boolean;
  /** Why the frame stayed as it was (e.g. "native frame", "no mapping at this position"); null when mapped. */
  unresolved: string | null;
  location: Location | null;
}

export interface SymbolicateResult {
  text: string;
  frames: SymbolicatedFrame[];
}

export const ORIGINAL_POSITION = "sourcemap/originalPosition";
export const GENERATED_POSITIONS = "sourcemap/generatedPositions";
export const SOURCE_CONTENT = "sourcemap/sourceContent";
export const SYMBOLICATE = "sourcemap/symbolicate";
export const VIRTUAL_SCHEME = "sourcemap-source";
