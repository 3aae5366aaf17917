/**
 * `faketime` (docs/testing.md) moves the calendar of every process that loads libc's clock
 * through its preload: Node and the services, not Go binaries (buf reads the kernel's clock
 * directly) nor Chromium. Under it those tools see certificates our processes made "in the future"
 * and pages whose timers disagree, so their steps are left out of a faked-clock run; the same
 * steps run in every ordinary `npm test`.
 */
import type { Context } from "mocha";

export const CLOCK_IS_FAKED = Boolean(process.env.FAKETIME);

/** Skips the running test under faketime (it shows as pending): `tool` reads the real clock. */
export function skipUnderFakedClock(context: Context, tool: string): void {
  if (!CLOCK_IS_FAKED) return;
  console.log(`      (under faketime: ${tool} reads the real clock, so this test is left out)`);
  context.skip();
}
