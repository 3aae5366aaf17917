/** Point slots: the landmarks and midpoints a program reads, each copied once per frame. */
import { landmarkSide, type SideKey } from "../../sides.js";
import { concreteNames, parseLandmarkName, pointName, type Topology } from "../../topology.js";

export class PointTable {
  /** Per point slot: its keypoint index, and the second one for a midpoint (else -1). */
  readonly sources: [number, number][] = [];
  private readonly byKey = new Map<string, number>();

  constructor(private readonly topology: Topology) {}

  /** The point slot of concrete landmark names: one landmark, or two for a midpoint. */
  of(concrete: string[]): number {
    const key = pointName(concrete);
    let i = this.byKey.get(key);
    if (i === undefined) {
      const idx = concrete.map((c) => {
        const k = this.topology.index.get(c);
        if (k === undefined) throw new Error(`landmark ${c} is not in ${this.topology.name}`);
        return k;
      });
      i = this.sources.length;
      this.sources.push([idx[0], idx.length > 1 ? idx[1] : -1]);
      this.byKey.set(key, i);
    }
    return i;
  }

  /** The point slot of a landmark as written (`knee`, `mid_hip`, `nose`) on a side. */
  landmark(name: string, side: SideKey): number {
    const ref = parseLandmarkName(name);
    if (!ref) throw new Error(`unknown landmark ${name}`);
    return this.of(concreteNames(ref, landmarkSide(side)));
  }
}
