import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  type AuthoringService,
  GetMoveSpecResponseSchema,
} from "@movement-detection/proto/authoring/v1";
import { withCaller as w } from "@movement-detection/shared/security";
import type { DraftOperations } from "./operations/draft-operations.js";
import type { MoveSpecOperations } from "./operations/movespec-operations.js";
import type { VersionOperations } from "./operations/version-operations.js";

/**
 * authoring.v1.AuthoringService: thin wrappers from messages to the operations. The user-facing
 * operations get the caller the forwarded access token proves (`w`: the request plus that caller).
 */
export function createAuthoringHandlers(operations: {
  movespecs: MoveSpecOperations;
  drafts: DraftOperations;
  versions: VersionOperations;
}): ServiceImpl<typeof AuthoringService> {
  const { movespecs, drafts, versions } = operations;
  return {
    createMoveSpec: (request, context) => movespecs.createMoveSpec(w(request, context)),
    getMoveSpec: async (request, context) =>
      create(GetMoveSpecResponseSchema, {
        movespec: await movespecs.getMoveSpec(w(request, context)),
      }),
    listProjectMoveSpecs: (request, context) => movespecs.listProject(w(request, context)),
    getDraft: async (request, context) => ({ draft: await drafts.getDraft(w(request, context)) }),
    replaceDraft: async (request, context) => ({
      draft: await drafts.replaceDraft(w(request, context)),
    }),
    validateDraft: (request, context) => drafts.validateDraft(w(request, context)),
    createVersion: async (request, context) => ({
      version: await versions.createVersion(w(request, context)),
    }),
    listVersions: (request, context) => versions.listVersions(w(request, context)),
    getVersion: async (request, context) => ({
      version: await versions.getVersion(w(request, context)),
    }),
    releaseVersion: async (request, context) => ({
      movespec: await versions.releaseVersion(w(request, context)),
    }),
    getReleasedSource: (request, context) => versions.getReleasedSource(w(request, context)),
    resolveVersion: (request, context) => versions.resolveVersion(w(request, context)),
    setVisibility: async (request) => ({ movespec: await movespecs.setVisibility(request) }),
    delistMoveSpec: async (request) => ({ movespec: await movespecs.delist(request) }),
    updateMoveSpec: async (request) => ({ movespec: await movespecs.update(request) }),
    archiveMoveSpec: async (request) => ({ movespec: await movespecs.archive(request) }),
    archiveProjectMoveSpecs: async (request) => ({
      archived: await movespecs.archiveProject(request),
    }),
    resyncCatalogue: async (request) => ({ marked: await movespecs.resyncCatalogue(request) }),
  };
}
