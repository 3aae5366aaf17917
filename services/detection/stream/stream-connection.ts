import { AsyncLocalStorage } from "node:async_hooks";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "@movement-detection/shared/logging";
import {
  KeySetUnavailableError,
  type RuntimeClaims,
  TokenError,
  type TokenVerifier,
} from "@movement-detection/shared/tokens";
import type { WebSocket } from "ws";
import { CloseCode, StreamError, StreamWarning } from "../reasons.js";
import type { AttachTrace } from "./attach-trace.js";
import { isBinaryFramesProblem, readBinaryFrames } from "./binary-frames.js";
import { parseClientMessage } from "./client-message.js";
import { type Hello, readHello } from "./hello-message.js";
import { JsonFrameReader } from "./json-frame-reader.js";
import type { OwnedSession } from "./owned-session.js";
import type { AttachRefusal, SessionAttacher } from "./session-attacher.js";
import { errorMessage, PONG_MESSAGE, warningMessage } from "./stream-messages.js";
import type { StreamSink } from "./stream-sink.js";

export interface StreamConnectionDeps {
  readonly verifier: TokenVerifier;
  readonly attacher: SessionAttacher;
  readonly helloTimeoutMs: number;
  readonly logger: Logger;
}

/** Messages that arrive while the attach is in progress (the socket is paused; few can). */
const MAX_EARLY_MESSAGES = 256;

type State = "hello" | "attaching" | "attached" | "closed";

/**
 * One websocket of the realtime stream: `hello` (token in the message or in the upgrade's
 * Authorization header), then the attached session's messages. Every client error is answered
 * as the contract says; nothing a client sends can throw out of here.
 */
