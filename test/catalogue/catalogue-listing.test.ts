import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import {
  type CatalogueService,
  type EntrySnapshot,
  EntrySnapshotSchema,
  Sort,
  Visibility,
} from "@movement-detection/proto/catalogue/v1";
import { newId } from "@movement-detection/shared/ids";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import { listingQuery } from "../../services/catalogue/domain/listing-query.js";
import { apiOf, catalogueClient, type JsonBody } from "../movespecs/support/api.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

interface Model {
  id: string;
  name: string;
  description?: string;
  updatedAt: number;
  stars: number;
  listed: boolean;
}

const PUBLIC_COUNT = 1000;
const CATALOGUE_DATABASE = `mds_catalogue_listing_${Date.now().toString(36)}`;
/** Page sizes for the sorts that are not the default (the default sort runs all 200). */
const SAMPLE_LIMITS = [2, 7, 13, 64, 101, 199, 200];
/**
 * Page sizes below this walk only the first SMALL_PAGE_WALK entries (hundreds of round trips
 * each otherwise); that stretch already crosses ties in every sort key. The larger ones walk all.
 */
const SMALL_PAGE = 8;
const SMALL_PAGE_WALK = 150;
const BASE_TIME = Date.UTC(2026, 0, 1);

/** 1,000 public entries with many ties in every sort key, plus some that must never be listed. */
function seedModel(): Model[] {
  const entries: Model[] = [];
  for (let i = 0; i < PUBLIC_COUNT; i += 1) {
    const word = `move${i % 50}`;
    entries.push({
      id: newId(),
      // Same name in two cases: ties for the case-insensitive name sort.
      name: i % 2 === 0 ? `${word} drill` : `${word.toUpperCase()} Drill`,
      description: i % 100 === 0 ? `Élan squat number ${i}, with a pause at the bottom` : undefined,
      // Groups of 7 share an updated_at.
      updatedAt: BASE_TIME + Math.floor(i / 7) * 1000,
      stars: i < 30 ? (i % 3) + 1 : 0,
      listed: true,
    });
  }
  for (let i = 0; i < 60; i += 1) {
    entries.push({
      id: newId(),
      name: `hidden squat ${i}`,
      description: "private, delisted or archived: never listed",
      updatedAt: BASE_TIME + 10_000_000 + i,
      stars: 0,
      listed: false,
    });
  }
  return entries;
}

function snapshot(model: Model, index: number, projectId: string): EntrySnapshot {
  const hiddenKind = model.listed
    ? undefined
    : (["private", "delisted", "archived"] as const)[index % 3];
  return create(EntrySnapshotSchema, {
    movespecId: model.id,
    projectId,
    organizationId: projectId,
    name: model.name,
    description: model.description,
    visibility:
      hiddenKind === "private"
        ? Visibility.PRIVATE
        : hiddenKind === "delisted"
          ? Visibility.DELISTED
          : Visibility.PUBLIC,
    createdAt: timestampFromDate(new Date(BASE_TIME)),
    updatedAt: timestampFromDate(new Date(model.updatedAt)),
    archivedAt: hiddenKind === "archived" ? timestampFromDate(new Date(BASE_TIME)) : undefined,
    revision: 1,
  });
}

/** Every stage of an explained plan (classic or slot-based engine shapes). */
function planStages(plan: JsonBody | undefined): { stage: string; indexName?: string }[] {
  if (!plan || typeof plan !== "object") return [];
  const own =
    typeof plan.stage === "string" ? [{ stage: plan.stage, indexName: plan.indexName }] : [];
  const children = [plan.inputStage, plan.queryPlan, ...(plan.inputStages ?? [])];
  return [...own, ...children.flatMap((child) => planStages(child))];
}

const byId = (a: Model, b: Model) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const EXPECTED_ORDER: Record<string, (a: Model, b: Model) => number> = {
  recent: (a, b) => b.updatedAt - a.updatedAt || byId(a, b),
  stars: (a, b) => b.stars - a.stars || byId(a, b),
  name: (a, b) => {
    const [x, y] = [a.name.toLowerCase(), b.name.toLowerCase()];
    return x < y ? -1 : x > y ? 1 : byId(a, b);
  },
};

