/**
 * The reference MoveSpecs (examples/movespecs) on real recordings: UI-PRMD (Vakanski et al.,
 * "A Data Set of Human Body Movements for Physical Rehabilitation Exercises", Data 2018, 3(1):2;
 * public domain), and on the same recordings as other cameras and pose models would see them.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createEngine, type DetectionEvent, load } from "@movement-detection/movespec";
import { expect } from "chai";
import {
  checkBoundaries,
  EXAMPLES,
  FIXTURES,
  loadExample,
  type Manifest,
  MOVEMENT_SPECS,
  readFrames,
  readManifest,
  runFrames,
} from "./support/recordings.js";
import { animate, perspective, reps } from "./support/synthetic.js";
import { FRAME_STEP, VARIANTS } from "./support/variants.js";

const RECORDINGS = ["m01", "m04", "m05", "m07", "m10"].flatMap((m) =>
  ["s01", "s02", "s03"].map((s) => `${m}_${s}`),
);
/**
 * Variants a MoveSpec is not meant to survive: sit-to-stand reads both legs (midpoints), so a
 * pose model that reports the far leg as hidden pauses it (known limit). The squat reads the
 * visible side (mean_visible) and counts there too.
 */
const NOT_APPLICABLE: Record<string, string[]> = { "side view, far side dim": ["m05"] };
/** BlazePose-33 indices of the right side's landmarks (even indices from the right shoulder on). */
const RIGHT_SIDE = new Set([4, 5, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32]);
/** BlazePose-33 indices of the face (nose to mouth) and of the legs below the hips. */
const FACE = new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
const LEGS = new Set([25, 26, 27, 28, 29, 30, 31, 32]);
const withVisibility = (
  frames: ReturnType<typeof animate>,
  visibility: (i: number) => number | undefined,
) =>
  frames.map((f) => ({
    ...f,
    keypoints: f.keypoints.map((p, i) => [p[0], p[1], p[2], visibility(i) ?? p[3]]),
  }));
const summaryOf = (events: DetectionEvent[]) =>
  events.find((e) => e.type === "session.summary") as Extract<
    DetectionEvent,
    { type: "session.summary" }
  >;

