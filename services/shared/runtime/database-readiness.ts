import type { Db } from "mongodb";
import type { Logger } from "../logging/logger.js";
import { pingMongo } from "./mongo.js";

/** MongoDB as readiness sees it: up or down since when. */
export interface DatabaseState {
  readonly up: boolean;
  readonly since: string;
}

export interface DatabaseWatch {
  readonly state: DatabaseState;
  stop(): void;
}

/**
 * Pings MongoDB every `intervalMs` (one ping at a time, each bounded by `timeoutMs`) and reports
 * each change: a service is ready only while its database answers, and readiness must show an
 * outage even when the database is back within seconds (a supervised restart), so the interval is
 * short; a ping is one tiny round trip.
 */
export function watchDatabase(
  db: Db,
  options: {
    intervalMs: number;
    timeoutMs: number;
    logger: Logger;
    onChange: (up: boolean) => void;
  },
): DatabaseWatch {
  let state: DatabaseState = { up: true, since: new Date().toISOString() };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const round = async () => {
    const up = await pingMongo(db, options.timeoutMs);
    if (stopped) return;
    if (up !== state.up) {
      state = { up, since: new Date().toISOString() };
      if (up) options.logger.info("database answering again: serving");
      else options.logger.warn("database not answering: not serving");
      options.onChange(up);
    }
    timer = setTimeout(round, options.intervalMs).unref();
  };
  timer = setTimeout(round, options.intervalMs).unref();
  return {
    get state() {
      return state;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
