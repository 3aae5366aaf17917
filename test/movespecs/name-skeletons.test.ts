/**
 * The authoring store's side of look-alike public names, over the embedded MongoDB with the real
 * driver: the lookup of another project's public name by confusable skeleton (one index range,
 * whatever the number of MoveSpecs), and the start-up backfill that gives the public MoveSpecs
 * stored before skeletons were (or under an older confusables table) theirs.
 */

import { newId } from "@movement-detection/shared/ids";
import {
  confusableSkeleton,
  SEARCH_WORDS_VERSION,
  skeletonVersion,
} from "@movement-detection/shared/text";
import { expect } from "chai";
import { type Collection, MongoClient } from "mongodb";
import { MOVESPEC_TEMPLATE } from "../../services/authoring/domain/movespec-loader.js";
import { searchFieldsOf } from "../../services/authoring/domain/search-fields.js";
import { CURRENT_SKELETONS } from "../../services/authoring/operations/name-lookalikes.js";
import type { MoveSpecDoc } from "../../services/authoring/store/documents.js";
import {
  createMoveSpecStore,
  type MoveSpecStore,
} from "../../services/authoring/store/movespec-store.js";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../support/embedded-mongo.js";

const MINE = "0192f0c4-3b7e-7a51-9d3c-0000000000a1";
const THEIRS = "0192f0c4-3b7e-7a51-9d3c-0000000000b2";
const CYRILLIC_COMBO = "\u0421\u041E\u041C\u0412\u041E";

