import { AuthService } from "@movement-detection/proto/auth/v1";
import { newId } from "@movement-detection/shared/ids";
import { createLogger } from "@movement-detection/shared/logging";
import { expect } from "chai";
import { decodeJwt } from "jose";
import { MongoClient } from "mongodb";
import { createAccounts } from "../../services/auth/operations/accounts.js";
import {
  bootstrapDevelopment,
  DEV_CREDENTIALS_MESSAGE,
} from "../../services/auth/operations/dev-bootstrap.js";
import { createCredentialsStore } from "../../services/auth/store/credentials-store.js";
import { createOrganizationsStore } from "../../services/auth/store/organizations-store.js";
import { createProjectsStore } from "../../services/auth/store/projects-store.js";
import { createTenant, exampleYaml, publishMoveSpec } from "../detection/support/session-api.js";
import {
  authAdminClient,
  authHeader,
  createProjectWithKey,
  createServiceAccount,
  mintTokenResponse,
  type TestProject,
} from "../support/auth.js";
import { median } from "../support/statistics.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { workloadClient } from "../support/workloads.js";

interface ErrorBody {
  error: { code: string; message: string; retryable: boolean; details: Record<string, unknown> };
}

describe("POST /api/auth/access-tokens (black box)", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let project: TestProject;

  const mint = async (body: unknown) => {
    const response = await mintTokenResponse(system, body);
    return { response, body: (await response.json()) as Record<string, unknown> & ErrorBody };
  };
  /** A new tenant with a released squat MoveSpec, and how it opens a session of it. */
  const tenantWithSquat = async () => {
    const tenant = await createTenant(system);
    const spec = await publishMoveSpec(tenant, exampleYaml("squat"));
    const open = () =>
      tenant.call("POST", "/api/detection/sessions", {
        project_id: tenant.projectId,
        movespec_id: spec.movespecId,
      });
    return { tenant, open };
  };
  const expectError = async (body: unknown, status: number, reason: string) => {
    const result = await mint(body);
    expect(result.response.status, JSON.stringify(result.body)).to.equal(status);
    expect(result.body.error.details.reason).to.equal(reason);
    return result.body;
  };

  before(async () => {
    system = await startTestSystem({
      devBootstrap: true,
      // A minute: an archive that the token paths did not see at once would show, however slow
      // the machine (the default is a second).
      serviceEnv: {
        auth: {
          AUTH_FAILURE_LIMIT: "25",
          AUTH_PROJECT_CACHE_MS: "60000",
          AUTH_CREDENTIAL_CACHE_MS: "60000",
        },
      },
    });
    project = await createProjectWithKey(system, { name: "exchange" });
  });
  after(async () => system?.stop());

  describe("credential forms", () => {
    it("api_key alone: the spec's exact response, never cached", async () => {
      const { response, body } = await mint({ api_key: project.apiKey });
      expect(response.status).to.equal(200);
      expect(response.headers.get("cache-control")).to.equal("no-store");
      expect(Object.keys(body).sort()).to.deep.equal([
        "access_token",
        "expires_in_seconds",
        "organization_id",
        "project_id",
        "token_type",
      ]);
      expect(body.token_type).to.equal("Bearer");
      expect(body.expires_in_seconds).to.equal(900);
      expect(body.organization_id).to.equal(project.organizationId);
      expect(body.project_id).to.equal(project.projectId);
      const claims = decodeJwt(body.access_token as string);
      expect(claims.exp! - claims.iat!).to.equal(900);
      expect(claims.jti).to.be.a("string");
      expect(claims.sub).to.equal(project.apiKeyId);
      expect(claims.scope).to.equal(project.scopes.join(" "));
    });

    it("api_key_id + api_key_secret (legacy pair)", async () => {
      const { response, body } = await mint({
        api_key_id: project.apiKeyId,
        api_key_secret: project.apiKey,
      });
      expect(response.status).to.equal(200);
      expect(body.project_id).to.equal(project.projectId);
    });

    it("service_account_id + service_account_secret, and the token works", async () => {
      const account = await createServiceAccount(system, {
        projectId: project.projectId,
        scopes: ["sessions:write"],
      });
      expect(account.secret).to.match(/^mss_[A-Za-z0-9_-]{43}$/);
      const { response, body } = await mint({
        service_account_id: account.serviceAccountId,
        service_account_secret: account.secret,
      });
      expect(response.status).to.equal(200);
      expect(decodeJwt(body.access_token as string).scope).to.equal("sessions:write");
      const read = await fetch(`${system.gatewayUrl}/api/projects/${project.projectId}`, {
        headers: authHeader(body.access_token as string),
      });
      expect(read.status).to.equal(200);
    });

    it("a service-account secret is not an api_key, nor the reverse", async () => {
      const account = await createServiceAccount(system, { projectId: project.projectId });
      await expectError({ api_key: account.secret }, 401, "CREDENTIAL_INVALID");
      await expectError(
        { service_account_id: project.apiKeyId, service_account_secret: project.apiKey },
        401,
        "CREDENTIAL_INVALID",
      );
    });

    it("API key secrets carry the msk_ prefix", () => {
      expect(project.apiKey).to.match(/^msk_[A-Za-z0-9_-]{43}$/);
    });

    const malformed: [string, unknown, string, string][] = [
      ["no body", undefined, "FIELD_REQUIRED", "api_key"],
      ["an empty object", {}, "FIELD_REQUIRED", "api_key"],
      ["api_key_id alone", { api_key_id: newId() }, "FIELD_REQUIRED", "api_key_secret"],
      ["api_key_secret alone", { api_key_secret: "msk_x" }, "FIELD_REQUIRED", "api_key_id"],
      [
        "service_account_secret alone",
        { service_account_secret: "mss_x" },
        "FIELD_REQUIRED",
        "service_account_id",
      ],
      [
        "api_key and a pair",
        { api_key: "msk_a", api_key_id: newId(), api_key_secret: "b" },
        "FIELD_INVALID",
        "api_key",
      ],
      [
        "api_key and a service account",
        { api_key: "msk_a", service_account_id: newId(), service_account_secret: "b" },
        "FIELD_INVALID",
        "api_key",
      ],
      ["a non-string api_key", { api_key: 42 }, "FIELD_INVALID", "api_key"],
      ["an empty api_key", { api_key: "" }, "FIELD_INVALID", "api_key"],
      [
        "a non-UUID api_key_id",
        { api_key_id: "key-1", api_key_secret: "x" },
        "FIELD_INVALID",
        "api_key_id",
      ],
      [
        "a non-UUID project_id",
        { api_key: "msk_a", project_id: "p1" },
        "FIELD_INVALID",
        "project_id",
      ],
      [
        "scopes not an array",
        { api_key: "msk_a", scopes: "movespecs:read" },
        "FIELD_INVALID",
        "scopes",
      ],
    ];
    for (const [name, body, reason, field] of malformed) {
      it(`${name} is 400 ${reason} (${field})`, async () => {
        const response = await fetch(`${system.gatewayUrl}/api/auth/access-tokens`, {
          method: "POST",
          headers: body === undefined ? {} : { "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const error = (await response.json()) as ErrorBody;
        expect(response.status).to.equal(400);
        expect(error.error.code).to.equal("invalid_argument");
        expect(error.error.details.reason).to.equal(reason);
        expect(error.error.details.field).to.equal(field);
      });
    }

    it("an unknown key and a wrong secret are the same 401, in the same time", async () => {
      // An unknown id with a secret nobody holds. (With a real key's secret the answer can come
      // sooner, from the credential read in the last second; but whoever holds a real secret
      // holds the credential, the api_key form needing nothing else: the time tells them nothing.)
      const unknown = { api_key_id: newId(), api_key_secret: `msk_${"C".repeat(43)}` };
      const wrong = { api_key_id: project.apiKeyId, api_key_secret: `msk_${"A".repeat(43)}` };
      const strip = (body: ErrorBody) => ({
        ...body.error,
        details: { ...body.error.details, request_id: "" },
      });
      const a = await expectError(unknown, 401, "CREDENTIAL_INVALID");
      const b = await expectError(wrong, 401, "CREDENTIAL_INVALID");
      const c = await expectError({ api_key: `msk_${"B".repeat(43)}` }, 401, "CREDENTIAL_INVALID");
      expect(strip(a)).to.deep.equal(strip(b));
      expect(strip(a)).to.deep.equal(strip(c));
      // Timing: medians over interleaved calls straight to the auth service (no HTTP noise), as
      // the gateway makes them (it alone may name the client address).
      const client = workloadClient(system, AuthService, "gateway");
      const time = async (body: { api_key_id: string; api_key_secret: string }) => {
        const started = performance.now();
        await client
          .mintAccessToken({
            apiKeyId: body.api_key_id,
            apiKeySecret: body.api_key_secret,
            clientAddress: "timing",
          })
          .catch(() => undefined);
        return performance.now() - started;
      };
      const unknownTimes: number[] = [];
      const wrongTimes: number[] = [];
      for (let i = 0; i < 20; i += 1) {
        unknownTimes.push(await time(unknown));
        wrongTimes.push(await time(wrong));
      }
      const [mu, mw] = [median(unknownTimes), median(wrongTimes)];
      expect(
        Math.abs(mu - mw),
        `unknown ${mu.toFixed(2)} ms vs wrong ${mw.toFixed(2)} ms`,
      ).to.be.below(Math.max(1.5, 0.35 * Math.max(mu, mw)));
    });
  });

  describe("project and scopes", () => {
    it("infers the project from the credential, accepts it when given, refuses another", async () => {
      const other = await createProjectWithKey(system);
      const given = await mint({ api_key: project.apiKey, project_id: project.projectId });
      expect(given.response.status).to.equal(200);
      expect(given.body.project_id).to.equal(project.projectId);
      await expectError(
        { api_key: project.apiKey, project_id: other.projectId },
        403,
        "PROJECT_MISMATCH",
      );
      await expectError({ api_key: project.apiKey, project_id: newId() }, 403, "PROJECT_MISMATCH");
    });

    it("a subset of the credential's scopes restricts the token", async () => {
      const { response, body } = await mint({
        api_key: project.apiKey,
        scopes: ["sessions:write", "movespecs:read", "movespecs:read"],
      });
      expect(response.status).to.equal(200);
      expect(decodeJwt(body.access_token as string).scope).to.equal(
        "movespecs:read sessions:write",
      );
    });

    it("a scope the credential lacks is 403 SCOPE_NOT_GRANTED", async () => {
      const narrow = await createProjectWithKey(system, { scopes: ["movespecs:read"] });
      const error = await expectError(
        { api_key: narrow.apiKey, scopes: ["movespecs:read", "movespecs:write"] },
        403,
        "SCOPE_NOT_GRANTED",
      );
      expect(error.error.details.not_granted).to.deep.equal(["movespecs:write"]);
      const full = await mint({ api_key: narrow.apiKey });
      expect(decodeJwt(full.body.access_token as string).scope).to.equal("movespecs:read");
    });

    it("unknown scope names are 400, an empty list is 400", async () => {
      const error = await expectError(
        { api_key: project.apiKey, scopes: ["movespecs:read", "admin:all"] },
        400,
        "FIELD_INVALID",
      );
      expect(error.error.details.unknown_scopes).to.deep.equal(["admin:all"]);
      await expectError({ api_key: project.apiKey, scopes: [] }, 400, "FIELD_INVALID");
    });
  });

  describe("revocation and archiving", () => {
    it("a revoked API key or service account can no longer mint (401, like an unknown one)", async () => {
      const victim = await createProjectWithKey(system);
      const account = await createServiceAccount(system, { projectId: victim.projectId });
      expect((await mint({ api_key: victim.apiKey })).response.status).to.equal(200);
      const client = authAdminClient(system);
      await client.revokeCredential({ credentialId: victim.apiKeyId });
      await client.revokeCredential({ credentialId: account.serviceAccountId });
      await expectError({ api_key: victim.apiKey }, 401, "CREDENTIAL_INVALID");
      await expectError(
        { api_key_id: victim.apiKeyId, api_key_secret: victim.apiKey },
        401,
        "CREDENTIAL_INVALID",
      );
      await expectError(
        { service_account_id: account.serviceAccountId, service_account_secret: account.secret },
        401,
        "CREDENTIAL_INVALID",
      );
      const { apiKeys } = await client.listApiKeys({ projectId: victim.projectId });
      expect(apiKeys[0].revokedAt).to.be.a("string");
    });

    it("a revoked key's access token opens no session (401 TOKEN_INVALID), though it verifies until it expires", async () => {
      const { tenant, open } = await tenantWithSquat();
      expect((await open()).status).to.equal(201);
      await authAdminClient(system).revokeCredential({ credentialId: tenant.apiKeyId });
      const refused = await open();
      expect(refused.status, JSON.stringify(refused.body)).to.equal(401);
      expect(refused.body.error.details.reason).to.equal("TOKEN_INVALID");
      // Within the access token's lifetime, what needs no new runtime token still answers.
      expect((await tenant.call("GET", `/api/projects/${tenant.projectId}`)).status).to.equal(200);
    });

    it("an archived project cannot mint (409 PROJECT_ARCHIVED) nor get new keys", async () => {
      const archived = await createProjectWithKey(system);
      const client = authAdminClient(system);
      const { project: after } = await client.archiveProject({ projectId: archived.projectId });
      expect(after?.archivedAt).to.be.a("string");
      await expectError({ api_key: archived.apiKey }, 409, "PROJECT_ARCHIVED");
      await client.createApiKey({ projectId: archived.projectId, name: "late", scopes: [] }).then(
        () => expect.fail("created a key in an archived project"),
        (error: Error) => expect(error.message).to.match(/archived/),
      );
    });
  });

  describe("archiving, seen at once by the token paths that read the project just before", () => {
    it("the exchange and session creation refuse the project right after the archive (409 PROJECT_ARCHIVED)", async () => {
      const { tenant, open } = await tenantWithSquat();
      expect((await mint({ api_key: tenant.apiKey })).response.status).to.equal(200);
      expect((await open()).status).to.equal(201);
      await authAdminClient(system).archiveProject({ projectId: tenant.projectId });
      await expectError({ api_key: tenant.apiKey }, 409, "PROJECT_ARCHIVED");
      const refused = await open();
      expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
      expect(refused.body.error.details.reason).to.equal("PROJECT_ARCHIVED");
    });
  });

  describe("admin over gRPC", () => {
    it("a second project and key created over gRPC mint a token bound to the new project", async () => {
      const client = authAdminClient(system);
      const { organization } = await client.createOrganization({ name: "Second Org" });
      const { project: second } = await client.createProject({
        organizationId: organization!.organizationId,
        name: "Second Project",
      });
      expect(second?.slug).to.equal("second-project");
      const { secret } = await client.createApiKey({
        projectId: second!.projectId,
        name: "ci",
        scopes: ["movespecs:read"],
      });
      const { body } = await mint({ api_key: secret });
      expect(body.project_id).to.equal(second!.projectId);
      expect(body.organization_id).to.equal(organization!.organizationId);
      const again = await client.createProject({
        organizationId: organization!.organizationId,
        name: "Second Project",
      });
      expect(again.project?.slug).to.equal("second-project-2");
    });
  });

  describe("development bootstrap (DEV_BOOTSTRAP=1)", () => {
    it("hands a working development key to the launcher once, and never logs it", async () => {
      const credentials = system.devCredentials;
      if (!credentials) throw new Error("no development credentials were handed over");
      const apiKey = credentials.api_key;
      expect(apiKey).to.match(/^msk_/);
      const lines = system.logsOf("auth").filter((line) => line.msg === DEV_CREDENTIALS_MESSAGE);
      expect(lines).to.have.length(1);
      expect(lines[0]).to.include({ project_id: credentials.project_id });
      expect(lines[0]).to.not.have.property("api_key");
      const everything = JSON.stringify(system.logs);
      expect(everything).to.not.include(apiKey);
      expect(everything).to.not.include(apiKey.slice(4));
      const { response, body } = await mint({ api_key: apiKey });
      expect(response.status).to.equal(200);
      expect(body.project_id).to.equal(credentials.project_id);
      expect(decodeJwt(body.access_token as string).scope).to.equal(
        "movespecs:read movespecs:write sessions:read sessions:write tokens:read tokens:write",
      );
    });

    it("does nothing (prints no secret) on a database that has organizations", async () => {
      const mongo = new MongoClient(system.mongodbUri);
      try {
        const db = mongo.db(process.env.MONGODB_URI ? "unused" : "mds_auth");
        if (process.env.MONGODB_URI) return; // per-system database names are not known here
        const organizations = createOrganizationsStore(db);
        const accounts = createAccounts({
          organizations,
          projects: createProjectsStore(db),
          credentials: createCredentialsStore(db),
          pepper: "x".repeat(32),
        });
        const logged: unknown[] = [];
        const logger = createLogger({ service: "test", level: "info" });
        logger.info = ((...args: unknown[]) => logged.push(args)) as typeof logger.info;
        const handedOver: unknown[] = [];
        await bootstrapDevelopment({
          accounts,
          organizations,
          logger,
          handOver: (credentials) => handedOver.push(credentials),
        });
        expect(logged).to.deep.equal([]);
        expect(handedOver).to.deep.equal([]);
      } finally {
        await mongo.close();
      }
    });
  });

  // Last: it blocks this client address.
  describe("failure rate limiting", () => {
    it("a burst of concurrent guesses gets no more checks than the limit: the rest are 429", async () => {
      const statuses = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const response = await mintTokenResponse(system, { api_key: `msk_burst${i}` });
          await response.body?.cancel();
          return response.status;
        }),
      );
      const checked = statuses.filter((status) => status === 401).length;
      const refused = statuses.filter((status) => status === 429).length;
      // AUTH_FAILURE_LIMIT is 25 here; earlier failures of this address count too.
      expect(checked, statuses.join(",")).to.be.within(1, 25);
      expect(checked + refused).to.equal(200);
    });

    it("repeated failures are 429 RATE_LIMITED with Retry-After, valid credentials included", async () => {
      let blocked: Response | undefined;
      for (let attempt = 0; attempt < 40 && !blocked; attempt += 1) {
        const response = await mintTokenResponse(system, { api_key: `msk_wrong${attempt}` });
        if (response.status === 429) {
          blocked = response;
        } else {
          expect(response.status).to.equal(401);
          await response.body?.cancel();
        }
      }
      expect(blocked, "never rate limited").to.not.equal(undefined);
      const body = (await blocked!.json()) as ErrorBody;
      expect(body.error.code).to.equal("resource_exhausted");
      expect(body.error.retryable).to.equal(true);
      expect(body.error.details.reason).to.equal("RATE_LIMITED");
      expect(Number(blocked!.headers.get("retry-after"))).to.be.within(1, 60);
      const valid = await mintTokenResponse(system, { api_key: project.apiKey });
      expect(valid.status).to.equal(429);
    });
  });
});
