import { expect } from "chai";
import { errorOf, useConformanceDb } from "./harness.js";

describe("embedded-mongo conformance: collections and databases", () => {
  const state = useConformanceDb("collections");

  it("creates, lists and drops collections", async () => {
    await state.db.createCollection("alpha");
    await state.db.collection("beta").insertOne({ x: 1 });
    const names = (await state.db.listCollections().toArray()).map((c) => c.name).sort();
    expect(names).to.include.members(["alpha", "beta"]);
    const filtered = await state.db.listCollections({ name: "alpha" }).toArray();
    expect(filtered).to.have.length(1);
    expect(filtered[0].type).to.equal("collection");
    const onlyNames = await state.db.listCollections({}, { nameOnly: true }).toArray();
    expect(onlyNames.every((c) => typeof c.name === "string")).to.equal(true);
    expect(await state.db.dropCollection("alpha")).to.equal(true);
    const after = (await state.db.listCollections().toArray()).map((c) => c.name);
    expect(after).to.not.include("alpha");
  });

  it("refuses to create an existing collection (NamespaceExists, 48)", async () => {
    await state.db.createCollection("gamma");
    const error = await errorOf(() => state.db.command({ create: "gamma" }));
    expect(error.code).to.equal(48);
  });

  it("drops a database with its collections", async () => {
    const other = state.client.db(`${state.db.databaseName}_other`);
    await other.collection("c").insertOne({ a: 1 });
    expect(await other.dropDatabase()).to.equal(true);
    expect(await other.listCollections().toArray()).to.deep.equal([]);
    expect(await other.collection("c").countDocuments()).to.equal(0);
  });

  it("answers ping, hello and buildInfo", async () => {
    const admin = state.client.db("admin");
    expect((await admin.command({ ping: 1 })).ok).to.equal(1);
    const hello = await admin.command({ hello: 1 });
    expect(hello.isWritablePrimary).to.equal(true);
    expect(hello.setName).to.be.a("string");
    expect(hello.logicalSessionTimeoutMinutes).to.be.a("number");
    const info = await admin.command({ buildInfo: 1 });
    expect(info.version).to.match(/^\d+\.\d+/);
  });
});
