import "@movement-detection/shared/telemetry/mongodb-preload";
import { setFlagsFromString } from "node:v8";
import { loadConfigOrExit } from "@movement-detection/shared/config";
import { runServiceProcess } from "@movement-detection/shared/runtime";
import { loadDetectionConfig } from "./config.js";
import { detectionService } from "./service.js";

// V8 moves an allocation site's objects straight to the old generation once enough of them
// survived a scavenge. Under live streams it does that to per-message objects (ws's message
// buffers) that die soon after: the old generation fills with garbage and is collected every
// 2-3 s on helper threads. Off, detection spent 17 % less CPU per live frame (36.4 -> 29.7 µs
// at 300 sessions, bench/detection/README.md, "pretenuring"). A V8 flag is refused in
// NODE_OPTIONS; this one is read at each collection, so setting it here is in time.
setFlagsFromString("--no-allocation-site-pretenuring");

const config = loadConfigOrExit("detection", () => loadDetectionConfig(process.env));
await runServiceProcess(detectionService, config, config.supervised);
