import { create } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import { expect } from "chai";
import { type AuthoringService, Visibility } from "../../proto/gen/authoring/v1/authoring_pb.js";
import { type Caller, CallerSchema } from "../../proto/gen/common/v1/caller_pb.js";
import type { AdminClients } from "../../services/admin/cli/clients.js";
import { runAdmin } from "../../services/admin/cli/run.js";
import { Code, errorInfo } from "../../services/shared/errors/service-error.js";
import { createProjectWithKey } from "../support/auth.js";
import { eventually } from "../support/eventually.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { authoringClient, catalogueClient } from "./support/api.js";

const UNKNOWN_ID = "01a20000-0000-7000-8000-000000000000";

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return errorInfo(error);
  }
  throw new Error("expected the call to fail");
}

describe("authoring.v1.AuthoringService over gRPC", function () {
  this.timeout(30_000);
  let system: TestSystem;
  let authoring: Client<typeof AuthoringService>;
  let mine: Caller;
  let theirs: Caller;
  const anonymous = create(CallerSchema, {});

  before(async () => {
    system = await startTestSystem();
    authoring = authoringClient(system.services.authoring.grpcUrl);
    const [a, b] = await Promise.all([createProjectWithKey(system), createProjectWithKey(system)]);
    mine = create(CallerSchema, {
      projectId: a.projectId,
      organizationId: a.organizationId,
      credentialId: a.apiKeyId,
    });
    theirs = create(CallerSchema, { projectId: b.projectId, organizationId: b.organizationId });
  });
  after(async () => {
    await system?.stop();
  });

  async function moveSpecWithVersions(visibility: Visibility, count: number, release?: number) {
    const { movespec } = await authoring.createMoveSpec({
      caller: mine,
      projectId: mine.projectId,
      name: "resolve me",
      visibility,
    });
    const id = movespec?.movespecId as string;
    const versions = [];
    for (let i = 0; i < count; i += 1) {
      versions.push((await authoring.createVersion({ caller: mine, movespecId: id })).version);
    }
    if (release !== undefined) {
      await authoring.releaseVersion({
        caller: mine,
        movespecId: id,
        movespecVersionId: versions[release - 1]?.movespecVersionId as string,
      });
    }
    return { id, versions };
  }

  describe("ResolveVersion", () => {
    it("resolves a MoveSpec to its released version", async () => {
      const { id, versions } = await moveSpecWithVersions(Visibility.PRIVATE, 2, 1);
      const resolved = await authoring.resolveVersion({ caller: mine, movespecId: id });
      expect(resolved.movespecVersionId).to.equal(versions[0]?.movespecVersionId);
      expect(resolved).to.include({
        movespecId: id,
        versionNumber: 1,
        projectId: mine.projectId,
        organizationId: mine.organizationId,
        contentHash: versions[0]?.contentHash,
        yamlSource: versions[0]?.yamlSource,
      });
    });

    it("lets an explicit version win, if it belongs to the MoveSpec", async () => {
      const { id, versions } = await moveSpecWithVersions(Visibility.PRIVATE, 2, 1);
      const v2 = versions[1]?.movespecVersionId as string;
      const both = await authoring.resolveVersion({
        caller: mine,
        movespecId: id,
        movespecVersionId: v2,
      });
      expect(both.versionNumber).to.equal(2);
      const alone = await authoring.resolveVersion({ caller: mine, movespecVersionId: v2 });
      expect(alone.movespecId).to.equal(id);
      const other = await moveSpecWithVersions(Visibility.PRIVATE, 1);
      const mismatch = await rejection(
        authoring.resolveVersion({ caller: mine, movespecId: other.id, movespecVersionId: v2 }),
      );
      expect(mismatch).to.include({
        code: Code.InvalidArgument,
        reason: "VERSION_NOT_IN_MOVESPEC",
      });
    });

    it("needs an id, and a released version when only the MoveSpec is named", async () => {
      const none = await rejection(authoring.resolveVersion({ caller: mine }));
      expect(none).to.include({ code: Code.InvalidArgument, reason: "FIELD_REQUIRED" });
      const { id } = await moveSpecWithVersions(Visibility.PRIVATE, 1);
      const unreleased = await rejection(
        authoring.resolveVersion({ caller: mine, movespecId: id }),
      );
      expect(unreleased).to.include({
        code: Code.FailedPrecondition,
        reason: "NO_RELEASED_VERSION",
      });
    });

    it("resolves public MoveSpecs for anyone and hides private ones", async () => {
      const open = await moveSpecWithVersions(Visibility.PUBLIC, 1, 1);
      for (const caller of [theirs, anonymous]) {
        expect(
          (await authoring.resolveVersion({ caller, movespecId: open.id })).versionNumber,
        ).to.equal(1);
      }
      const hidden = await moveSpecWithVersions(Visibility.PRIVATE, 1, 1);
      const vid = hidden.versions[0]?.movespecVersionId as string;
      for (const caller of [theirs, anonymous]) {
        expect(
          await rejection(authoring.resolveVersion({ caller, movespecId: hidden.id })),
        ).to.include({
          code: Code.NotFound,
          reason: "MOVESPEC_NOT_FOUND",
        });
        expect(
          await rejection(authoring.resolveVersion({ caller, movespecVersionId: vid })),
        ).to.include({
          code: Code.NotFound,
          reason: "VERSION_NOT_FOUND",
        });
        // A hidden version named with a visible MoveSpec is "not found", not "not in MoveSpec".
        expect(
          await rejection(
            authoring.resolveVersion({ caller, movespecId: open.id, movespecVersionId: vid }),
          ),
        ).to.include({ code: Code.NotFound, reason: "VERSION_NOT_FOUND" });
      }
      expect(
        await rejection(authoring.resolveVersion({ caller: mine, movespecId: UNKNOWN_ID })),
      ).to.include({
        reason: "MOVESPEC_NOT_FOUND",
      });
      expect(
        await rejection(authoring.resolveVersion({ caller: mine, movespecVersionId: "x" })),
      ).to.include({
        reason: "VERSION_NOT_FOUND",
      });
    });
  });

  describe("admin movespecs commands", () => {
    /** Runs `admin movespecs ...` through the admin tool's framework, with this system's clients. */
    async function admin(...argv: string[]) {
      let stdout = "";
      let stderr = "";
      const clients = {
        authoring,
        catalogue: catalogueClient(system.services.catalogue.grpcUrl),
      } as unknown as AdminClients;
      const code = await runAdmin(
        ["movespecs", ...argv, "--json"],
        { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) },
        () => clients,
        { authServiceUrl: "", catalogueServiceUrl: "", authoringServiceUrl: "", timeoutMs: 5000 },
      );
      return { code, json: stdout ? JSON.parse(stdout) : undefined, stderr };
    }

    it("changes visibility, delists, renames, archives and stars", async () => {
      const { id } = await moveSpecWithVersions(Visibility.PRIVATE, 0);
      const shown = await admin("set-visibility", id, "--visibility", "public");
      expect(shown.code, shown.stderr).to.equal(0);
      expect(shown.json).to.include({ movespec_id: id, visibility: "public" });
      expect((await admin("update", id, "--name", "renamed by admin")).json.name).to.equal(
        "renamed by admin",
      );
      // The catalogue learns about the MoveSpec from authoring's relay, a moment later.
      let starred = await admin("star", id, "--org", mine.organizationId);
      await eventually(async () => {
        starred = await admin("star", id, "--org", mine.organizationId);
        return starred.code === 0;
      });
      expect(starred.json).to.deep.equal({ star_count: 1, starred: true });
      expect((await admin("unstar", id, "--org", mine.organizationId)).json.star_count).to.equal(0);
      expect((await admin("delist", id, "--reason", "spam")).json.visibility).to.equal("delisted");
      expect((await admin("archive", id)).json.archived_at).to.be.a("string");
      expect((await admin("resync-catalogue", "--id", id)).json).to.deep.equal({ marked: 1 });
      const wrong = await admin("set-visibility", id, "--visibility", "delisted");
      expect(wrong.code).to.equal(2);
      const missing = await admin("archive", UNKNOWN_ID);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.include("MOVESPEC_NOT_FOUND");
    });
  });

  describe("admin operations", () => {
    it("changes visibility, delists and archives (idempotently)", async () => {
      const { id } = await moveSpecWithVersions(Visibility.PRIVATE, 0);
      const shown = await authoring.setVisibility({
        movespecId: id,
        visibility: Visibility.PUBLIC,
        actor: "t",
      });
      expect(shown.movespec?.visibility).to.equal(Visibility.PUBLIC);
      expect(
        (await authoring.getMoveSpec({ caller: anonymous, movespecId: id })).movespec?.movespecId,
      ).to.equal(id);
      const refused = await rejection(
        authoring.setVisibility({ movespecId: id, visibility: Visibility.DELISTED, actor: "t" }),
      );
      expect(refused).to.include({ code: Code.InvalidArgument, reason: "FIELD_INVALID" });
      await authoring.delistMoveSpec({ movespecId: id, actor: "t", reason: "test" });
      expect(
        await rejection(authoring.getMoveSpec({ caller: anonymous, movespecId: id })),
      ).to.include({
        reason: "MOVESPEC_NOT_FOUND",
      });
      const first = await authoring.archiveMoveSpec({ movespecId: id, actor: "t" });
      const second = await authoring.archiveMoveSpec({ movespecId: id, actor: "t" });
      expect(second.movespec?.archivedAt).to.deep.equal(first.movespec?.archivedAt);
      expect(
        await rejection(authoring.archiveMoveSpec({ movespecId: UNKNOWN_ID, actor: "t" })),
      ).to.include({
        reason: "MOVESPEC_NOT_FOUND",
      });
    });
  });
});
