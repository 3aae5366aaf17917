/**
 * The library: the project's own MoveSpecs as the service lists them (GET
 * /api/projects/{id}/movespecs: the same in every browser signed in to the project), with a
 * search; creating one; opening one by id; and the public catalogue, each entry with what a
 * reader chooses by (description, project, release, stars) and "Copy to my project".
 */
import type { MoveSpec, ProjectMoveSpec } from "@movement-detection/sdk";
import { errorText, h, say } from "../dom.js";
import { elements, type Studio } from "../studio.js";

/** The longest name the service takes (services/authoring/domain/limits.ts). */
const NAME_MAX = 120;

export function mountLibrary(studio: Studio) {
  const { store } = studio;
  const ui = elements({
    mineForm: ["mine-form", HTMLFormElement],
    mineQ: ["mine-q", HTMLInputElement],
    mineSort: ["mine-sort", HTMLSelectElement],
    mine: ["mine", HTMLUListElement],
    mineMore: ["mine-more", HTMLElement],
    createForm: ["create-form", HTMLFormElement],
    newName: ["new-name", HTMLInputElement],
    newExample: ["new-example", HTMLSelectElement],
    newVisibility: ["new-visibility", HTMLSelectElement],
    openForm: ["open-form", HTMLFormElement],
    openId: ["open-id", HTMLInputElement],
    searchForm: ["search-form", HTMLFormElement],
    searchQ: ["search-q", HTMLInputElement],
    searchSort: ["search-sort", HTMLSelectElement],
    catalogue: ["catalogue", HTMLUListElement],
    status: ["editor-status", HTMLElement],
  });

  const when = (iso: string) =>
    new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

  function mineEntry(item: ProjectMoveSpec): HTMLLIElement {
    const open = h("button", { type: "button", class: "link" }, item.name);
    open.addEventListener("click", () => void studio.openMoveSpec(item.movespec_id));
    const facts = [
      item.visibility,
      item.released_version_number ? `v${item.released_version_number} released` : "not released",
      `edited ${when(item.draft_updated_at)}`,
      item.archived_at ? "archived" : undefined,
    ].filter(Boolean);
    return h(
      "li",
      { "data-movespec-id": item.movespec_id },
      open,
      h("span", { class: "meta block" }, facts.join(" · ")),
    );
  }

  const mineTurn = turns();
  async function refreshMine() {
    const connection = store.get().connection;
    if (!connection) return;
    const current = mineTurn();
    const q = ui.mineQ.value.trim();
    try {
      const page = await connection.client.listProjectMoveSpecs({
        project_id: connection.project.project_id,
        query: { q: q || undefined, sort: ui.mineSort.value as "recent" | "name", limit: 50 },
      });
      if (!current()) return;
      ui.mine.replaceChildren(...page.items.map(mineEntry));
      if (page.items.length === 0)
        ui.mine.append(
          h("li", { class: "hint" }, q ? "None of yours matches." : "None yet: create one below."),
        );
      ui.mineMore.textContent = page.has_more
        ? `${page.items.length} of ${page.total}: find the others by name.`
        : "";
    } catch (e) {
      if (!current()) return;
      ui.mine.replaceChildren(h("li", { class: "error" }, `Listing failed: ${errorText(e)}`));
    }
  }

  async function copyToMine(entry: MoveSpec) {
    const connection = store.get().connection;
    if (!connection) return;
    if (studio.unsaved() && !window.confirm("The open draft has unsaved changes. Copy anyway?"))
      return;
    try {
      const source = await connection.client.getReleasedSource({ movespec_id: entry.movespec_id });
      const name = `${entry.name} (copy)`.slice(0, NAME_MAX);
      const copy = await connection.client.createMoveSpec({
        body: {
          name,
          project_id: connection.project.project_id,
          ...(entry.description ? { description: entry.description } : {}),
        },
      });
      await connection.client.replaceDraft({
        movespec_id: copy.movespec_id,
        body: { yaml_source: source.yaml_source },
      });
      await studio.openMoveSpec(copy.movespec_id, { confirmed: true });
      say(
        ui.status,
        `Copied version ${source.version_number} of ${entry.name} into ${name}, a private draft of your project.`,
        "ok",
      );
      await refreshMine();
    } catch (e) {
      say(ui.status, `Could not copy it: ${errorText(e)}`, "error");
    }
  }

  /** Version numbers by version id: a version is immutable, so one answer holds for the page's life. */
  const versionNumbers = new Map<string, Promise<number | undefined>>();

  /**
   * "released", then "v3 released" once the version is read: a catalogue entry is the spec's
   * MoveSpec resource, which names the released version by id only (one GET per entry shown).
   */
  function releasedLabel(movespecId: string, versionId: string): HTMLSpanElement {
    const label = h("span", { class: "released" }, "released");
    let number = versionNumbers.get(versionId);
    if (!number) {
      const client = store.get().connection?.client;
      number = client
        ? client
            .getVersion({ movespec_id: movespecId, version_id: versionId })
            .then((version) => version.version_number)
            .catch(() => {
              versionNumbers.delete(versionId);
              return undefined;
            })
        : Promise.resolve(undefined);
      versionNumbers.set(versionId, number);
    }
    void number.then((n) => {
      if (n !== undefined) label.textContent = `v${n} released`;
    });
    return label;
  }

  function catalogueEntry(item: MoveSpec): HTMLLIElement {
    const own = item.project_id === store.get().connection?.project.project_id;
    const open = h("button", { type: "button", class: "link" }, item.name);
    open.addEventListener("click", () => void studio.openMoveSpec(item.movespec_id));
    const facts = [
      own
        ? "yours"
        : h("span", { title: item.project_id }, `project ${item.project_id.slice(0, 8)}`),
      item.current_released_version_id
        ? releasedLabel(item.movespec_id, item.current_released_version_id)
        : "not released",
      `★ ${item.star_count ?? 0}`,
      `updated ${when(item.updated_at)}`,
    ];
    const meta = h("span", { class: "meta block" });
    for (const [i, fact] of facts.entries()) meta.append(...(i > 0 ? [" · "] : []), fact);
    let copy: HTMLButtonElement | undefined;
    if (!own && item.current_released_version_id) {
      copy = h(
        "button",
        { type: "button", class: "small", "aria-label": `Copy ${item.name} to my project` },
        "Copy to my project",
      );
      copy.addEventListener("click", () => void studio.exclusive(() => copyToMine(item)));
    }
    return h(
      "li",
      { "data-movespec-id": item.movespec_id },
      open,
      item.description ? h("span", { class: "block description" }, item.description) : undefined,
      meta,
      copy,
    );
  }

  const searchTurn = turns();
  async function search() {
    const connection = store.get().connection;
    if (!connection) return;
    const current = searchTurn();
    try {
      const page = await connection.client.listMoveSpecs({
        query: {
          q: ui.searchQ.value.trim() || undefined,
          sort: ui.searchSort.value as "recent" | "stars" | "name",
          limit: 20,
        },
      });
      if (!current()) return;
      ui.catalogue.replaceChildren(...page.items.map(catalogueEntry));
      if (page.items.length === 0)
        ui.catalogue.append(h("li", { class: "hint" }, "No public MoveSpec matches."));
      else if (page.has_more)
        ui.catalogue.append(h("li", { class: "hint" }, `${page.total} in all: refine the search.`));
    } catch (e) {
      if (!current()) return;
      ui.catalogue.replaceChildren(h("li", { class: "error" }, `Search failed: ${errorText(e)}`));
    }
  }

  ui.mineForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void refreshMine();
  });
  ui.mineSort.addEventListener("change", () => void refreshMine());
  ui.searchForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void search();
  });
  ui.openForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void studio.openMoveSpec(ui.openId.value.trim());
  });
  ui.createForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const connection = store.get().connection;
    if (!connection) return;
    const name = ui.newName.value.trim();
    const example = store.get().samples.examples.find((e) => e.name === ui.newExample.value);
    const visibility = ui.newVisibility.value as "private" | "public";
    // Asked before anything is created: declining must leave nothing behind.
    if (
      studio.unsaved() &&
      !window.confirm("The open draft has unsaved changes. Create another anyway?")
    )
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
      await studio.openMoveSpec(movespec.movespec_id, { confirmed: true });
      say(ui.status, `Created ${name}${example ? ` from the ${example.name} example` : ""}.`, "ok");
      await refreshMine();
    } catch (e) {
      say(ui.status, `Could not create it: ${errorText(e)}`, "error");
    }
  });

  store.select(
    (s) => s.samples,
    (samples) =>
      ui.newExample.replaceChildren(
        h("option", { value: "" }, "the service's template"),
        ...samples.examples.map((e) =>
          h("option", { value: e.name, selected: e.name === "squat" }, `example: ${e.name}`),
        ),
      ),
  );
  store.select(
    (s) => s.connection,
    (connection) => {
      if (!connection) return;
      void refreshMine();
      void search();
    },
  );

  return { refreshMine, search };
}

/**
 * Answers may come back out of order (a listing at sign-in, then a search typed at once): each
 * call takes a turn, and its answer is shown only while no later turn was taken.
 */
function turns(): () => () => boolean {
  let latest = 0;
  return () => {
    const turn = ++latest;
    return () => turn === latest;
  };
}
