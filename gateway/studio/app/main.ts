/**
 * MoveSpec Studio (docs/studio.md): sign in, open or create a MoveSpec, edit its YAML with
 * markers as you type, save (If-Match), freeze versions and release one, and run a recording
 * through a real replay session to see it counted. Plain DOM; the API through the SDK (sdk/).
 */
import type { SessionSummary } from "../../../movespec/engine/events.js";
import { load } from "../../../movespec/index.js";
import {
  MdsApiError,
  type MdsClient,
  MdsNetworkError,
  type MoveSpec,
  type Version,
} from "../../../sdk/src/index.js";
import { type CameraStats, type LiveCamera, startLiveCamera } from "./camera.js";
import { type Connection, signIn } from "./connection.js";
import { byId, errorText, h, say } from "./dom.js";
import { createYamlEditor, type PositionedIssue } from "./editor.js";
import { forgetMoveSpec, type RecentEntry, recentMoveSpecs, rememberMoveSpec } from "./library.js";
import { type Recording, readRecording, topologyOf } from "./recording.js";
import { type ReplayOutcome, replayThroughService } from "./replay.js";
import { plotCursor, signalPlot, signalSamples } from "./signals.js";
import { drawSkeleton } from "./skeleton.js";

interface Samples {
  recordings: {
    id: string;
    exercise: string;
    expected_repetitions: number;
    frames: number;
    url: string;
  }[];
  examples: { name: string; yaml_source: string }[];
}

interface OpenMoveSpec {
  movespec: MoveSpec;
  /** The project's own: editable. Another project's public one is shown read-only. */
  own: boolean;
  /** The draft's ETag, sent back in If-Match. */
  etag: string | undefined;
  /** The text last saved (or loaded): the editor is dirty when it differs. */
  saved: string;
  /**
   * The text of the last save whose answer was lost: the service may hold it, and then refuses
   * the next save (412) because of it, not because of a change elsewhere.
   */
  unconfirmed?: string;
  versions: Version[];
}

let connection: Connection | undefined;
let current: OpenMoveSpec | undefined;
let samples: Samples = { recordings: [], examples: [] };
let busy = false;
const recordingCache = new Map<string, Recording>();

const editor = createYamlEditor({
  parent: byId("editor"),
  labelledBy: "editor-label",
  onChange: () => updateButtons(),
  onIssues: (issues) => listIssues(issues),
  keys: { save: () => void exclusive(save), run: () => void run() },
});

// ---- sign in -------------------------------------------------------------------------------

byId<HTMLFormElement>("sign-in-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = byId<HTMLInputElement>("credential");
  const error = byId("sign-in-error");
  error.textContent = "";
  try {
    connection = await signIn(input.value);
  } catch (e) {
    error.textContent =
      e instanceof MdsApiError && e.reason === "CREDENTIAL_INVALID"
        ? "That key is not valid (unknown, revoked or mistyped)."
        : `Could not sign in: ${errorText(e)}`;
    return;
  }
  input.value = "";
  byId("sign-in").hidden = true;
  byId("workspace").hidden = false;
  byId("sign-out").hidden = false;
  byId("who").textContent = `Project ${connection.project.name} (${connection.project.project_id})`;
  showRecent(recentMoveSpecs(connection.project.project_id));
  void search();
  // The first thing to do: open or create a MoveSpec ("New MoveSpec" is a closed <details>:
  // its field cannot take the focus, its summary can).
  (document.querySelector<HTMLElement>("#new-movespec > summary") ?? byId("workspace")).focus();
});

/** True when the open draft has changes not saved yet. */
function unsaved(): boolean {
  return !!current?.own && editor.text() !== current.saved;
}

// Reload, close or navigate away with unsaved changes: the browser asks first.
window.addEventListener("beforeunload", (event) => {
  if (!unsaved()) return;
  event.preventDefault();
  event.returnValue = "";
});

byId("sign-out").addEventListener("click", () => {
  if (unsaved() && !window.confirm("The open draft has unsaved changes. Sign out anyway?")) return;
  // Dropping the client drops the key and the token: nothing else holds them.
  current = undefined; // asked already: the reload below must not ask again
  connection = undefined;
  window.location.reload();
});