describe("catalogue listing and search", function () {
  this.timeout(90_000);
  let system: TestSystem;
  /** As the authoring service (which alone pushes entries). */
  let catalogue: Client<typeof CatalogueService>;
  /** As the operator (the admin tool stars on behalf of organizations). */
  let operator: Client<typeof CatalogueService>;
  let call: ReturnType<typeof apiOf>;
  const model = seedModel();
  const listed = model.filter((entry) => entry.listed);

  before(async () => {
    // Thousands of requests: debug logs of every process would dominate the run time.
    system = await startTestSystem({
      env: { LOG_LEVEL: "info" },
      serviceEnv: { catalogue: { MONGODB_DATABASE: CATALOGUE_DATABASE } },
    });
    catalogue = catalogueClient(system, "connect", "authoring");
    operator = catalogueClient(system, "connect", "operator");
    call = apiOf(system.gatewayUrl);
    const projectId = newId();
    for (let start = 0; start < model.length; start += 100) {
      const batch = model.slice(start, start + 100);
      await catalogue.syncEntries({
        entries: batch.map((m, i) => snapshot(m, start + i, projectId)),
      });
    }
    const organizations = Array.from({ length: 1 + Math.max(...model.map((m) => m.stars)) }, () =>
      newId(),
    );
    for (const entry of model.filter((m) => m.stars > 0)) {
      for (let star = 0; star < entry.stars; star += 1) {
        await operator.starMoveSpec({ organizationId: organizations[star], movespecId: entry.id });
      }
    }
  });
  after(async () => {
    await system?.stop();
  });

  /** Pages from offset 0 until the end, or until `stopAfter` ids were read. */
  async function pageThrough(path: string, limit: number, stopAfter = Infinity): Promise<string[]> {
    const ids: string[] = [];
    for (let offset = 0; ids.length < stopAfter; offset += limit) {
      const separator = path.includes("?") ? "&" : "?";
      const page = await call("GET", `${path}${separator}limit=${limit}&offset=${offset}`);
      expect(page.status).to.equal(200);
      expect(page.body).to.include({ limit, offset, total: PUBLIC_COUNT });
      ids.push(...page.body.items.map((item: JsonBody) => item.movespec_id));
      expect(page.body.has_more).to.equal(offset + limit < PUBLIC_COUNT);
      if (!page.body.has_more) return ids;
    }
    return ids;
  }

  /** The same paging over gRPC (the gateway passes limit and offset through unchanged). */
  async function pageThroughGrpc(
    sort: Sort,
    limit: number,
    stopAfter = Infinity,
  ): Promise<string[]> {
    const ids: string[] = [];
    for (let offset = 0; ids.length < stopAfter; offset += limit) {
      const page = await operator.listMoveSpecs({ sort, limit, offset: BigInt(offset) });
      expect(page.total).to.equal(PUBLIC_COUNT);
      ids.push(...page.items.map((item) => item.movespecId));
      expect(page.hasMore).to.equal(offset + limit < PUBLIC_COUNT);
      if (!page.hasMore) return ids;
    }
    return ids;
  }

  /** The ids a walk at `limit` must return: all of `expected`, or its start for small pages. */
  const walkOf = (limit: number) => (limit < SMALL_PAGE ? SMALL_PAGE_WALK : Infinity);
  const expectedWalk = (expected: string[], limit: number) =>
    limit < SMALL_PAGE ? expected.slice(0, Math.ceil(SMALL_PAGE_WALK / limit) * limit) : expected;

  for (const [name, sort] of [
    ["recent", Sort.RECENT],
    ["stars", Sort.STARS],
    ["name", Sort.NAME],
  ] as const) {
    it(`pages through 1,000 public entries sorted by ${name} (${name === "recent" ? "small limits, both sides of 100, 1 and 200" : "limits from 2 to 200"}; pages under ${SMALL_PAGE} over the first ${SMALL_PAGE_WALK}), never repeating or skipping`, async () => {
      const expected = [...listed].sort(EXPECTED_ORDER[name]).map((m) => m.id);
      expect(new Set(expected).size).to.equal(PUBLIC_COUNT);
      const limits = name === "recent" ? [1, 3, 4, 5, 6, ...SAMPLE_LIMITS, 99, 100] : SAMPLE_LIMITS;
      // Four page sizes at a time: the listing is read-only here, and both cores get work.
      for (let start = 0; start < limits.length; start += 4) {
        await Promise.all(
          limits.slice(start, start + 4).map(async (limit) => {
            expect(
              await pageThroughGrpc(sort, limit, walkOf(limit)),
              `limit ${limit}`,
            ).to.deep.equal(expectedWalk(expected, limit));
          }),
        );
      }
      // And through the gateway, on a few page sizes.
      for (const limit of [1, 7, 64, 200]) {
        expect(
          await pageThrough(`/api/movespecs?sort=${name}`, limit, walkOf(limit)),
          `limit ${limit}`,
        ).to.deep.equal(expectedWalk(expected, limit));
      }
    });
  }

  it("sorts recent first by default and serves the public MoveSpec resource", async () => {
    const page = await call("GET", "/api/movespecs?limit=3");
    const first = [...listed].sort(EXPECTED_ORDER.recent)[0];
    expect(page.body.items[0]).to.deep.equal({
      movespec_id: first.id,
      project_id: page.body.items[0].project_id,
      name: first.name,
      created_at: new Date(BASE_TIME).toISOString(),
      updated_at: new Date(first.updatedAt).toISOString(),
      visibility: "public",
      star_count: first.stars,
    });
    const stars = await call("GET", "/api/movespecs?sort=stars&limit=1");
    expect(stars.body.items[0].star_count).to.equal(3);
  });

  it("searches words in names and descriptions, ignoring case and accents", async () => {
    const withSquat = listed.filter((m) => m.description?.includes("squat")).map((m) => m.id);
    expect(withSquat).to.have.length(10);
    const squat = await call("GET", "/api/movespecs?q=SQUAT&limit=200");
    expect(squat.body.total).to.equal(10);
    expect(squat.body.items.map((i: JsonBody) => i.movespec_id).sort()).to.deep.equal(
      [...withSquat].sort(),
    );
    const accents = await call("GET", "/api/movespecs?q=elan%20PAUSE&limit=200");
    expect(accents.body.total).to.equal(10);
    const nameAndDescription = await call(
      "GET",
      `/api/movespecs?q=${encodeURIComponent("move0 squat")}`,
    );
    // move0 is i % 50 == 0; squat is i % 100 == 0: both hold for i % 100 == 0.
    expect(nameAndDescription.body.total).to.equal(10);
    const oneName = await call("GET", "/api/movespecs?q=move7&limit=200&sort=name");
    expect(oneName.body.total).to.equal(20);
    expect(oneName.body.items.map((i: JsonBody) => i.movespec_id)).to.deep.equal(
      listed
        .filter((m) => m.name.toLowerCase().startsWith("move7 "))
        .sort(EXPECTED_ORDER.name)
        .map((m) => m.id),
    );
    const nothing = await call("GET", "/api/movespecs?q=squat%20nonexistentword");
    expect(nothing.body).to.include({ total: 0, has_more: false });
    expect(nothing.body.items).to.deep.equal([]);
  });

  it("never lists private, delisted or archived entries, nor finds them", async () => {
    const hidden = new Set(model.filter((m) => !m.listed).map((m) => m.id));
    const all = await pageThrough("/api/movespecs", 200);
    expect(all.filter((id) => hidden.has(id))).to.deep.equal([]);
    const search = await call("GET", "/api/movespecs?q=hidden&limit=200");
    expect(search.body.total).to.equal(0);
    const counts = await operator.getStarCounts({ movespecIds: [...hidden].slice(0, 3) });
    expect(Object.values(counts.starCounts)).to.deep.equal([0, 0, 0]);
  });

  it("keeps one star per organization and hides private entries from strangers", async () => {
    const target = listed[500];
    const caller = { organizationId: newId() };
    expect((await operator.starMoveSpec({ ...caller, movespecId: target.id })).starCount).to.equal(
      1,
    );
    expect((await operator.starMoveSpec({ ...caller, movespecId: target.id })).starCount).to.equal(
      1,
    );
    const got = await call("GET", `/api/movespecs?sort=stars&limit=200`);
    expect(got.body.items.find((i: JsonBody) => i.movespec_id === target.id)?.star_count).to.equal(
      1,
    );
    expect(
      (await operator.unstarMoveSpec({ ...caller, movespecId: target.id })).starCount,
    ).to.equal(0);
    expect(
      (await operator.unstarMoveSpec({ ...caller, movespecId: target.id })).starCount,
    ).to.equal(0);
    const privateOne = model.find((m) => !m.listed) as Model;
    const refused = await operator.starMoveSpec({ ...caller, movespecId: privateOne.id }).then(
      () => "starred",
      (error: Error) => error.message,
    );
    expect(refused).to.match(/movespec not found/);
  });

  it("serves every listing and search from an index, sorted by the index when not searching", async () => {
    const client = new MongoClient(system.mongodbUri);
    try {
      const entries = client.db(CATALOGUE_DATABASE).collection("entries");
      for (const sort of [Sort.RECENT, Sort.STARS, Sort.NAME]) {
        for (const words of [[], ["squat"], ["elan", "pause"]]) {
          const query = listingQuery(words, sort);
          const explained = await entries
            .find(query.filter)
            .sort(query.sort)
            .skip(40)
            .limit(20)
            .explain();
          const stages = planStages((explained as JsonBody).queryPlanner.winningPlan);
          const label = `${Sort[sort]} ${words.join(" ")}`;
          expect(
            stages.map((s) => s.stage),
            label,
          ).to.include("IXSCAN");
          expect(
            stages.map((s) => s.stage),
            label,
          ).not.to.include("COLLSCAN");
          if (words.length === 0) {
            expect(
              stages.map((s) => s.stage),
              label,
            ).not.to.include("SORT");
            expect(stages.find((s) => s.stage === "IXSCAN")?.indexName, label).to.equal(
              query.index,
            );
          }
        }
      }
    } finally {
      await client.close();
    }
  });

  it("ignores snapshots older than what it holds", async () => {
    const entry = listed[10];
    const stale = snapshot({ ...entry, name: "stale rename" }, 0, newId());
    stale.revision = 1;
    const result = await catalogue.syncEntries({ entries: [stale] });
    expect(result.storedRevisions[entry.id]).to.equal(1);
    const search = await call("GET", "/api/movespecs?q=stale");
    expect(search.body.total).to.equal(0);
  });
});
