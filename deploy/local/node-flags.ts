/**
 * V8 flags of the two processes on the frames' path, detection and the gateway, given on node's
 * command line (V8 flags are not allowed in NODE_OPTIONS): by `npm start` (stack.ts), by their
 * Kubernetes Deployments (deploy/k8s/base, kept equal to this list by
 * test/deploy/k8s-manifests.test.ts) and by the floor benchmarks' stand-ins for them, so that a
 * ratio against a floor compares like with like.
 *
 * `--heap-growing-percent=100`: after a full collection the old generation may grow to twice what
 * survived before the next one starts. Left to choose, V8 sizes that headroom for throughput and,
 * under the frames' allocation rate, picked about 1.2 times: the gateway then ran a full
 * collection about every second and detection every three seconds, and a pause in one of them
 * (10-40 ms, with concurrent marking taking a core beside it) was most of the 100 ms moments in
 * which every session's events came late. With it: one or two full collections a minute, the p99
 * of a soak's 15-second windows 23 against 53-64 ms (medians), the gateway's CPU 12-17 % lower
 * (bench/detection/README.md, "garbage collection on the frames' path"). The price is memory: the
 * old generation may hold as much garbage as live data before it is collected (detection's
 * resident set about 15 % higher at 300 sessions).
 *
 * (Detection also turns V8's allocation-site pretenuring off, in its main.ts: that flag is read
 * at each collection, so it can be set from the code.)
 */
export const HOT_PATH_NODE_FLAGS: readonly string[] = ["--heap-growing-percent=100"];

/** The node flags the process `name` (a service, or "gateway") runs with. */
export function nodeFlagsOf(name: string): readonly string[] {
  return name === "detection" || name === "gateway" ? HOT_PATH_NODE_FLAGS : [];
}