export function handleStreamConnection(
  ws: WebSocket,
  sessionId: string | undefined,
  headerToken: string | undefined,
  deps: StreamConnectionDeps,
  attachTrace?: AttachTrace,
): void {
  const { logger } = deps;
  const inUpgradeContext = AsyncLocalStorage.snapshot();
  let state: State = "hello";
  let session: OwnedSession | undefined;
  /** Binary messages are frames when the hello asked for them; otherwise they are refused. */
  let frameEncoding: Hello["frameEncoding"] = "json";
  let helloTimer: NodeJS.Timeout | undefined;
  const early: { data: Buffer; isBinary: boolean }[] = [];
  const jsonFrames = new JsonFrameReader();

  const sink: StreamSink = {
    send: (message) => {
      if (ws.readyState === ws.OPEN) ws.send(message);
    },
    close: (code, reason) => {
      if (ws.readyState !== ws.OPEN && ws.readyState !== ws.CONNECTING) return;
      // A paused socket would never read the client's answering close frame.
      ws.resume();
      ws.close(code, reason);
    },
    pauseReading: () => ws.pause(),
    resumeReading: () => ws.resume(),
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
  };

  const refuse = (refusal: AttachRefusal) => {
    attachTrace?.end("refused", refusal.code);
    if (refusal.end) sink.send(refusal.end);
    sink.send(errorMessage(refusal.code, refusal.message));
    sink.close(refusal.closeCode, refusal.code.toLowerCase());
    state = "closed";
  };

  ws.on("close", () => {
    attachTrace?.end("gone");
    clearTimeout(helloTimer);
    state = "closed";
    if (session) void session.release("client_gone");
  });
  ws.on("error", (error) => {
    // ws closes with 1009 (too big) or 1002 (protocol) by itself; nothing else to do.
    logger.debug({ err: error.message, session_id: sessionId }, "stream socket error");
  });

  if (!sessionId) {
    refuse({
      code: StreamError.sessionNotFound,
      message: "no such session",
      closeCode: CloseCode.unknownSession,
    });
    return;
  }

  helloTimer = setTimeout(() => {
    if (state !== "hello") return;
    refuse({
      code: StreamError.helloTimeout,
      message: "no valid hello in time",
      closeCode: CloseCode.unauthenticated,
    });
  }, deps.helloTimeoutMs);

  /** Re-read through a function: the socket may close while an attach awaits. */
  function isClosed(): boolean {
    return state === "closed";
  }

  async function authenticate(token: string): Promise<RuntimeClaims | AttachRefusal> {
    try {
      return await deps.verifier.verifyRuntimeToken(token);
    } catch (error) {
      if (error instanceof TokenError) {
        return { code: error.reason, message: error.message, closeCode: CloseCode.unauthenticated };
      }
      if (error instanceof KeySetUnavailableError) {
        return {
          code: StreamError.serviceUnavailable,
          message: "tokens cannot be verified right now: try again",
          closeCode: CloseCode.tryAgainLater,
        };
      }
      throw error;
    }
  }

  async function onHello(message: Record<string, unknown>): Promise<void> {
    const check = readHello(message);
    if (!check.ok) {
      const topology = check.field === "topology";
      return refuse({
        code: topology ? StreamError.topologyUnsupported : StreamError.helloRequired,
        message: check.message,
        closeCode: topology ? CloseCode.policy : CloseCode.unauthenticated,
      });
    }
    const token = check.hello.runtimeToken ?? headerToken;
    if (!token) {
      return refuse({
        code: StreamError.tokenInvalid,
        message: "hello needs a runtime_token (or an Authorization header on the upgrade)",
        closeCode: CloseCode.unauthenticated,
      });
    }
    state = "attaching";
    clearTimeout(helloTimer);
    ws.pause();
    const claims = await authenticate(token);
    if ("code" in claims) return refuse(claims);
    if (isClosed()) return;
    const result = await deps.attacher.attach(
      sessionId as string,
      claims,
      check.hello,
      sink,
      isClosed,
    );
    if (!result.ok) return refuse(result);
    session = result.session;
    frameEncoding = check.hello.frameEncoding;
    state = "attached";
    attachTrace?.end("attached");
    ws.resume();
    for (const message of early.splice(0)) onMessage(message.data, message.isBinary);
  }

  function parse(data: Buffer, isBinary: boolean): Record<string, unknown> | undefined {
    if (isBinary) {
      sink.send(
        warningMessage(
          StreamWarning.binaryUnsupported,
          'binary messages are frames, after a hello with "frame_encoding": "binary"',
        ),
      );
      return undefined;
    }
    const read = parseClientMessage(data);
    if (read.ok) return read.message;
    sink.send(warningMessage(read.code, read.message));
    return undefined;
  }

  function onAttachedMessage(message: Record<string, unknown>, owned: OwnedSession): void {
    owned.touch();
    switch (message.type) {
      case "frame":
        owned.onFrames([message]);
        return;
      case "frames":
        if (!Array.isArray(message.frames)) {
          sink.send(
            warningMessage(StreamWarning.messageInvalid, "frames must be an array of frames"),
          );
        } else owned.onFrames(message.frames);
        return;
      case "finalize":
        owned.finalize();
        return;
      case "ping":
        sink.send(PONG_MESSAGE);
        return;
      case "hello":
        sink.send(warningMessage(StreamWarning.messageInvalid, "already attached: hello ignored"));
        return;
      default:
        sink.send(
          warningMessage(
            StreamWarning.unknownType,
            `unknown message type ${JSON.stringify(message.type)}`,
          ),
        );
    }
  }

  function onBinaryFrames(data: Buffer, owned: OwnedSession): void {
    owned.touch();
    const frames = readBinaryFrames(data, owned.keypointCount);
    if (isBinaryFramesProblem(frames)) sink.send(warningMessage(frames.code, frames.message));
    else owned.onPackedFrames(frames);
  }

  function onMessage(data: Buffer, isBinary: boolean): void {
    if (state === "closed") return;
    if (state === "attaching") {
      if (early.length >= MAX_EARLY_MESSAGES) {
        refuse({
          code: StreamError.rateLimited,
          message: "wait for ready",
          closeCode: CloseCode.policy,
        });
      } else early.push({ data, isBinary });
      return;
    }
    if (state === "attached" && session) {
      if (!session.isOpen) return;
      if (isBinary && frameEncoding === "binary") {
        onBinaryFrames(data, session);
        return;
      }
      const scanned = isBinary ? undefined : jsonFrames.read(data);
      if (scanned) {
        session.touch();
        session.onFrames([scanned]);
        return;
      }
      const message = parse(data, isBinary);
      if (message) onAttachedMessage(message, session);
      return;
    }
    // state === "hello": the first message must be a hello.
    const read = isBinary ? undefined : parseClientMessage(data);
    if (!read?.ok || read.message.type !== "hello") {
      refuse({
        code: StreamError.helloRequired,
        message: 'the first message must be {"type":"hello", ...}',
        closeCode: CloseCode.unauthenticated,
      });
      return;
    }
    const hello = () => onHello(read.message);
    // In the upgrade's request context (its request_id on every line, the refusal's too): a
    // socket's events come in the context of whatever read it.
    void inUpgradeContext(() => attachOrRefuse(hello));
  }

  function attachOrRefuse(hello: () => Promise<void>): Promise<void> {
    return (attachTrace ? attachTrace.run(hello) : hello()).catch((error) => {
      if (isRetryable(error)) {
        // The session store is out of reach: as when a session loses it, reconnect to resume.
        logger.warn(
          { err: (error as Error).message, session_id: sessionId },
          "attach failed: the session store is unavailable",
        );
        refuse({
          code: StreamError.serviceUnavailable,
          message: "the session store cannot be reached right now: reconnect to resume",
          closeCode: CloseCode.internal,
        });
        return;
      }
      logger.error({ err: error, session_id: sessionId }, "attach failed");
      refuse({
        code: StreamError.internal,
        message: "internal error",
        closeCode: CloseCode.internal,
      });
    });
  }

  ws.on("message", (data: Buffer, isBinary: boolean) => {
    try {
      onMessage(data, isBinary);
    } catch (error) {
      logger.error({ err: error, session_id: sessionId }, "stream message failed");
      refuse({
        code: StreamError.internal,
        message: "internal error",
        closeCode: CloseCode.internal,
      });
      if (session) void session.release("client_gone");
    }
  });
}

/** A store failure a retry can outlive (UNAVAILABLE, ABORTED: store-errors.ts), not a bug. */
function isRetryable(error: unknown): boolean {
  return (
    error instanceof ConnectError &&
    (error.code === Code.Unavailable || error.code === Code.Aborted)
  );
}
