import { AuthService } from "@movement-detection/proto/auth/v1";
import { Code, errorInfo } from "@movement-detection/shared/errors";
import { newId } from "@movement-detection/shared/ids";
import {
  createTokenVerifier,
  DEFAULT_TOKEN_ISSUER,
  TokenError,
} from "@movement-detection/shared/tokens";
import { expect } from "chai";
import { decodeJwt, decodeProtectedHeader, type JSONWebKeySet } from "jose";
import {
  authAdminClient,
  authHeader,
  createProjectWithKey,
  mintAccessToken,
  mintRuntimeToken,
  type TestProject,
} from "../support/auth.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { workloadClient } from "../support/workloads.js";

describe("signing keys: embedded default, rotation without downtime (black box)", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let project: TestProject;

  const jwks = async (): Promise<JSONWebKeySet> =>
    JSON.parse((await authAdminClient(system).getJwks({})).jwksJson) as JSONWebKeySet;
  const readProject = (token: string) =>
    fetch(`${system.gatewayUrl}/api/projects/${project.projectId}`, { headers: authHeader(token) });

  before(async () => {
    system = await startTestSystem();
    project = await createProjectWithKey(system, { name: "rotation" });
  });
  after(async () => system?.stop());

  it("first start generated one Ed25519 key; the JWKS holds only its public half", async () => {
    const set = await jwks();
    expect(set.keys).to.have.length(1);
    const [key] = set.keys;
    expect(key).to.include({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    expect(key).to.not.have.property("d");
    expect(key.kid).to.be.a("string");
  });

  it("old tokens keep working, new tokens use the new key, the gateway learns it without a restart", async () => {
    const before = await mintAccessToken(system, { apiKey: project.apiKey });
    const oldKid = decodeProtectedHeader(before).kid;
    expect((await readProject(before)).status).to.equal(200); // the gateway has cached the old set

    const { signingKey } = await authAdminClient(system).rotateSigningKey({
      activateAfterSeconds: 0,
    });
    expect(signingKey?.kid).to.not.equal(oldKid);
    const kids = (await jwks()).keys.map((key) => key.kid);
    expect(kids).to.include.members([oldKid, signingKey?.kid]);

    const after = await mintAccessToken(system, { apiKey: project.apiKey });
    expect(decodeProtectedHeader(after).kid).to.equal(signingKey?.kid);
    const afterRead = await readProject(after);
    expect(afterRead.status, await afterRead.text()).to.equal(200);
    expect((await readProject(before)).status).to.equal(200);

    const { signingKeys } = await authAdminClient(system).listSigningKeys({});
    const old = signingKeys.find((key) => key.kid === oldKid);
    const expiry = decodeJwt(before).exp as number;
    expect(old?.signing).to.equal(false);
    expect(old?.retiredAt).to.be.a("string");
    // Published at least until the last token the old key signed has expired.
    expect(Date.parse(old?.verifyUntil as string) / 1000).to.be.greaterThan(expiry);
    expect(signingKeys.find((key) => key.kid === signingKey?.kid)?.signing).to.equal(true);
  });

  it("a key is published before it signs (activation delay)", async () => {
    const current = decodeProtectedHeader(
      await mintAccessToken(system, { apiKey: project.apiKey }),
    ).kid;
    const { signingKey } = await authAdminClient(system).rotateSigningKey({
      activateAfterSeconds: 3600,
    });
    expect(signingKey?.signing).to.equal(false);
    expect((await jwks()).keys.map((key) => key.kid)).to.include(signingKey?.kid);
    const token = await mintAccessToken(system, { apiKey: project.apiKey });
    expect(decodeProtectedHeader(token).kid).to.equal(current);
  });

  describe("runtime tokens (as the detection service will verify them)", () => {
    const verifier = () => createTokenVerifier({ issuer: DEFAULT_TOKEN_ISSUER, fetchJwks: jwks });

    it("MintRuntimeToken signs a token verifyRuntimeToken accepts", async () => {
      const sessionId = newId();
      const minted = await mintRuntimeToken(system, {
        sessionId,
        organizationId: project.organizationId,
        projectId: project.projectId,
        ttlSeconds: 600,
      });
      const claims = await verifier().verifyRuntimeToken(minted.runtimeToken);
      expect(claims).to.include({
        sessionId,
        projectId: project.projectId,
        organizationId: project.organizationId,
      });
      expect(claims.exp).to.equal(Date.parse(minted.expiresAt) / 1000);
      expect(claims.exp - claims.iat).to.equal(600);
    });

    it("a runtime token is never an access token, nor the reverse", async () => {
      const runtime = await mintRuntimeToken(system, {
        sessionId: newId(),
        organizationId: project.organizationId,
        projectId: project.projectId,
      });
      const access = await mintAccessToken(system, { apiKey: project.apiKey });
      const v = verifier();
      await v.verifyAccessToken(runtime.runtimeToken).then(
        () => expect.fail("accepted a runtime token as an access token"),
        (error) =>
          expect(error).to.be.instanceOf(TokenError).with.property("reason", "TOKEN_INVALID"),
      );
      await v.verifyRuntimeToken(access).then(
        () => expect.fail("accepted an access token as a runtime token"),
        (error) =>
          expect(error).to.be.instanceOf(TokenError).with.property("reason", "TOKEN_INVALID"),
      );
      expect((await readProject(runtime.runtimeToken)).status).to.equal(401);
    });

    it("refuses bad ids and lifetimes beyond the maximum", async () => {
      // Only the detection service mints runtime tokens.
      const client = workloadClient(system, AuthService, "detection");
      await client
        .mintRuntimeToken({
          sessionId: "s1",
          organizationId: project.organizationId,
          projectId: project.projectId,
        })
        .then(
          () => expect.fail("accepted a non-UUID session id"),
          (e: Error) => expect(e.message).to.match(/session_id/),
        );
      await client
        .mintRuntimeToken({
          sessionId: newId(),
          organizationId: project.organizationId,
          projectId: project.projectId,
          ttlSeconds: 10 * 24 * 3600,
        })
        .then(
          () => expect.fail("accepted a 10-day token"),
          (e: Error) => expect(e.message).to.match(/ttl_seconds/),
        );
    });

    it("says it checked the project: it exists in that organization and is open", async () => {
      const minted = await mintRuntimeToken(system, {
        sessionId: newId(),
        organizationId: project.organizationId,
        projectId: project.projectId,
      });
      expect(minted.projectChecked).to.equal(true);
    });

    it("refuses a project that does not exist, or not in that organization (NOT_FOUND)", async () => {
      const other = await createProjectWithKey(system, { name: "rotation elsewhere" });
      const client = workloadClient(system, AuthService, "detection");
      for (const [what, ids] of [
        ["an unknown project", { organizationId: project.organizationId, projectId: newId() }],
        [
          "another organization's project",
          { organizationId: project.organizationId, projectId: other.projectId },
        ],
      ] as const) {
        const refused = await client.mintRuntimeToken({ sessionId: newId(), ...ids }).then(
          () => expect.fail(`minted for ${what}`),
          (error: unknown) => errorInfo(error),
        );
        expect(refused, what).to.include({ code: Code.NotFound, reason: "PROJECT_NOT_FOUND" });
      }
    });

    it("refuses an archived project (FAILED_PRECONDITION PROJECT_ARCHIVED)", async () => {
      const archived = await createProjectWithKey(system, { name: "rotation archived" });
      const ids = { organizationId: archived.organizationId, projectId: archived.projectId };
      expect((await mintRuntimeToken(system, { sessionId: newId(), ...ids })).runtimeToken).to.be.a(
        "string",
      );
      await authAdminClient(system).archiveProject({ projectId: archived.projectId });
      const refused = await mintRuntimeToken(system, { sessionId: newId(), ...ids }).then(
        () => expect.fail("minted for an archived project"),
        (error: unknown) => errorInfo(error),
      );
      expect(refused).to.include({ code: Code.FailedPrecondition, reason: "PROJECT_ARCHIVED" });
      expect(refused.metadata).to.include({ project_id: archived.projectId });
    });
  });
});
