/**
 * Signing in and out, and the bundled samples the page offers (optional: the page works without
 * them and says so).
 */
import { MdsApiError } from "@movement-detection/sdk";
import { signIn } from "../connection.js";
import { errorText, say } from "../dom.js";
import type { Samples } from "../state.js";
import { elements, type Studio } from "../studio.js";

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

export function mountSignIn(studio: Studio) {
  const { store } = studio;
  const ui = elements({
    card: ["sign-in", HTMLElement],
    form: ["sign-in-form", HTMLFormElement],
    credential: ["credential", HTMLInputElement],
    error: ["sign-in-error", HTMLElement],
    workspace: ["workspace", HTMLElement],
    signOut: ["sign-out", HTMLButtonElement],
    who: ["who", HTMLElement],
  });

  ui.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    ui.error.textContent = "";
    let connection: Awaited<ReturnType<typeof signIn>>;
    try {
      connection = await signIn(ui.credential.value);
    } catch (e) {
      ui.error.textContent =
        e instanceof MdsApiError && e.reason === "CREDENTIAL_INVALID"
          ? "That key is not valid (unknown, revoked or mistyped)."
          : `Could not sign in: ${errorText(e)}`;
      return;
    }
    ui.credential.value = "";
    ui.card.hidden = true;
    ui.workspace.hidden = false;
    ui.signOut.hidden = false;
    // The project's name; its id (a UUID says nothing to a reader) on hover.
    ui.who.textContent = `Project ${connection.project.name}`;
    ui.who.title = `project id ${connection.project.project_id}`;
    store.set({ connection });
    // The first thing to do: open or create a MoveSpec ("New MoveSpec" is a closed <details>:
    // its field cannot take the focus, its summary can).
    (document.querySelector<HTMLElement>("#new-movespec > summary") ?? ui.workspace).focus();
  });

  ui.signOut.addEventListener("click", () => {
    if (studio.unsaved() && !window.confirm("The open draft has unsaved changes. Sign out anyway?"))
      return;
    // Dropping the client drops the key and the token: nothing else holds them. Nothing is
    // open any more, so the reload below does not ask again.
    store.set({ connection: undefined, open: undefined });
    window.location.reload();
  });

  // Reload, close or navigate away with unsaved changes: the browser asks first.
  window.addEventListener("beforeunload", (event) => {
    if (!studio.unsaved()) return;
    event.preventDefault();
    event.returnValue = "";
  });

  async function start() {
    const unusable = (why: string) => say(ui.error, why, "error");
    try {
      const loaded = await loadSamples();
      if (typeof loaded === "string")
        unusable(
          `The bundled examples and recordings could not be loaded (${loaded}). You can still sign in and work without them.`,
        );
      else store.set({ samples: loaded });
    } catch (e) {
      unusable(`The bundled examples and recordings could not be loaded: ${errorText(e)}`);
    }
    ui.card.hidden = false;
  }
  return { start };
}
