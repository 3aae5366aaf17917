/**
 * The one place the authoring service reaches the MoveSpec language: validation and version
 * creation both go through `loadMoveSpec`, the runtime's own loader, so they judge a draft exactly
 * as a detection session will.
 */
import type { Issue } from "../../../movespec/index.js";

export { load as loadMoveSpec, MOVESPEC_TEMPLATE } from "../../../movespec/index.js";

export type LoaderIssue = Issue;