// ---- the library: recent, create, open by id, catalogue ------------------------------------

function showRecent(entries: readonly RecentEntry[]) {
  const list = byId("recent");
  list.replaceChildren(
    ...entries.map((entry) => {
      const open = h("button", { type: "button", class: "link" }, entry.name);
      open.addEventListener("click", () => void openMoveSpec(entry.id));
      const forget = h(
        "button",
        { type: "button", class: "small", "aria-label": `Forget ${entry.name}` },
        "×",
      );
      forget.addEventListener("click", () => {
        if (connection) showRecent(forgetMoveSpec(connection.project.project_id, entry.id));
      });
      return h("li", {}, open, " ", forget);
    }),
  );
  if (entries.length === 0) list.append(h("li", { class: "hint" }, "None yet: create one below."));
}

byId<HTMLFormElement>("create-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!connection) return;
  const name = byId<HTMLInputElement>("new-name").value.trim();
  const example = samples.examples.find(
    (e) => e.name === byId<HTMLSelectElement>("new-example").value,
  );
  const visibility = byId<HTMLSelectElement>("new-visibility").value as "private" | "public";
  const status = byId("editor-status");
  // Asked before anything is created: declining must leave nothing behind (a private MoveSpec
  // nobody opened cannot be found again).
  if (unsaved() && !window.confirm("The open draft has unsaved changes. Create another anyway?"))
    return;
  try {
    const movespec = await connection.client.createMoveSpec({
      body: { name, project_id: connection.project.project_id, visibility },
    });
    if (example) {
      await connection.client.replaceDraft({
        movespec_id: movespec.movespec_id,
        body: { yaml_source: example.yaml_source },
      });
    }
    await openMoveSpec(movespec.movespec_id, { confirmed: true });
    say(status, `Created ${name}${example ? ` from the ${example.name} example` : ""}.`, "ok");
  } catch (e) {
    say(status, `Could not create it: ${errorText(e)}`, "error");
  }
});

byId<HTMLFormElement>("open-form").addEventListener("submit", (event) => {
  event.preventDefault();
  void openMoveSpec(byId<HTMLInputElement>("open-id").value.trim());
});

byId<HTMLFormElement>("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  void search();
});

async function search() {
  if (!connection) return;
  const list = byId("catalogue");
  try {
    const page = await connection.client.listMoveSpecs({
      query: {
        q: byId<HTMLInputElement>("search-q").value.trim() || undefined,
        sort: byId<HTMLSelectElement>("search-sort").value as "recent" | "stars" | "name",
        limit: 20,
      },
    });
    list.replaceChildren(
      ...page.items.map((item) => {
        const open = h("button", { type: "button", class: "link" }, item.name);
        open.addEventListener("click", () => void openMoveSpec(item.movespec_id));
        return h(
          "li",
          {},
          open,
          h("span", { class: "meta" }, ` ${item.star_count ?? 0}★`),
          item.description ? h("span", { class: "meta block" }, item.description) : undefined,
        );
      }),
    );
    if (page.items.length === 0)
      list.append(h("li", { class: "hint" }, "No public MoveSpec matches."));
    else if (page.has_more)
      list.append(h("li", { class: "hint" }, `${page.total} in all: refine the search.`));
  } catch (e) {
    list.replaceChildren(h("li", { class: "error" }, `Search failed: ${errorText(e)}`));
  }
}

// ---- the editor: open, save, version, release ----------------------------------------------

