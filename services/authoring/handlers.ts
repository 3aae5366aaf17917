import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  type AuthoringService,
  GetMoveSpecResponseSchema,
} from "../../proto/gen/authoring/v1/authoring_pb.js";
import type { DraftOperations } from "./operations/draft-operations.js";
import type { MoveSpecOperations } from "./operations/movespec-operations.js";
import type { VersionOperations } from "./operations/version-operations.js";

/** authoring.v1.AuthoringService: thin wrappers from messages to the operations. */
export function createAuthoringHandlers(operations: {
  movespecs: MoveSpecOperations;
  drafts: DraftOperations;
  versions: VersionOperations;
}): ServiceImpl<typeof AuthoringService> {
  const { movespecs, drafts, versions } = operations;
  return {
    createMoveSpec: (request) => movespecs.createMoveSpec(request),
    getMoveSpec: async (request) =>
      create(GetMoveSpecResponseSchema, { movespec: await movespecs.getMoveSpec(request) }),
    getDraft: async (request) => ({ draft: await drafts.getDraft(request) }),
    replaceDraft: async (request) => ({ draft: await drafts.replaceDraft(request) }),
    validateDraft: (request) => drafts.validateDraft(request),
    createVersion: async (request) => ({ version: await versions.createVersion(request) }),
    listVersions: (request) => versions.listVersions(request),
    getVersion: async (request) => ({ version: await versions.getVersion(request) }),
    releaseVersion: async (request) => ({ movespec: await versions.releaseVersion(request) }),
    getReleasedSource: (request) => versions.getReleasedSource(request),
    resolveVersion: (request) => versions.resolveVersion(request),
    setVisibility: async (request) => ({ movespec: await movespecs.setVisibility(request) }),
    delistMoveSpec: async (request) => ({ movespec: await movespecs.delist(request) }),
    updateMoveSpec: async (request) => ({ movespec: await movespecs.update(request) }),
    archiveMoveSpec: async (request) => ({ movespec: await movespecs.archive(request) }),
    resyncCatalogue: async (request) => ({ marked: await movespecs.resyncCatalogue(request) }),
  };
}
