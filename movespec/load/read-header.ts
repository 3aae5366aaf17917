/**
 * Reads what a MoveSpec is and how it is filmed: `movespec` (the version), `name`,
 * `description`, `tags`, `camera`, `sides` and `scale`.
 */
import { parseAspectRatio } from "../aspect-ratio.js";
import type { BodyScale, CameraView, CompiledSpec } from "../compiled-spec.js";
import { SIDES_MODES, type SidesMode } from "../sides.js";
import { at, type Reader } from "./reader.js";
import type { YEntry, YMap } from "./yaml-tree.js";

const BODY_SCALES: readonly BodyScale[] = ["torso", "shoulders", "hips", "height"];

export interface Header {
  /** Undefined when missing or invalid (an error was reported). */
  readonly name: string | undefined;
  readonly description: string;
  readonly tags: string[];
  readonly camera: CompiledSpec["camera"];
  readonly sides: SidesMode;
  /** False when `sides` is there but not a mode (its error is reported). */
  readonly sidesRead: boolean;
  readonly scale: CompiledSpec["scale"];
}

export function readHeader(r: Reader, k: Map<string, YEntry>, root: YMap): Header {
  checkVersion(r, k, root);
  const name = r.string(r.required(k, "name", root, "the MoveSpec"), "name", { maxLength: 120 });
  if (name !== undefined && name.trim() === "")
    r.issues.error("VALUE_INVALID", "name must not be empty", at(k.get("name")!.value));
  const description = k.has("description")
    ? r.string(k.get("description")!.value, "description", { maxLength: 2000 })
    : "";
  const tags: string[] = [];
  if (k.has("tags")) {
    for (const t of r.names(k.get("tags")!.value, "tags") ?? []) {
      if (t.name.length > 40)
        r.issues.error("VALUE_INVALID", "a tag is at most 40 characters", at(t.node));
      else tags.push(t.name);
    }
  }
  const camera = readCamera(r, k);
  const sidesValue = k.has("sides")
    ? r.oneOf(k.get("sides")!.value, "sides", SIDES_MODES)
    : undefined;
  const sides: SidesMode = k.has("sides") ? (sidesValue ?? "none") : "none";
  const scale = k.has("scale")
    ? (r.oneOf(k.get("scale")!.value, "scale", BODY_SCALES) ?? "torso")
    : "torso";
  return {
    name,
    description: description ?? "",
    tags,
    camera,
    sides,
    sidesRead: sidesValue !== undefined,
    scale,
  };
}

function checkVersion(r: Reader, k: Map<string, YEntry>, root: YMap): void {
  const versionNode = k.get("movespec")?.value;
  if (!versionNode) {
    r.issues.error(
      "VERSION_MISSING",
      "the MoveSpec must start with 'movespec: 1' (the language version)",
      { pos: root.pos, path: "movespec" },
    );
  } else if (!(versionNode.kind === "scalar" && versionNode.value === 1)) {
    r.issues.error(
      "VERSION_UNSUPPORTED",
      "this loader understands 'movespec: 1' only",
      at(versionNode),
    );
  }
}

function readCamera(r: Reader, k: Map<string, YEntry>): CompiledSpec["camera"] {
  const camera: { view: CameraView; aspectRatio: number } = { view: "any", aspectRatio: 16 / 9 };
  if (!k.has("camera")) return camera;
  const cm = r.map(k.get("camera")!.value, "camera");
  if (!cm) return camera;
  const ck = r.keys(cm, ["view", "aspect_ratio"], "camera");
  if (ck.has("view"))
    camera.view =
      r.oneOf(ck.get("view")!.value, "camera.view", ["front", "side", "any"] as const) ?? "any";
  if (ck.has("aspect_ratio")) {
    const a = ck.get("aspect_ratio")!.value;
    const ratio = a.kind === "scalar" ? parseAspectRatio(a.value) : undefined;
    if (ratio === undefined)
      r.issues.error("VALUE_INVALID", "camera.aspect_ratio must be like 16:9, 4:3 or 1.777", at(a));
    else camera.aspectRatio = ratio;
  }
  return camera;
}
