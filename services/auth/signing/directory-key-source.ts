import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { KeySource, SourcedKey } from "./key-source.js";
import { parsePrivateJwk } from "./signing-key.js";

/** Names the key that signs; without it, the greatest `kid` signs (UUIDv7 kids sort by time). */
export const SIGNING_KID_FILE = "signing-kid";

/**
 * Production: private JWK files (`*.json`) in a mounted secret directory. Every key in it is
 * published; the one named by the `signing-kid` file signs. Rotation is done by the operator:
 * add the new key (published), later point `signing-kid` at it, and remove the old file once its
 * tokens have expired. The directory is re-read periodically, so no restart is needed.
 */
export function createDirectoryKeySource(
  directory: string,
  options: {
    /**
     * Told once per key chosen when several keys and no `signing-kid` leave the choice to the
     * greatest kid: a key just added for a rotation then signs at once, before every verifier
     * has fetched it (docs/auth.md).
     */
    onUnnamedChoice?: (signingKid: string, keyCount: number) => void;
  } = {},
): KeySource {
  let toldAbout: string | undefined;
  return {
    kind: "directory",
    async load() {
      const names = (await readdir(directory)).filter((name) => name.endsWith(".json")).sort();
      const keys: SourcedKey["jwk"][] = [];
      const created = new Map<string, number>();
      for (const name of names) {
        const path = join(directory, name);
        try {
          const jwk = parsePrivateJwk(JSON.parse(await readFile(path, "utf8")));
          keys.push(jwk);
          created.set(jwk.kid, (await stat(path)).mtimeMs);
        } catch (error) {
          throw new Error(`signing key file ${path} ${(error as Error).message}`);
        }
      }
      if (keys.length === 0) throw new Error(`no signing key (*.json) in ${directory}`);
      const named = await readFile(join(directory, SIGNING_KID_FILE), "utf8").then(
        (text) => text.trim(),
        () => undefined,
      );
      const signingKid =
        named ??
        keys
          .map((key) => key.kid)
          .sort()
          .at(-1);
      if (!keys.some((key) => key.kid === signingKid)) {
        throw new Error(`${SIGNING_KID_FILE} names ${signingKid}, which has no key file`);
      }
      if (named === undefined && keys.length > 1 && signingKid !== toldAbout) {
        toldAbout = signingKid;
        options.onUnnamedChoice?.(signingKid as string, keys.length);
      }
      return {
        keys: keys.map((jwk) => ({
          jwk,
          state: {
            kid: jwk.kid,
            createdAt: created.get(jwk.kid) ?? 0,
            activatesAt: created.get(jwk.kid) ?? 0,
            signing: jwk.kid === signingKid,
            published: true,
          },
        })),
        nextChangeAt: Number.POSITIVE_INFINITY,
      };
    },
  };
}