async function openMoveSpec(id: string, options: { confirmed?: boolean } = {}) {
  if (!connection) return;
  const status = byId("editor-status");
  const { client, project } = connection;
  if (!options.confirmed && unsaved()) {
    if (!window.confirm("The open draft has unsaved changes. Open another MoveSpec anyway?"))
      return;
  }
  say(status, "Opening…");
  try {
    const movespec = await client.getMoveSpec({ movespec_id: id });
    const own = movespec.project_id === project.project_id;
    let text: string;
    let etag: string | undefined;
    if (own) {
      const draft = await readDraft(client, id);
      text = draft.data.yaml_source;
      etag = draft.etag;
    } else {
      text = (await client.getReleasedSource({ movespec_id: id })).yaml_source;
    }
    const versions = (await client.listVersions({ movespec_id: id, query: { limit: 100 } })).items;
    current = { movespec, own, etag, saved: text, versions };
    byId("conflict").hidden = true;
    editor.setText(text);
    editor.setReadOnly(!own);
    if (own) showRecent(rememberMoveSpec(project.project_id, { id, name: movespec.name }));
    showMoveSpec();
    say(
      status,
      own ? "Draft loaded." : "Another project's public MoveSpec: its released version, read-only.",
      "ok",
    );
    byId("editor-panel").focus();
  } catch (e) {
    say(status, `Could not open ${id}: ${errorText(e)}`, "error");
  }
}

function showMoveSpec() {
  if (!current) return;
  const { movespec, versions } = current;
  byId("spec-title").textContent = movespec.name;
  const released = versions.find(
    (v) => v.movespec_version_id === movespec.current_released_version_id,
  );
  byId("spec-meta").textContent = [
    movespec.visibility,
    released ? `released: version ${released.version_number}` : "no released version",
    `${versions.length} version(s)`,
    movespec.movespec_id,
  ].join(" · ");
  const select = byId<HTMLSelectElement>("versions");
  select.replaceChildren(
    ...versions.map((v) =>
      h(
        "option",
        { value: v.movespec_version_id },
        `version ${v.version_number}${v.movespec_version_id === movespec.current_released_version_id ? " (released)" : ""}`,
      ),
    ),
  );
  updateButtons();
}

function updateButtons() {
  const own = !!current?.own;
  const dirty = own && current !== undefined && editor.text() !== current.saved;
  byId<HTMLButtonElement>("save").disabled = busy || !own || !dirty;
  byId<HTMLButtonElement>("create-version").disabled = busy || !own;
  const versions = current?.versions.length ?? 0;
  byId<HTMLSelectElement>("versions").disabled = busy || !own || versions === 0;
  byId<HTMLButtonElement>("release").disabled = busy || !own || versions === 0;
  byId<HTMLButtonElement>("run").disabled = busy || !current;
  byId<HTMLButtonElement>("camera-toggle").disabled = (busy && !camera) || (!current && !camera);
  byId("save").textContent = dirty ? "Save draft*" : "Save draft";
}

function listIssues(issues: readonly PositionedIssue[]) {
  const list = byId("issues");
  list.replaceChildren(
    ...issues.map((issue) =>
      h(
        "li",
        { class: issue.severity },
        h("strong", {}, issue.severity === "error" ? "Error" : "Warning"),
        ` line ${issue.line ?? "?"}, column ${issue.column ?? "?"}: ${issue.message}`,
        issue.code ? h("span", { class: "meta" }, ` ${issue.code}`) : undefined,
      ),
    ),
  );
  if (issues.length === 0) list.append(h("li", { class: "ok" }, "No problems."));
}

/** Saves the draft if it changed; false when it could not. */
async function save(): Promise<boolean> {
  if (!connection || !current?.own) return false;
  const text = editor.text();
  if (text === current.saved) return true;
  const status = byId("editor-status");
  const { client } = connection;
  const id = current.movespec.movespec_id;
  try {
    const outcome = await writeDraft(client, current, text);
    if (outcome === "not applied") {
      say(
        status,
        "Not saved: the connection was lost before the service had your text. Save again.",
        "error",
      );
      return false;
    }
    if (outcome === "unknown") {
      say(
        status,
        "Not known to be saved: the connection was lost before the service answered. Check your connection and save again (that save finds out whether this one arrived).",
        "error",
      );
      return false;
    }
    byId("conflict").hidden = true;
  } catch (e) {
    if (e instanceof MdsApiError && e.reason === "ETAG_MISMATCH") {
      say(status, "Not saved: the draft was changed elsewhere since you opened it.", "error");
      // A decision only the user can make: the two ways out are offered where the focus is.
      byId("conflict").hidden = false;
      byId("conflict-load").focus();
    } else say(status, `Not saved: ${errorText(e)}`, "error");
    return false;
  }
  updateButtons();
  try {
    // The service's own verdict on what it now holds (the markers as you type are the same
    // loader, run here; this is the validate route).
    const verdict = await client.validateDraft({ movespec_id: id });
    editor.showIssues([...verdict.errors, ...verdict.warnings] as PositionedIssue[]);
    say(
      status,
      verdict.ok
        ? `Saved. The service finds it valid${verdict.warnings.length ? ` (${verdict.warnings.length} warning(s))` : ""}.`
        : `Saved, with ${verdict.errors.length} error(s): fix them before creating a version.`,
      verdict.ok ? "ok" : "error",
    );
  } catch (e) {
    // Saved all the same: "Not saved" here would send the user to save again for nothing.
    say(status, `Saved, but the service's check of it did not come back: ${errorText(e)}`, "error");
  }
  return true;
}

