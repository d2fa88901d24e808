// What activation returns (the extension's features), on its own so that the in-host e2e checks (e2e.ts) and the
// activation (extension.ts), which loads them in test mode, do not import each other.

import type { ServerClient } from "./client";
import type { CompositionView } from "./composition";
import type { MapInfoReports } from "./mapInfo";
import type { ProfileView } from "./profile";
import type { OriginalPositionStatus } from "./statusBar";
import type { SymbolicateResults } from "./symbolicate";
import type { StackTerminalLinks } from "./terminalLinks";

/** What activation returns: the features, for the in-host e2e checks. */
export interface SourceMapExtension {
  readonly server: ServerClient;
  readonly status: OriginalPositionStatus;
  readonly symbolicate: SymbolicateResults;
  readonly mapInfo: MapInfoReports;
  readonly composition: CompositionView;
  /** Show Profile's panel and the inline self times. */
  readonly profile: ProfileView;
  /** Stack frames in the integrated terminal link to original sources. */
  readonly terminalLinks: StackTerminalLinks;
}
