/**
 * The test bench: which recording runs (a bundled one or your file, said in words), Run, and the
 * result of the last run only: the count, the warnings, the interactive plot, the pose at the time
 * cursor, the repetitions' table. A run that is refused or fails takes the last result off the
 * screen: what is shown is always what the last run produced.
 */

import { eventText, load } from "@movement-detection/movespec";
import type { SessionSummary } from "@movement-detection/movespec/engine";
import { errorText, h, say } from "../dom.js";
import { plotModel } from "../plot/plot-model.js";
import { createSignalPlot, type SignalPlot } from "../plot/signal-plot.js";
import { type Recording, readRecording, topologyOf } from "../recording.js";
import { replayThroughService } from "../replay.js";
import { signalSamples } from "../signals.js";
import { drawSkeleton } from "../skeleton.js";
import type { RunResult } from "../state.js";
import { elements, type Studio } from "../studio.js";
import { nearestFrame } from "../time.js";

/** While the stream client tries again (the SDK's backoff: about half a minute in all). */
export function reconnectingText(attempt: number): string {
  return `The connection to the service was lost: reconnecting (attempt ${attempt})… Check your connection.`;
}

export function mountBench(studio: Studio) {
  const { store, editor } = studio;
  const ui = elements({
    form: ["bench-form", HTMLFormElement],
    recording: ["recording", HTMLSelectElement],
    upload: ["upload", HTMLInputElement],
    run: ["run", HTMLButtonElement],
    source: ["bench-source", HTMLElement],
    clearUpload: ["clear-upload", HTMLButtonElement],
    status: ["bench-status", HTMLElement],
    result: ["result", HTMLElement],
    caption: ["result-caption", HTMLElement],
    count: ["count", HTMLElement],
    countLabel: ["count-label", HTMLElement],
    warnings: ["warnings", HTMLUListElement],
    plot: ["plot", HTMLElement],
    scrub: ["scrub", HTMLInputElement],
    scrubTime: ["scrub-time", HTMLOutputElement],
    skeleton: ["skeleton", HTMLCanvasElement],
    reps: ["reps", HTMLTableElement],
  });
  const recordingCache = new Map<string, Recording>();
  let plot: SignalPlot | undefined;

  const uploaded = () => ui.upload.files?.[0];

  /** Says which recording Run runs: a video read, else the uploaded file, named as such. */
  function showSource() {
    const file = uploaded();
    const { extracted } = store.get();
    const sample = store.get().samples.recordings.find((r) => r.id === ui.recording.value);
    ui.clearUpload.hidden = !file && !extracted;
    ui.source.textContent = extracted
      ? `Runs your video ${extracted.name} (${extracted.frames.length} frames read).`
      : file
        ? `Runs your file ${file.name}.`
        : sample
          ? `Runs the bundled ${sample.id} (${sample.exercise.replace(/_/g, " ")}).`
          : "Upload a recording to run.";
  }

  async function chosenRecording(): Promise<Recording> {
    const { extracted } = store.get();
    if (extracted) return extracted;
    const upload = uploaded();
    if (upload) {
      const cacheKey = `upload:${upload.name}:${upload.size}:${upload.lastModified}`;
      const cached = recordingCache.get(cacheKey);
      if (cached) return cached;
      const recording = await readRecording(upload.name, upload);
      recordingCache.set(cacheKey, recording);
      return recording;
    }
    const id = ui.recording.value;
    const sample = store.get().samples.recordings.find((r) => r.id === id);
    if (!sample) throw new Error("choose a recording or upload one");
    const cached = recordingCache.get(id);
    if (cached) return cached;
    const response = await fetch(sample.url);
    if (!response.ok) throw new Error(`${sample.url}: HTTP ${response.status}`);
    const recording = await readRecording(id, await response.blob());
    recordingCache.set(id, recording);
    return recording;
  }

  async function run() {
    const { connection, open, busy } = store.get();
    if (!connection || !open || busy) return;
    await studio.exclusive(async () => {
      // Whatever happens next, the last result is no longer the last run's.
      store.set({ run: undefined });
      const text = editor.text();
      const loaded = load(text);
      if (!loaded.spec) {
        say(ui.status, "Fix the MoveSpec's errors first (listed under Problems).", "error");
        return;
      }
      try {
        say(ui.status, "Reading the recording…");
        const recording = await chosenRecording();
        if (recording.frames.length === 0) {
          const why =
            recording.problems.length > 0 ? recording.problems.join("; ") : "the file is empty";
          say(ui.status, `No frames in ${recording.name}: ${why}`, "error");
          return;
        }
        const versionId = await studio.versionForRun(text, ui.status);
        if (!versionId) return;
        const version = store.get().open?.versions.find((v) => v.movespec_version_id === versionId);
        const topology = topologyOf(recording.frames);
        const started = performance.now();
        const outcome = await replayThroughService(connection.client, {
          projectId: connection.project.project_id,
          movespecVersionId: versionId,
          frames: recording.frames,
          topology,
          aspectRatio: recording.aspectRatio,
          onProgress: (sent) =>
            say(ui.status, `Streaming: ${sent} of ${recording.frames.length} frames sent…`),
          onReconnect: (attempt) => say(ui.status, reconnectingText(attempt), "error"),
        });
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const { samples } = signalSamples(
          loaded.spec,
          recording.frames,
          topology,
          recording.aspectRatio,
        );
        const model = plotModel(loaded.spec, samples, outcome.events as never);
        const name = store.get().open?.movespec.name ?? "the MoveSpec";
        store.set({
          run: {
            spec: loaded.spec,
            recording,
            outcome,
            model,
            caption: `${recording.name} with ${version ? `version ${version.version_number} of ` : ""}${name}`,
          },
          time: { cursor: recording.frames[0]?.t ?? 0 },
        });
        // Completed with no frame accepted (all refused: see the warnings) is no success.
        const fine = outcome.status === "completed" && outcome.acceptedFrames > 0;
        say(
          ui.status,
          `${outcome.status}: ${outcome.acceptedFrames} of ${recording.frames.length} frames of ${recording.name} accepted in ${seconds} s${fine ? "." : ": see the warnings."}`,
          fine ? "ok" : "error",
        );
      } catch (e) {
        say(ui.status, `Run failed: ${errorText(e)}`, "error");
      }
    });
  }

  function showResult(result: RunResult | undefined) {
    plot?.destroy();
    plot = undefined;
    ui.plot.replaceChildren();
    ui.result.hidden = !result;
    if (!result) return;
    const { recording, outcome, model } = result;
    const summary = outcome.summary;
    ui.caption.textContent = `Last run: ${result.caption}.`;
    ui.count.textContent = String(summary?.count ?? 0);
    ui.countLabel.textContent =
      (summary?.count === 1 ? "repetition" : "repetitions") +
      (summary?.counts ? ` (left ${summary.counts.left}, right ${summary.counts.right})` : "") +
      (summary?.partials ? `, ${summary.partials} partial` : "");
    showWarnings(result);
    const kept = store.get().plotSignals?.filter((k) => model.signals.some((s) => s.key === k));
    plot = createSignalPlot({
      model,
      title: result.caption,
      chosen: kept && kept.length > 0 ? kept : model.defaults,
      time: store.get().time,
      onTime: (change) => store.set((s) => ({ time: { ...s.time, ...change } })),
      onChoose: (keys) => {
        store.set({ plotSignals: keys });
        plot?.choose(keys);
      },
    });
    ui.plot.replaceChildren(plot.element);
    ui.plot.setAttribute(
      "aria-label",
      `Signals over time, ${summary?.count ?? 0} repetitions marked; drag to zoom, click to move the time cursor`,
    );
    showRepsTable(summary);
    ui.scrub.max = String(recording.frames.length - 1);
    showTime();
  }

  function showWarnings({ outcome, recording }: RunResult) {
    const warnings: string[] = [];
    for (const event of outcome.events) {
      if (event.type === "form.violation" || event.type === "rep.partial")
        warnings.push(`${event.t.toFixed(2)} s: ${eventText(event)}`);
    }
    warnings.push(...outcome.notices, ...recording.problems.map((p) => `${recording.name}, ${p}`));
    ui.warnings.replaceChildren(...warnings.map((w) => h("li", {}, w)));
    if (warnings.length === 0) ui.warnings.append(h("li", { class: "ok" }, "No warnings."));
  }

  function showRepsTable(summary: SessionSummary | undefined) {
    const reps = summary?.reps ?? [];
    const signals = [...new Set(reps.flatMap((r) => Object.keys(r.metrics.signals)))];
    const sides = reps.some((r) => r.side && r.side !== "both");
    const head = ["#", ...(sides ? ["side"] : []), "start (s)", "end (s)", "duration (s)", "score"];
    head.push(...signals.map((s) => `${s} range`), "violations");
    ui.reps.tHead?.replaceChildren(h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c))));
    ui.reps.tBodies[0].replaceChildren(
      ...reps.map((r) => {
        const row = h(
          "tr",
          {},
          h("th", { scope: "row" }, String(r.count)),
          ...(sides ? [h("td", {}, r.side ?? "")] : []),
          h("td", {}, r.start_t.toFixed(2)),
          h("td", {}, r.end_t.toFixed(2)),
          h("td", {}, r.metrics.duration.toFixed(2)),
          h("td", {}, r.score.toFixed(2)),
          ...signals.map((s) => h("td", {}, r.metrics.signals[s]?.range.toFixed(3) ?? "")),
          h("td", {}, r.violations.join(", ")),
        );
        // A row is a way to the repetition: its start becomes the time cursor.
        row.addEventListener("click", () =>
          store.set((s) => ({ time: { ...s.time, cursor: r.start_t } })),
        );
        return row;
      }),
    );
  }

  /** The time cursor on the slider, its readout, the plot and the skeleton. */
  function showTime() {
    const result = store.get().run;
    if (!result) return;
    const { frames } = result.recording;
    const { time } = store.get();
    const index = nearestFrame(
      frames.map((f) => f.t),
      time.cursor,
    );
    ui.scrub.value = String(index);
    ui.scrubTime.textContent = `${frames[index].t.toFixed(2)} s`;
    plot?.show(time);
    const bones = drawSkeleton(ui.skeleton, frames[index]);
    ui.skeleton.setAttribute(
      "aria-label",
      `Pose at ${ui.scrubTime.textContent}: ${bones === 0 ? "nobody seen" : `${bones} bones seen`}`,
    );
  }

  ui.scrub.addEventListener("input", () => {
    const frame = store.get().run?.recording.frames[Number(ui.scrub.value)];
    if (frame) store.set((s) => ({ time: { ...s.time, cursor: frame.t } }));
  });
  store.select((s) => s.run, showResult);
  store.select((s) => s.time, showTime);
  store.select(
    (s) => s.samples,
    (samples) => {
      ui.recording.replaceChildren(
        ...samples.recordings.map((r) =>
          h(
            "option",
            { value: r.id },
            `${r.id}: ${r.exercise.replace(/_/g, " ")}, ${r.expected_repetitions} reps, ${r.frames} frames`,
          ),
        ),
      );
      showSource();
    },
  );
  store.select(
    (s) => [s.busy, s.open] as const,
    () => {
      ui.run.disabled = store.get().busy || !store.get().open;
    },
  );

  ui.form.addEventListener("submit", (event) => {
    event.preventDefault();
    void run();
  });
  ui.recording.addEventListener("change", () => {
    // Choosing a bundled recording again clears an upload, so the choice is never ambiguous.
    ui.upload.value = "";
    store.set({ extracted: undefined });
    showSource();
  });
  // A file chosen is the newer choice: it wins over a video read before.
  ui.upload.addEventListener("change", () => {
    store.set({ extracted: undefined });
    showSource();
  });
  ui.clearUpload.addEventListener("click", () => {
    ui.upload.value = "";
    store.set({ extracted: undefined });
    showSource();
  });
  store.select((s) => s.extracted, showSource);

  /** The plot's time axis on the screen, for a view that lines up with it (the labels' timeline). */
  function plotAxis(): { left: number; right: number } | undefined {
    if (!plot || ui.result.hidden) return undefined;
    const { from, to } = plot.view();
    const base = ui.plot.getBoundingClientRect().left;
    return { left: base + plot.timeToX(from), right: base + plot.timeToX(to) };
  }

  return { run, plotAxis };
}
