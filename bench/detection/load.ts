/**
 * The load generator of the realtime benchmark: sessions created through the gateway, frames
 * pre-serialised (the generator should spend its CPU on sockets, not on JSON), and the timing
 * of every frame that the engine answers with an event.
 */

import { BINARY_FRAMES, encodeBinaryFrames, type PoseFrame } from "@movement-detection/sdk";
import WebSocket from "ws";

/** How the load generator sends frames: JSON text (the default) or binary messages (float32). */
export type Encoding = "json" | "binary";

/** Text of one `frame` message per frame, and the keypoints' JSON for building batches. */
export interface PreparedFrames {
  readonly frames: readonly PoseFrame[];
  readonly frameMessages: readonly string[];
  readonly keypointsJson: readonly string[];
  /** One binary frames message per frame (the SDK's encoder). */
  readonly frameBinaries: readonly Uint8Array[];
  /** seq of every frame that makes at least one event (from the engine, run once). */
  readonly eventSeqs: ReadonlySet<number>;
}

export function prepareFrames(
  frames: readonly PoseFrame[],
  eventSeqs: Iterable<number>,
): PreparedFrames {
  const keypointsJson = frames.map((frame) => JSON.stringify(frame.keypoints));
  return {
    frames,
    keypointsJson,
    frameMessages: frames.map(
      (frame, i) =>
        `{"type":"frame","seq":${frame.seq},"t":${frame.t},"keypoints":${keypointsJson[i]}}`,
    ),
    frameBinaries: frames.map((frame) => {
      const bytes = encodeBinaryFrames([frame], KEYPOINTS);
      if (!bytes) throw new Error(`frame ${frame.seq} has no 33 keypoints of one layout`);
      return bytes;
    }),
    eventSeqs: new Set(eventSeqs),
  };
}

const KEYPOINTS = 33;

/**
 * The `t` of frame `seq` when the recording is looped with seq and t rising: the recording's own
 * time plus one lap (its length and a second) per loop.
 */
export function loopedTime(prepared: PreparedFrames, seq: number): number {
  const n = prepared.frames.length;
  const lapSeconds = (prepared.frames[n - 1]?.t ?? 0) + 1;
  return Math.round((prepared.frames[seq % n].t + Math.floor(seq / n) * lapSeconds) * 1e4) / 1e4;
}

/** The binary counterpart of batchMessage: one message, frames copied from the prepared ones. */
export function binaryBatchMessage(prepared: PreparedFrames, start: number, count: number): Buffer {
  const n = prepared.frames.length;
  const header = BINARY_FRAMES.header_bytes;
  const frameBytes = prepared.frameBinaries[0].length - header;
  const message = Buffer.allocUnsafe(header + count * frameBytes);
  message.set(prepared.frameBinaries[0].subarray(0, header), 0);
  message.writeUInt32LE(count, 4);
  for (let i = 0; i < count; i += 1) {
    const seq = start + i;
    const index = seq % n;
    const at = header + i * frameBytes;
    message.set(prepared.frameBinaries[index].subarray(header), at);
    message.writeDoubleLE(seq, at);
    message.writeDoubleLE(loopedTime(prepared, seq), at + 8);
  }
  return message;
}

/** A `frames` message of `count` frames from `start` (looping the recording, seq/t kept rising). */
export function batchMessage(prepared: PreparedFrames, start: number, count: number): string {
  const n = prepared.frames.length;
  const parts: string[] = [];
  for (let seq = start; seq < start + count; seq += 1) {
    const t = loopedTime(prepared, seq);
    parts.push(`{"seq":${seq},"t":${t},"keypoints":${prepared.keypointsJson[seq % n]}}`);
  }
  return `{"type":"frames","frames":[${parts.join(",")}]}`;
}

export interface BenchSocket {
  readonly ws: WebSocket;
  /** Resolves with the first message of `type` (its raw text). */
  waitFor(type: string, timeoutMs?: number): Promise<string>;
  onText(listener: (text: string) => void): void;
}

/** The client certificate, key and CA of a mutual TLS stream hop (straight to a replica). */
export interface StreamTls {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly ca: Buffer;
}

/** Opens a stream and attaches (hello -> ready). */
export function openStream(
  url: string,
  runtimeToken: string,
  tls?: StreamTls,
  encoding: Encoding = "json",
): Promise<BenchSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, ...tls });
    const listeners: ((text: string) => void)[] = [];
    ws.on("message", (data) => {
      const text = data.toString();
      for (const listener of listeners) listener(text);
    });
    ws.once("error", reject);
    const socket: BenchSocket = {
      ws,
      onText: (listener) => listeners.push(listener),
      waitFor: (type, timeoutMs = 30_000) =>
        new Promise((done, fail) => {
          const prefix = `{"type":"${type}"`;
          const timer = setTimeout(
            () => fail(new Error(`no ${type} within ${timeoutMs} ms`)),
            timeoutMs,
          );
          listeners.push((text) => {
            if (text.startsWith(prefix)) {
              clearTimeout(timer);
              done(text);
            }
          });
        }),
    };
    ws.once("open", () => {
      ws.send(
        JSON.stringify({
          type: "hello",
          runtime_token: runtimeToken,
          ...(encoding === "binary" ? { frame_encoding: "binary" } : {}),
        }),
      );
      socket.waitFor("ready").then(() => resolve(socket), reject);
    });
  });
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Runs `task` over `items` with at most `limit` at a time. */
export async function inBatches<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next;
        next += 1;
        results[index] = await task(items[index]);
      }
    }),
  );
  return results;
}
