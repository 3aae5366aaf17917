/**
 * Runs crash-writer.ts as a child process and collects what it reports as acknowledged,
 * then checks a recovered server against it.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { MongoClient } from "mongodb";

const writerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), "crash-writer.ts");

export interface Acks {
  inserted: Set<number>;
  counter: number;
  pairs: Set<number>;
}

export interface Writer {
  acks: Acks;
  /** Resolves once `count` inserts are acknowledged (rejects after `timeoutMs`). */
  acknowledged(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves when the writer exits (it does when it loses its server). */
  exited: Promise<void>;
  /** Reads what is still in the pipe for a moment, then kills the writer. */
  stop(): Promise<void>;
}

export function startWriter(
  uri: string,
  options: { firstId?: number; payloadBytes?: number } = {},
): Writer {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      writerScript,
      uri,
      String(options.firstId ?? 0),
      String(options.payloadBytes ?? 200),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const acks: Acks = { inserted: new Set(), counter: 0, pairs: new Set() };
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const waiters = new Set<() => void>();
  let pending = "";
  child.stderr.resume();
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const [kind, value] = line.split(" ");
      if (kind === "insert") acks.inserted.add(Number(value));
      if (kind === "counter") acks.counter = Math.max(acks.counter, Number(value));
      if (kind === "pair") acks.pairs.add(Number(value));
    }
    for (const waiter of waiters) waiter();
  });
  return {
    acks,
    exited,
    acknowledged(count, timeoutMs = 60_000) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (acks.inserted.size < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`writer reached only ${acks.inserted.size} of ${count} writes`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      // Acknowledgements already in the pipe were acknowledged before a crash: keep reading.
      await new Promise((resolve) => setTimeout(resolve, 200));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * Checks a recovered server: every acknowledged insert and transaction is there, the
 * counter is at least what was acknowledged, and every transaction is whole or absent.
 * Returns the ids of the documents found.
 */
export async function expectRecovered(uri: string, ...runs: Acks[]): Promise<Set<number>> {
  const client = new MongoClient(uri);
  try {
    const db = client.db("crash");
    const idsOf = async (name: string): Promise<Set<number>> =>
      new Set(
        (
          await db
            .collection(name)
            .find({}, { projection: { _id: 1 } })
            .toArray()
        ).map((d) => Number(d._id)),
      );
    const ids = await idsOf("docs");
    const lost = runs.flatMap((acks) => [...acks.inserted].filter((id) => !ids.has(id)));
    expect(lost, "acknowledged inserts lost").to.deep.equal([]);
    const counter = await db.collection("counters").findOne({ _id: "c" as never });
    expect(counter?.n ?? 0).to.be.at.least(Math.max(...runs.map((a) => a.counter)));
    const a = await idsOf("pairs_a");
    const b = await idsOf("pairs_b");
    expect([...a].sort(), "transactions applied by half").to.deep.equal([...b].sort());
    const lostPairs = runs.flatMap((acks) => [...acks.pairs].filter((id) => !a.has(id)));
    expect(lostPairs, "acknowledged transactions lost").to.deep.equal([]);
    return ids;
  } finally {
    await client.close();
  }
}
