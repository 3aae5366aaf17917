import type { YamlEditor } from "./editor.js";
import type { AppState } from "./state.js";
import type { Store } from "./store.js";

/**
 * What the sections share: the store, the editor, and the few operations one section starts and
 * another owns (the library opens a MoveSpec in the editor panel; the bench and the camera freeze
 * the editor's text into a version). main.ts wires them; no section imports another.
 */
export interface Studio {
  readonly store: Store<AppState>;
  readonly editor: YamlEditor;
  /** Runs `work` with the buttons disabled, so that a double click does not run it twice. */
  exclusive(work: () => Promise<unknown>): Promise<void>;
  /** True when the open draft has changes not saved yet. */
  unsaved(): boolean;
  /** Tells the sections the open MoveSpec changed inside (saved, versioned, released). */
  touch(): void;
  openMoveSpec(id: string, options?: { confirmed?: boolean }): Promise<void>;
  /** Saves the draft if it changed; false when it could not. */
  save(): Promise<boolean>;
  /** The version holding exactly `text` (made if none does), saying what it does in `status`. */
  versionForRun(text: string, status: HTMLElement): Promise<string | undefined>;
  /** Where the plot's time axis is on the screen (client x of its window's ends), if shown. */
  plotAxis(): { left: number; right: number } | undefined;
  /** Runs the chosen recording through a session (the bench's Run). */
  run(): Promise<void>;
  /** Lists the project's MoveSpecs again (after one was created, renamed by a copy, ...). */
  refreshMine(): Promise<void>;
}

type ElementSpec = Record<string, readonly [id: string, kind: abstract new () => HTMLElement]>;

/**
 * The elements a section uses, by id and kind, looked up once when the section is mounted: a
 * missing or different element fails at start, loudly, not at the first click.
 */
export function elements<const T extends ElementSpec>(
  spec: T,
): { [K in keyof T]: InstanceType<T[K][1]> } {
  const out: Record<string, HTMLElement> = {};
  for (const [key, [id, kind]] of Object.entries(spec)) {
    const element = document.getElementById(id);
    if (!(element instanceof kind)) throw new Error(`the page has no ${kind.name} #${id}`);
    out[key] = element;
  }
  return out as { [K in keyof T]: InstanceType<T[K][1]> };
}
