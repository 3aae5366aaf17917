import {
  type HealthCheckResponse_ServingStatus,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "@movement-detection/proto/grpc/health/v1";
import type { Logger } from "@movement-detection/shared/logging";
import type { DependencyClient } from "./clients.js";

/** One service the gateway depends on, as last seen. */
export interface DependencyState {
  readonly name: DependencyClient["name"];
  readonly url: string;
  /** SERVING, NOT_SERVING (the service says so: starting, or its database is down), UNREACHABLE. */
  readonly status: "SERVING" | "NOT_SERVING" | "UNREACHABLE" | "UNKNOWN";
  /** Since when it is in this status (ISO 8601). */
  readonly since: string;
  readonly detail?: string;
}

export interface ReadinessReport {
  readonly ready: boolean;
  /** Why not ready, one line per missing dependency (auth, or every detection replica). */
  readonly missing: readonly string[];
  /** Ready, but without these (catalogue, authoring): their routes answer 503 meanwhile. */
  readonly degraded: readonly string[];
  readonly dependencies: readonly DependencyState[];
}

/**
 * What the gateway's readiness follows: grpc.health.v1 Check of every service it needs, every
 * `intervalMs`. Ready when auth serves and at least one detection replica does (any replica
 * answers the session RPCs): without them no token is exchanged and no session runs. Catalogue
 * and authoring down make it degraded, not unready: every gateway replica would otherwise leave
 * the load balancer at once and take tokens, sessions and streams down with a listing. Each
 * change of a dependency is logged once: at warn when one that served stops, at debug while one
 * has not served yet (start-up).
 */
export interface DependencyWatch {
  report(): ReadinessReport;
  stop(): void;
}

export function watchDependencies(
  dependencies: readonly DependencyClient[],
  options: { intervalMs: number; timeoutMs: number; logger: Logger; now?: () => Date },
): DependencyWatch {
  const now = options.now ?? (() => new Date());
  const states = dependencies.map(
    (dependency): DependencyState => ({
      name: dependency.name,
      url: dependency.url,
      status: "UNKNOWN",
      since: now().toISOString(),
    }),
  );
  /** Whether each dependency has served since the gateway started: only then is a loss news. */
  const served = dependencies.map(() => false);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const checkOne = async (index: number): Promise<void> => {
    const dependency = dependencies[index];
    let status: DependencyState["status"];
    let detail: string | undefined;
    try {
      const answer = await dependency.client.check(
        { service: "" },
        { timeoutMs: options.timeoutMs },
      );
      status = answer.status === ServingStatus.SERVING ? "SERVING" : "NOT_SERVING";
      if (status !== "SERVING") detail = statusName(answer.status);
    } catch (error) {
      status = "UNREACHABLE";
      detail = error instanceof Error ? error.message : String(error);
    }
    if (stopped) return;
    const previous = states[index];
    if (previous.status === status) return;
    states[index] = { ...previous, status, since: now().toISOString(), detail };
    const fields = { dependency: dependency.name, url: dependency.url, status, detail };
    if (status === "SERVING") {
      served[index] = true;
      options.logger.info(fields, "dependency serving");
    } else if (served[index]) {
      options.logger.warn(fields, "dependency not serving");
    } else {
      // Still starting (unreachable, then not serving until its database answers): what
      // readiness reports, but no warning for a system that is coming up.
      options.logger.debug(fields, "dependency not serving yet");
    }
  };

  const round = async () => {
    await Promise.all(dependencies.map((_, index) => checkOne(index)));
    if (!stopped) timer = setTimeout(round, options.intervalMs).unref();
  };
  void round();

  return {
    report() {
      const missing: string[] = [];
      const degraded: string[] = [];
      for (const [name, list] of [
        ["auth", missing],
        ["catalogue", degraded],
        ["authoring", degraded],
      ] as const) {
        for (const state of states.filter((s) => s.name === name)) {
          if (state.status !== "SERVING") list.push(`${name} ${state.status.toLowerCase()}`);
        }
      }
      const detection = states.filter((state) => state.name === "detection");
      if (!detection.some((state) => state.status === "SERVING")) {
        missing.push(`detection: no replica serving (${detection.length} configured)`);
      }
      return { ready: missing.length === 0, missing, degraded, dependencies: [...states] };
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

function statusName(status: HealthCheckResponse_ServingStatus): string {
  return ServingStatus[status] ?? String(status);
}