/**
 * Writes `text` over the open draft with its ETag. A PUT whose answer was lost may have been
 * applied all the same (the SDK does not repeat it: a repeat would be refused with 412), so the
 * draft is read back: holding `text`, it was saved ("saved"); else "not applied"; unreadable,
 * "unknown". Either way the text is remembered, so that a later 412 caused by that very save is
 * recognised and does not send the user to the conflict box for their own text. Other errors
 * (a 412 for a real change elsewhere among them) are thrown.
 */
async function writeDraft(
  client: MdsClient,
  open: OpenMoveSpec,
  text: string,
): Promise<"saved" | "not applied" | "unknown"> {
  const id = open.movespec.movespec_id;
  const settle = (etag: string | undefined, saved: string) => {
    open.etag = etag;
    open.saved = saved;
    open.unconfirmed = undefined;
  };
  try {
    const saved = await client.request(
      "replaceDraft",
      { movespec_id: id, body: { yaml_source: text } },
      { ifMatch: open.etag },
    );
    settle(saved.etag, text);
    return "saved";
  } catch (e) {
    if (e instanceof MdsNetworkError) {
      open.unconfirmed = text;
      let draft: Awaited<ReturnType<typeof readDraft>>;
      try {
        // A read the SDK repeats with backoff: a connection back within a second or two answers.
        draft = await readDraft(client, id);
      } catch {
        return "unknown";
      }
      if (draft.data.yaml_source !== text) return "not applied";
      settle(draft.etag, text);
      return "saved";
    }
    if (
      e instanceof MdsApiError &&
      e.reason === "ETAG_MISMATCH" &&
      open.unconfirmed !== undefined
    ) {
      const draft = await readDraft(client, id);
      // Someone else writing the very same text since is no conflict either.
      if (draft.data.yaml_source === open.unconfirmed) {
        settle(draft.etag, draft.data.yaml_source);
        // Edited since that save: once more, with the ETag of what it wrote.
        return text === open.saved ? "saved" : writeDraft(client, open, text);
      }
    }
    throw e;
  }
}

function readDraft(client: MdsClient, id: string) {
  return client.request("getDraft", { movespec_id: id });
}

/**
 * After a refused save (412): the draft as it is now replaces the editor's text as one edit, so
 * that the user's text is one undo away (and Save, with the new ETag, would then overwrite).
 */
async function loadLatestDraft() {
  if (!connection || !current?.own) return;
  const open = current;
  const status = byId("editor-status");
  try {
    const draft = await readDraft(connection.client, open.movespec.movespec_id);
    if (current !== open) return;
    const mine = editor.text();
    open.etag = draft.etag;
    open.saved = draft.data.yaml_source;
    open.unconfirmed = undefined;
    editor.replaceText(draft.data.yaml_source);
    byId("conflict").hidden = true;
    say(
      status,
      mine === draft.data.yaml_source
        ? "Loaded the latest draft: it is the same as your text."
        : "Loaded the latest draft. Your text is one undo away (Ctrl+Z).",
      "ok",
    );
    editor.view.focus();
  } catch (e) {
    say(status, `Could not load the latest draft: ${errorText(e)}`, "error");
  }
}

