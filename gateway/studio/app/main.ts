/**
 * MoveSpec Studio (docs/studio.md): sign in, find or create a MoveSpec, edit its YAML with
 * markers as you type, save (If-Match), freeze versions and release one, run a recording through
 * a real replay session and explore it on an interactive plot, count live from the camera.
 *
 * Plain DOM, in sections (sections/), over one store (store.ts, state.ts); the draft's rules in
 * a model of their own (draft.ts); the plot a component that owns its scales (plot/). The API
 * through the SDK (sdk/), as any client.
 */

import { isDirty } from "./draft.js";
import { createYamlEditor } from "./editor.js";
import { mountBench } from "./sections/bench.js";
import { mountCamera } from "./sections/camera-panel.js";
import { mountEditorPanel } from "./sections/editor-panel.js";
import { mountLabelling } from "./sections/labelling.js";
import { mountLibrary } from "./sections/library.js";
import { mountSignIn } from "./sections/sign-in.js";
import { mountVideo } from "./sections/video-panel.js";
import { INITIAL_STATE } from "./state.js";
import { createStore } from "./store.js";
import type { Studio } from "./studio.js";
import { elements } from "./studio.js";

const store = createStore(INITIAL_STATE);
const late = {
  onChange: () => {},
  onIssues: (_: readonly unknown[]) => {},
  save: () => {},
  run: () => {},
};
const editor = createYamlEditor({
  parent: elements({ editor: ["editor", HTMLElement] }).editor,
  labelledBy: "editor-label",
  onChange: () => late.onChange(),
  onIssues: (issues) => late.onIssues(issues),
  keys: { save: () => late.save(), run: () => late.run() },
  active: () => !!store.get().open,
});
editor.setReadOnly(true);

const studio: Studio = {
  store,
  editor,
  async exclusive(work) {
    if (store.get().busy) return;
    store.set({ busy: true });
    try {
      await work();
    } finally {
      store.set({ busy: false });
    }
  },
  unsaved: () => isDirty(store.get().open, editor.text()),
  touch: () => store.set((s) => ({ openRevision: s.openRevision + 1 })),
  openMoveSpec: async () => {},
  save: async () => false,
  versionForRun: async () => undefined,
  refreshMine: async () => {},
  run: async () => {},
  plotAxis: () => undefined,
};

const signIn = mountSignIn(studio);
const panel = mountEditorPanel(studio);
const library = mountLibrary(studio);
const bench = mountBench(studio);
mountCamera(studio);
mountVideo(studio);
mountLabelling(studio);
Object.assign(studio, {
  run: bench.run,
  plotAxis: bench.plotAxis,
  openMoveSpec: panel.openMoveSpec,
  save: panel.save,
  versionForRun: panel.versionForRun,
  refreshMine: library.refreshMine,
});
late.onChange = panel.updateButtons;
late.onIssues = panel.listIssues as (issues: readonly unknown[]) => void;
late.save = () => void studio.exclusive(panel.save);
late.run = () => void bench.run();
panel.listIssues([]);

// One key from anywhere: Ctrl+Enter (Cmd+Enter) runs, Ctrl+S saves.
// (The editor handles its own: it prevents the default, so they are not handled twice.)
document.addEventListener("keydown", (event) => {
  if (!(event.ctrlKey || event.metaKey) || !store.get().connection || event.defaultPrevented)
    return;
  if (event.key === "Enter") {
    event.preventDefault();
    void bench.run();
  } else if (event.key === "s") {
    event.preventDefault();
    void studio.exclusive(panel.save);
  }
});

void signIn.start();
