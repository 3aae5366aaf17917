/**
 * MoveSpec writes under concurrent requests, black box through the gateway (and the admin tool's
 * gRPC API where the operation is an admin one): archive racing version creation, one
 * Idempotency-Key fired at once, stars and unstars of many organizations at once.
 */
import { expect } from "chai";
import { createProjectWithToken } from "../support/auth.js";
import { eventually } from "../support/eventually.js";
import { startTestSystem, type TestSystem } from "../support/system.js";
import { apiOf, authoringClient, catalogueClient, type JsonBody } from "./support/api.js";

describe("MoveSpec writes: concurrent requests", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let call: ReturnType<typeof apiOf>;
  let owner: { token: string; projectId: string; organizationId: string };

  before(async () => {
    system = await startTestSystem({
      serviceEnv: { authoring: { CATALOGUE_SYNC_INTERVAL_MS: "200" } },
    });
    call = apiOf(system.gatewayUrl);
    owner = await createProjectWithToken(system);
  });
  after(async () => {
    await system?.stop();
  });

  async function createMoveSpec(body: JsonBody = {}): Promise<string> {
    const response = await call("POST", "/api/movespecs", {
      token: owner.token,
      body: { name: "Race", project_id: owner.projectId, ...body },
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body.movespec_id;
  }

  async function versionNumbers(id: string): Promise<number[]> {
    const listed = await call("GET", `/api/movespecs/${id}/versions?limit=200`, {
      token: owner.token,
    });
    return listed.body.items.map((v: JsonBody) => v.version_number as number).reverse();
  }

  it("no version is created once the archive answered, whatever was in flight", async () => {
    const id = await createMoveSpec();
    const post = () => call("POST", `/api/movespecs/${id}/versions`, { token: owner.token });
    const creations = Array.from({ length: 40 }, post);
    // Archive while the creations queue on the MoveSpec: after the first one is answered.
    await Promise.race(creations);
    await authoringClient(system).archiveMoveSpec({ movespecId: id, actor: "test" });
    const afterArchive = await versionNumbers(id);
    const responses = await Promise.all(creations);
    const created = responses.filter((r) => r.status === 201);
    for (const response of responses) {
      if (response.status === 201) continue;
      expect(response.status, JSON.stringify(response.body)).to.equal(409);
      expect(response.body.error.details.reason).to.equal("MOVESPEC_ARCHIVED");
    }
    expect(created.length).to.be.at.least(1);
    expect(await versionNumbers(id), "versions made after the archive answered").to.deep.equal(
      afterArchive,
    );
    expect(afterArchive).to.deep.equal(Array.from({ length: created.length }, (_, i) => i + 1));
  });

  it("one Idempotency-Key on POST .../versions fired 10 times at once makes one version", async () => {
    const id = await createMoveSpec();
    const burst = await Promise.all(
      Array.from({ length: 10 }, () =>
        call("POST", `/api/movespecs/${id}/versions`, {
          token: owner.token,
          headers: { "idempotency-key": "one-version" },
        }),
      ),
    );
    for (const response of burst) {
      expect(response.status, JSON.stringify(response.body)).to.equal(201);
      expect(response.body).to.deep.equal(burst[0].body);
    }
    expect(burst[0].body.version_number).to.equal(1);
    expect(await versionNumbers(id)).to.deep.equal([1]);
  });

  it("concurrent stars and unstars of many organizations leave one star per starring organization", async () => {
    const id = await createMoveSpec({ visibility: "public" });
    const catalogue = catalogueClient(system);
    const organizations = await Promise.all(
      Array.from({ length: 6 }, async () => (await createProjectWithToken(system)).organizationId),
    );
    await eventually(async () => {
      try {
        await catalogue.starMoveSpec({ organizationId: organizations[0], movespecId: id });
        return true;
      } catch {
        return false;
      }
    });
    // Every organization stars 4 times and unstars twice, all at once; the first three star once
    // more after that, so exactly three stars remain.
    await Promise.all(
      organizations.flatMap((organizationId) => [
        ...Array.from({ length: 4 }, () =>
          catalogue.starMoveSpec({ organizationId, movespecId: id }),
        ),
        ...Array.from({ length: 2 }, () =>
          catalogue.unstarMoveSpec({ organizationId, movespecId: id }),
        ),
      ]),
    );
    await Promise.all(
      organizations.map((organizationId) =>
        catalogue.unstarMoveSpec({ organizationId, movespecId: id }),
      ),
    );
    const restarred = await Promise.all(
      organizations
        .slice(0, 3)
        .flatMap((organizationId) =>
          [1, 2, 3].map(() => catalogue.starMoveSpec({ organizationId, movespecId: id })),
        ),
    );
    expect(Math.max(...restarred.map((r) => r.starCount))).to.equal(3);
    const { starCounts } = await catalogue.getStarCounts({ movespecIds: [id] });
    expect(starCounts[id]).to.equal(3);
  });
});
