import type { Logger } from "@movement-detection/shared/logging";
import type { SessionLimits } from "../config.js";
import { dueOutcome } from "../domain/session-timeouts.js";
import type { LockStore } from "../store/lock-store.js";
import type { ReplicaStore } from "../store/replica-store.js";
import type { SessionStore } from "../store/session-store.js";
import type { SessionSettlement } from "./session-settlement.js";

/**
 * The timers of the lifecycle that must survive restarts and work across replicas: every
 * `intervalMs`, the replica holding the `session-sweeper` lock ends the sessions that are due
 * (attach timeout, idle timeout, maximum duration, finalizing) and that no live replica holds.
 * Attached sessions are timed by their owner (stream/session-lifecycle.ts); the sweeper covers
 * the rest, including sessions whose owner died.
 */
export interface SessionSweeper {
  start(): void;
  stop(): Promise<void>;
  /** One pass (tests and the timer). */
  sweep(): Promise<number>;
}

export interface SessionSweeperOptions {
  readonly replicaId: string;
  readonly intervalMs: number;
  readonly limits: Pick<SessionLimits, "idleTimeoutMs">;
  /** A finalizing session whose live owner has not completed it within this is taken over. */
  readonly finalizingGraceMs: number;
  readonly sessions: SessionStore;
  readonly replicas: ReplicaStore;
  readonly locks: LockStore;
  readonly settlement: SessionSettlement;
  readonly logger: Logger;
}

const LOCK = "session-sweeper";
const BATCH = 200;

export function createSessionSweeper(options: SessionSweeperOptions): SessionSweeper {
  const { sessions, replicas, locks, settlement, logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function sweep(): Promise<number> {
    const lockTtl = Math.max(options.intervalMs * 3, 1000);
    if (!(await locks.tryAcquire(LOCK, options.replicaId, lockTtl))) return 0;
    const now = new Date();
    const alive = await replicas.alive(now);
    const candidates = await sessions.sweepCandidates(
      now,
      new Date(now.getTime() - options.limits.idleTimeoutMs),
      BATCH,
    );
    let settled = 0;
    for (const session of candidates) {
      if (!dueOutcome(session, now, options.limits)) continue;
      const held = session.lease !== null && alive.has(session.lease.owner);
      const stuck =
        session.status === "finalizing" &&
        (session.finalize_requested_at?.getTime() ?? 0) + options.finalizingGraceMs <=
          now.getTime();
      if (held && !stuck) continue;
      try {
        await settlement.settle(session._id);
        settled += 1;
      } catch (error) {
        logger.warn({ err: (error as Error).message, session_id: session._id }, "sweep failed");
      }
    }
    return settled;
  }

  return {
    sweep,
    start() {
      timer = setInterval(() => {
        if (running) return;
        running = sweep()
          .catch((error) => {
            logger.warn({ err: (error as Error).message }, "sweeper pass failed");
            return 0;
          })
          .finally(() => {
            running = undefined;
          });
      }, options.intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
      await locks.release(LOCK, options.replicaId).catch(() => undefined);
    },
  };
}
