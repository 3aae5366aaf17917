/**
 * detection-event.v1 is defined once (movespec/engine/event-schema.ts): every event the engine
 * emits matches it with no property it does not list, every type it lists is emitted by some
 * session below, and the stream's schema, the AsyncAPI document and the SDK's generated types
 * are that definition.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type DetectionEvent, load } from "@movement-detection/movespec";
import {
  DETECTION_EVENTS,
  DetectionEvent as DetectionEventSchema,
} from "@movement-detection/movespec/contract";
import * as stream from "@movement-detection/shared/api";
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "chai";
import { asyncApiDocument } from "../../gateway/api-docs/asyncapi.js";
import { strict } from "../support/stream-contract.js";
import { EXAMPLES, loadExample, readFrames, runFrames } from "./support/recordings.js";
import { animate, reps } from "./support/synthetic.js";

const root = join(EXAMPLES, "..", "..");

/** Sessions that between them make every kind of event. */
function sessions(): { name: string; events: DetectionEvent[] }[] {
  // A squat with a form rule that fires, in which the person is lost for a second.
  const squat = readFrames("m01_s01").map((f, i) =>
    i >= 300 && i < 330 ? { ...f, keypoints: null } : f,
  );
  const lean = load(
    readFileSync(join(EXAMPLES, "squat.yaml"), "utf8").replace(
      "when: trunk_lean > 60",
      "when: trunk_lean > -1",
    ),
  );
  // Curls too quick for `within` (rep.partial too_fast, with its limit), each arm counted.
  const quick = load(
    readFileSync(join(EXAMPLES, "biceps-curl.yaml"), "utf8").replace(
      "within: [0.5s, 8s]",
      "within: [3s, 8s]",
    ),
  );
  const curls = animate(
    12,
    (t) => ({ elbowLeft: 140 * reps(t, 4, 2), elbowRight: 140 * reps(t, 4, 2) }),
    {
      view: 90,
    },
  );
  // A plank held 35 s with a 3 s break after 10 s: started, progress, broken, completed.
  const plank = animate(60, (t) => (t < 3 || (t > 13 && t < 16) ? {} : { prone: { elbow: 0 } }), {
    view: 90,
  });
  return [
    { name: "squat", events: runFrames(lean.spec!, squat) },
    { name: "quick curls", events: runFrames(quick.spec!, curls) },
    { name: "curls", events: runFrames(loadExample("biceps-curl"), curls) },
    { name: "plank", events: runFrames(loadExample("plank"), plank) },
  ];
}

describe("detection-event.v1, one definition", () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(strict(DetectionEventSchema) as object);
  let made: ReturnType<typeof sessions>;
  before(() => {
    made = sessions();
  });

  it("every event the engine emits matches it, with no property it does not list", () => {
    const seen = new Set<string>();
    for (const { name, events } of made) {
      for (const event of events) {
        seen.add(event.type);
        expect(
          validate(JSON.parse(JSON.stringify(event))),
          `${name}: ${JSON.stringify(event).slice(0, 300)} ${JSON.stringify(validate.errors)}`,
        ).to.equal(true);
      }
    }
    // The sessions make every type the schema lists, and the partial that carries `limit`.
    expect([...seen].sort()).to.deep.equal(
      DETECTION_EVENTS.map((e) => e.properties.type.const).sort(),
    );
    const partial = made[1].events.find((e) => e.type === "rep.partial");
    expect(partial).to.deep.include({ reason: "too_fast", limit: 3 });
  });

  it("refuses a property it does not list (the strict copy the tests check with)", () => {
    const event = made[0].events.find((e) => e.type === "rep.completed");
    expect(validate(JSON.parse(JSON.stringify(event)))).to.equal(true);
    expect(validate({ ...event, surprise: 1 })).to.equal(false);
    expect(validate({ ...event, metrics: { ...event?.metrics, surprise: 1 } })).to.equal(false);
  });

  it("is the stream's schema, and every type and field of it is in the AsyncAPI document and the SDK", () => {
    expect(stream.DetectionEvent).to.equal(DetectionEventSchema);
    const schemas = (asyncApiDocument() as { components: { schemas: Record<string, unknown> } })
      .components.schemas;
    const sdk = readFileSync(join(root, "sdk", "src", "generated", "api.ts"), "utf8");
    for (const event of DETECTION_EVENTS) {
      const title = (event as { title?: string }).title as string;
      const documented = schemas[title] as { properties: Record<string, unknown> };
      expect(documented, title).to.not.equal(undefined);
      expect(Object.keys(documented.properties)).to.deep.equal(Object.keys(event.properties));
      const start = sdk.indexOf(`export interface ${title} {`);
      const declared = start < 0 ? "" : sdk.slice(start, sdk.indexOf("\n}\n", start));
      expect(declared, `${title} in the SDK`).to.not.equal("");
      for (const field of Object.keys(event.properties))
        expect(declared, `${title}.${field} in the SDK`).to.match(
          new RegExp(`\\n  ${field}\\??: `),
        );
    }
    expect(schemas.Event_rep_partial).to.have.nested.property("properties.limit");
  });
});