describe("authoring store: public names by confusable skeleton", function () {
  this.timeout(30_000);
  let mongo: EmbeddedMongoHandle;
  let client: MongoClient;
  let store: MoveSpecStore;
  let collection: Collection<MoveSpecDoc>;

  before(async () => {
    mongo = await startEmbeddedMongo();
    client = new MongoClient(mongo.uri);
    const db = client.db("name_skeletons_test");
    store = createMoveSpecStore(db);
    collection = db.collection<MoveSpecDoc>("movespecs");
    await store.ensureIndexes();
  });
  after(async () => {
    await client?.close();
    await mongo?.stop();
  });
  beforeEach(() => collection.deleteMany({}));

  /** A MoveSpec document as stored, with its skeleton (by default today's), or without. */
  function doc(
    name: string,
    fields: Partial<MoveSpecDoc> & { skeleton?: string | null; version?: string } = {},
  ): MoveSpecDoc {
    const { skeleton, version, ...rest } = fields;
    const now = new Date(0);
    return {
      _id: newId(),
      project_id: THEIRS,
      organization_id: THEIRS,
      name,
      ...(skeleton === null
        ? {}
        : {
            name_skeleton: skeleton ?? confusableSkeleton(name),
            name_skeleton_version: version ?? skeletonVersion(),
          }),
      visibility: "public",
      created_at: now,
      updated_at: now,
      created_by: "k",
      updated_by: "k",
      revision: 1,
      catalogue_pending: false,
      draft: { draft_id: newId(), updated_at: now, updated_by: "k", revision: 1 },
      draft_yaml_source: MOVESPEC_TEMPLATE,
      ...rest,
    };
  }

  const lookalikeOf = (name: string, projectId = MINE) =>
    store.findPublicLookalike(confusableSkeleton(name), projectId, name);

  it("finds another project's public look-alike, and nothing for the same characters, a private, archived or own one", async () => {
    const combo = doc("COMBO");
    await collection.insertMany([
      combo,
      doc("COMBO", { visibility: "private", project_id: MINE }),
      doc("Combo"),
    ]);
    expect(await lookalikeOf(CYRILLIC_COMBO)).to.deep.equal({ _id: combo._id, name: "COMBO" });
    expect(await lookalikeOf("COMBO")).to.equal(null);
    expect(await lookalikeOf(CYRILLIC_COMBO, THEIRS)).to.equal(null);
    await collection.updateOne({ _id: combo._id }, { $set: { visibility: "private" } });
    expect(await lookalikeOf(CYRILLIC_COMBO)).to.equal(null);
    await collection.updateOne(
      { _id: combo._id },
      { $set: { visibility: "public", archived_at: new Date(0) } },
    );
    expect(await lookalikeOf(CYRILLIC_COMBO)).to.equal(null);
  });

  it("does not refuse the same characters because a third project also publishes a look-alike", async () => {
    await collection.insertMany([doc("COMBO"), doc(CYRILLIC_COMBO)]);
    expect(await lookalikeOf("COMBO")).to.equal(null);
    expect(await lookalikeOf(CYRILLIC_COMBO)).to.equal(null);
    // A third spelling matches neither: refused.
    expect(await lookalikeOf("\u0421OMBO")).to.not.equal(null);
  });

  it("reads only the public MoveSpecs of one skeleton (the index), however many others there are", async () => {
    const others = Array.from({ length: 300 }, (_, i) => doc(`Squat ${i}`));
    const privates = Array.from({ length: 50 }, () => doc("COMBO", { visibility: "private" }));
    await collection.insertMany([...others, ...privates, doc("COMBO")]);
    const explained = await collection
      .find({
        name_skeleton: confusableSkeleton(CYRILLIC_COMBO),
        visibility: "public",
        archived_at: { $exists: false },
        project_id: { $ne: MINE },
        name: { $ne: CYRILLIC_COMBO },
      })
      .limit(1)
      .explain("executionStats");
    expect(explained.executionStats.totalDocsExamined).to.equal(1);
    expect(await lookalikeOf(CYRILLIC_COMBO)).to.not.equal(null);
  });

  it("backfills the public MoveSpecs without a skeleton or with another one, once", async () => {
    const missing = doc("COMBO", { skeleton: null });
    const stale = doc("Squat Pro", { skeleton: "from an older table", version: "0/old" });
    const fine = doc("Lunge");
    const privateOne = doc("Private", { skeleton: null, visibility: "private" });
    const archived = doc("Archived", { skeleton: null, archived_at: new Date(0) });
    await collection.insertMany([missing, stale, fine, privateOne, archived]);
    expect(await lookalikeOf(CYRILLIC_COMBO)).to.equal(null);

    expect(await store.backfillNameSkeletons(CURRENT_SKELETONS)).to.equal(2);
    const after = await collection.find({}, { projection: { draft_yaml_source: 0 } }).toArray();
    const skeletons = Object.fromEntries(after.map((d) => [d.name, d.name_skeleton]));
    const versions = new Set(after.map((d) => d.name_skeleton_version));
    expect(versions).to.deep.equal(new Set([skeletonVersion(), undefined]));
    expect(skeletons).to.deep.equal({
      COMBO: "COMBO",
      "Squat Pro": "Squat Pro",
      Lunge: "Lunge",
      Private: undefined,
      Archived: undefined,
    });
    // The catalogue never sees the skeleton: no new revision to push.
    expect(after.every((d) => d.revision === 1 && d.catalogue_pending === false)).to.equal(true);
    expect(await lookalikeOf(CYRILLIC_COMBO)).to.deep.equal({ _id: missing._id, name: "COMBO" });
    expect(await store.backfillNameSkeletons(CURRENT_SKELETONS)).to.equal(0);
  });

  it("backfills in batches: more public MoveSpecs than one batch all get theirs", async () => {
    await collection.insertMany(
      Array.from({ length: 1203 }, (_, i) => doc(`Drill ${i}`, { skeleton: null })),
    );
    expect(await store.backfillNameSkeletons(CURRENT_SKELETONS)).to.equal(1203);
    expect(await collection.countDocuments({ name_skeleton: { $exists: false } })).to.equal(0);
  });

  it("backfills the search words of a project's listing: without them, or split another way, once", async () => {
    const current = { of: searchFieldsOf, version: SEARCH_WORDS_VERSION };
    const missing = doc("Élan Squat", { project_id: MINE, description: "Deep" });
    const stale = doc("Lunge", {
      project_id: MINE,
      search_words: ["old"],
      search_words_version: 1,
    });
    const fine = doc("Plank", { project_id: MINE, ...searchFieldsOf("Plank", undefined) });
    await collection.insertMany([missing, stale, fine]);
    expect(await store.backfillSearchFields(current)).to.equal(2);
    const byName = Object.fromEntries(
      (await collection.find({}).toArray()).map((d) => [d.name, d]),
    );
    expect(byName["Élan Squat"]).to.include({
      name_key: "elan squat",
      search_words_version: SEARCH_WORDS_VERSION,
    });
    expect(byName["Élan Squat"].search_words).to.deep.equal(["elan", "squat", "deep"]);
    expect(byName.Lunge.search_words).to.deep.equal(["lunge"]);
    expect(await store.backfillSearchFields(current)).to.equal(0);
    const found = await store.listProject({
      projectId: MINE,
      words: ["elan"],
      sort: "name",
      limit: 20,
      offset: 0,
    });
    expect(found.items.map((d) => d.name)).to.deep.equal(["Élan Squat"]);
    expect(found.total).to.equal(1);
  });
});
