import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import {
  AuthService,
  type MintRuntimeTokenRequest,
  ProjectSchema,
} from "@movement-detection/proto/auth/v1";
import { errorInfo, serviceError } from "@movement-detection/shared/errors";
import { newId } from "@movement-detection/shared/ids";
import { createLogger } from "@movement-detection/shared/logging";
import type { Caller } from "@movement-detection/shared/security";
import { expect } from "chai";
import { loadDetectionConfig } from "../../../services/detection/config.js";
import { createRuntimeTokenMinter } from "../../../services/detection/operations/runtime-token-minter.js";

/**
 * The minter against an auth service built in memory with connect's router transport (the real
 * client and server code, no network): both auth versions, the one that checks the project when
 * it mints (`project_checked`) and one from before that field.
 */
describe("detection: a new session's runtime token is also its archive check", () => {
  const caller: Caller = {
    organizationId: newId(),
    projectId: newId(),
    scopes: ["sessions:write"],
    credentialId: newId(),
    accessToken: "user-token",
  };
  const config = loadDetectionConfig({});
  const logger = createLogger({ service: "detection-test", level: "silent" });

  interface FakeAuth {
    checksProject: boolean;
    archived?: boolean;
    mintFails?: ConnectError;
  }

  function minterAgainst(auth: FakeAuth) {
    const calls = { mint: [] as MintRuntimeTokenRequest[], getProject: [] as (string | null)[] };
    const transport = createRouterTransport(({ service }) => {
      service(AuthService, {
        mintRuntimeToken(request) {
          calls.mint.push(request);
          if (auth.mintFails) throw auth.mintFails;
          if (auth.checksProject && auth.archived) {
            throw serviceError(Code.FailedPrecondition, "PROJECT_ARCHIVED", "project archived");
          }
          return {
            runtimeToken: `token-for-${request.sessionId}`,
            expiresAt: "2030-01-02T03:04:05.000Z",
            projectChecked: auth.checksProject,
          };
        },
        getProject(request, context) {
          calls.getProject.push(context.requestHeader.get("authorization"));
          return {
            project: create(ProjectSchema, {
              projectId: request.projectId,
              archivedAt: auth.archived ? "2026-01-01T00:00:00.000Z" : undefined,
            }),
          };
        },
      });
    });
    const minter = createRuntimeTokenMinter({
      config,
      auth: createClient(AuthService, transport),
      logger,
    });
    return { minter, calls };
  }

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail("minted"),
      (error: unknown) => errorInfo(error),
    );

  it("one call to an auth that checks the project: the token, no GetProject", async () => {
    const { minter, calls } = minterAgainst({ checksProject: true });
    const sessionId = newId();
    const minted = await minter.mint(caller, sessionId);
    expect(minted.runtimeToken).to.equal(`token-for-${sessionId}`);
    expect(Number(minted.expiresAt?.seconds) * 1000).to.equal(Date.parse("2030-01-02T03:04:05Z"));
    expect(calls.getProject).to.have.length(0);
    expect(calls.mint).to.have.length(1);
    expect(calls.mint[0]).to.include({
      sessionId,
      organizationId: caller.organizationId,
      projectId: caller.projectId,
    });
    // The session's whole life: attach window plus maximum duration, within auth's maximum.
    expect(calls.mint[0].ttlSeconds).to.equal(
      Math.min(
        Math.ceil((config.limits.attachTimeoutMs + config.limits.maxDurationMs) / 1000),
        config.tokens.runtimeTokenMaxTtlSeconds,
      ),
    );
  });

  it("an archived project: 409 PROJECT_ARCHIVED with the project id", async () => {
    const { minter } = minterAgainst({ checksProject: true, archived: true });
    const refused = await refusal(minter.mint(caller, newId()));
    expect(refused).to.include({ code: Code.FailedPrecondition, reason: "PROJECT_ARCHIVED" });
    expect(refused.metadata).to.deep.equal({ project_id: caller.projectId });
  });

  it("an older auth (no project_checked): asks GetProject on behalf of the user", async () => {
    const open = minterAgainst({ checksProject: false });
    expect((await open.minter.mint(caller, newId())).runtimeToken).to.match(/^token-for-/);
    expect(open.calls.getProject).to.deep.equal(["Bearer user-token"]);

    const archived = minterAgainst({ checksProject: false, archived: true });
    const refused = await refusal(archived.minter.mint(caller, newId()));
    expect(refused).to.include({ code: Code.FailedPrecondition, reason: "PROJECT_ARCHIVED" });
    expect(archived.calls.getProject).to.have.length(1);
  });

  it("a project auth does not know passes through as NOT_FOUND", async () => {
    const { minter } = minterAgainst({
      checksProject: true,
      mintFails: serviceError(Code.NotFound, "PROJECT_NOT_FOUND", "project not found"),
    });
    expect(await refusal(minter.mint(caller, newId()))).to.include({
      code: Code.NotFound,
      reason: "PROJECT_NOT_FOUND",
    });
  });

  it("auth failing otherwise: 503 DEPENDENCY_UNAVAILABLE, the cause not shown", async () => {
    const { minter } = minterAgainst({
      checksProject: true,
      mintFails: new ConnectError("signing key file unreadable: /secret/path", Code.Internal),
    });
    const refused = await refusal(minter.mint(caller, newId()));
    expect(refused).to.include({ code: Code.Unavailable, reason: "DEPENDENCY_UNAVAILABLE" });
    expect(refused.message).to.not.include("/secret/path");
  });
});