/** After a refused save (412): saves the editor's text over the draft as it is now. */
async function overwriteDraft() {
  if (!connection || !current?.own) return;
  const open = current;
  try {
    const draft = await readDraft(connection.client, open.movespec.movespec_id);
    if (current !== open) return;
    // Only the ETag: whatever changed since is what the user chose to overwrite. A change made
    // after this read is refused again, and asked about again.
    open.etag = draft.etag;
  } catch (e) {
    say(byId("editor-status"), `Not saved: ${errorText(e)}`, "error");
    return;
  }
  if (await save()) editor.view.focus();
}

async function createVersion(): Promise<Version | undefined> {
  if (!connection || !current?.own) return undefined;
  const status = byId("editor-status");
  if (!(await save())) return undefined;
  try {
    const version = await connection.client.createVersion({
      movespec_id: current.movespec.movespec_id,
    });
    current.versions = [version, ...current.versions];
    showMoveSpec();
    byId<HTMLSelectElement>("versions").value = version.movespec_version_id;
    say(status, `Version ${version.version_number} created.`, "ok");
    return version;
  } catch (e) {
    if (e instanceof MdsApiError && e.reason === "DRAFT_INVALID") {
      const errors = (e.details as { errors?: PositionedIssue[] }).errors ?? [];
      editor.showIssues(errors);
      say(status, "No version: the draft has errors (listed below).", "error");
    } else say(status, `No version: ${errorText(e)}`, "error");
    return undefined;
  }
}

async function release() {
  if (!connection || !current?.own) return;
  const status = byId("editor-status");
  const versionId = byId<HTMLSelectElement>("versions").value;
  const version = current.versions.find((v) => v.movespec_version_id === versionId);
  try {
    current.movespec = await connection.client.releaseVersion({
      movespec_id: current.movespec.movespec_id,
      version_id: versionId,
    });
    showMoveSpec();
    byId<HTMLSelectElement>("versions").value = versionId;
    say(
      status,
      `Version ${version?.version_number ?? "?"} released: sessions run it by default.`,
      "ok",
    );
  } catch (e) {
    say(status, `Not released: ${errorText(e)}`, "error");
  }
}

/** Runs `work` with the buttons disabled, so that a double click does not run it twice. */
async function exclusive(work: () => Promise<unknown>) {
  if (busy) return;
  busy = true;
  updateButtons();
  try {
    await work();
  } finally {
    busy = false;
    updateButtons();
  }
}

byId("save").addEventListener("click", () => void exclusive(save));
byId("create-version").addEventListener("click", () => void exclusive(createVersion));
byId("release").addEventListener("click", () => void exclusive(release));
byId("conflict-load").addEventListener("click", () => void exclusive(loadLatestDraft));
byId("conflict-overwrite").addEventListener("click", () => void exclusive(overwriteDraft));

// ---- the test bench ------------------------------------------------------------------------

/**
 * The version that holds exactly the editor's text: the latest one if equal, else a new one. Says
 * what it does in `status`, and why when there is none.
 */
async function versionForRun(text: string, status: HTMLElement): Promise<string | undefined> {
  say(status, "Freezing the text into a version…");
  const versionId = await frozenVersion(text);
  if (!versionId) say(status, "Nothing to run: no version (see the editor's message).", "error");
  return versionId;
}

async function frozenVersion(text: string): Promise<string | undefined> {
  if (!current) return undefined;
  if (!current.own) return current.movespec.current_released_version_id;
  if (!(await save())) return undefined;
  const hash = await sha256Hex(text);
  const same = current.versions.find((v) => v.content_hash === hash);
  if (same) return same.movespec_version_id;
  return (await createVersion())?.movespec_version_id;
}

