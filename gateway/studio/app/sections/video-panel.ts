/**
 * A video file in (the file input, or dropped anywhere on the page): the camera kit reads every
 * frame through the pose model, with a progress line and Cancel; the recording it makes is what
 * Run runs from then on, and it runs at once when a MoveSpec is open.
 */
import { errorText, say } from "../dom.js";
import { elements, type Studio } from "../studio.js";
import { isVideoFile, readingText, recordingFromVideo } from "../video.js";

export function mountVideo(studio: Studio) {
  const { store } = studio;
  const ui = elements({
    input: ["video-file", HTMLInputElement],
    reading: ["video-reading", HTMLElement],
    view: ["video-view", HTMLVideoElement],
    status: ["video-status", HTMLElement],
    cancel: ["video-cancel", HTMLButtonElement],
    upload: ["upload", HTMLInputElement],
  });
  let reading: AbortController | undefined;

  async function read(file: File) {
    if (blocked() || reading) return;
    let read = false;
    await studio.exclusive(async () => {
      const controller = new AbortController();
      reading = controller;
      ui.reading.hidden = false;
      ui.view.hidden = false;
      ui.cancel.hidden = false;
      say(ui.status, `Loading the pose model (about 5 MB, once) to read ${file.name}…`);
      try {
        const { recording, backend, framesPerSecond } = await recordingFromVideo(file, ui.view, {
          signal: controller.signal,
          onProgress: (p) => say(ui.status, readingText(file.name, p)),
        });
        if (recording.frames.length === 0) {
          say(ui.status, `No frames could be read from ${file.name}.`, "error");
          return;
        }
        const withPose = recording.frames.filter((f) => f.keypoints).length;
        say(
          ui.status,
          `Read ${file.name}: ${recording.frames.length} frames (${withPose} with a pose) at ${framesPerSecond.toFixed(1)} frames/s, MoveNet Lightning on ${backend}. It is the recording Run runs.`,
          "ok",
        );
        ui.view.dataset.framesPerSecond = framesPerSecond.toFixed(2);
        // The last result was of another recording: off the screen, as for any new run.
        store.set({ extracted: recording, run: undefined });
        read = true;
      } catch (e) {
        const cancelled = controller.signal.aborted;
        say(
          ui.status,
          cancelled
            ? `Cancelled: ${file.name} was not read whole, nothing was kept.`
            : `Could not read ${file.name}: ${errorText(e)}`,
          cancelled ? "info" : "error",
        );
      } finally {
        reading = undefined;
        ui.view.hidden = true;
        ui.cancel.hidden = true;
        ui.input.value = "";
      }
    });
    // Usable at once: through a session and onto the plot, when a MoveSpec is open to count it.
    if (read && store.get().open) await studio.run();
  }

  ui.input.addEventListener("change", () => {
    const file = ui.input.files?.[0];
    if (file) void read(file);
  });
  ui.cancel.addEventListener("click", () => reading?.abort());
  // The camera and a video share the page's one pose model: one at a time.
  const blocked = () => {
    const { busy, connection, cameraOn } = store.get();
    return busy || !connection || cameraOn;
  };
  store.select(
    (s) => [s.busy, s.connection, s.cameraOn] as const,
    () => {
      ui.input.disabled = blocked();
    },
  );

  // A file dropped anywhere on the page: a video is read, a recording becomes the upload.
  document.addEventListener("dragover", (event) => {
    if (!event.dataTransfer?.types.includes("Files")) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = blocked() ? "none" : "copy";
  });
  document.addEventListener("drop", (event) => {
    const file = event.dataTransfer?.files[0];
    // The editor takes a file dropped on it as text (and says so by preventing the default).
    if (!file || !event.dataTransfer || event.defaultPrevented) return;
    event.preventDefault();
    if (blocked()) return;
    if (isVideoFile(file)) void read(file);
    else {
      ui.upload.files = event.dataTransfer.files;
      ui.upload.dispatchEvent(new Event("change"));
    }
  });
}
