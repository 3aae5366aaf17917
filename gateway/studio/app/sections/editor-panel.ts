/**
 * The editor panel: the open MoveSpec's title and facts, Save (If-Match), Create version, the
 * version picker and Release, the conflict box after a refused save, and the Problems list (each
 * problem a button to its line).
 */
import { MdsApiError, type Version } from "@movement-detection/sdk";
import { errorText, h, say } from "../dom.js";
import {
  defaultVersionId,
  isDirty,
  type OpenMoveSpec,
  readDraft,
  releasedVersion,
  sha256Hex,
  versionHolding,
  writeDraft,
} from "../draft.js";
import type { PositionedIssue } from "../editor.js";
import { elements, type Studio } from "../studio.js";

export function mountEditorPanel(studio: Studio) {
  const { store, editor } = studio;
  const ui = elements({
    panel: ["editor-panel", HTMLElement],
    title: ["spec-title", HTMLElement],
    meta: ["spec-meta", HTMLElement],
    copyId: ["copy-id", HTMLButtonElement],
    status: ["editor-status", HTMLElement],
    save: ["save", HTMLButtonElement],
    createVersion: ["create-version", HTMLButtonElement],
    versions: ["versions", HTMLSelectElement],
    release: ["release", HTMLButtonElement],
    conflict: ["conflict", HTMLElement],
    conflictLoad: ["conflict-load", HTMLButtonElement],
    conflictOverwrite: ["conflict-overwrite", HTMLButtonElement],
    issues: ["issues", HTMLUListElement],
  });
  const open = () => store.get().open;
  const client = () => store.get().connection?.client;

  function showMoveSpec(current: OpenMoveSpec | undefined, keepChoice: boolean) {
    ui.copyId.hidden = !current;
    ui.panel.dataset.movespecId = current?.movespec.movespec_id ?? "";
    if (!current) return;
    const { movespec, versions } = current;
    ui.title.textContent = movespec.name;
    const released = releasedVersion(current);
    ui.meta.textContent = [
      current.own ? movespec.visibility : "another project's, public",
      released ? `released: version ${released.version_number}` : "no released version",
      `${versions.length} version${versions.length === 1 ? "" : "s"}`,
    ].join(" · ");
    ui.copyId.title = movespec.movespec_id;
    const chosen = keepChoice ? ui.versions.value : "";
    ui.versions.replaceChildren(
      ...versions.map((v) =>
        h(
          "option",
          { value: v.movespec_version_id },
          `version ${v.version_number}${v.movespec_version_id === movespec.current_released_version_id ? " (released)" : ""}`,
        ),
      ),
    );
    ui.versions.value =
      chosen && versions.some((v) => v.movespec_version_id === chosen)
        ? chosen
        : (defaultVersionId(current) ?? "");
  }

  function updateButtons() {
    const { busy } = store.get();
    const current = open();
    const own = !!current?.own;
    const dirty = isDirty(current, editor.text());
    ui.save.disabled = busy || !own || !dirty;
    ui.createVersion.disabled = busy || !own;
    const versions = current?.versions.length ?? 0;
    ui.versions.disabled = busy || !own || versions === 0;
    ui.release.disabled = busy || !own || versions === 0;
    ui.save.textContent = dirty ? "Save draft*" : "Save draft";
  }

  store.select(
    (s) => s.open,
    (current) => showMoveSpec(current, false),
  );
  store.select(
    (s) => s.openRevision,
    () => showMoveSpec(open(), true),
  );
  store.select((s) => [s.busy, s.open, s.openRevision] as const, updateButtons);
  // `select` compares by identity: the tuple above is new each time, so buttons follow every change.

  function listIssues(issues: readonly PositionedIssue[]) {
    ui.issues.replaceChildren(
      ...issues.map((issue) => {
        const where = `line ${issue.line ?? "?"}, column ${issue.column ?? "?"}`;
        const go = h("button", { type: "button", class: "link", title: "Go to this line" }, where);
        go.addEventListener("click", () => editor.goTo(issue.line ?? 1, issue.column ?? 1));
        return h(
          "li",
          { class: issue.severity },
          h("strong", {}, issue.severity === "error" ? "Error" : "Warning"),
          " ",
          issue.line === undefined ? where : go,
          `: ${issue.message}`,
          issue.code ? h("span", { class: "meta" }, ` ${issue.code}`) : undefined,
        );
      }),
    );
    if (issues.length === 0)
      ui.issues.append(
        open()
          ? h("li", { class: "ok" }, "No problems.")
          : h("li", { class: "hint" }, "Open or create a MoveSpec to edit it here."),
      );
  }

  async function openMoveSpec(id: string, options: { confirmed?: boolean } = {}) {
    const connection = store.get().connection;
    if (!connection) return;
    const { client: api, project } = connection;
    if (!options.confirmed && studio.unsaved()) {
      if (!window.confirm("The open draft has unsaved changes. Open another MoveSpec anyway?"))
        return;
    }
    say(ui.status, "Opening…");
    try {
      const movespec = await api.getMoveSpec({ movespec_id: id });
      const own = movespec.project_id === project.project_id;
      let text: string;
      let etag: string | undefined;
      if (own) {
        const draft = await readDraft(api, id);
        text = draft.data.yaml_source;
        etag = draft.etag;
      } else {
        text = (await api.getReleasedSource({ movespec_id: id })).yaml_source;
      }
      const versions = (await api.listVersions({ movespec_id: id, query: { limit: 100 } })).items;
      ui.conflict.hidden = true;
      // The result of another MoveSpec's run is not this one's.
      store.set({ open: { movespec, own, etag, saved: text, versions }, run: undefined });
      editor.setText(text);
      editor.setReadOnly(!own);
      say(
        ui.status,
        own
          ? "Draft loaded."
          : "Another project's public MoveSpec: its released version, read-only.",
        "ok",
      );
      ui.panel.focus();
    } catch (e) {
      say(ui.status, `Could not open it: ${errorText(e)}`, "error");
    }
  }

  async function save(): Promise<boolean> {
    const api = client();
    const current = open();
    if (!api || !current?.own) return false;
    const text = editor.text();
    if (text === current.saved) return true;
    try {
      const outcome = await writeDraft(api, current, text);
      studio.touch();
      if (outcome === "not applied") {
        say(
          ui.status,
          "Not saved: the connection was lost before the service had your text. Save again.",
          "error",
        );
        return false;
      }
      if (outcome === "unknown") {
        say(
          ui.status,
          "Not known to be saved: the connection was lost before the service answered. Check your connection and save again (that save finds out whether this one arrived).",
          "error",
        );
        return false;
      }
      ui.conflict.hidden = true;
    } catch (e) {
      if (e instanceof MdsApiError && e.reason === "ETAG_MISMATCH") {
        say(ui.status, "Not saved: the draft was changed elsewhere since you opened it.", "error");
        // A decision only the user can make: the two ways out are offered where the focus is.
        ui.conflict.hidden = false;
        ui.conflictLoad.focus();
      } else say(ui.status, `Not saved: ${errorText(e)}`, "error");
      return false;
    }
    void studio.refreshMine();
    try {
      // The service's own verdict on what it now holds (the markers as you type are the same
      // loader, run here; this is the validate route).
      const verdict = await api.validateDraft({ movespec_id: current.movespec.movespec_id });
      editor.showIssues([...verdict.errors, ...verdict.warnings] as PositionedIssue[]);
      say(
        ui.status,
        verdict.ok
          ? `Saved. The service finds it valid${verdict.warnings.length ? ` (${verdict.warnings.length} warning(s))` : ""}.`
          : `Saved, with ${verdict.errors.length} error(s): fix them before creating a version.`,
        verdict.ok ? "ok" : "error",
      );
    } catch (e) {
      // Saved all the same: "Not saved" here would send the user to save again for nothing.
      say(
        ui.status,
        `Saved, but the service's check of it did not come back: ${errorText(e)}`,
        "error",
      );
    }
    return true;
  }

  /**
   * After a refused save (412): the draft as it is now replaces the editor's text as one edit, so
   * that the user's text is one undo away (and Save, with the new ETag, would then overwrite).
   */
  async function loadLatestDraft() {
    const api = client();
    const current = open();
    if (!api || !current?.own) return;
    try {
      const draft = await readDraft(api, current.movespec.movespec_id);
      if (open() !== current) return;
      const mine = editor.text();
      current.etag = draft.etag;
      current.saved = draft.data.yaml_source;
      current.unconfirmed = undefined;
      editor.replaceText(draft.data.yaml_source);
      studio.touch();
      ui.conflict.hidden = true;
      say(
        ui.status,
        mine === draft.data.yaml_source
          ? "Loaded the latest draft: it is the same as your text."
          : "Loaded the latest draft. Your text is one undo away (Ctrl+Z).",
        "ok",
      );
      editor.view.focus();
    } catch (e) {
      say(ui.status, `Could not load the latest draft: ${errorText(e)}`, "error");
    }
  }

  /** After a refused save (412): saves the editor's text over the draft as it is now. */
  async function overwriteDraft() {
    const api = client();
    const current = open();
    if (!api || !current?.own) return;
    try {
      const draft = await readDraft(api, current.movespec.movespec_id);
      if (open() !== current) return;
      // Only the ETag: whatever changed since is what the user chose to overwrite. A change made
      // after this read is refused again, and asked about again.
      current.etag = draft.etag;
    } catch (e) {
      say(ui.status, `Not saved: ${errorText(e)}`, "error");
      return;
    }
    if (await save()) editor.view.focus();
  }

  /**
   * A new version of the saved draft; or, when a version already holds exactly this text (its
   * content hash), that one, said so: the button never makes a duplicate (the API would: it
   * freezes whatever it is asked to, contract "MoveSpecs").
   */
  async function createVersion(options: { reuse: boolean }): Promise<Version | undefined> {
    const api = client();
    const current = open();
    if (!api || !current?.own) return undefined;
    if (!(await save())) return undefined;
    if (options.reuse) {
      const same = versionHolding(current.versions, await sha256Hex(editor.text()));
      if (same) {
        ui.versions.value = same.movespec_version_id;
        say(
          ui.status,
          `No new version: version ${same.version_number} already holds this text.`,
          "ok",
        );
        return same;
      }
    }
    try {
      const version = await api.createVersion({ movespec_id: current.movespec.movespec_id });
      current.versions = [version, ...current.versions];
      studio.touch();
      // Chosen, so that Release releases it: the one just made is what the user means next.
      ui.versions.value = version.movespec_version_id;
      say(ui.status, `Version ${version.version_number} created.`, "ok");
      return version;
    } catch (e) {
      if (e instanceof MdsApiError && e.reason === "DRAFT_INVALID") {
        const errors = (e.details as { errors?: PositionedIssue[] }).errors ?? [];
        editor.showIssues(errors);
        say(ui.status, "No version: the draft has errors (listed below).", "error");
      } else say(ui.status, `No version: ${errorText(e)}`, "error");
      return undefined;
    }
  }

  async function release() {
    const api = client();
    const current = open();
    if (!api || !current?.own) return;
    const versionId = ui.versions.value;
    const version = current.versions.find((v) => v.movespec_version_id === versionId);
    try {
      current.movespec = await api.releaseVersion({
        movespec_id: current.movespec.movespec_id,
        version_id: versionId,
      });
      studio.touch();
      ui.versions.value = versionId;
      void studio.refreshMine();
      say(
        ui.status,
        `Version ${version?.version_number ?? "?"} released: sessions run it by default.`,
        "ok",
      );
    } catch (e) {
      say(ui.status, `Not released: ${errorText(e)}`, "error");
    }
  }

  /** The version that holds exactly `text`: one that does if any, else a new one. */
  async function versionForRun(text: string, status: HTMLElement): Promise<string | undefined> {
    const current = open();
    if (!current) return undefined;
    say(status, "Freezing the text into a version…");
    let versionId: string | undefined;
    if (!current.own) versionId = current.movespec.current_released_version_id;
    else if (await save()) {
      const same = versionHolding(current.versions, await sha256Hex(text));
      versionId =
        same?.movespec_version_id ?? (await createVersion({ reuse: false }))?.movespec_version_id;
    }
    if (!versionId) say(status, "Nothing to run: no version (see the editor's message).", "error");
    return versionId;
  }

  ui.save.addEventListener("click", () => void studio.exclusive(save));
  ui.createVersion.addEventListener(
    "click",
    () => void studio.exclusive(() => createVersion({ reuse: true })),
  );
  ui.release.addEventListener("click", () => void studio.exclusive(release));
  ui.conflictLoad.addEventListener("click", () => void studio.exclusive(loadLatestDraft));
  ui.conflictOverwrite.addEventListener("click", () => void studio.exclusive(overwriteDraft));
  ui.copyId.addEventListener("click", () => {
    const id = open()?.movespec.movespec_id;
    if (!id) return;
    // The id stays out of the page's text (a UUID says nothing to a reader); it is one click away.
    navigator.clipboard?.writeText(id).then(
      () => say(ui.status, "Copied the MoveSpec's id.", "ok"),
      () => say(ui.status, `The MoveSpec's id: ${id}`, "info"),
    );
  });

  return { openMoveSpec, save, versionForRun, listIssues, updateButtons };
}