async function sha256Hex(text: string): Promise<string | undefined> {
  // crypto.subtle needs a secure context (https, localhost): elsewhere a new version is made.
  if (!globalThis.crypto?.subtle) return undefined;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function chosenRecording(): Promise<Recording> {
  const upload = byId<HTMLInputElement>("upload").files?.[0];
  if (upload) {
    const cacheKey = `upload:${upload.name}:${upload.size}:${upload.lastModified}`;
    const cached = recordingCache.get(cacheKey);
    if (cached) return cached;
    const recording = await readRecording(upload.name, upload);
    recordingCache.set(cacheKey, recording);
    return recording;
  }
  const id = byId<HTMLSelectElement>("recording").value;
  const sample = samples.recordings.find((r) => r.id === id);
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
  if (!connection || !current || busy) return;
  await exclusive(async () => {
    const status = byId("bench-status");
    const text = editor.text();
    const loaded = load(text);
    if (!loaded.spec) {
      say(status, "Fix the MoveSpec's errors first (listed under Problems).", "error");
      return;
    }
    // The last run's result stays on screen only while it is the last run's: a new run (failed
    // or not) replaces it.
    byId("result").hidden = true;
    try {
      say(status, "Reading the recording…");
      const recording = await chosenRecording();
      if (recording.frames.length === 0) {
        const why =
          recording.problems.length > 0 ? recording.problems.join("; ") : "the file is empty";
        say(status, `No frames in ${recording.name}: ${why}`, "error");
        return;
      }
      const versionId = await versionForRun(text, status);
      if (!versionId) return;
      const topology = topologyOf(recording.frames);
      const started = performance.now();
      const outcome = await replayThroughService(connection!.client, {
        projectId: connection!.project.project_id,
        movespecVersionId: versionId,
        frames: recording.frames,
        topology,
        onProgress: (sent) =>
          say(status, `Streaming: ${sent} of ${recording.frames.length} frames sent…`),
        onReconnect: (attempt) => say(status, reconnectingText(attempt), "error"),
      });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const { samples: signalRows } = signalSamples(loaded.spec, recording.frames, topology);
      showResult(loaded.spec, recording, outcome, signalRows);
      // Completed with no frame accepted (all refused: see the warnings) is no success.
      const fine = outcome.status === "completed" && outcome.acceptedFrames > 0;
      say(
        status,
        `${outcome.status}: ${outcome.acceptedFrames} of ${recording.frames.length} frames of ${recording.name} accepted in ${seconds} s (session ${outcome.sessionId})${fine ? "." : ": see the warnings."}`,
        fine ? "ok" : "error",
      );
    } catch (e) {
      say(status, `Run failed: ${errorText(e)}`, "error");
    }
  });
}

function showResult(
  spec: NonNullable<ReturnType<typeof load>["spec"]>,
  recording: Recording,
  outcome: ReplayOutcome,
  signalRows: ReturnType<typeof signalSamples>["samples"],
) {
  const summary = outcome.summary;
  byId("result").hidden = false;
  byId("count").textContent = String(summary?.count ?? 0);
  byId("count-label").textContent =
    (summary?.count === 1 ? "repetition" : "repetitions") +
    (summary?.counts ? ` (left ${summary.counts.left}, right ${summary.counts.right})` : "") +
    (summary?.partials ? `, ${summary.partials} partial` : "");

  const warnings: string[] = [];
  for (const event of outcome.events) {
    if (event.type === "form.violation")
      warnings.push(
        `${event.t.toFixed(2)} s${event.rep ? `, repetition ${event.rep}` : ""}: ${event.message} (${event.rule}, ${event.severity})`,
      );
    else if (event.type === "rep.partial")
      warnings.push(
        `${event.t.toFixed(2)} s: partial repetition, ${event.reason.replace("_", " ")}`,
      );
  }
  warnings.push(...outcome.notices, ...recording.problems.map((p) => `${recording.name}, ${p}`));
  byId("warnings").replaceChildren(...warnings.map((w) => h("li", {}, w)));
  if (warnings.length === 0) byId("warnings").append(h("li", { class: "ok" }, "No warnings."));

  const plot = signalPlot(
    spec,
    signalRows,
    outcome.events as unknown as Parameters<typeof signalPlot>[2],
    `${current?.movespec.name ?? "MoveSpec"} on ${recording.name}`,
  );
  const moveCursor = plotCursor(plot, signalRows);
  byId("plot").replaceChildren(plot);
  byId("plot").setAttribute(
    "aria-label",
    `Signals over time, ${summary?.count ?? 0} repetitions marked`,
  );
  showRepsTable(summary);

  const scrub = byId<HTMLInputElement>("scrub");
  scrub.max = String(recording.frames.length - 1);
  scrub.value = "0";
  const showFrame = () => {
    const frame = recording.frames[Number(scrub.value)];
    byId("scrub-time").textContent = `${frame.t.toFixed(2)} s`;
    moveCursor(frame.t);
    drawSkeleton(byId<HTMLCanvasElement>("skeleton"), frame);
  };
  scrub.oninput = showFrame;
  showFrame();
}

function showRepsTable(summary: SessionSummary | undefined) {
  const reps = summary?.reps ?? [];
  const signals = [...new Set(reps.flatMap((r) => Object.keys(r.metrics.signals)))];
  const sides = reps.some((r) => r.side && r.side !== "both");
  const head = ["#", ...(sides ? ["side"] : []), "start (s)", "end (s)", "duration (s)", "score"];
  head.push(...signals.map((s) => `${s} range`), "violations");
  const table = byId<HTMLTableElement>("reps");
  table.tHead!.replaceChildren(h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c))));
  table.tBodies[0].replaceChildren(
    ...reps.map((r) =>
      h(
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
      ),
    ),
  );
}

