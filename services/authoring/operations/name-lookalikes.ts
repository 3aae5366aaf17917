import { AuthoringReason, Code, serviceError } from "@movement-detection/shared/errors";
import { confusableSkeleton, skeletonVersion } from "@movement-detection/shared/text";
import type { MoveSpecStore, NameSkeletonFields } from "../store/movespec-store.js";

/** What a MoveSpec stores with its name, to be found by the names that look like it. */
export function nameSkeletonFields(name: string): NameSkeletonFields {
  return { name_skeleton: confusableSkeleton(name), name_skeleton_version: skeletonVersion() };
}

/** What the start-up backfill gives the public MoveSpecs (service.ts). */
export const CURRENT_SKELETONS = {
  of: confusableSkeleton,
  get version() {
    return skeletonVersion();
  },
};

/**
 * A public name must not pass for another project's public name: the same confusable skeleton
 * (UTS #39) with other characters is refused, 409 NAME_CONFUSABLE, naming the entry it looks
 * like. The same characters are not refused: two projects may both publish "Squat" (the catalogue
 * shows each one's project), and refusing them would let whoever publishes first own a common
 * word. A look-alike made of other characters has no honest use the plain spelling does not
 * serve, and is what slips past search and a reader's eye; so it is refused at once rather than
 * flagged for an operator, and its author can publish the plain spelling.
 * A project's own names are never compared (it cannot impersonate itself), nor private ones;
 * and a name another project publishes with the same characters is never refused because some
 * third project also publishes a look-alike of it (else a project publishing "COMBO" and its
 * Cyrillic double "СОМВО" would keep everyone else from publishing "COMBO").
 */
export async function refuseLookalike(
  movespecs: Pick<MoveSpecStore, "findPublicLookalike">,
  projectId: string,
  name: string,
): Promise<void> {
  const other = await movespecs.findPublicLookalike(confusableSkeleton(name), projectId, name);
  if (other) {
    throw serviceError(
      Code.AlreadyExists,
      AuthoringReason.nameConfusable,
      `name looks like "${other.name}", the public MoveSpec ${other._id} of another project: write it with the same characters, or choose another name`,
      { field: "name", confusable_with: { movespec_id: other._id, name: other.name } },
    );
  }
}
