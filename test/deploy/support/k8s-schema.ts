import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { Certificate } from "@kubernetes-models/cert-manager/cert-manager.io/v1/Certificate";
import { Issuer } from "@kubernetes-models/cert-manager/cert-manager.io/v1/Issuer";
import { PodMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { StatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { ServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import type { Manifest } from "./kustomize.js";

/**
 * Offline validation against the Kubernetes OpenAPI schemas that `kubernetes-models` compiles,
 * plus what kubeconform's -strict and kubectl's server-side field validation add: no field the
 * schema does not know (a misspelt `readinesProbe` is otherwise silently dropped).
 */
interface ModelClass {
  new (data: never): { validate(): void };
}

const MODELS: Record<string, { model: ModelClass; typesModule: string }> = {
  "apps/v1/Deployment": { model: Deployment, typesModule: "kubernetes-models/apps/v1/Deployment" },
  "apps/v1/StatefulSet": {
    model: StatefulSet,
    typesModule: "kubernetes-models/apps/v1/StatefulSet",
  },
  "autoscaling/v2/HorizontalPodAutoscaler": {
    model: HorizontalPodAutoscaler,
    typesModule: "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler",
  },
  "networking.k8s.io/v1/Ingress": {
    model: Ingress,
    typesModule: "kubernetes-models/networking.k8s.io/v1/Ingress",
  },
  "networking.k8s.io/v1/NetworkPolicy": {
    model: NetworkPolicy,
    typesModule: "kubernetes-models/networking.k8s.io/v1/NetworkPolicy",
  },
  "policy/v1/PodDisruptionBudget": {
    model: PodDisruptionBudget,
    typesModule: "kubernetes-models/policy/v1/PodDisruptionBudget",
  },
  "v1/ConfigMap": { model: ConfigMap, typesModule: "kubernetes-models/v1/ConfigMap" },
  // cert-manager's CRDs (deploy/k8s/base/pki), from the same family of generated models.
  "cert-manager.io/v1/Certificate": {
    model: Certificate,
    typesModule: "@kubernetes-models/cert-manager/cert-manager.io/v1/Certificate",
  },
  "cert-manager.io/v1/Issuer": {
    model: Issuer,
    typesModule: "@kubernetes-models/cert-manager/cert-manager.io/v1/Issuer",
  },
  "v1/Namespace": { model: Namespace, typesModule: "kubernetes-models/v1/Namespace" },
  "v1/Secret": { model: Secret, typesModule: "kubernetes-models/v1/Secret" },
  "v1/Service": { model: Service, typesModule: "kubernetes-models/v1/Service" },
  "v1/ServiceAccount": {
    model: ServiceAccount,
    typesModule: "kubernetes-models/v1/ServiceAccount",
  },
  // A CRD (the Prometheus Operator's): its OpenAPI schema is checked; nested unknown fields are
  // not (its declarations write them inline), so the tests check what matters of it by hand.
  "monitoring.coreos.com/v1/PodMonitor": {
    model: PodMonitor,
    typesModule: "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor",
  },
};

/** Every problem with one object; empty when it is valid. Unknown kinds are a problem too. */
export function schemaProblems(manifest: Manifest): string[] {
  const id = `${manifest.kind}/${manifest.metadata?.name}`;
  const entry = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (!entry) return [`${id}: unknown kind ${manifest.apiVersion}/${manifest.kind}`];
  const problems: string[] = [];
  try {
    new entry.model(manifest as never).validate();
  } catch (error) {
    problems.push(`${id}: ${(error as Error).message}`);
  }
  const types = declarationFile(requireHere.resolve(entry.typesModule));
  for (const path of unknownFields(manifest, topInterface(types), "")) {
    problems.push(`${id}: unknown field ${path}`);
  }
  return problems;
}

const requireHere = createRequire(import.meta.url);

// ---- unknown fields, from the package's TypeScript declarations -------------------------------
// Each model's .d.ts declares its interface with one quoted property per line and imports the
// interfaces of nested objects, e.g. `"readinessProbe"?: IIoK8sApiCoreV1Probe;`. Walking them
// gives the set of known fields at every level.

interface InterfaceShape {
  readonly properties: ReadonlyMap<string, string>;
  readonly imports: ReadonlyMap<string, string>;
}

const shapes = new Map<string, InterfaceShape | null>();

function declarationFile(resolvedJs: string): string {
  return resolvedJs.replace(/\.(m?js)$/, ".d.ts");
}

function topInterface(file: string): InterfaceShape {
  const shape = interfaceOf(file);
  if (!shape) throw new Error(`${file}: no interface`);
  return shape;
}

/** The first exported interface of a declaration file, or null for a type alias (a leaf). */
function interfaceOf(file: string): InterfaceShape | null {
  const cached = shapes.get(file);
  if (cached !== undefined) return cached;
  const text = readFileSync(file, "utf8").replace(/^\s*\/\*\*[\s\S]*?\*\/\n/gm, "");
  const imports = new Map<string, string>();
  for (const match of text.matchAll(/^import \{ (\w+) \} from "([^"]+)";$/gm)) {
    imports.set(match[1], match[2]);
  }
  const body = /^export interface \w+(?: extends [\w<>, ]+)? \{\n([\s\S]*?)^\}/m.exec(text);
  if (!body) {
    shapes.set(file, null);
    return null;
  }
  const properties = new Map<string, string>();
  // A property starts at four spaces: `"name"?: Type;`, or `"name"?: {` up to `    };`.
  for (const match of body[1].matchAll(/^ {4}"([^"]+)"\??: ([\s\S]*?);\n(?= {4}"|$)/gm)) {
    properties.set(match[1], match[2].replace(/\s+/g, " ").trim());
  }
  const shape = { properties, imports: resolveImports(file, imports) };
  shapes.set(file, shape);
  return shape;
}

function resolveImports(file: string, imports: ReadonlyMap<string, string>): Map<string, string> {
  const resolved = new Map<string, string>();
  const requireThere = createRequire(file);
  for (const [name, specifier] of imports) {
    if (specifier === "@kubernetes-models/base") continue;
    const path = specifier.startsWith(".")
      ? `${resolve(dirname(file), specifier)}.d.ts`
      : declarationFile(requireThere.resolve(specifier));
    resolved.set(name, path);
  }
  return resolved;
}

function* unknownFields(value: unknown, shape: InterfaceShape, path: string): Generator<string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const type = shape.properties.get(key);
    if (type === undefined) {
      yield `${path}.${key}`;
      continue;
    }
    yield* checkType(child, type, shape, `${path}.${key}`);
  }
}

function* checkType(
  value: unknown,
  type: string,
  owner: InterfaceShape,
  path: string,
): Generator<string> {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries())
        yield* checkType(item, array[1], owner, `${path}[${index}]`);
    }
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value))
        yield* checkType(item, map[1], owner, `${path}.${key}`);
    }
    return;
  }
  const inline = /^\{ ("[\s\S]*;) \}$/.exec(type);
  if (inline && !inline[1].includes("{")) {
    // An object type written in place, e.g. a StatefulSet's volumeClaimTemplates items.
    const properties = new Map<string, string>();
    for (const match of inline[1].matchAll(/"([^"]+)"\??: ([^;]+);/g))
      properties.set(match[1], match[2]);
    yield* unknownFields(value, { properties, imports: owner.imports }, path);
    return;
  }
  const imported = owner.imports.get(type);
  if (!imported) return; // a primitive, a union of literals, ...: the schema validation covers it
  const shape = interfaceOf(imported);
  if (shape) yield* unknownFields(value, shape, path);
}
