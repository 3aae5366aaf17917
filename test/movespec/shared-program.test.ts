/**
 * Engines of one MoveSpec share its compiled program (movespec/engine/shared-program.ts) and keep
 * their own arrays and machine state: interleaving them frame by frame, snapshotting and
 * restoring in between, must give each exactly what it gives alone.
 */

import { createEngine, type DetectionEvent, restoreEngine } from "@movement-detection/movespec";
import { expect } from "chai";
import { loadExample, readFrames } from "./support/recordings.js";

describe("movespec engine: a program shared by the engines of one MoveSpec", () => {
  for (const name of ["squat", "arm-raise"]) {
    it(`${name}: three interleaved engines, one restored mid-way, each equal to an engine alone`, () => {
      const spec = loadExample(name);
      const recordings = ["m01_s01", "m01_s02", "m04_s01"].map((id) => readFrames(id));
      const alone = recordings.map((frames) => {
        const engine = createEngine(spec);
        const events = engine.pushMany(frames).events;
        return { events, snapshot: engine.snapshot(), finish: engine.finish() };
      });
      let engines = recordings.map(() => createEngine(spec));
      const events: DetectionEvent[][] = recordings.map(() => []);
      const longest = Math.max(...recordings.map((frames) => frames.length));
      for (let i = 0; i < longest; i++) {
        if (i === 100) {
          // A session moving to another replica: the second engine is rebuilt from its snapshot.
          engines = engines.map((engine, k) =>
            k === 1 ? restoreEngine(spec, JSON.parse(JSON.stringify(engine.snapshot()))) : engine,
          );
        }
        recordings.forEach((frames, k) => {
          if (i >= frames.length) return;
          const result = engines[k].push(frames[i]);
          if (!result.ok) throw new Error(`${k}: ${result.message}`);
          events[k].push(...result.events);
          // Reading an engine between others' frames must not disturb anyone.
          if (i % 7 === k) engines[(k + 1) % engines.length].signalValues();
        });
      }
      engines.forEach((engine, k) => {
        expect(events[k], `engine ${k}`).to.deep.equal(alone[k].events);
        expect(engine.snapshot(), `engine ${k}`).to.deep.equal(alone[k].snapshot);
        expect(engine.finish(), `engine ${k}`).to.deep.equal(alone[k].finish);
      });
    });
  }
});
