/**
 * The open MoveSpec and its draft, as a model apart from the page: what is saved, what is dirty,
 * which version holds the editor's text, which version the picker shows, and how a save whose
 * answer was lost is settled. No DOM here: test/studio/draft.test.ts runs it in Node.
 */
import {
  MdsApiError,
  type MdsClient,
  MdsNetworkError,
  type MoveSpec,
  type Version,
} from "@movement-detection/sdk";

export interface OpenMoveSpec {
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
  /** Newest first. */
  versions: Version[];
}

/** True when `text` has changes not saved to the open draft. */
export function isDirty(open: OpenMoveSpec | undefined, text: string): boolean {
  return !!open?.own && text !== open.saved;
}

export function releasedVersion(open: OpenMoveSpec): Version | undefined {
  return open.versions.find(
    (v) => v.movespec_version_id === open.movespec.current_released_version_id,
  );
}

/**
 * The version the picker shows: the released one (what sessions run), else the newest. A version
 * just created is shown by choice (createVersion selects it), never by default.
 */
export function defaultVersionId(open: OpenMoveSpec): string | undefined {
  return (releasedVersion(open) ?? open.versions[0])?.movespec_version_id;
}

/** The newest version whose content is `hash` (the SHA-256 hex of a text), if any. */
export function versionHolding(
  versions: readonly Version[],
  hash: string | undefined,
): Version | undefined {
  return hash === undefined ? undefined : versions.find((v) => v.content_hash === hash);
}

/** SHA-256 (lowercase hex) of UTF-8 text, as the service's `content_hash`; undefined without WebCrypto. */
export async function sha256Hex(text: string): Promise<string | undefined> {
  // crypto.subtle needs a secure context (https, localhost): elsewhere nothing can be matched.
  if (!globalThis.crypto?.subtle) return undefined;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function readDraft(client: MdsClient, id: string) {
  return client.request("getDraft", { movespec_id: id });
}

/**
 * Writes `text` over the open draft with its ETag. A PUT whose answer was lost may have been
 * applied all the same (the SDK does not repeat it: a repeat would be refused with 412), so the
 * draft is read back: holding `text`, it was saved ("saved"); else "not applied"; unreadable,
 * "unknown". Either way the text is remembered, so that a later 412 caused by that very save is
 * recognised and does not send the user to the conflict box for their own text. Other errors
 * (a 412 for a real change elsewhere among them) are thrown.
 */
export async function writeDraft(
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
