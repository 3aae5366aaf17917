/**
 * The geometry functions over point slots: angles, distances and offsets in body scales,
 * visibility. `at` holds each landmark argument's offset into the points array (x, y, z, v).
 */
import type { Memory } from "./memory.js";

const RAD = 180 / Math.PI;

export function compileGeometry(fn: string, at: readonly number[], memory: Memory): () => number {
  switch (fn) {
    case "angle":
    case "angle2d":
      return jointAngle(at[0], at[1], at[2], fn === "angle", memory);
    case "angle_to_vertical": {
      const [a, b] = at;
      return () => {
        const q = memory.points;
        const dx = q[b] - q[a];
        const dy = q[b + 1] - q[a + 1];
        const n = Math.sqrt(dx * dx + dy * dy);
        if (n === 0) return Number.NaN;
        let cos = dy / n;
        if (cos > 1) cos = 1;
        else if (cos < -1) cos = -1;
        return Math.acos(cos) * RAD;
      };
    }
    case "angle_to_horizontal": {
      const [a, b] = at;
      return () => {
        const q = memory.points;
        const dx = Math.abs(q[b] - q[a]);
        const dy = q[a + 1] - q[b + 1];
        if (dx === 0 && dy === 0) return Number.NaN;
        return Math.atan2(dy, dx) * RAD;
      };
    }
    case "distance":
    case "dx":
    case "dy":
    case "above": {
      const [a, b] = at;
      return () => {
        const q = memory.points;
        const scale = memory.state[0];
        if (!(scale > 0)) return Number.NaN;
        const dx = q[b] - q[a];
        const dy = q[b + 1] - q[a + 1];
        if (fn === "distance") return Math.sqrt(dx * dx + dy * dy) / scale;
        if (fn === "dx") return dx / scale;
        if (fn === "dy") return dy / scale;
        return dy / scale;
      };
    }
    case "visibility": {
      const a = at[0];
      return () => memory.points[a + 3];
    }
  }
  throw new Error(`unknown function ${fn}`);
}

/** The angle at b between b->a and b->c, degrees; with depth when `allow3d` and all have z. */
function jointAngle(
  a: number,
  b: number,
  c: number,
  allow3d: boolean,
  memory: Memory,
): () => number {
  return () => {
    const q = memory.points;
    const ux = q[a] - q[b];
    const uy = q[a + 1] - q[b + 1];
    const vx = q[c] - q[b];
    const vy = q[c + 1] - q[b + 1];
    let uz = 0;
    let vz = 0;
    if (allow3d) {
      const az = q[a + 2];
      const bz = q[b + 2];
      const cz = q[c + 2];
      if (!Number.isNaN(az) && !Number.isNaN(bz) && !Number.isNaN(cz)) {
        uz = az - bz;
        vz = cz - bz;
      }
    }
    const nu = Math.sqrt(ux * ux + uy * uy + uz * uz);
    const nv = Math.sqrt(vx * vx + vy * vy + vz * vz);
    if (nu === 0 || nv === 0) return Number.NaN;
    let cos = (ux * vx + uy * vy + uz * vz) / (nu * nv);
    if (cos > 1) cos = 1;
    else if (cos < -1) cos = -1;
    return Math.acos(cos) * RAD;
  };
}