describe("reference MoveSpecs", () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith(".yaml"));

  it("include every movement of the reference list", () => {
    expect(files.map((f) => f.replace(".yaml", "")).sort()).to.include.members([
      "arm-raise",
      "bench-press",
      "biceps-curl",
      "front-raise",
      "jumping-jack",
      "lunge",
      "plank",
      "pull-up",
      "push-up",
      "shoulder-abduction",
      "sit-to-stand",
      "sit-up",
      "squat",
    ]);
  });

  for (const file of files) {
    it(`${file} loads with no errors and no warnings`, () => {
      const r = load(readFileSync(join(EXAMPLES, file), "utf8"));
      expect(r.errors).to.deep.equal([]);
      expect(r.warnings).to.deep.equal([]);
    });
  }

  describe("count every UI-PRMD recording exactly, each repetition inside its true boundaries", () => {
    for (const id of RECORDINGS) {
      const specName = MOVEMENT_SPECS[id.slice(0, 3)];
      it(`${id} with ${specName}`, () => {
        const events = runFrames(loadExample(specName), readFrames(id));
        const check = checkBoundaries(events, readManifest(id));
        expect(check.count).to.equal(readManifest(id).expected_repetitions);
        expect(check.problems).to.deep.equal([]);
        expect(events.filter((e) => e.type === "rep.partial")).to.deep.equal([]);
      });
    }
  });

  describe("count the same recordings as other cameras and pose models see them", () => {
    for (const [variant, transform] of Object.entries(VARIANTS)) {
      it(variant, () => {
        const failures: string[] = [];
        for (const id of RECORDINGS.filter(
          (r) => !NOT_APPLICABLE[variant]?.includes(r.slice(0, 3)),
        )) {
          const spec = loadExample(MOVEMENT_SPECS[id.slice(0, 3)]);
          const engine = createEngine(spec, {
            topology: variant.startsWith("coco") ? "coco-17" : "blazepose-33",
          });
          const { events, rejected } = engine.pushMany(transform(readFrames(id)));
          expect(rejected).to.deep.equal([]);
          const manifest: Manifest = readManifest(id);
          // Fewer frames: a true end between two kept frames is seen at the next one.
          const step = FRAME_STEP[variant] ?? 1;
          manifest.rep_segments_frames = manifest.rep_segments_frames.map(([a, b]) => [
            Math.ceil(a / step),
            Math.ceil(b / step),
          ]);
          const check = checkBoundaries([...events, ...engine.finish().events], manifest);
          if (check.count !== 10 || check.problems.length > 0)
            failures.push(`${id}: ${check.count} ${check.problems.join("; ")}`);
        }
        expect(failures).to.deep.equal([]);
      });
    }
  });

  it("count nothing on recordings of other movements", () => {
    // A squat is not a side lunge and the other way round (issue 37's specificity goals);
    // sit-to-stand and a squat to chair height are the same movement from the front
    // (docs/tuning-movespecs.md), so they are not on each other's lists.
    const none: [string, string[]][] = [
      ["shoulder-abduction", ["m01", "m04", "m05"]],
      ["squat", ["m04", "m07", "m10"]],
      ["lunge", ["m01", "m05", "m07", "m10"]],
      ["sit-to-stand", ["m04", "m07", "m10"]],
      ["biceps-curl", ["m01", "m04", "m05", "m07", "m10"]],
      ["jumping-jack", ["m01", "m04", "m05", "m07", "m10"]],
      ["push-up", ["m01", "m04", "m05", "m07", "m10"]],
      ["arm-raise", ["m01", "m04", "m05"]],
    ];
    for (const [specName, movements] of none) {
      const spec = loadExample(specName);
      for (const id of RECORDINGS.filter((r) => movements.includes(r.slice(0, 3)))) {
        expect(summaryOf(runFrames(spec, readFrames(id))).count, `${specName} on ${id}`).to.equal(
          0,
        );
      }
    }
    const plank = loadExample("plank");
    for (const id of RECORDINGS)
      expect(summaryOf(runFrames(plank, readFrames(id))).holds, `plank on ${id}`).to.deep.equal([]);
  });

  it("an open-cycle sit-to-stand written the natural way counts 10 on every sit-to-stand", () => {
    // What a new author writes from the docs and --stats: no `within`, no relative signal.
    const natural = load(`movespec: 1
name: Sit to stand
signals:
  hip_above_knee: above(mid_hip, mid_knee)
phases:
  seated: { enter: hip_above_knee < 0.35, exit: hip_above_knee > 0.4 }
  standing: { enter: hip_above_knee > 0.5, exit: hip_above_knee < 0.45 }
repetition:
  cycle: [seated, standing]
`);
    expect(natural.errors).to.deep.equal([]);
    expect(natural.warnings).to.deep.equal([]);
    for (const id of ["m05_s01", "m05_s02", "m05_s03"]) {
      const events = runFrames(natural.spec!, readFrames(id));
      expect(summaryOf(events).count, id).to.equal(10);
      expect(
        events.filter((e) => e.type === "rep.partial"),
        id,
      ).to.deep.equal([]);
    }
  });

  it("arm-raise counts each raise of an arm above the head, with its side", () => {
    for (const id of ["m07_s01", "m07_s02", "m07_s03"]) {
      const summary = summaryOf(runFrames(loadExample("arm-raise"), readFrames(id)));
      expect(summary.count, id).to.equal(10);
      expect(new Set(summary.reps.map((r) => r.side))).to.deep.equal(new Set(["right"]));
    }
  });

  it("the references listed in each MoveSpec resolve to bundled fixtures, relative to the file", () => {
    let seen = 0;
    for (const file of files) {
      for (const ref of loadExample(file.replace(".yaml", "")).references) {
        const path = join(EXAMPLES, ref.recording);
        expect(existsSync(path), `${file}: ${ref.recording}`).to.equal(true);
        expect(path.startsWith(FIXTURES), path).to.equal(true);
        seen++;
      }
    }
    // Their counts are checked by `movespec test` (test/movespec/cli.test.ts).
    expect(seen).to.be.greaterThan(10);
  });

  describe("movements without shared recordings, on a synthetic body", () => {
    const summary = (name: string, frames: ReturnType<typeof animate>) =>
      summaryOf(runFrames(loadExample(name), frames));

    it("push-up: counts from the side and at an angle, not while standing", () => {
      for (const view of [90, -90, 60]) {
        expect(
          summary(
            "push-up",
            animate(14, (t) => ({ prone: { elbow: 90 * reps(t, 6, 2) } }), { view }),
          ).count,
          `view ${view}`,
        ).to.equal(6);
      }
      // Shallow dips (elbow to 130 degrees) are not push-ups.
      expect(
        summary(
          "push-up",
          animate(14, (t) => ({ prone: { elbow: 50 * reps(t, 6, 2) } }), { view: 90 }),
        ).count,
      ).to.equal(0);
      // Bending the elbows while standing is not a push-up.
      expect(
        summary(
          "push-up",
          animate(
            14,
            (t) => ({
              armLeft: 80,
              armRight: 80,
              elbowLeft: 100 * reps(t, 6, 2),
              elbowRight: 100 * reps(t, 6, 2),
            }),
            { view: 90 },
          ),
        ).count,
      ).to.equal(0);
    });

    it("push-up: counts from the side when the pose model hides the far arm and leg", () => {
      // View 90: the person's left side faces the camera; the right side gets visibility 0.2.
      const frames = animate(14, (t) => ({ prone: { elbow: 90 * reps(t, 6, 2) } }), {
        view: 90,
      }).map((f) => ({
        ...f,
        keypoints: f.keypoints.map((p, i) => (RIGHT_SIDE.has(i) ? [p[0], p[1], p[2], 0.2] : p)),
      }));
      const events = runFrames(loadExample("push-up"), frames);
      expect(events.filter((e) => e.type === "tracking.lost")).to.deep.equal([]);
      expect(summaryOf(events).count).to.equal(6);
    });

    it("push-up: keeps counting from the side while the nose and the feet hide at the bottom", () => {
      // MoveNet on a real side view (push-up_long of the shared clips) gives the nose and the
      // ankles under 0.5 for about half a second at the bottom of most push-ups. The counting
      // needs only the shoulders and wrists seen (no tracking.lost); the head's height keeps its
      // last value meanwhile.
      const bottom = (t: number) => reps(t, 6, 2) > 0.8; // 0.6 s of each push-up
      const frames = animate(14, (t) => ({ prone: { elbow: 120 * reps(t, 6, 2) } }), {
        view: 90,
      }).map((f) =>
        bottom(f.t)
          ? withVisibility([f], (i) => (FACE.has(i) || LEGS.has(i) ? 0.3 : undefined))[0]
          : f,
      );
      const events = runFrames(loadExample("push-up"), frames);
      expect(events.filter((e) => e.type === "tracking.lost")).to.deep.equal([]);
      expect(summaryOf(events).count).to.equal(6);
    });

    it("push-up: counts head-on from the floor from the arms, the face and the feet unseen", () => {
      // A camera in front, a little above the shoulders (push-up_12 of the shared clips): the
      // hips, farther than the shoulders, show above them; the pose model gives the face
      // 0.25-0.5 and the legs hidden behind the body less. The elbows bend to 60 degrees, as in
      // that clip.
      const headOn = (elbow: number) =>
        withVisibility(
          perspective(
            animate(14, (t) => ({ prone: { elbow: elbow * reps(t, 6, 2) } })),
            {
              height: 0.6,
              distance: 0.3,
            },
          ),
          (i) => (FACE.has(i) ? 0.35 : LEGS.has(i) ? 0.1 : undefined),
        );
      const events = runFrames(loadExample("push-up"), headOn(120));
      expect(events.filter((e) => e.type === "tracking.lost")).to.deep.equal([]);
      expect(summaryOf(events).count).to.equal(6);
      // Shallow dips (elbow to 130 degrees) are not push-ups from there either.
      expect(summaryOf(runFrames(loadExample("push-up"), headOn(50))).count).to.equal(0);
    });

    /** 8 jumping jacks in 10 s: both arms 10 -> 160 degrees, the left one as `leftArm` says. */
    const jumpingJacks = (view: number, leftArm: (t: number, arm: number) => number) =>
      summary(
        "jumping-jack",
        animate(
          10,
          (t) => {
            const k = reps(t, 8, 1);
            const arm = 10 + 150 * k;
            return { armLeft: leftArm(t, arm), armRight: arm, legSpread: 12 * k };
          },
          { view },
        ),
      );

    it("jumping jack: counts each arms-overhead jump", () => {
      for (const view of [0, 30]) {
        expect(jumpingJacks(view, (_, arm) => arm).count, `view ${view}`).to.equal(8);
      }
    });

    it("jumping jack: one arm stopping short of its rest between two jumps still counts both", () => {
      // Between jumps 3 and 4 and between 5 and 6 the left arm only comes down to 80 degrees
      // (level with the shoulder: half way to its rest).
      const shortStop = (t: number) => Math.abs(t - 4) < 0.3 || Math.abs(t - 6) < 0.3;
      for (const view of [0, 30]) {
        const s = jumpingJacks(view, (t, arm) => (shortStop(t) ? Math.max(arm, 80) : arm));
        expect(s.count, `view ${view}`).to.equal(8);
      }
    });

    it("squat: a fast, shallow squat filmed from the side counts like a deep one from the front", () => {
      // Knees to 55 degrees of flexion (hips barely below 150), 1.2 s a repetition, side view.
      const shallow = animate(12, (t) => ({ knee: 55 * reps(t, 8, 1.2) }), { view: 90 });
      expect(summary("squat", shallow).count).to.equal(8);
      const deep = summary(
        "squat",
        animate(16, (t) => ({ knee: 110 * reps(t, 5, 2.5) })),
      );
      expect(deep.count).to.equal(5);
      // Depth stays an absolute matter for the score and the coaching.
      expect(summaryOf(runFrames(loadExample("squat"), shallow)).score).to.be.below(deep.score);
    });

    it("squat: quick repetitions that stop short of standing up still count", () => {
      // Four full squats (knees 0 -> 110 degrees of flexion), then four more, 1.6 s each, in
      // which the legs straighten only to 35 degrees between squats, the last one standing up
      // fully. The adaptive range still remembers straight legs as the rest, so 35 degrees reads
      // just above the usual 0.3; coming back more than 0.55 from the recent peak counts.
      const half = (u: number, d: number) => (1 - Math.cos((Math.PI * u) / d)) / 2;
      const knee = (t: number) => {
        if (t < 11) return 110 * reps(t, 4, 2.5);
        const u = t - 11;
        if (u < 1.25) return 110 * half(u, 1.25);
        if (u < 1.25 + 3 * 1.6) return 110 - 75 * half((u - 1.25) % 1.6, 0.8);
        return u < 2.5 + 3 * 1.6 ? 110 * (1 - half(u - 1.25 - 3 * 1.6, 1.25)) : 0;
      };
      for (const view of [0, 90]) {
        const s = summary(
          "squat",
          animate(20, (t) => ({ knee: knee(t) }), { view }),
        );
        expect(s.count, `view ${view}`).to.equal(8);
      }
    });

    it("front raise: counts raises of both arms to shoulder height, and coaches raising higher", () => {
      for (const view of [0, 30]) {
        const s = summary(
          "front-raise",
          animate(
            14,
            (t) => ({ armLeft: 10 + 80 * reps(t, 6, 2), armRight: 10 + 80 * reps(t, 6, 2) }),
            {
              view,
            },
          ),
        );
        expect(s.count, `view ${view}`).to.equal(6);
      }
      const high = runFrames(
        loadExample("front-raise"),
        animate(14, (t) => ({
          armLeft: 10 + 150 * reps(t, 6, 2),
          armRight: 10 + 150 * reps(t, 6, 2),
        })),
      );
      expect(high.filter((e) => e.type === "rep.completed")).to.have.length(6);
      expect(
        high.filter((e) => e.type === "form.violation" && e.rule === "shoulder_height"),
      ).to.not.deep.equal([]);
    });

    it("biceps curl: each arm has its own count", () => {
      for (const view of [0, 90]) {
        const s = summary(
          "biceps-curl",
          animate(
            16,
            (t) => ({
              elbowLeft: 5 + 135 * reps(t, 5, 2.5),
              elbowRight: 5 + 135 * reps(t, 3, 3.5, 2),
            }),
            { view },
          ),
        );
        expect(s.counts, `view ${view}`).to.deep.equal({ left: 5, right: 3 });
        expect(s.count).to.equal(8);
      }
    });

    it("plank: times the hold, forgiving a brief wobble", () => {
      const s = summary(
        "plank",
        animate(
          40,
          (t) => (t < 3 ? {} : { prone: { elbow: 0, sag: t > 20 && t < 20.5 ? 0.06 : 0 } }),
          { view: 90 },
        ),
      );
      expect(s.holds).to.have.length(1);
      expect(s.holds[0].completed).to.equal(true);
      expect(s.longest_hold).to.be.greaterThan(30);
    });

    it("arm raise: counts raises of either arm with their side", () => {
      const s = summary(
        "arm-raise",
        animate(14, (t) => ({
          armRight: 8 + 160 * reps(t, 3, 2),
          armLeft: 8 + 160 * reps(t, 2, 2, 8),
        })),
      );
      expect(s.reps.map((r) => r.side)).to.deep.equal(["right", "right", "right", "left", "left"]);
    });

    it("shoulder abduction: counts only the chosen arm", () => {
      const s = summary(
        "shoulder-abduction",
        animate(12, (t) => ({
          armRight: 10 + 150 * reps(t, 4, 2),
          armLeft: 10 + 150 * reps(t, 3, 2, 1.5),
        })),
      );
      expect(s.count).to.equal(4);
    });
  });
});
