import type { SessionSummary } from "@movement-detection/movespec/engine";

/**
 * A session's `terminal_outcome` (the final `session.summary` event as JSON text, contract:
 * "clients parse it") as the page uses it, or undefined when it is absent or not such a summary:
 * the page then says so rather than showing numbers read from the wrong shape.
 */
export function parseSummary(text: string | undefined): SessionSummary | undefined {
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const summary = value as Partial<SessionSummary> | null;
  if (!summary || typeof summary.count !== "number" || !Array.isArray(summary.reps))
    return undefined;
  return summary as SessionSummary;
}
