import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Visibility } from "@movement-detection/proto/authoring/v1";
import { expect } from "chai";
import { type ManagedProcess, startProcess } from "../../deploy/local/child-process.js";
import { apiOf, authoringClient, type JsonBody } from "../movespecs/support/api.js";
import { createProjectWithToken } from "../support/auth.js";
import { eventually } from "../support/eventually.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The catalogue is killed (SIGKILL: no graceful anything) while authoring publishes, renames,
 * releases, hides, delists and archives MoveSpecs; once it runs again, the public listing becomes
 * exactly right on its own, with no manual repair.
 */
describe("catalogue convergence after a crash", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let restarted: ManagedProcess | undefined;
  const catalogueDatabase = `mds_catalogue_conv_${Date.now().toString(36)}`;

  before(async () => {
    system = await startTestSystem({
      serviceEnv: {
        authoring: { CATALOGUE_SYNC_INTERVAL_MS: "200" },
        catalogue: { MONGODB_DATABASE: catalogueDatabase },
      },
    });
  });
  after(async () => {
    await restarted?.stop(5000);
    await system?.stop();
  });

  /** Starts the catalogue again on the same ports and database, as a supervisor would. */
  async function restartCatalogue(): Promise<ManagedProcess> {
    const { catalogue, auth, authoring, detection } = system.services;
    const child = startProcess({
      name: "catalogue-restarted",
      entry: join(REPO_ROOT, "services/catalogue/main.ts"),
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        SUPERVISED: "1",
        LOG_LEVEL: "info",
        MONGODB_URI: system.mongodbUri,
        MONGODB_DATABASE: catalogueDatabase,
        GRPC_PORT: String(catalogue.grpcPort),
        ADMIN_PORT: new URL(catalogue.adminUrl).port,
        AUTH_SERVICE_URL: auth.grpcUrl,
        CATALOGUE_SERVICE_URL: catalogue.grpcUrl,
        AUTHORING_SERVICE_URL: authoring.grpcUrl,
        DETECTION_SERVICE_URLS: detection.grpcUrl,
        GRPC_HOST: "127.0.0.1",
        // Its own workload certificate, as the launcher gave it.
        ...(system.pki
          ? {
              INTERNAL_TLS_DIR: system.pki.tlsDirOf("catalogue"),
              TRUST_DOMAIN: system.pki.trustDomain,
            }
          : {}),
      },
      sink: () => undefined,
    });
    await child.waitFor(["serving"], 20_000);
    return child;
  }

  it("lists exactly the public MoveSpecs once the catalogue is back", async () => {
    const call = apiOf(system.gatewayUrl);
    const admin = authoringClient(system);
    const owner = await createProjectWithToken(system);
    const create = async (name: string, visibility: string) => {
      const response = await call("POST", "/api/movespecs", {
        token: owner.token,
        body: { name, project_id: owner.projectId, visibility },
      });
      expect(response.status).to.equal(201);
      return response.body.movespec_id as string;
    };
    // Known to the catalogue before the crash: will be hidden, delisted, archived while it is down.
    const toHide = await create("convergence to hide", "public");
    const toDelist = await create("convergence to delist", "public");
    const toArchive = await create("convergence to archive", "public");
    await eventually(
      async () => (await call("GET", "/api/movespecs?q=convergence")).body.total === 3,
    );

    const killed = system.services.catalogue.process;
    killed.child.kill("SIGKILL");
    await killed.exited;
    const down = await call("GET", "/api/movespecs");
    expect(down.status).to.equal(503);
    expect(down.body.error.code).to.equal("unavailable");

    const published = await Promise.all(
      Array.from({ length: 5 }, (_, i) => create(`convergence published ${i}`, "public")),
    );
    await create("convergence private", "private");
    const toPublish = await create("convergence made public", "private");
    await admin.setVisibility({
      movespecId: toPublish,
      visibility: Visibility.PUBLIC,
      actor: "test",
    });
    await admin.updateMoveSpec({
      movespecId: published[0],
      name: "convergence renamed zebra",
      actor: "test",
    });
    const version = await call("POST", `/api/movespecs/${published[1]}/versions`, {
      token: owner.token,
    });
    await call(
      "POST",
      `/api/movespecs/${published[1]}/versions/${version.body.movespec_version_id}/release`,
      {
        token: owner.token,
      },
    );
    await admin.setVisibility({
      movespecId: toHide,
      visibility: Visibility.PRIVATE,
      actor: "test",
    });
    await admin.delistMoveSpec({ movespecId: toDelist, actor: "test", reason: "test" });
    await admin.archiveMoveSpec({ movespecId: toArchive, actor: "test" });

    restarted = await restartCatalogue();
    const expected = [...published, toPublish].sort();
    await eventually(async () => {
      const listing = await call("GET", "/api/movespecs?q=convergence&limit=200");
      if (listing.status !== 200) return false;
      const ids = listing.body.items.map((item: JsonBody) => item.movespec_id).sort();
      return JSON.stringify(ids) === JSON.stringify(expected);
    }, 15_000);
    const renamed = await call("GET", "/api/movespecs?q=zebra");
    expect(renamed.body.items.map((item: JsonBody) => item.movespec_id)).to.deep.equal([
      published[0],
    ]);
    const released = await call("GET", "/api/movespecs?q=convergence&limit=200");
    const entry = released.body.items.find((item: JsonBody) => item.movespec_id === published[1]);
    expect(entry.current_released_version_id).to.equal(version.body.movespec_version_id);
  });
});
