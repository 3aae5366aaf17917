/**
 * Version creation at the operation level, over the embedded MongoDB with the real stores: an
 * archive landing between freeze's not-archived check and its insert (made deterministic by a
 * store wrapper that archives right after the check read the MoveSpec), two replicas creating
 * versions of one MoveSpec at once, and versions written before the MoveSpec kept any counter.
 */

import { create } from "@bufbuild/protobuf";
import {
  ArchiveMoveSpecRequestSchema,
  CreateMoveSpecRequestSchema,
  CreateVersionRequestSchema,
} from "@movement-detection/proto/authoring/v1";
import { createIdempotencyStore } from "@movement-detection/shared/idempotency";
import { newId } from "@movement-detection/shared/ids";
import { createLogger } from "@movement-detection/shared/logging";
import type { Caller } from "@movement-detection/shared/security";
import { expect } from "chai";
import { type Db, MongoClient } from "mongodb";
import { MOVESPEC_TEMPLATE } from "../../services/authoring/domain/movespec-loader.js";
import type { AuthoringDeps } from "../../services/authoring/operations/deps.js";
import { createKeyedMutex } from "../../services/authoring/operations/keyed-mutex.js";
import {
  archiveMoveSpecsOfProject,
  createMoveSpecOperations,
} from "../../services/authoring/operations/movespec-operations.js";
import { createProjectGuard } from "../../services/authoring/operations/project-guard.js";
import {
  contentHashOf,
  createVersionOperations,
} from "../../services/authoring/operations/version-operations.js";
import type { MoveSpecDoc, VersionDoc } from "../../services/authoring/store/documents.js";
import {
  createMoveSpecStore,
  type MoveSpecStore,
} from "../../services/authoring/store/movespec-store.js";
import {
  createVersionStore,
  type VersionStore,
} from "../../services/authoring/store/version-store.js";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../support/embedded-mongo.js";
import { eventually } from "../support/eventually.js";
import { failure } from "../support/failure.js";

const PROJECT = "0192f0c4-3b7e-7a51-9d3c-000000000001";
const caller: Caller = {
  organizationId: "0192f0c4-3b7e-7a51-9d3c-000000000002",
  projectId: PROJECT,
  scopes: ["movespecs:write"],
  credentialId: "key-1",
  accessToken: "",
};

