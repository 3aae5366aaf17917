import type { Client } from "@connectrpc/connect";
import { type AuthoringService, Visibility } from "@movement-detection/proto/authoring/v1";
import { Code } from "@movement-detection/shared/errors";
import { expect } from "chai";
import type { AdminClients } from "../../services/admin/cli/clients.js";
import { runAdmin } from "../../services/admin/cli/run.js";
import { loadAdminConfig } from "../../services/admin/config.js";
import { AUDIT_LIMITS } from "../../services/authoring/operations/movespec-operations.js";
import { authAdminClient, createProjectWithToken } from "../support/auth.js";
import { eventually } from "../support/eventually.js";
import { rejection } from "../support/rejection.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { authoringClient, catalogueClient } from "./support/api.js";

const UNKNOWN_ID = "01a20000-0000-7000-8000-000000000000";
const UNKNOWN_ORGANIZATION_ID = "01a20000-0000-7000-8000-0000000000aa";

describe("authoring.v1.AuthoringService over gRPC", function () {
  this.timeout(30_000);
  let system: TestSystem;
  /** The admin tool's identity (operator). */
  let authoring: Client<typeof AuthoringService>;
  /** As the gateway forwarding my project's token, and forwarding no user. */
  let owner: Client<typeof AuthoringService>;
  let anonymous: Client<typeof AuthoringService>;
  /** As detection admitting a session for my user, for another project's user, for nobody. */
  let resolveMine: Client<typeof AuthoringService>;
  let resolveTheirs: Client<typeof AuthoringService>;
  let resolveNobody: Client<typeof AuthoringService>;
  let mine: { projectId: string; organizationId: string };

  before(async () => {
    system = await startTestSystem();
    const [a, b] = await Promise.all([
      createProjectWithToken(system),
      createProjectWithToken(system),
    ]);
    mine = { projectId: a.projectId, organizationId: a.organizationId };
    authoring = authoringClient(system);
    owner = authoringClient(system, { workload: "gateway", user: a.token });
    anonymous = authoringClient(system, { workload: "gateway" });
    resolveMine = authoringClient(system, { workload: "detection", user: a.token });
    resolveTheirs = authoringClient(system, { workload: "detection", user: b.token });
    resolveNobody = authoringClient(system, { workload: "detection" });
  });
  after(async () => {
    await system?.stop();
  });

  async function moveSpecWithVersions(visibility: Visibility, count: number, release?: number) {
    const { movespec } = await owner.createMoveSpec({
      projectId: mine.projectId,
      name: "resolve me",
      visibility,
    });
    const id = movespec?.movespecId as string;
    const versions = [];
    for (let i = 0; i < count; i += 1) {
      versions.push((await owner.createVersion({ movespecId: id })).version);
    }
    if (release !== undefined) {
      await owner.releaseVersion({
        movespecId: id,
        movespecVersionId: versions[release - 1]?.movespecVersionId as string,
      });
    }
    return { id, versions };
  }

  describe("ResolveVersion", () => {
    it("resolves a MoveSpec to its released version", async () => {
      const { id, versions } = await moveSpecWithVersions(Visibility.PRIVATE, 2, 1);
      const resolved = await resolveMine.resolveVersion({ movespecId: id });
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
      const both = await resolveMine.resolveVersion({ movespecId: id, movespecVersionId: v2 });
      expect(both.versionNumber).to.equal(2);
      const alone = await resolveMine.resolveVersion({ movespecVersionId: v2 });
      expect(alone.movespecId).to.equal(id);
      const other = await moveSpecWithVersions(Visibility.PRIVATE, 1);
      const mismatch = await rejection(
        resolveMine.resolveVersion({ movespecId: other.id, movespecVersionId: v2 }),
      );
      expect(mismatch).to.include({
        code: Code.InvalidArgument,
        reason: "VERSION_NOT_IN_MOVESPEC",
      });
    });

    it("needs an id, and a released version when only the MoveSpec is named", async () => {
      const none = await rejection(resolveMine.resolveVersion({}));
      expect(none).to.include({ code: Code.InvalidArgument, reason: "FIELD_REQUIRED" });
      const { id } = await moveSpecWithVersions(Visibility.PRIVATE, 1);
      const unreleased = await rejection(resolveMine.resolveVersion({ movespecId: id }));
      expect(unreleased).to.include({
        code: Code.FailedPrecondition,
        reason: "NO_RELEASED_VERSION",
      });
    });

    it("resolves public MoveSpecs for anyone and hides private ones", async () => {
      const open = await moveSpecWithVersions(Visibility.PUBLIC, 1, 1);
      expect((await resolveTheirs.resolveVersion({ movespecId: open.id })).versionNumber).to.equal(
        1,
      );
      // A session is always some user's: no user, no resolution (even of a public MoveSpec).
      expect(await rejection(resolveNobody.resolveVersion({ movespecId: open.id }))).to.include({
        code: Code.Unauthenticated,
        reason: "TOKEN_MISSING",
      });
      const hidden = await moveSpecWithVersions(Visibility.PRIVATE, 1, 1);
      const vid = hidden.versions[0]?.movespecVersionId as string;
      for (const resolver of [resolveTheirs]) {
        expect(await rejection(resolver.resolveVersion({ movespecId: hidden.id }))).to.include({
          code: Code.NotFound,
          reason: "MOVESPEC_NOT_FOUND",
        });
        expect(await rejection(resolver.resolveVersion({ movespecVersionId: vid }))).to.include({
          code: Code.NotFound,
          reason: "VERSION_NOT_FOUND",
        });
        // A hidden version named with a visible MoveSpec is "not found", not "not in MoveSpec".
        expect(
          await rejection(resolver.resolveVersion({ movespecId: open.id, movespecVersionId: vid })),
        ).to.include({ code: Code.NotFound, reason: "VERSION_NOT_FOUND" });
      }
      expect(await rejection(resolveMine.resolveVersion({ movespecId: UNKNOWN_ID }))).to.include({
        reason: "MOVESPEC_NOT_FOUND",
      });
      expect(await rejection(resolveMine.resolveVersion({ movespecVersionId: "x" }))).to.include({
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
        auth: authAdminClient(system),
        authoring,
        catalogue: catalogueClient(system),
      } as unknown as AdminClients;
      const code = await runAdmin(
        ["movespecs", ...argv, "--json"],
        { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) },
        () => clients,
        loadAdminConfig({}),
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
      // The service checks text itself: internal callers do not pass the gateway's schema.
      const bell = await admin("update", id, "--description", "ring\u0007ring");
      expect(bell.code).to.equal(1);
      expect(bell.stderr).to.include("description holds a control character");
      const layout = await admin("update", id, "--description", "line one\n\tline two");
      expect(layout.json.description).to.equal("line one\n\tline two");
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

    it("stars only for an organization auth knows", async () => {
      const { id } = await moveSpecWithVersions(Visibility.PUBLIC, 0);
      await eventually(
        async () => (await admin("star", id, "--org", mine.organizationId)).code === 0,
      );
      expect((await admin("unstar", id, "--org", mine.organizationId)).json.star_count).to.equal(0);
      for (const command of ["star", "unstar"]) {
        const stranger = await admin(command, id, "--org", UNKNOWN_ORGANIZATION_ID);
        expect(stranger.code, command).to.equal(1);
        expect(JSON.parse(stranger.stderr), command).to.include({
          code: "not_found",
          reason: "ORGANIZATION_NOT_FOUND",
        });
      }
      const { starCounts } = await catalogueClient(system).getStarCounts({ movespecIds: [id] });
      expect(starCounts[id]).to.equal(0);
    });

    it("resyncs only a MoveSpec that exists: junk is a usage error, an unknown id not found", async () => {
      for (const junk of ["junk", ""]) {
        const refused = await admin("resync-catalogue", "--id", junk);
        expect(refused.code, junk).to.equal(2);
        expect(JSON.parse(refused.stderr), junk).to.include({ code: "usage" });
      }
      const unknown = await admin("resync-catalogue", "--id", UNKNOWN_ID);
      expect(unknown.code).to.equal(1);
      expect(JSON.parse(unknown.stderr)).to.include({
        code: "not_found",
        reason: "MOVESPEC_NOT_FOUND",
      });
      // The service says so too, to callers other than the admin tool.
      for (const movespecId of ["junk", UNKNOWN_ID]) {
        expect(await rejection(authoring.resyncCatalogue({ movespecId }))).to.include({
          code: Code.NotFound,
          reason: "MOVESPEC_NOT_FOUND",
        });
      }
    });

    it("archives a project's MoveSpecs only for a project id: anything else is FIELD_INVALID", async () => {
      for (const projectId of ["junk", ""]) {
        expect(
          await rejection(authoring.archiveProjectMoveSpecs({ projectId })),
          projectId,
        ).to.include({
          code: Code.InvalidArgument,
          reason: "FIELD_INVALID",
        });
      }
      // A time outside google.protobuf.Timestamp's range (it used to be stored as 1970-01-01).
      expect(
        await rejection(
          authoring.archiveProjectMoveSpecs({
            projectId: UNKNOWN_ID,
            archivedAt: { seconds: 2n ** 63n - 1n, nanos: 0 } as never,
          }),
        ),
      ).to.include({ code: Code.InvalidArgument, reason: "FIELD_INVALID" });
      // A project that has no MoveSpecs (or none left to archive): nothing to do, not an error.
      expect(
        (await authoring.archiveProjectMoveSpecs({ projectId: UNKNOWN_ID })).archived,
      ).to.equal(0);
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
      expect((await anonymous.getMoveSpec({ movespecId: id })).movespec?.movespecId).to.equal(id);
      const refused = await rejection(
        authoring.setVisibility({ movespecId: id, visibility: Visibility.DELISTED, actor: "t" }),
      );
      expect(refused).to.include({ code: Code.InvalidArgument, reason: "FIELD_INVALID" });
      await authoring.delistMoveSpec({ movespecId: id, actor: "t", reason: "test" });
      expect(await rejection(anonymous.getMoveSpec({ movespecId: id }))).to.include({
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

    it("bounds the operator's actor (200 characters) and a delisting's reason (1,000, required)", async () => {
      const { id } = await moveSpecWithVersions(Visibility.PUBLIC, 0);
      const { actorChars, reasonChars } = AUDIT_LIMITS;
      const delist = (actor: string, reason: string) =>
        authoring.delistMoveSpec({ movespecId: id, actor, reason });
      expect(await rejection(delist("a".repeat(actorChars + 1), "r"))).to.include({
        code: Code.InvalidArgument,
        reason: "FIELD_INVALID",
      });
      expect(await rejection(delist("t", "r".repeat(reasonChars + 1)))).to.include({
        code: Code.InvalidArgument,
        reason: "FIELD_INVALID",
      });
      expect(await rejection(delist("t", " "))).to.include({ reason: "FIELD_REQUIRED" });
      // Refused before anything changed: still listed.
      expect((await anonymous.getMoveSpec({ movespecId: id })).movespec?.movespecId).to.equal(id);
      await delist("a".repeat(actorChars), "r".repeat(reasonChars));
      expect(await rejection(anonymous.getMoveSpec({ movespecId: id }))).to.include({
        reason: "MOVESPEC_NOT_FOUND",
      });
      expect(
        await rejection(
          authoring.archiveMoveSpec({ movespecId: id, actor: "a".repeat(actorChars + 1) }),
        ),
      ).to.include({ reason: "FIELD_INVALID" });
    });
  });
});