byId<HTMLFormElement>("bench-form").addEventListener("submit", (event) => {
  event.preventDefault();
  void run();
});
byId<HTMLSelectElement>("recording").addEventListener("change", () => {
  // Choosing a bundled recording again clears an upload, so the choice is never ambiguous.
  byId<HTMLInputElement>("upload").value = "";
});

// One key from anywhere: Ctrl+Enter (Cmd+Enter) runs, Ctrl+S saves.
// (The editor handles its own: it prevents the default, so they are not handled twice.)
document.addEventListener("keydown", (event) => {
  if (!(event.ctrlKey || event.metaKey) || !connection || event.defaultPrevented) return;
  if (event.key === "Enter") {
    event.preventDefault();
    void run();
  } else if (event.key === "s") {
    event.preventDefault();
    void exclusive(save);
  }
});

/** While the stream client tries again (the SDK's backoff: about half a minute in all). */
function reconnectingText(attempt: number): string {
  return `The connection to the service was lost: reconnecting (attempt ${attempt})… Check your connection.`;
}

// ---- the live camera -----------------------------------------------------------------------

let camera: LiveCamera | undefined;

async function toggleCamera() {
  const status = byId("camera-status");
  const button = byId<HTMLButtonElement>("camera-toggle");
  if (camera) {
    const running = camera;
    camera = undefined;
    button.disabled = true;
    say(status, "Stopping…");
    try {
      const end = await running.stop();
      const summary = end?.terminal_outcome
        ? (JSON.parse(end.terminal_outcome) as SessionSummary)
        : undefined;
      say(
        status,
        `Stopped: ${end?.status ?? "?"}, ${end?.accepted_frames_total ?? 0} frames, ${summary?.count ?? 0} repetitions.`,
        "ok",
      );
    } catch (e) {
      say(status, `Stopped, with an error: ${errorText(e)}`, "error");
    }
    button.textContent = "Start camera";
    updateButtons();
    return;
  }
  if (!connection || !current) return;
  const { client, project } = connection;
  await exclusive(async () => {
    const text = editor.text();
    if (!load(text).spec) {
      say(status, "Fix the MoveSpec's errors first (listed under Problems).", "error");
      return;
    }
    const versionId = await versionForRun(text, status);
    if (!versionId) return;
    say(status, "Starting the camera and loading the pose model (about 5 MB, once)…");
    byId("live").hidden = false;
    byId("live-count").textContent = "0";
    byId("live-phase").textContent = "";
    byId("live-events").replaceChildren();
    const events = byId("live-events");
    const note = (text: string) => {
      events.prepend(h("li", {}, text));
      while (events.children.length > 8) events.lastElementChild?.remove();
    };
    // A frame already on its way when the connection dropped still reports its stats (the
    // stream queues it for the next connection): those must not hide that it is reconnecting.
    let reconnecting = false;
    let lastStats: CameraStats | undefined;
    const showStats = (stats: CameraStats) =>
      say(
        status,
        `Live: ${stats.frames} frames sent (${stats.framesWithPose} with a pose), ${stats.framesPerSecond.toFixed(1)} frames/s, MoveNet Lightning on ${stats.backend}.`,
        "ok",
      );
    try {
      camera = await startLiveCamera({
        client,
        projectId: project.project_id,
        movespecVersionId: versionId,
        video: byId<HTMLVideoElement>("video"),
        overlay: byId<HTMLCanvasElement>("overlay"),
        onEvent: (event) => {
          if (event.type === "rep.completed") {
            byId("live-count").textContent = String(event.total);
            note(`repetition ${event.total} (score ${event.score})`);
          } else if (event.type === "phase.entered") {
            byId("live-phase").textContent = `phase: ${event.phase}`;
          } else if (event.type === "form.violation") note(event.message);
          else if (event.type === "rep.partial")
            note(`partial repetition: ${event.reason.replace("_", " ")}`);
          else if (event.type === "tracking.lost") note("tracking lost: step into view");
          else if (event.type === "hold.started") note(`holding ${event.phase}…`);
          else if (event.type === "hold.completed")
            note(`held ${event.phase} for ${event.elapsed} s`);
          else if (event.type === "hold.broken") note(`hold broken after ${event.elapsed} s`);
          events.dataset.events = String(Number(events.dataset.events ?? "0") + 1);
        },
        onNotice: (text) => note(text),
        onReconnect: (attempt) => {
          reconnecting = true;
          say(status, reconnectingText(attempt), "error");
        },
        onReady: () => {
          if (!reconnecting) return;
          reconnecting = false;
          if (lastStats) showStats(lastStats);
        },
        onFailure: (error) => {
          say(status, `Live counting stopped: ${errorText(error)}`, "error");
          note("live counting stopped");
        },
        onStats: (stats) => {
          lastStats = stats;
          if (!reconnecting) showStats(stats);
        },
      });
      byId("camera-toggle").textContent = "Stop camera";
    } catch (e) {
      const denied = e instanceof DOMException && e.name === "NotAllowedError";
      say(
        status,
        denied
          ? "The browser refused the camera: allow it for this page and try again."
          : `The camera did not start: ${errorText(e)}`,
        "error",
      );
    }
  });
}

