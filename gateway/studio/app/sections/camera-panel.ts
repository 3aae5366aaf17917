/**
 * The live camera: the pose model in the page, the keypoints to a `live` session, the service's
 * events as they come. The status line says what is true now: frames sent, how many held a
 * person, and, when the latest did not or the service lost tracking, that nobody is in view.
 */
import { eventText, load } from "@movement-detection/movespec";
import { type CameraStats, type LiveCamera, startLiveCamera } from "../camera.js";
import { errorText, h, say } from "../dom.js";
import { parseSummary } from "../outcome.js";
import { elements, type Studio } from "../studio.js";
import { reconnectingText } from "./bench.js";

/** Events the list of the latest leaves out (the phase has its own line). */
const UNLISTED = new Set(["phase.entered", "hold.progress", "session.summary"]);

/** The status line for the camera's figures, and whether the service has lost tracking. */
export function cameraStatusText(stats: CameraStats, trackingLost: boolean): string {
  const notes = [
    stats.poseNow ? undefined : "nobody in view",
    trackingLost ? "the service lost tracking: step into view" : undefined,
  ].filter(Boolean);
  return `Live: ${stats.frames} frames sent (${stats.framesWithPose} with a pose${notes.length ? `: ${notes.join("; ")}` : ""}), ${stats.framesPerSecond.toFixed(1)} frames/s, MoveNet Lightning on ${stats.backend}.`;
}

export function mountCamera(studio: Studio) {
  const { store, editor } = studio;
  const ui = elements({
    toggle: ["camera-toggle", HTMLButtonElement],
    status: ["camera-status", HTMLElement],
    live: ["live", HTMLElement],
    count: ["live-count", HTMLElement],
    phase: ["live-phase", HTMLElement],
    events: ["live-events", HTMLUListElement],
    video: ["video", HTMLVideoElement],
    overlay: ["overlay", HTMLCanvasElement],
  });
  let camera: LiveCamera | undefined;

  async function toggleCamera() {
    if (camera) {
      const running = camera;
      camera = undefined;
      store.set({ cameraOn: false });
      ui.toggle.disabled = true;
      say(ui.status, "Stopping…");
      try {
        const end = await running.stop();
        const summary = parseSummary(end?.terminal_outcome);
        say(
          ui.status,
          `Stopped: ${end?.status ?? "?"}, ${end?.accepted_frames_total ?? 0} frames, ${summary?.count ?? 0} repetitions.`,
          "ok",
        );
      } catch (e) {
        say(ui.status, `Stopped, with an error: ${errorText(e)}`, "error");
      }
      ui.toggle.textContent = "Start camera";
      updateButton();
      return;
    }
    const { connection, open } = store.get();
    if (!connection || !open) return;
    const { client, project } = connection;
    await studio.exclusive(async () => {
      const text = editor.text();
      if (!load(text).spec) {
        say(ui.status, "Fix the MoveSpec's errors first (listed under Problems).", "error");
        return;
      }
      const versionId = await studio.versionForRun(text, ui.status);
      if (!versionId) return;
      say(ui.status, "Starting the camera and loading the pose model (about 5 MB, once)…");
      ui.live.hidden = false;
      ui.count.textContent = "0";
      ui.phase.textContent = "";
      ui.events.replaceChildren();
      const note = (text: string) => {
        ui.events.prepend(h("li", {}, text));
        while (ui.events.children.length > 8) ui.events.lastElementChild?.remove();
      };
      // A frame already on its way when the connection dropped still reports its stats (the
      // stream queues it for the next connection): those must not hide that it is reconnecting.
      let reconnecting = false;
      let trackingLost = false;
      let lastStats: CameraStats | undefined;
      const showStats = (stats: CameraStats) =>
        say(ui.status, cameraStatusText(stats, trackingLost), "ok");
      try {
        camera = await startLiveCamera({
          client,
          projectId: project.project_id,
          movespecVersionId: versionId,
          video: ui.video,
          overlay: ui.overlay,
          onEvent: (event) => {
            if (event.type === "rep.completed") ui.count.textContent = String(event.total);
            else if (event.type === "phase.entered") ui.phase.textContent = `phase: ${event.phase}`;
            else if (event.type === "tracking.lost") trackingLost = true;
            else if (event.type === "tracking.regained") trackingLost = false;
            if (!UNLISTED.has(event.type)) note(eventText(event));
            ui.events.dataset.events = String(Number(ui.events.dataset.events ?? "0") + 1);
            if (lastStats && !reconnecting && event.type.startsWith("tracking."))
              showStats(lastStats);
          },
          onNotice: (text) => note(text),
          onReconnect: (attempt) => {
            reconnecting = true;
            say(ui.status, reconnectingText(attempt), "error");
          },
          onReady: () => {
            if (!reconnecting) return;
            reconnecting = false;
            if (lastStats) showStats(lastStats);
          },
          onFailure: (error) => {
            say(ui.status, `Live counting stopped: ${errorText(error)}`, "error");
            note("live counting stopped");
          },
          onStats: (stats) => {
            lastStats = stats;
            if (!reconnecting) showStats(stats);
          },
        });
        store.set({ cameraOn: true });
        ui.toggle.textContent = "Stop camera";
      } catch (e) {
        const denied = e instanceof DOMException && e.name === "NotAllowedError";
        say(
          ui.status,
          denied
            ? "The browser refused the camera: allow it for this page and try again."
            : `The camera did not start: ${errorText(e)}`,
          "error",
        );
      }
    });
  }

  function updateButton() {
    const { busy, open } = store.get();
    ui.toggle.disabled = (busy && !camera) || (!open && !camera);
  }
  store.select((s) => [s.busy, s.open, s.cameraOn] as const, updateButton);
  ui.toggle.addEventListener("click", () => void toggleCamera());
}