describe("authoring version operations over MongoDB", () => {
  let mongo: EmbeddedMongoHandle;
  let client: MongoClient;
  let db: Db;
  let movespecs: MoveSpecStore;
  let versions: VersionStore;

  before(async () => {
    mongo = await startEmbeddedMongo();
    client = new MongoClient(mongo.uri);
    db = client.db("authoring_versions_test");
    movespecs = createMoveSpecStore(db);
    versions = createVersionStore(db);
    await Promise.all([movespecs.ensureIndexes(), versions.ensureIndexes()]);
  });
  after(async () => {
    await client?.close();
    await mongo?.stop();
  });

  /** One authoring replica: its own in-process lock, the shared database. */
  function replica(
    store: MoveSpecStore = movespecs,
    projects: AuthoringDeps["projects"] = {
      assertWritable: async () => {},
      recheckAfterCreate: () => {},
    },
  ) {
    const deps: AuthoringDeps = {
      movespecs: store,
      versions,
      idempotency: createIdempotencyStore(db),
      relay: { nudge() {}, start() {}, stop: async () => {}, flush: async () => true },
      projects,
      versionLocks: createKeyedMutex(),
      logger: createLogger({ service: "authoring-test", level: "silent" }),
      now: () => new Date(),
    };
    return {
      movespecOps: createMoveSpecOperations(deps),
      versionOps: createVersionOperations(deps),
    };
  }

  async function newMoveSpec(): Promise<string> {
    const now = new Date();
    const doc: MoveSpecDoc = {
      _id: newId(),
      project_id: PROJECT,
      organization_id: caller.organizationId,
      name: "Race",
      visibility: "private",
      created_at: now,
      updated_at: now,
      created_by: caller.credentialId,
      updated_by: caller.credentialId,
      revision: 1,
      catalogue_pending: false,
      draft_yaml_source: MOVESPEC_TEMPLATE,
      draft: { draft_id: newId(), updated_at: now, updated_by: "", revision: 1 },
    };
    expect(await movespecs.insert(doc)).to.equal(true);
    return doc._id;
  }

  const request = (movespecId: string, idempotencyKey = "") => ({
    ...create(CreateVersionRequestSchema, { movespecId, idempotencyKey }),
    caller,
  });

  /**
   * A MoveSpec store whose reads of the draft (the not-archived check of freeze) let `archive`
   * run once, after the read and before the caller goes on: the archive lands in the window.
   */
  function archivingAfterCheck(archive: () => Promise<unknown>): MoveSpecStore {
    let armed = true;
    return {
      ...movespecs,
      async findWithDraft(id) {
        const doc = await movespecs.findWithDraft(id);
        if (armed && doc && !doc.archived_at) {
          armed = false;
          await archive();
        }
        return doc;
      },
    };
  }

  it("an archive landing after freeze's check refuses the version: MOVESPEC_ARCHIVED, none stored", async () => {
    const id = await newMoveSpec();
    const { movespecOps } = replica();
    const racing = replica(
      archivingAfterCheck(() =>
        movespecOps.archive(
          create(ArchiveMoveSpecRequestSchema, { movespecId: id, actor: "test" }),
        ),
      ),
    );
    const refused = await failure(racing.versionOps.createVersion(request(id)));
    expect(refused.reason).to.equal("MOVESPEC_ARCHIVED");
    expect(await versions.count(id)).to.equal(0);
  });

  it("a project archive landing after the check: PROJECT_ARCHIVED, none stored (with an Idempotency-Key)", async () => {
    const id = await newMoveSpec();
    const racing = replica(
      archivingAfterCheck(() => movespecs.archiveAllOfProject(PROJECT, new Date())),
    );
    const refused = await failure(racing.versionOps.createVersion(request(id, "k1")));
    expect(refused.reason).to.equal("PROJECT_ARCHIVED");
    expect(await versions.count(id)).to.equal(0);
  });

  it("a MoveSpec created while its project is being archived ends archived with it", async () => {
    // Auth says "not archived" to the check before the insert, "archived" to any later question:
    // the admin tool's archive of the project's MoveSpecs ran before this one existed.
    const archivedAt = new Date("2026-01-02T03:04:05.000Z");
    let asked = 0;
    const auth = {
      async getProject() {
        asked += 1;
        return { project: { archivedAt: asked > 1 ? archivedAt.toISOString() : undefined } };
      },
    };
    const logger = createLogger({ service: "authoring-test", level: "silent" });
    let nudged = 0;
    const relay = {
      nudge() {
        nudged += 1;
      },
    };
    const guard = createProjectGuard(
      auth as unknown as Parameters<typeof createProjectGuard>[0],
      logger,
      async (projectId, at) => {
        await archiveMoveSpecsOfProject(
          { movespecs, relay: relay as never, logger },
          projectId,
          at,
          "test",
        );
      },
    );
    const { movespecOps } = replica(movespecs, guard);
    const created = await movespecOps.createMoveSpec({
      ...create(CreateMoveSpecRequestSchema, { projectId: PROJECT, name: "Created late" }),
      caller,
    });
    const id = created.movespec?.movespecId ?? "";
    await eventually(async () => (await movespecs.findMetadata(id))?.archived_at !== undefined);
    const stored = await movespecs.findMetadata(id);
    expect(stored?.archived_at?.toISOString()).to.equal(archivedAt.toISOString());
    expect(stored?.archived_with_project).to.equal(true);
    expect(nudged, "the catalogue is told").to.equal(1);
  });

  it("two replicas creating 30 versions of one MoveSpec at once number them 1..30", async () => {
    const id = await newMoveSpec();
    const [a, b] = [replica(), replica()];
    const made = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? a : b).versionOps.createVersion(request(id)),
      ),
    );
    const numbers = made.map((v) => v.versionNumber).sort((x, y) => x - y);
    expect(numbers).to.deep.equal(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(made[0].contentHash).to.equal(contentHashOf(MOVESPEC_TEMPLATE));
  });

  it("an Idempotency-Key replays its version; versions stored before the change are counted on", async () => {
    const id = await newMoveSpec();
    for (const n of [1, 2]) {
      // Seeded as the code before `last_version_number` stored them: straight into the collection.
      await db.collection<VersionDoc>("versions").insertOne({
        _id: newId(),
        movespec_id: id,
        version_number: n,
        content_hash: contentHashOf(MOVESPEC_TEMPLATE),
        yaml_source: MOVESPEC_TEMPLATE,
        created_at: new Date(),
        created_by: "",
      });
    }
    const { versionOps } = replica();
    const first = await versionOps.createVersion(request(id, "k2"));
    const again = await versionOps.createVersion(request(id, "k2"));
    expect(first.versionNumber).to.equal(3);
    expect(again.movespecVersionId).to.equal(first.movespecVersionId);
    expect((await versionOps.createVersion(request(id))).versionNumber).to.equal(4);
  });
  it("a version found is kept per replica (up to its capacity, least recently used out); a miss is not", async () => {
    const id = await newMoveSpec();
    const versions = db.collection<VersionDoc>("versions");
    const seed = async (n: number) => {
      const doc = {
        _id: newId(),
        movespec_id: id,
        version_number: n,
        content_hash: contentHashOf(MOVESPEC_TEMPLATE),
        yaml_source: MOVESPEC_TEMPLATE,
        created_at: new Date(),
        created_by: "",
      };
      await versions.insertOne(doc);
      return doc._id;
    };
    const store = createVersionStore(db, 2);
    const unknown = newId();
    expect(await store.findById(unknown)).to.equal(null);
    const [a, b, c] = [await seed(1), await seed(2), unknown];
    await versions.insertOne({
      _id: c,
      movespec_id: id,
      version_number: 3,
      content_hash: contentHashOf(MOVESPEC_TEMPLATE),
      yaml_source: MOVESPEC_TEMPLATE,
      created_at: new Date(),
      created_by: "",
    });
    expect((await store.findById(c))?.version_number, "a miss is read again").to.equal(3);
    for (const versionId of [a, b]) expect(await store.findById(versionId)).to.not.equal(null);
    // Gone from the store (which never happens to a version): only what is kept still answers.
    await versions.deleteMany({ _id: { $in: [a, b, c] } });
    expect((await store.findById(b))?.version_number, "kept at capacity").to.equal(2);
    expect((await store.findById(a))?.version_number, "kept at capacity").to.equal(1);
    expect(await store.findById(c), "one past capacity: the least recently used is out").to.equal(
      null,
    );
    expect(await createVersionStore(db).findById(a), "per replica").to.equal(null);
  });
});
