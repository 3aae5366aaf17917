/**
 * Labelling the current recording (the last run's, else the video read): a timeline over the
 * plot's time window on which a drag marks a repetition and a click on a mark removes it, the
 * count expected (typed, else the marks'), and the two files `movespec fit` reads: the
 * recording (`<name>.jsonl`) and its manifest (`<name>.manifest.json`). The labels are in the
 * store; what they mean is labels.ts.
 */

import { FitError, type FitResult, fitMoveSpec } from "@movement-detection/movespec";
import type { Score } from "@movement-detection/movespec/fit";
import { errorText, h, say } from "../dom.js";
import {
  addSegment,
  fileStem,
  fitProblem,
  fitRecordings,
  type Labels,
  labelsIn,
  labelsText,
  manifestOf,
  recordingJsonl,
  removeSegment,
  withExpected,
  withLabels,
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
    axis: ["timeline-axis", HTMLElement],
    plot: ["plot", HTMLElement],
    fit: ["fit", HTMLButtonElement],
    fitApply: ["fit-apply", HTMLButtonElement],
    fitStatus: ["fit-status", HTMLElement],
    fitResult: ["fit-result", HTMLElement],
  });
  let fitted: FitResult | undefined;
  const cursor = h("div", { class: "timeline-cursor", "aria-hidden": "true" });
  const pending = h("div", { class: "timeline-pending", "aria-hidden": "true" });

  const recording = () => currentRecording(store.get());
  const labels = (): Labels | undefined => {
    const rec = recording();
    return rec && labelsIn(store.get().labelled, rec);
  };
  const change = (next: Labels) => {
    const rec = recording();
    if (rec) store.set((s) => ({ labelled: withLabels(s.labelled, rec, next) }));
  };

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
    const current = labelsIn(store.get().labelled, rec);
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
    lineUp();
    requestAnimationFrame(lineUp);
    showCursor();
    if (document.activeElement !== ui.expected)
      ui.expected.value = current.expected === undefined ? "" : String(current.expected);
    ui.expected.placeholder = String(current.segments.length);
    ui.fromRun.disabled = !store.get().run?.outcome.summary?.reps.length;
    ui.clear.disabled = current.segments.length === 0;
    say(ui.status, labelsText(current));
    const { busy, open, labelled } = store.get();
    ui.fit.disabled = busy || !open || labelled.length === 0;
  }

  /**
   * Fit: `movespec fit`'s library (movespec/fit) in the page, on the recordings labelled in it,
   * for the editor's text. It runs on the page's own thread: a few labelled clips take a second
   * or so; the status says it is under way first.
   */
  async function fitInPage() {
    const { labelled } = store.get();
    const source = studio.editor.text();
    const problem = fitProblem(source, labelled);
    fitted = undefined;
    ui.fitResult.hidden = true;
    ui.fitApply.hidden = true;
    if (problem) {
      say(ui.fitStatus, problem, "error");
      return;
    }
    await studio.exclusive(async () => {
      const recordings = fitRecordings(labelled);
      say(ui.fitStatus, `Fitting on ${recordings.length} labelled recording(s)…`);
      // Let the line be painted before the page's thread is busy with the fit.
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
      const started = performance.now();
      try {
        fitted = fitMoveSpec(source, recordings);
      } catch (e) {
        say(
          ui.fitStatus,
          `Fit failed: ${e instanceof FitError ? e.message : errorText(e)}`,
          "error",
        );
        return;
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      say(
        ui.fitStatus,
        `Fitted ${fitted.parameters.length} number(s) on ${recordings.length} labelled recording(s) in ${seconds} s (${fitted.evaluations} MoveSpecs tried): exact ${fitted.before.exact} of ${fitted.before.clips} as given, ${fitted.after.exact} of ${fitted.after.clips} fitted.`,
        "ok",
      );
      showFit(fitted);
    });
  }

  function table(caption: string, head: string[], rows: string[][]): HTMLTableElement {
    return h(
      "table",
      { class: "reps" },
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        ...rows.map((r) =>
          h("tr", {}, h("th", { scope: "row" }, r[0]), ...r.slice(1).map((c) => h("td", {}, c))),
        ),
      ),
    );
  }

  function showFit(result: FitResult) {
    const score = (s: Score | undefined, pick: (s: Score) => string) => (s ? pick(s) : "–");
    const exact = (s: Score) => `${s.exact} of ${s.clips}`;
    const within = (s: Score) => `${s.withinOne} of ${s.clips}`;
    const error = (s: Score) => (s.clips ? s.error / s.clips : 0).toFixed(3);
    const cv = result.crossValidated;
    const counted = (o: { counted?: number } | undefined) => (o ? String(o.counted ?? "–") : "–");
    ui.fitResult.replaceChildren(
      table(
        "Before and after",
        ["", "as given", "fitted", "cross-validated"],
        [
          ["exact", exact(result.before), exact(result.after), score(cv, exact)],
          ["within one", within(result.before), within(result.after), score(cv, within)],
          ["mean relative error", error(result.before), error(result.after), score(cv, error)],
        ],
      ),
      table(
        "Free numbers",
        ["name", "range", "as given", "fitted"],
        result.parameters.map((p) => [
          p.name,
          `${p.range[0]} to ${p.range[1]} by ${p.step}`,
          String(p.before),
          String(p.after),
        ]),
      ),
      table(
        "Recordings",
        ["recording", "expected", "as given", "fitted", "cross-validated"],
        result.recordings.map((r) => [
          r.id,
          String(r.expected),
          counted(r.before),
          counted(r.after),
          counted(r.crossValidated),
        ]),
      ),
    );
    ui.fitResult.hidden = false;
    ui.fitApply.hidden = result.source === studio.editor.text();
  }

  /**
   * The timeline and its axis under the plot's time axis when a plot is shown (same window, same
   * scale: a mark sits above the repetition it marks); the section's whole width otherwise.
   */
  function lineUp() {
    const axis = studio.plotAxis();
    const box = ui.section.getBoundingClientRect();
    const fits = axis && axis.right - axis.left > 100 && axis.left >= box.left;
    const left = fits ? `${axis.left - box.left}px` : "";
    const width = fits ? `${axis.right - axis.left}px` : "";
    for (const element of [ui.timeline, ui.axis]) {
      element.style.marginLeft = left;
      element.style.width = width;
    }
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

  ui.fit.addEventListener("click", () => void fitInPage());
  // One edit in the editor: undo brings the text as it was back.
  ui.fitApply.addEventListener("click", () => {
    if (!fitted) return;
    studio.editor.replaceText(fitted.source);
    ui.fitApply.hidden = true;
    say(
      ui.fitStatus,
      "The fitted MoveSpec is in the editor (Ctrl+Z takes it back): save it, run it.",
      "ok",
    );
  });

  // The plot lays itself out again when the page's width changes, and settles its size a frame
  // after it is built: the timeline follows it.
  const relayout = new ResizeObserver(() => lineUp());
  relayout.observe(ui.section);
  relayout.observe(ui.plot);

  store.select((s) => currentRecording(s), show);
  store.select((s) => s.labelled, show);
  store.select(
    (s) => [s.busy, s.open] as const,
    () => show(),
  );
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
