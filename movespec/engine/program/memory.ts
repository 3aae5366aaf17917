/** The per-frame memory a program's closures read and write. */

export interface Memory {
  /** Current frame's keypoints: x, y, z, visibility per keypoint. */
  readonly frame: Float64Array;
  /** Point slots: x, y, z, visibility. */
  readonly points: Float64Array;
  /** Smoothed signal values per slot (hold their last value while stale). */
  readonly values: Float64Array;
  /** 1 when the slot was computed on this frame. */
  readonly fresh: Uint8Array;
  /** Filter, velocity and peak state; the scale follower lives at index 0..1. */
  readonly state: Float64Array;
  t: number;
}

export type MemoryUnderConstruction = { -readonly [K in keyof Memory]: Memory[K] };

/**
 * Memory without its arrays yet: the closures capture this object while they are compiled, and
 * only read its arrays when run, after `allocateMemory` has sized them.
 */
export function emptyMemory(): MemoryUnderConstruction {
  const none = new Float64Array(0);
  return { frame: none, points: none, values: none, fresh: new Uint8Array(0), state: none, t: 0 };
}

export function allocateMemory(
  memory: MemoryUnderConstruction,
  sizes: { keypoints: number; points: number; slots: number; state: number },
): Memory {
  memory.frame = new Float64Array(sizes.keypoints * 4);
  memory.points = new Float64Array(sizes.points * 4);
  memory.values = new Float64Array(sizes.slots).fill(Number.NaN);
  memory.fresh = new Uint8Array(sizes.slots);
  memory.state = new Float64Array(sizes.state);
  return memory;
}
