// The camera kit in a web page: the camera through the pose model in the page, repetitions back
// from the service. The page's server (serve.ts) creates the session with its own key and hands
// over only `stream_url` and `runtime_token`: no API key in the browser.
import { loadPoseModel, startCounter } from "@movement-detection/sdk/camera";

const count = document.querySelector("#count") as HTMLElement;
const status = document.querySelector("#status") as HTMLElement;
const stop = document.querySelector("#stop") as HTMLButtonElement;

status.textContent = "Loading the pose model…";
const model = await loadPoseModel({
  libraryUrl: new URL("vendor/human.esm.js", location.href).href,
  modelBaseUrl: new URL("vendor/", location.href).href,
  wasmBaseUrl: new URL("vendor/", location.href).href,
});
const session = await (await fetch("session", { method: "POST" })).json();
const counter = await startCounter({
  session,
  model,
  source: "camera",
  video: document.querySelector("video") as HTMLVideoElement,
  onFrame: (_frame, stats) => {
    status.textContent = `${stats.frames} frames (${stats.framesWithPose} with a pose), ${stats.framesPerSecond.toFixed(1)}/s on ${stats.backend}`;
  },
});
stop.disabled = false;
stop.onclick = async () => {
  stop.disabled = true;
  const end = await counter.stop();
  status.textContent = `Session ${end.status}: ${end.accepted_frames_total} frames`;
};

for await (const event of counter.events()) {
  if (event.type === "rep.completed") count.textContent = String(event.total);
}
