import type { ChildProcess } from "node:child_process";
import type { LineSink, LogLine, ManagedProcess } from "./child-process.js";

/**
 * How `npm start` treats a child that dies on its own: restart it after a delay that doubles with
 * each recent crash, and give up (the launcher stops everything and exits 1) when one process
 * crashed more than `maxRestarts` times within `windowMs`.
 */
export interface RestartPolicy {
  /** Crashes of one process tolerated within the window; 0: never restart. */
  readonly maxRestarts: number;
  readonly windowMs: number;
  /** Delay before the first restart; doubled for each further crash in the window. */
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
}

/** The name under which the launcher's own lines reach the sink. */
export const LAUNCHER = "launcher";

/**
 * A child under supervision. It is a ManagedProcess whose `child`, `exited` and lines are those
 * of its current incarnation; `stop()` stops it for good (no restart follows).
 */
export interface SupervisedProcess extends ManagedProcess {
  /** Restarts from now on use this start function (e.g. with the port the first run bound). */
  restartWith(start: () => ManagedProcess): void;
  /** How many times it was restarted. */
  readonly restarts: number;
  /**
   * The first run is up. Until then an exit is not restarted: the start waiting for it fails and
   * says why (a restart would only announce a recovery that is not coming).
   */
  markReady(): void;
}

export interface Supervisor {
  supervise(first: ManagedProcess, start: () => ManagedProcess): SupervisedProcess;
  /**
   * The launcher is stopping everything: from now on no exit is a crash and nothing restarts.
   * (Ctrl-C signals every process of the terminal's group, so a child may stop on its own before
   * the launcher gets to it.)
   */
  shutDown(): void;
}

export function createSupervisor(
  policy: RestartPolicy,
  sink: LineSink,
  onGiveUp: (name: string) => void,
  now: () => number = Date.now,
): Supervisor {
  const say = (level: string, msg: string, fields: Record<string, unknown>) =>
    sink(LAUNCHER, { level, time: new Date(now()).toISOString(), msg, ...fields } as LogLine);
  let shuttingDown = false;

  return {
    shutDown() {
      shuttingDown = true;
    },
    supervise(first, initialStart) {
      let current = first;
      let start = initialStart;
      let stopping = false;
      let restarts = 0;
      let ready = false;
      const crashes: number[] = [];
      let pendingRestart: NodeJS.Timeout | undefined;

      const watch = (incarnation: ManagedProcess) => {
        incarnation.exited.then((code) => {
          if (stopping || shuttingDown || incarnation !== current) return;
          if (!ready) {
            say("error", "process exited during start-up", {
              process: incarnation.name,
              child_pid: incarnation.child.pid,
              exit: code,
              last_lines: incarnation.recentLines(),
            });
            return;
          }
          const at = now();
          crashes.push(at);
          while (crashes.length > 0 && crashes[0] <= at - policy.windowMs) crashes.shift();
          say("error", "process exited unexpectedly", {
            process: incarnation.name,
            child_pid: incarnation.child.pid,
            exit: code,
            crashes_in_window: crashes.length,
            last_lines: incarnation.recentLines(),
          });
          if (crashes.length > policy.maxRestarts) {
            say("fatal", "process keeps crashing: giving up", {
              process: incarnation.name,
              crashes: crashes.length,
              window_ms: policy.windowMs,
            });
            onGiveUp(incarnation.name);
            return;
          }
          const delayMs = Math.min(
            policy.backoffMs * 2 ** (crashes.length - 1),
            policy.maxBackoffMs,
          );
          say("warn", "restarting process", { process: incarnation.name, in_ms: delayMs });
          pendingRestart = setTimeout(() => {
            pendingRestart = undefined;
            if (stopping || shuttingDown) return;
            try {
              current = start();
            } catch (error) {
              say("fatal", "process could not be restarted", {
                process: incarnation.name,
                err: (error as Error).message,
              });
              onGiveUp(incarnation.name);
              return;
            }
            restarts += 1;
            say("info", "process restarted", {
              process: current.name,
              child_pid: current.child.pid,
              restarts,
            });
            watch(current);
          }, delayMs);
        });
      };
      watch(first);

      return {
        get name() {
          return current.name;
        },
        get child(): ChildProcess {
          return current.child;
        },
        get exited() {
          return current.exited;
        },
        get restarts() {
          return restarts;
        },
        get privateOutput() {
          return current.privateOutput;
        },
        recentLines: () => current.recentLines(),
        waitFor: (messages, timeoutMs) => current.waitFor(messages, timeoutMs),
        restartWith(next) {
          start = next;
        },
        markReady() {
          ready = true;
        },
        stop(graceMs) {
          stopping = true;
          clearTimeout(pendingRestart);
          return current.stop(graceMs);
        },
      };
    },
  };
}
