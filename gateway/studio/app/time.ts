/**
 * The recording's time as every time view shares it: the cursor (the instant the skeleton shows,
 * and a video will) and the window in view (the plot's zoom). A view sets them and follows them;
 * none calls another (a recording timeline with labelled repetitions is one more such view).
 */
export interface TimeState {
  /** Seconds of the recording at the cursor. */
  readonly cursor: number;
  /** The window shown, in seconds; undefined: the whole recording. */
  readonly view?: { readonly from: number; readonly to: number };
}

export const START_OF_TIME: TimeState = { cursor: 0 };

/** The index of the frame nearest `t` in ascending `times` (0 for an empty list). */
export function nearestFrame(times: readonly number[], t: number): number {
  if (times.length === 0) return 0;
  let lo = 0;
  let hi = times.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && t - times[lo - 1] <= times[lo] - t ? lo - 1 : lo;
}
