import fs from "node:fs";
import { expect } from "chai";
import { startEmbeddedMongo } from "../../support/embedded-mongo.js";
import { againstRealMongo } from "../conformance/harness.js";
import { expectRecovered, startWriter } from "./writer-process.js";

describe("embedded-mongo durability: crash (kill -9) mid-burst", function () {
  this.timeout(150_000);
  before(function () {
    if (againstRealMongo) this.skip(); // kills the server process: embedded server only
  });

  it("keeps every acknowledged write across SIGKILL, log compaction and restart", async () => {
    // A small compaction threshold makes snapshots happen during the burst too.
    const env = { EMBEDDED_MONGO_COMPACT_BYTES: String(256 * 1024) };
    const first = await startEmbeddedMongo({ env });
    const dataDir = first.dataDir;
    try {
      const writer = startWriter(first.uri);
      await writer.acknowledged(1500);
      await first.kill("SIGKILL");
      await writer.stop();
      const acks = writer.acks;
      expect(acks.inserted.size).to.be.at.least(1500);
      const files = fs.readdirSync(dataDir);
      expect(files.some((f) => f.startsWith("snapshot-"))).to.equal(true);

      const second = await startEmbeddedMongo({ dataDir, env });
      try {
        await expectRecovered(second.uri, acks);
        // Crash again, this time the second incarnation, then check once more.
        const again = startWriter(second.uri, { firstId: 1_000_000 });
        await again.acknowledged(500);
        await second.kill("SIGKILL");
        await again.stop();
        const third = await startEmbeddedMongo({ dataDir, env });
        try {
          await expectRecovered(third.uri, acks, again.acks);
        } finally {
          await third.stop();
        }
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
