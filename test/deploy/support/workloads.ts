import type { Manifest } from "./kustomize.js";

/** Typed views of the parts of rendered manifests that the deployment tests read. */
export interface ContainerView {
  name: string;
  image: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: SecretRef; configMapKeyRef?: SecretRef };
  }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: ProbeView;
  livenessProbe?: ProbeView;
  startupProbe?: ProbeView;
  lifecycle?: { preStop?: { exec?: { command?: string[] } } };
  resources?: {
    requests?: Record<string, string | number>;
    limits?: Record<string, string | number>;
  };
  securityContext?: SecurityContextView;
}

export interface ProbeView {
  grpc?: { port: number; service?: string };
  httpGet?: { path?: string; port: number | string };
  tcpSocket?: { port: number | string };
  exec?: { command: string[] };
}

export interface SecurityContextView {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
}

interface SecretRef {
  name: string;
  key: string;
  optional?: boolean;
}

export interface PodSpecView {
  containers: ContainerView[];
  initContainers?: ContainerView[];
  securityContext?: SecurityContextView;
  terminationGracePeriodSeconds?: number;
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  volumes?: { name: string; secret?: { secretName: string }; configMap?: { name: string } }[];
}

export interface Workload {
  manifest: Manifest;
  name: string;
  kind: string;
  replicas?: number;
  selector: Record<string, string>;
  podLabels: Record<string, string>;
  pod: PodSpecView;
}

export function workloadsOf(manifests: readonly Manifest[]): Workload[] {
  return manifests
    .filter((manifest) => manifest.kind === "Deployment" || manifest.kind === "StatefulSet")
    .map((manifest) => {
      const spec = manifest.spec as {
        replicas?: number;
        selector: { matchLabels: Record<string, string> };
        template: { metadata: { labels: Record<string, string> }; spec: PodSpecView };
      };
      return {
        manifest,
        name: manifest.metadata.name,
        kind: manifest.kind,
        replicas: spec.replicas,
        selector: spec.selector.matchLabels,
        podLabels: spec.template.metadata.labels,
        pod: spec.template.spec,
      };
    });
}

export function ofKind(manifests: readonly Manifest[], kind: string): Manifest[] {
  return manifests.filter((manifest) => manifest.kind === kind);
}

export function named(manifests: readonly Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find(
    (manifest) => manifest.kind === kind && manifest.metadata.name === name,
  );
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found;
}

/** True when every label of `selector` is on `labels` (an empty selector selects everything). */
export function selects(
  selector: Record<string, string> | undefined,
  labels: Record<string, string>,
): boolean {
  return Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);
}

/** The environment a container sees: its ConfigMaps (envFrom, in order), then its own `env`. */
export function environmentOf(
  container: ContainerView,
  manifests: readonly Manifest[],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (!source.configMapRef) continue;
    const data = named(manifests, "ConfigMap", source.configMapRef.name).data as Record<
      string,
      string
    >;
    Object.assign(env, data);
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
  }
  return env;
}

/** Kubernetes quantities ("500m", "1", "256Mi", "1Gi") as plain numbers, to compare them. */
export function quantity(value: string | number): number {
  if (typeof value === "number") return value;
  const match = /^(\d+(?:\.\d+)?)(m|k|M|G|Ki|Mi|Gi|Ti)?$/.exec(value);
  if (!match) throw new Error(`unreadable quantity "${value}"`);
  const factors: Record<string, number> = {
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  return Number(match[1]) * (match[2] ? factors[match[2]] : 1);
}