byId("camera-toggle").addEventListener("click", () => void toggleCamera());

// ---- start ---------------------------------------------------------------------------------

/**
 * The bundled examples and recordings, or why the answer is not usable. A failed fetch throws.
 */
async function loadSamples(): Promise<Samples | string> {
  const response = await fetch("/studio/samples.json");
  if (!response.ok) return `the service answered HTTP ${response.status}`;
  // A proxy's or a server's error page can come with a 200: a JSON parser's words about its
  // first character would tell the user nothing.
  const body: unknown = await response.json().catch(() => undefined);
  const list = body as Partial<Samples> | undefined;
  if (!Array.isArray(list?.recordings) || !Array.isArray(list?.examples))
    return "the service's answer was not their list";
  return list as Samples;
}

async function start() {
  const unusable = (why: string) => {
    samples = { recordings: [], examples: [] };
    say(byId("sign-in-error"), why, "error");
  };
  try {
    const loaded = await loadSamples();
    if (typeof loaded === "string")
      unusable(
        `The bundled examples and recordings could not be loaded (${loaded}). You can still sign in and work without them.`,
      );
    else samples = loaded;
  } catch (e) {
    unusable(`The bundled examples and recordings could not be loaded: ${errorText(e)}`);
  }
  byId("new-example").replaceChildren(
    h("option", { value: "" }, "the service's template"),
    ...samples.examples.map((e) =>
      h("option", { value: e.name, selected: e.name === "squat" }, `example: ${e.name}`),
    ),
  );
  byId("recording").replaceChildren(
    ...samples.recordings.map((r) =>
      h(
        "option",
        { value: r.id },
        `${r.id}: ${r.exercise.replace(/_/g, " ")}, ${r.expected_repetitions} reps, ${r.frames} frames`,
      ),
    ),
  );
  byId("sign-in").hidden = false;
  updateButtons();
}

void start();
