/** Reads `references`: recordings the MoveSpec was tuned on, with their expected counts. */
import type { ReferenceRecording } from "../compiled-spec.js";
import { TOPOLOGY_NAMES, type TopologyName } from "../topology.js";
import type { Reader } from "./reader.js";
import type { YNode } from "./yaml-tree.js";

export function readReferences(r: Reader, node: YNode | undefined): ReferenceRecording[] {
  const out: ReferenceRecording[] = [];
  for (const item of r.list(node, "references") ?? []) {
    const m = r.map(item, "a reference recording");
    if (!m) continue;
    const k = r.keys(m, ["recording", "expected_count", "topology"], "a reference recording");
    const recording = r.string(
      r.required(k, "recording", m, "a reference recording"),
      "recording",
      { maxLength: 500 },
    );
    const expected = k.has("expected_count")
      ? r.number(k.get("expected_count")!.value, "expected_count", { min: 0, integer: true })
      : undefined;
    const topology = k.has("topology")
      ? r.oneOf(k.get("topology")!.value, "topology", TOPOLOGY_NAMES)
      : undefined;
    if (recording === undefined) continue;
    const ref: { recording: string; expectedCount?: number; topology?: TopologyName } = {
      recording,
    };
    if (expected !== undefined) ref.expectedCount = expected;
    if (topology !== undefined) ref.topology = topology;
    out.push(ref);
  }
  return out;
}
