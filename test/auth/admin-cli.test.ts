import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Code } from "@movement-detection/shared/errors";
import { expect } from "chai";
import { createAdminClients } from "../../services/admin/cli/clients.js";
import { runAdmin } from "../../services/admin/cli/run.js";
import { loadAdminConfig } from "../../services/admin/config.js";
import { createDirectoryKeySource } from "../../services/auth/signing/directory-key-source.js";
import {
  authAdminClient,
  authHeader,
  createProjectWithToken,
  mintAccessToken,
} from "../support/auth.js";
import { eventually } from "../support/eventually.js";
import { rejection } from "../support/rejection.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const run = promisify(execFile);

describe("admin tool (services/admin)", function () {
  this.timeout(60_000);
  let system: TestSystem;

  /** Runs the tool in this process, over real gRPC (spawning tsx costs seconds per command). */
  const admin = async (...args: string[]) => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await runAdmin(
      args,
      { stdout: (text) => stdout.push(text), stderr: (text) => stderr.push(text) },
      createAdminClients,
      loadAdminConfig({
        AUTH_SERVICE_URL: system.services.auth.grpcUrl,
        AUTHORING_SERVICE_URL: system.services.authoring.grpcUrl,
        INTERNAL_TLS_DIR: system.pki?.tlsDirOf("operator"),
      }),
    );
    return { code, stdout: stdout.join(""), stderr: stderr.join("") };
  };

  /** The tool as a process with only `env` (and PATH): its exit code and output, in 30 s at most. */
  const runTool = async (env: Record<string, string>, ...args: string[]) => {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        ["--import", "tsx", join(ROOT, "services/admin/main.ts"), ...args],
        { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 30_000 },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  /** Runs the tool as its own process, as an operator would, against this system. */
  const adminProcess = (...args: string[]) =>
    runTool(
      {
        AUTH_SERVICE_URL: system.services.auth.grpcUrl,
        AUTHORING_SERVICE_URL: system.services.authoring.grpcUrl,
        CATALOGUE_SERVICE_URL: system.services.catalogue.grpcUrl,
        // The operator credential npm start issues (here: this system's).
        INTERNAL_TLS_DIR: system.pki?.tlsDirOf("operator") ?? "",
      },
      ...args,
    );
  const json = async (...args: string[]) => {
    const result = await admin(...args, "--json");
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout);
  };

  before(async () => {
    system = await startTestSystem();
  });
  after(async () => system?.stop());

  it("creates an organization, a project and a key over gRPC; the key mints a token for that project", async () => {
    const created = await adminProcess("auth", "create-org", "--name", "Acme Robotics", "--json");
    expect(created.code, created.stderr).to.equal(0);
    const org = JSON.parse(created.stdout);
    const project = await json(
      "auth",
      "create-project",
      "--org",
      org.organization_id,
      "--name",
      "Squat Coach",
    );
    expect(project.slug).to.equal("squat-coach");
    const key = await json(
      "auth",
      "create-key",
      "--project",
      project.project_id,
      "--name",
      "ci",
      "--scope",
      "movespecs:read",
      "--scope",
      "sessions:write",
    );
    expect(key.secret).to.match(/^msk_/);
    expect(key.scopes).to.deep.equal(["movespecs:read", "sessions:write"]);
    const token = await mintAccessToken(system, { apiKey: key.secret });
    const response = await fetch(`${system.gatewayUrl}/api/projects/${project.project_id}`, {
      headers: authHeader(token),
    });
    expect(response.status).to.equal(200);
    expect(((await response.json()) as { slug: string }).slug).to.equal("squat-coach");

    const listed = await admin("auth", "list-keys", "--project", project.project_id);
    expect(listed.stdout).to.match(/^CREDENTIAL_ID\s+NAME\s+SECRET_HINT/);
    expect(listed.stdout).to.include(key.secret.slice(0, 8));
    expect(listed.stdout).to.not.include(key.secret);

    const revoked = await json("auth", "revoke", key.credential_id);
    expect(revoked.revoked_at).to.be.a("string");
    const again = await fetch(`${system.gatewayUrl}/api/auth/access-tokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: key.secret }),
    });
    expect(again.status).to.equal(401);

    const archived = await json("auth", "archive-project", project.project_id);
    expect(archived.archived_at).to.be.a("string");
  });

  describe("archiving a project archives its MoveSpecs", () => {
    const createPublic = async (owner: { token: string; projectId: string }, name: string) => {
      const response = await fetch(`${system.gatewayUrl}/api/movespecs`, {
        method: "POST",
        headers: { ...authHeader(owner.token), "content-type": "application/json" },
        body: JSON.stringify({ name, project_id: owner.projectId, visibility: "public" }),
      });
      expect(response.status, await response.clone().text()).to.equal(201);
      return ((await response.json()) as { movespec_id: string }).movespec_id;
    };
    const read = async (token: string, id: string) => {
      const response = await fetch(`${system.gatewayUrl}/api/movespecs/${id}`, {
        headers: authHeader(token),
      });
      expect(response.status).to.equal(200);
      return (await response.json()) as { archived_at?: string; updated_at: string };
    };
    /** The public catalogue's ids for a search (anonymous). */
    const listed = async (q: string) => {
      const response = await fetch(`${system.gatewayUrl}/api/movespecs?q=${q}`);
      expect(response.status).to.equal(200);
      const body = (await response.json()) as { items: { movespec_id: string }[] };
      return body.items.map((item) => item.movespec_id);
    };

    it("archive-project: every MoveSpec gets the project's archived_at and leaves the catalogue", async () => {
      const owner = await createProjectWithToken(system);
      const { token, projectId } = owner;
      const word = `archivable${Date.now().toString(36)}`;
      const ids = [
        await createPublic(owner, `${word} one`),
        await createPublic(owner, `${word} two`),
      ];
      await eventually(async () => (await listed(word)).length === 2);
      expect(await listed(word)).to.have.members(ids);

      const archived = await json("auth", "archive-project", projectId);
      expect(archived.movespecs_archived).to.equal(2);
      for (const id of ids) {
        const movespec = await read(token, id);
        expect(movespec.archived_at).to.equal(archived.archived_at);
      }
      await eventually(async () => (await listed(word)).length === 0);
      // Run again (say after a failure half way): nothing more to do, the times stay.
      const again = await json("auth", "archive-project", projectId);
      expect(again.movespecs_archived).to.equal(0);
      expect(again.archived_at).to.equal(archived.archived_at);
      expect((await read(token, ids[0])).archived_at).to.equal(archived.archived_at);
    });

    it("archive-project with authoring unreachable: archived in auth, says so (exit 1), and running it again finishes the job", async () => {
      const owner = await createProjectWithToken(system);
      const id = await createPublic(owner, "archived in two steps");
      const closed = createServer();
      await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
      const { port } = closed.address() as AddressInfo;
      await new Promise((done) => closed.close(done));
      const deadAuthoring = new URL(system.services.authoring.grpcUrl);
      deadAuthoring.port = String(port);
      const stderr: string[] = [];
      const code = await runAdmin(
        ["auth", "archive-project", owner.projectId],
        { stdout: () => undefined, stderr: (text) => stderr.push(text) },
        createAdminClients,
        loadAdminConfig({
          AUTH_SERVICE_URL: system.services.auth.grpcUrl,
          AUTHORING_SERVICE_URL: deadAuthoring.toString().replace(/\/$/, ""),
          INTERNAL_TLS_DIR: system.pki?.tlsDirOf("operator"),
        }),
      );
      expect(code, stderr.join("")).to.equal(1);
      expect(stderr.join("")).to.include("the project is archived, but its MoveSpecs are not yet");
      expect(stderr.join("")).to.include("run archive-project again");
      expect((await read(owner.token, id)).archived_at).to.equal(undefined);
      const again = await json("auth", "archive-project", owner.projectId);
      expect(again.movespecs_archived).to.equal(1);
      expect((await read(owner.token, id)).archived_at).to.equal(again.archived_at);
    });

    it("a write that finds its project archived another way archives the project's MoveSpecs", async () => {
      const owner = await createProjectWithToken(system);
      const { token, projectId } = owner;
      const id = await createPublic(owner, "archived behind the tool's back");
      // Straight to the auth service, as an internal tool might: authoring is not told.
      const { project } = await authAdminClient(system).archiveProject({ projectId });
      const write = await fetch(`${system.gatewayUrl}/api/movespecs/${id}/draft`, {
        method: "PUT",
        headers: { ...authHeader(token), "content-type": "application/json" },
        body: JSON.stringify({ yaml_source: "name: x" }),
      });
      expect(write.status).to.equal(409);
      const refused = (await write.json()) as { error: { details: { reason: string } } };
      expect(refused.error.details.reason).to.equal("PROJECT_ARCHIVED");
      expect(project?.archivedAt).to.be.a("string");
      await eventually(async () => (await read(token, id)).archived_at === project?.archivedAt);
    });
  });

  it("rotates the signing key and lists the keys", async () => {
    const rotated = await json("auth", "rotate-signing-key", "--activate-after", "0");
    const keys = await json("auth", "list-signing-keys");
    expect(keys.find((key: { kid: string }) => key.kid === rotated.kid).signing).to.equal(true);
    // Every other key says it does not sign (false, not left out: scripts test === false).
    const others = keys.filter((key: { kid: string }) => key.kid !== rotated.kid);
    expect(others.length).to.be.greaterThan(0);
    for (const key of others) expect(key.signing).to.equal(false);
  });

  it("generate-signing-key prints a JWK file that a SIGNING_KEYS_DIR loads, with or without --json", async () => {
    for (const flags of [[], ["--json"]]) {
      const generated = await admin("auth", "generate-signing-key", ...flags);
      expect(generated.code, generated.stderr).to.equal(0);
      const dir = await mkdtemp(join(tmpdir(), "mds-signing-keys-"));
      try {
        await writeFile(join(dir, "new-key.json"), generated.stdout);
        const loaded = await createDirectoryKeySource(dir).load(0);
        const { kid } = JSON.parse(generated.stdout);
        expect(
          loaded.keys.map((key) => [key.jwk.kid, key.jwk.crv, key.state.signing]),
        ).to.deep.equal([[kid, "Ed25519", true]]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  });

  it("service errors exit 1 with their reason; usage errors exit 2", async () => {
    const missing = await admin(
      "auth",
      "create-project",
      "--org",
      "01a20000-0000-7000-8000-000000000000",
      "--name",
      "x",
    );
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include("ORGANIZATION_NOT_FOUND");
    const usage = await admin("auth", "create-project", "--name", "x");
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.include("--org is required");
  });

  it("refuses what an operator's script could get wrong: an empty --scope, a huge delay, with --json too", async () => {
    const project = "01a20000-0000-7000-8000-000000000000";
    // An empty shell variable: not "every scope".
    const empty = await admin(
      "auth",
      "create-key",
      "--project",
      project,
      "--name",
      "k",
      "--scope",
      "",
    );
    expect(empty.code).to.equal(2);
    expect(empty.stderr).to.include("--scope needs a value");
    const emptyAccount = await admin(
      "auth",
      "create-service-account",
      "--project",
      project,
      "--name",
      "a",
      "--scope",
      "movespecs:read,",
    );
    expect(emptyAccount.code).to.equal(2);
    // At the limit (a week: a key published now, signing in a week) and one second past it.
    const week = await admin("auth", "rotate-signing-key", "--activate-after", "604800");
    expect(week.code, week.stderr).to.equal(0);
    const pastWeek = await admin("auth", "rotate-signing-key", "--activate-after", "604801");
    expect(pastWeek.code).to.equal(2);
    const delay = await admin(
      "auth",
      "rotate-signing-key",
      "--activate-after",
      "99999999999",
      "--json",
    );
    expect(delay.code).to.equal(2);
    expect(JSON.parse(delay.stderr)).to.deep.equal({
      error: "--activate-after must be a whole number of seconds, 0 to 604800",
      code: "usage",
    });
    // An empty --org is not "every organization" (list-projects without it lists them all).
    const emptyOrg = await admin("auth", "list-projects", "--org", "");
    expect(emptyOrg.code).to.equal(2);
    expect(emptyOrg.stderr).to.include("--org needs a value");
    // The same bound over gRPC, where the tool's check does not help.
    const overGrpc = await rejection(
      authAdminClient(system).rotateSigningKey({ activateAfterSeconds: 604_801 }),
    );
    expect(overGrpc).to.include({ code: Code.InvalidArgument, reason: "FIELD_INVALID" });
    // An option where a value belongs: nothing is created under the name "--json".
    const flagAsName = await admin("auth", "create-org", "--name", "--json");
    expect(flagAsName.code).to.equal(2);
    expect(flagAsName.stderr).to.include("--name needs a value, not the option --json");
    // Service errors carry their code: whether trying again may help.
    const refused = await admin("auth", "revoke", "--id", project, "--json");
    expect(refused.code).to.equal(1);
    expect(JSON.parse(refused.stderr)).to.include({ code: "not_found" });
  });

  it("as a process: a bad environment variable is one line; --help works regardless; a silent service ends in an exit", async () => {
    const badUrl = await runTool({ AUTH_SERVICE_URL: "notaurl" }, "auth", "list-orgs");
    expect(badUrl.code).to.equal(2);
    expect(badUrl.stderr.trim().split("\n")[0]).to.match(
      /^error: .*AUTH_SERVICE_URL must be a URL/,
    );
    expect(badUrl.stderr).to.not.include("    at ");
    const help = await runTool({ ADMIN_TIMEOUT_MS: "abc" }, "auth", "--help");
    expect(help.code).to.equal(0);
    expect(help.stdout).to.include("create-key");
    // A service that accepts the connection and never answers: the deadline, then exit 1.
    const silent = createServer(() => undefined);
    await new Promise<void>((done) => silent.listen(0, "127.0.0.1", done));
    try {
      const started = performance.now();
      const hung = await runTool(
        {
          INTERNAL_TRANSPORT: "h2c",
          AUTH_SERVICE_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
          AUTHORING_SERVICE_URL: "http://127.0.0.1:1",
          CATALOGUE_SERVICE_URL: "http://127.0.0.1:1",
          ADMIN_TIMEOUT_MS: "500",
        },
        "auth",
        "list-orgs",
      );
      expect(hung.code).to.equal(1);
      expect(hung.stderr).to.match(/timed out|deadline/);
      expect(performance.now() - started).to.be.below(20_000);
    } finally {
      silent.close();
    }
  });

  it("a new area is one module in the registry", async () => {
    const output: string[] = [];
    const code = await runAdmin(
      ["movespecs", "hello", "--name", "world", "--json"],
      { stdout: (text) => output.push(text), stderr: (text) => output.push(text) },
      () => ({}) as never,
      loadAdminConfig({}),
      [
        {
          area: "movespecs",
          summary: "test area",
          commands: [
            {
              name: "hello",
              usage: "--name <name>",
              summary: "greets",
              async run({ args, out }) {
                out.record({ hello: args.required("name") });
              },
            },
          ],
        },
      ],
    );
    expect(code).to.equal(0);
    expect(JSON.parse(output.join(""))).to.deep.equal({ hello: "world" });
  });

  it("delists a public MoveSpec over gRPC: anonymous readers then get 404", async () => {
    const owner = await createProjectWithToken(system, { name: "Moderated" });
    const created = await fetch(`${system.gatewayUrl}/api/movespecs`, {
      method: "POST",
      headers: { ...authHeader(owner.token), "content-type": "application/json" },
      body: JSON.stringify({
        name: "Spam spec",
        project_id: owner.projectId,
        visibility: "public",
      }),
    });
    expect(created.status).to.equal(201);
    const { movespec_id: id } = (await created.json()) as { movespec_id: string };
    expect((await fetch(`${system.gatewayUrl}/api/movespecs/${id}`)).status).to.equal(200);

    const result = await adminProcess("movespecs", "delist", id, "--reason", "spam", "--json");
    expect(result.code, result.stderr).to.equal(0);
    expect(JSON.parse(result.stdout)).to.include({ movespec_id: id, visibility: "delisted" });
    expect((await fetch(`${system.gatewayUrl}/api/movespecs/${id}`)).status).to.equal(404);
  });
});
