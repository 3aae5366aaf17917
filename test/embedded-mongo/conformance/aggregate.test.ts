import { expect } from "chai";
import { errorOf, useConformanceDb } from "./harness.js";

describe("embedded-mongo conformance: aggregate", () => {
  const state = useConformanceDb("aggregate");
  const orders = () => state.db.collection("orders");

  before(async () => {
    await orders().insertMany([
      { _id: 1, customer: "ann", status: "paid", total: 30, items: ["a", "b"] },
      { _id: 2, customer: "bob", status: "paid", total: 20, items: ["b"] },
      { _id: 3, customer: "ann", status: "open", total: 50, items: [] },
      { _id: 4, customer: "cid", status: "paid", total: 10, items: ["a", "c", "d"] },
    ] as never[]);
    await state.db.collection("customers").insertMany([
      { _id: "ann", city: "Oslo" },
      { _id: "bob", city: "Rome" },
    ] as never[]);
  });

  it("runs $match, $group, $sort, $project", async () => {
    const result = await orders()
      .aggregate([
        { $match: { status: "paid" } },
        { $group: { _id: "$customer", spent: { $sum: "$total" }, n: { $sum: 1 } } },
        { $sort: { spent: -1 } },
        { $project: { _id: 0, customer: "$_id", spent: 1, n: 1 } },
      ])
      .toArray();
    expect(result).to.deep.equal([
      { spent: 30, n: 1, customer: "ann" },
      { spent: 20, n: 1, customer: "bob" },
      { spent: 10, n: 1, customer: "cid" },
    ]);
  });

  it("runs $skip, $limit, $addFields, $set and $count", async () => {
    const page = await orders()
      .aggregate([
        { $sort: { total: 1 } },
        { $skip: 1 },
        { $limit: 2 },
        { $addFields: { double: { $multiply: ["$total", 2] } } },
        { $set: { flag: true } },
        { $project: { _id: 1, double: 1, flag: 1 } },
      ])
      .toArray();
    expect(page).to.deep.equal([
      { _id: 2, double: 40, flag: true },
      { _id: 1, double: 60, flag: true },
    ]);
    const counted = await orders()
      .aggregate([{ $match: { total: { $gt: 15 } } }, { $count: "n" }])
      .toArray();
    expect(counted).to.deep.equal([{ n: 3 }]);
  });

  it("does not change stored documents", async () => {
    await orders()
      .aggregate([{ $set: { total: 0 } }, { $unset: "customer" }])
      .toArray();
    expect(await orders().findOne({ _id: 1 as never })).to.deep.include({
      total: 30,
      customer: "ann",
    });
  });

  it("runs $unwind and $facet", async () => {
    const unwound = await orders()
      .aggregate([
        { $unwind: "$items" },
        { $group: { _id: "$items", n: { $sum: 1 } } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    expect(unwound).to.deep.equal([
      { _id: "a", n: 2 },
      { _id: "b", n: 2 },
      { _id: "c", n: 1 },
      { _id: "d", n: 1 },
    ]);
    const [facets] = await orders()
      .aggregate([
        {
          $facet: {
            total: [{ $count: "n" }],
            top: [{ $sort: { total: -1 } }, { $limit: 1 }, { $project: { _id: 1 } }],
          },
        },
      ])
      .toArray();
    expect(facets).to.deep.equal({ total: [{ n: 4 }], top: [{ _id: 3 }] });
  });

  it("joins with $lookup", async () => {
    const joined = await orders()
      .aggregate([
        { $match: { _id: 2 } },
        { $lookup: { from: "customers", localField: "customer", foreignField: "_id", as: "who" } },
        { $project: { _id: 0, city: { $first: "$who.city" } } },
      ])
      .toArray();
    expect(joined).to.deep.equal([{ city: "Rome" }]);
  });

  it("returns large results through getMore", async () => {
    const c = state.db.collection("agg_large");
    await c.insertMany(Array.from({ length: 300 }, (_, i) => ({ i })));
    const all = await c.aggregate([{ $sort: { i: -1 } }], { batchSize: 50 }).toArray();
    expect(all).to.have.length(300);
    expect(all[0].i).to.equal(299);
  });

  it("rejects an unknown stage with code 40324", async () => {
    const error = await errorOf(() =>
      orders()
        .aggregate([{ $noSuchStage: {} }])
        .toArray(),
    );
    expect(error.code).to.equal(40324);
  });
});
