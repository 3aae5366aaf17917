/**
 * The `session_specs` copy of a MoveSpec version against the real store: every session creation
 * saves its version, so a version this process saved already costs no store command; a save that
 * failed is not remembered and is tried again.
 */

import { newId } from "@movement-detection/shared/ids";
import { expect } from "chai";
import { type CommandStartedEvent, MongoClient } from "mongodb";
import { createSpecStore, type SpecDocument } from "../../services/detection/store/spec-store.js";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../support/embedded-mongo.js";

const specDocument = (id = newId()): SpecDocument => ({
  _id: id,
  movespec_id: newId(),
  yaml_source: "movespec: 1\n",
  content_hash: "sha256:0",
});

describe("detection spec store: one copy per version", function () {
  this.timeout(30_000);
  let mongo: EmbeddedMongoHandle;
  let client: MongoClient;
  const commands: string[] = [];

  before(async () => {
    mongo = await startEmbeddedMongo();
    client = new MongoClient(mongo.uri, { monitorCommands: true });
    client.on("commandStarted", (event: CommandStartedEvent) => {
      if (event.commandName === "insert") commands.push(String(event.command.insert));
    });
  });

  after(async () => {
    await client?.close();
    await mongo?.stop();
  });

  it("writes a version once; saving it again sends nothing", async () => {
    const store = createSpecStore(client.db("spec_store_once"));
    const spec = specDocument();
    commands.length = 0;
    await store.save(spec);
    await store.save(spec);
    await store.save(spec);
    expect(commands).to.deep.equal(["session_specs"]);
    expect(await store.find(spec._id)).to.deep.equal(spec);
  });

  it("a copy another replica saved first counts as saved (no error, then no command)", async () => {
    const db = client.db("spec_store_other");
    const spec = specDocument();
    await createSpecStore(db).save(spec);
    const store = createSpecStore(db);
    commands.length = 0;
    await store.save(spec);
    await store.save(spec);
    expect(commands, "one insert, refused as a duplicate, then none").to.deep.equal([
      "session_specs",
    ]);
  });

  it("a failed save is not remembered: the next one writes", async () => {
    const store = createSpecStore(client.db("spec_store_failed"));
    const spec = specDocument();
    // Over the 16 MiB document limit: refused, and not for a duplicate key.
    const tooLarge = { ...spec, yaml_source: "#".repeat(17 * 1024 * 1024) };
    let failure: unknown;
    await store.save(tooLarge).catch((error: unknown) => {
      failure = error;
    });
    expect(failure, "the oversized copy is refused").to.be.instanceOf(Error);
    commands.length = 0;
    await store.save(spec);
    expect(commands).to.deep.equal(["session_specs"]);
    expect(await store.find(spec._id)).to.deep.equal(spec);
  });
});
