/**
 * Which schema library validates the public API's messages (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/schemas/validation.bench.ts
 *
 * The realtime stream checks tens of thousands of messages a second, so the library that holds
 * the API's schemas (services/shared/api-schemas) was chosen on this measurement. Each candidate
 * validates, with the same rules:
 * - a `frame` message of the stream: 33 real BlazePose keypoints [x, y, z, visibility] (UI-PRMD
 *   deep squats), `seq`, `t`: the hot path;
 * - a `frames` batch of 30 such frames (replay);
 * - a POST /api/movespecs body (name, project_id as a UUID, description, visibility);
 * - an invalid MoveSpec body with three bad fields, collecting every error (the 400 path).
 * Baseline in the same run: the hand-written checks the schemas replace (typeof and loops).
 * Figures are ns per validation, the median of 9 rounds after a warm-up; ratios are against the
 * baseline of the same message. zod 4 and valibot 1 were measured too when the choice was made
 * (bench/schemas/README.md keeps their figures); the decision taken, they left the repository.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { Ajv2020 } from "ajv/dist/2020.js";
import Type from "typebox";
import { Compile } from "typebox/compile";
import { median } from "../../test/support/statistics.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const UUID = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";
const UUID_RE = new RegExp(UUID);

// --- the messages -------------------------------------------------------------------------------
const recording = gunzipSync(
  readFileSync(join(root, "test/fixtures/posedata/uiprmd/m01_s01.jsonl.gz")),
)
  .toString("utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as { seq: number; t: number; keypoints: number[][] });
const frames = recording
  .slice(0, 512)
  .map((f) => JSON.parse(JSON.stringify({ type: "frame", ...f })) as Record<string, unknown>);
const batches = Array.from({ length: 16 }, (_, i) => ({
  type: "frames",
  frames: recording.slice(i * 30, i * 30 + 30),
}));
const body = {
  name: "Deep squat",
  project_id: "01936b2e-8c2f-7d4a-9b1e-3f5a6c7d8e9f",
  description: "A deep squat with the chest up.",
  visibility: "public",
};
const badBody = { name: 7, project_id: "p1", visibility: "delisted" };

// --- the rules, once per library ----------------------------------------------------------------
function handFrame(m: Record<string, unknown>): boolean {
  if (m.type !== "frame") return false;
  const seq = m.seq;
  if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 0) return false;
  const t = m.t;
  if (typeof t !== "number" || !Number.isFinite(t) || t < 0) return false;
  const kps = m.keypoints;
  if (!Array.isArray(kps) || kps.length < 1 || kps.length > 64) return false;
  for (const p of kps) {
    if (!Array.isArray(p) || p.length < 2 || p.length > 4) return false;
    for (const n of p) if (typeof n !== "number" || !Number.isFinite(n)) return false;
  }
  return true;
}
function handFrames(m: Record<string, unknown>): boolean {
  const list = m.frames;
  if (m.type !== "frames" || !Array.isArray(list) || list.length > 1000) return false;
  for (const f of list) if (!handFrame({ ...f, type: "frame" })) return false;
  return true;
}
function handBody(b: Record<string, unknown>): string[] {
  const errors: string[] = [];
  if (typeof b.name !== "string" || b.name.length < 1 || b.name.length > 120) errors.push("name");
  if (typeof b.project_id !== "string" || !UUID_RE.test(b.project_id)) errors.push("project_id");
  if (
    b.description !== undefined &&
    (typeof b.description !== "string" || b.description.length > 2000)
  )
    errors.push("description");
  if (b.visibility !== undefined && b.visibility !== "private" && b.visibility !== "public")
    errors.push("visibility");
  return errors;
}

// TypeBox (1.x): the schemas are JSON Schema objects; one set serves both TypeBox compilers and Ajv.
const tbKeypoint = Type.Array(Type.Number(), { minItems: 2, maxItems: 4 });
const tbFrameFields = {
  seq: Type.Integer({ minimum: 0 }),
  t: Type.Number({ minimum: 0 }),
  keypoints: Type.Array(tbKeypoint, { minItems: 1, maxItems: 64 }),
};
const tbFrame = Type.Object({ type: Type.Literal("frame"), ...tbFrameFields });
const tbFrames = Type.Object({
  type: Type.Literal("frames"),
  frames: Type.Array(Type.Object(tbFrameFields), { maxItems: 1000 }),
});
const tbBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 120 }),
  project_id: Type.String({ pattern: UUID }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  visibility: Type.Optional(Type.Union([Type.Literal("private"), Type.Literal("public")])),
});
const tbc = {
  frame: Compile(tbFrame),
  frames: Compile(tbFrames),
  body: Compile(tbBody),
};

// The same schemas as plain JSON for Ajv (JSON Schema 2020-12, every error collected).
const ajv = new Ajv2020({ allErrors: true, strict: false });
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema));
const ajvc = {
  frame: ajv.compile(plain(tbFrame)),
  frames: ajv.compile(plain(tbFrames)),
  body: ajv.compile(plain(tbBody)),
};

// --- sanity: every candidate agrees with the baseline before it is timed ---------------------------
const candidates = {
  "hand-written (baseline)": {
    frame: (m: unknown) => handFrame(m as Record<string, unknown>),
    frames: (m: unknown) => handFrames(m as Record<string, unknown>),
    body: (m: unknown) => handBody(m as Record<string, unknown>).length === 0,
    errors: (m: unknown) => handBody(m as Record<string, unknown>).length,
  },
  "TypeBox 1 Compile": {
    frame: (m: unknown) => tbc.frame.Check(m),
    frames: (m: unknown) => tbc.frames.Check(m),
    body: (m: unknown) => tbc.body.Check(m),
    errors: (m: unknown) => tbc.body.Errors(m).length,
  },
  "TypeBox schemas + Ajv 8": {
    frame: (m: unknown) => ajvc.frame(m) as boolean,
    frames: (m: unknown) => ajvc.frames(m) as boolean,
    body: (m: unknown) => ajvc.body(m) as boolean,
    errors: (m: unknown) => (ajvc.body(m) ? 0 : (ajvc.body.errors?.length ?? 0)),
  },
} as const;

for (const [name, c] of Object.entries(candidates)) {
  const bad = { ...frames[0], keypoints: [[0.5, "x"]] };
  const agrees =
    frames.every((f) => c.frame(f)) &&
    !c.frame(bad) &&
    batches.every((b) => c.frames(b)) &&
    c.body(body) &&
    !c.body(badBody) &&
    c.errors(badBody) >= 3;
  if (!agrees) throw new Error(`${name} does not apply the same rules`);
}

// --- timing -------------------------------------------------------------------------------------
type Check = (m: unknown) => unknown;
function nsPerOp(check: Check, inputs: readonly unknown[], ops: number): number {
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) if (check(inputs[i % inputs.length])) sink++;
  const ns = Number(process.hrtime.bigint() - started) / ops;
  if (sink < 0) console.log(sink);
  return ns;
}
function measure(check: Check, inputs: readonly unknown[], ops: number): number {
  nsPerOp(check, inputs, ops); // warm-up: JIT and inline caches
  return median(Array.from({ length: 9 }, () => nsPerOp(check, inputs, ops)));
}

const cases = [
  ["frame (33 keypoints)", "frame", frames, 20_000],
  ["frames (batch of 30)", "frames", batches, 1_000],
  ["MoveSpec body, valid", "body", [body], 50_000],
  ["MoveSpec body, 3 errors", "errors", [badBody], 10_000],
] as const;

const results: Record<string, Record<string, number>> = {};
for (const [label, key, inputs, ops] of cases) {
  results[label] = {};
  for (const [name, c] of Object.entries(candidates)) {
    results[label][name] = measure(c[key] as Check, inputs, ops);
  }
}

console.log("ns per validation (median of 9 rounds); ratio to the hand-written baseline\n");
const names = Object.keys(candidates);
console.log(["message".padEnd(26), ...names.map((n) => n.padStart(24))].join(""));
for (const [label] of cases) {
  const row = results[label];
  const base = row[names[0]];
  console.log(
    [
      label.padEnd(26),
      ...names.map((n) => `${row[n].toFixed(0)} ns x${(row[n] / base).toFixed(2)}`.padStart(24)),
    ].join(""),
  );
}
const frameRate = (name: string) => (1e9 / results["frame (33 keypoints)"][name]).toFixed(0);
console.log(
  `\nframe messages per second on one core: ${names.map((n) => `${n} ${frameRate(n)}`).join(", ")}`,
);

// --- JSON Schema emitted (what OpenAPI and AsyncAPI documents are generated from) ------------------
console.log("\nJSON Schema of the MoveSpec body:");
console.log("TypeBox 1 (is JSON Schema):", JSON.stringify(tbBody));
