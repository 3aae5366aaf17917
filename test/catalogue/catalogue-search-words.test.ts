import type { Client } from "@connectrpc/connect";
import { type AuthoringService, Visibility } from "@movement-detection/proto/authoring/v1";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import type { AdminClients } from "../../services/admin/cli/clients.js";
import { runAdmin } from "../../services/admin/cli/run.js";
import { loadAdminConfig } from "../../services/admin/config.js";
import { apiOf, authoringClient, type JsonBody } from "../movespecs/support/api.js";
import { createProjectWithToken } from "../support/auth.js";
import { eventually } from "../support/eventually.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

/**
 * How `q` and the catalogue split text into words, through the public listing: scripts written
 * without spaces (Chinese, Japanese), Latin text as before, entries stored before, and the
 * 16-word limit of `q`, checked by the gateway with the other listing parameters.
 */
describe("catalogue search words", function () {
  this.timeout(60_000);
  let system: TestSystem;
  let owner: Client<typeof AuthoringService>;
  let projectId: string;
  let call: ReturnType<typeof apiOf>;
  const catalogueDatabase = `mds_catalogue_words_${Date.now().toString(36)}`;

  before(async () => {
    system = await startTestSystem({
      env: { LOG_LEVEL: "info" },
      serviceEnv: {
        authoring: { CATALOGUE_SYNC_INTERVAL_MS: "200" },
        catalogue: { MONGODB_DATABASE: catalogueDatabase },
      },
    });
    const project = await createProjectWithToken(system);
    projectId = project.projectId;
    owner = authoringClient(system, { workload: "gateway", user: project.token });
    call = apiOf(system.gatewayUrl);
  });
  after(async () => {
    await system?.stop();
  });

  /** A public MoveSpec, once the catalogue lists it. */
  async function publish(name: string, description?: string): Promise<string> {
    const { movespec } = await owner.createMoveSpec({
      projectId,
      name,
      description,
      visibility: Visibility.PUBLIC,
    });
    const id = movespec?.movespecId as string;
    await eventually(async () => {
      const all = await call("GET", "/api/movespecs?limit=200");
      return all.body.items.some((item: JsonBody) => item.movespec_id === id);
    });
    return id;
  }

  const found = async (q: string): Promise<string[]> => {
    const page = await call("GET", `/api/movespecs?limit=200&q=${encodeURIComponent(q)}`);
    expect(page.status, JSON.stringify(page.body)).to.equal(200);
    return page.body.items.map((item: JsonBody) => item.movespec_id);
  };

  it("finds Chinese and Japanese names by a word inside them", async () => {
    const chinese = await publish("深蹲练习");
    const japanese = await publish("腕立て伏せのトレーニング", "毎日の練習");
    expect(await found("深蹲")).to.deep.equal([chinese]);
    expect(await found("练习")).to.deep.equal([chinese]);
    expect(await found("深蹲练习")).to.deep.equal([chinese]);
    expect(await found("腕立て伏せ")).to.deep.equal([japanese]);
    expect(await found("トレーニング 練習")).to.deep.equal([japanese]);
    expect(await found("深蹲 腕立て伏せ")).to.deep.equal([]);
  });

  it("still splits Latin text on anything but letters and digits, ignoring case and accents", async () => {
    const id = await publish("Élan squat_drill", "don't stop: 3.5 reps");
    expect(await found("ELAN")).to.deep.equal([id]);
    expect(await found("squat drill")).to.deep.equal([id]);
    expect(await found("don t")).to.deep.equal([id]);
    expect(await found("5 reps")).to.deep.equal([id]);
    expect(await found("squatdrill")).to.deep.equal([]);
  });

  // Written by a catalogue that did not split these scripts: one word. Either before versions
  // were stored, or by an old replica during a rolling deploy over an entry a new one had
  // stored (its $set leaves the new version in place): the resync must re-split both.
  for (const [name, word, version] of [
    ["深蹲起立", "起立", "absent"],
    ["平板支撑", "支撑", "current"],
  ] as const) {
    it(`re-splits entries stored with old words (version ${version}) when the operator resyncs`, async () => {
      const id = await publish(name);
      const client = new MongoClient(system.mongodbUri);
      try {
        await client
          .db(catalogueDatabase)
          .collection("entries")
          .updateOne(
            { _id: id as never },
            version === "absent"
              ? { $set: { keywords: [name] }, $unset: { keywords_version: "" } }
              : { $set: { keywords: [name] } },
          );
      } finally {
        await client.close();
      }
      // A word no search asked for yet: no cache holds an answer from before the change above.
      expect(await found(word)).to.deep.equal([]);
      let stdout = "";
      const code = await runAdmin(
        ["movespecs", "resync-catalogue", "--id", id, "--json"],
        { stdout: (text) => (stdout += text), stderr: () => {} },
        () => ({ authoring: authoringClient(system) }) as unknown as AdminClients,
        loadAdminConfig({}),
      );
      expect(code).to.equal(0);
      expect(JSON.parse(stdout)).to.deep.equal({ marked: 1 });
      await eventually(async () => (await found(word)).includes(id));
    });
  }

  it("refuses q of more than 16 words together with every other invalid parameter", async () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => `w${i}`).join(" ");
    expect((await call("GET", `/api/movespecs?q=${encodeURIComponent(sixteen)}`)).status).to.equal(
      200,
    );
    const seventeen = `${sixteen} w16`;
    const refused = await call(
      "GET",
      `/api/movespecs?q=${encodeURIComponent(seventeen)}&sort=best&limit=0`,
    );
    expect(refused.status).to.equal(400);
    const fields = refused.body.error.details.errors.map((error: JsonBody) => error.field);
    expect(fields).to.have.members(["q", "sort", "limit"]);
    expect(refused.body.error.details.errors.find((e: JsonBody) => e.field === "q")).to.include({
      reason: "FIELD_INVALID",
      message: "q may hold at most 16 words",
      max_words: 16,
    });
    // Words as the catalogue counts them: some twenty Chinese words with no space between them.
    const unspaced =
      "深蹲练习俯卧撑仰卧起坐跑步游泳跳绳拉伸瑜伽平板支撑引体向上弓步蹲开合跳登山跑波比跳";
    const alone = await call("GET", `/api/movespecs?q=${encodeURIComponent(unspaced)}`);
    expect(alone.status).to.equal(400);
    expect(alone.body.error.details).to.include({ field: "q", max_words: 16 });
  });
});
