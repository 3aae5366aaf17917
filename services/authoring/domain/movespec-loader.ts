/**
 * The one place the authoring service reaches the MoveSpec language: validation and version
 * creation both go through `loadMoveSpec`, the runtime's own loader, so they judge a draft exactly
 * as a detection session will.
 */
import type { Issue } from "@movement-detection/movespec";

export { load as loadMoveSpec, MOVESPEC_TEMPLATE } from "@movement-detection/movespec";

export type LoaderIssue = Issue;
