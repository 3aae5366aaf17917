/**
 * Labelling the current recording (the last run's, else the video read): a timeline over the
 * plot's time window on which a drag marks a repetition and a click on a mark removes it, the
 * count expected (typed, else the marks'), and the two files `movespec fit` reads: the
 * recording (`<name>.jsonl`) and its manifest (`<name>.manifest.json`). The labels are in the
 * store; what they mean is labels.ts.
 */
import { h, say } from "../dom.js";
import {
  addSegment,
  fileStem,
  type Labels,
  labelsFor,
  labelsText,
  manifestOf,
  recordingJsonl,
  removeSegment,
  withExpected,
} from "../labels.js";
import type { Recording } from "../recording.js";
import { currentRecording } from "../state.js";
import { elements, type Studio } from "../studio.js";

/** A drag shorter than this (pixels) is a click: it moves the time cursor. */
const CLICK_PIXELS = 4;

export function mountLabelling(studio: Studio) {
  const { store } = studio;
  const ui = elements({
    section: ["labelling", HTMLElement],
    timeline: ["timeline", HTMLElement],
    from: ["timeline-from", HTMLElement],
    to: ["timeline-to", HTMLElement],
    expected: ["expected", HTMLInputElement],
    fromRun: ["labels-from-run", HTMLButtonElement],
    clear: ["labels-clear", HTMLButtonElement],
    downloadRecording: ["download-recording", HTMLButtonElement],
    downloadManifest: ["download-manifest", HTMLButtonElement],
    status: ["labels-status", HTMLElement],
  });
  const cursor = h("div", { class: "timeline-cursor", "aria-hidden": "true" });
  const pending = h("div", { class: "timeline-pending", "aria-hidden": "true" });

  const recording = () => currentRecording(store.get());
  const labels = (): Labels | undefined => {
    const rec = recording();
    return rec && labelsFor(rec, store.get().labels);
  };
  const change = (next: Labels) => store.set({ labels: next });

  /** The seconds the timeline spans: the plot's window, else the whole recording. */
  function span(rec: Recording): { from: number; to: number } {
    const view = store.get().time.view;
    if (view && view.to > view.from) return view;
    const from = rec.frames[0]?.t ?? 0;
    const to = rec.frames.at(-1)?.t ?? from;
    return { from, to: to > from ? to : from + 1 };
  }
  const percent = (t: number, { from, to }: { from: number; to: number }) =>
    ((t - from) / (to - from)) * 100;
  function timeAt(clientX: number, rec: Recording): number {
    const box = ui.timeline.getBoundingClientRect();
    const { from, to } = span(rec);
    const x = Math.min(Math.max(clientX - box.left, 0), box.width);
    return from + (x / Math.max(box.width, 1)) * (to - from);
  }

  function show() {
    const rec = recording();
    ui.section.hidden = !rec;
    if (!rec) return;
    const current = labelsFor(rec, store.get().labels);
    const window = span(rec);
    ui.from.textContent = `${window.from.toFixed(2)} s`;
    ui.to.textContent = `${window.to.toFixed(2)} s`;
    const marks = current.segments.map(([start, end], i) => {
      const mark = h(
        "button",
        {
          type: "button",
          class: "segment",
          "aria-label": `Repetition ${i + 1}, ${start.toFixed(2)} to ${end.toFixed(2)} s: remove`,
          title: `${start.toFixed(2)}–${end.toFixed(2)} s: click to remove`,
        },
        String(i + 1),
      );
      const left = Math.max(0, percent(start, window));
      const right = Math.min(100, percent(end, window));
      mark.hidden = right <= 0 || left >= 100;
      mark.style.left = `${left}%`;
      mark.style.width = `${Math.max(right - left, 0)}%`;
      mark.addEventListener("click", () => change(removeSegment(current, i)));
      return mark;
    });
    ui.timeline.replaceChildren(...marks, pending, cursor);
    showCursor();
    if (document.activeElement !== ui.expected)
      ui.expected.value = current.expected === undefined ? "" : String(current.expected);
    ui.expected.placeholder = String(current.segments.length);
    ui.fromRun.disabled = !store.get().run?.outcome.summary?.reps.length;
    ui.clear.disabled = current.segments.length === 0;
    say(ui.status, labelsText(current));
  }

  function showCursor() {
    const rec = recording();
    if (!rec) return;
    const at = percent(store.get().time.cursor, span(rec));
    cursor.hidden = at < 0 || at > 100;
    cursor.style.left = `${at}%`;
  }

  // Drag to mark: the pointer is held by the timeline until it is let go.
  let dragFrom: { x: number; t: number } | undefined;
  ui.timeline.addEventListener("pointerdown", (event) => {
    const rec = recording();
    if (!rec || event.button !== 0 || (event.target as Element).closest("button")) return;
    event.preventDefault();
    ui.timeline.setPointerCapture(event.pointerId);
    dragFrom = { x: event.clientX, t: timeAt(event.clientX, rec) };
  });
  ui.timeline.addEventListener("pointermove", (event) => {
    const rec = recording();
    if (!rec || !dragFrom) return;
    const window = span(rec);
    const t = timeAt(event.clientX, rec);
    pending.hidden = Math.abs(event.clientX - dragFrom.x) < CLICK_PIXELS;
    pending.style.left = `${percent(Math.min(t, dragFrom.t), window)}%`;
    pending.style.width = `${Math.abs(percent(t, window) - percent(dragFrom.t, window))}%`;
  });
  const release = (event: PointerEvent) => {
    const rec = recording();
    const from = dragFrom;
    dragFrom = undefined;
    pending.hidden = true;
    const current = labels();
    if (!rec || !from || !current) return;
    const t = timeAt(event.clientX, rec);
    if (Math.abs(event.clientX - from.x) < CLICK_PIXELS)
      store.set((s) => ({ time: { ...s.time, cursor: t } }));
    else change(addSegment(current, from.t, t));
  };
  ui.timeline.addEventListener("pointerup", release);
  ui.timeline.addEventListener("pointercancel", () => {
    dragFrom = undefined;
    pending.hidden = true;
  });
  pending.hidden = true;

  ui.expected.addEventListener("input", () => {
    const current = labels();
    if (!current) return;
    const next = withExpected(current, ui.expected.value);
    if (typeof next === "string") say(ui.status, next, "error");
    else change(next);
  });
  ui.fromRun.addEventListener("click", () => {
    const current = labels();
    const reps = store.get().run?.outcome.summary?.reps ?? [];
    if (current) change({ ...current, segments: reps.map((r) => [r.start_t, r.end_t] as const) });
  });
  ui.clear.addEventListener("click", () => {
    const current = labels();
    if (current) change({ ...current, segments: [] });
  });
  ui.downloadRecording.addEventListener("click", () => {
    const rec = recording();
    if (rec)
      download(`${fileStem(rec.name)}.jsonl`, recordingJsonl(rec.frames), "application/jsonl");
  });
  ui.downloadManifest.addEventListener("click", () => {
    const rec = recording();
    const current = labels();
    if (!rec || !current) return;
    const manifest = manifestOf(rec, current);
    download(
      `${fileStem(rec.name)}.manifest.json`,
      `${JSON.stringify(manifest, null, 2)}\n`,
      "application/json",
    );
  });

  store.select((s) => currentRecording(s), show);
  store.select((s) => s.labels, show);
  store.select((s) => s.run, show);
  store.select(
    (s) => s.time.view,
    () => show(),
  );
  store.select((s) => s.time.cursor, showCursor);
}

/** Saves `text` as a file named `name` (the browser's download). */
function download(name: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL by the time this runs; the blob is not kept after.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
