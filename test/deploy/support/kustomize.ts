import { stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { applyJsonPatch, type PatchOperation } from "./json-patch.js";
import { readYamlDocuments } from "./yaml-documents.js";

/** A Kubernetes object as written in the manifests. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [field: string]: unknown };
  [field: string]: unknown;
}

/**
 * What `kustomize build <dir>` (and so `kubectl apply -k <dir>`) produces, for the small subset of
 * kustomize that deploy/k8s uses: `resources` (files, and folders with their own kustomization),
 * `namespace`, `images`, and `patches` of JSON 6902 operations with a kind/name `target`.
 * Anything else in a kustomization is refused rather than ignored, so the manifests cannot start
 * relying on a feature this renderer would silently get wrong. Kustomize's order is kept:
 * resources, then patches, then the namespace, then images.
 */
export async function renderKustomization(directory: string): Promise<Manifest[]> {
  const file = join(directory, "kustomization.yaml");
  const [kustomization] = (await readYamlDocuments(file)) as Kustomization[];
  const unsupported = Object.keys(kustomization).filter((key) => !SUPPORTED_FIELDS.has(key));
  if (unsupported.length > 0) {
    throw new Error(`${file}: unsupported kustomization field(s) ${unsupported.join(", ")}`);
  }
  if (kustomization.kind !== "Kustomization")
    throw new Error(`${file}: kind must be Kustomization`);

  let manifests: Manifest[] = [];
  for (const entry of kustomization.resources ?? []) {
    const path = resolve(directory, entry);
    if ((await stat(path)).isDirectory()) manifests.push(...(await renderKustomization(path)));
    else manifests.push(...((await readYamlDocuments(path)) as Manifest[]).map(checkShape(path)));
  }
  for (const patch of kustomization.patches ?? []) {
    manifests = await applyPatch(manifests, patch, directory);
  }
  if (kustomization.namespace) manifests = manifests.map(inNamespace(kustomization.namespace));
  for (const image of kustomization.images ?? []) manifests = manifests.map(withImage(image));
  assertUniqueIds(manifests, file);
  return manifests;
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  resources?: string[];
  images?: ImageOverride[];
  patches?: PatchEntry[];
}

interface ImageOverride {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

interface PatchEntry {
  path?: string;
  target?: { kind?: string; name?: string; [field: string]: unknown };
  [field: string]: unknown;
}

const SUPPORTED_FIELDS = new Set([
  "apiVersion",
  "kind",
  "namespace",
  "resources",
  "images",
  "patches",
]);

/** Kinds that live outside namespaces (those this project could plausibly use). */
const CLUSTER_SCOPED = new Set([
  "Namespace",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "PersistentVolume",
  "StorageClass",
  "PriorityClass",
  "IngressClass",
]);

function checkShape(file: string): (value: Manifest) => Manifest {
  return (value) => {
    if (typeof value?.apiVersion !== "string" || typeof value?.kind !== "string") {
      throw new Error(`${file}: a document without apiVersion/kind`);
    }
    if (typeof value.metadata?.name !== "string")
      throw new Error(`${file}: a ${value.kind} without a name`);
    return value;
  };
}

async function applyPatch(
  manifests: Manifest[],
  patch: PatchEntry,
  directory: string,
): Promise<Manifest[]> {
  const extra = Object.keys(patch).filter((key) => key !== "path" && key !== "target");
  const targetExtra = Object.keys(patch.target ?? {}).filter(
    (key) => key !== "kind" && key !== "name",
  );
  if (
    extra.length > 0 ||
    targetExtra.length > 0 ||
    !patch.path ||
    !patch.target?.kind ||
    !patch.target.name
  ) {
    throw new Error(`${directory}: only patches { path, target: { kind, name } } are supported`);
  }
  const file = resolve(directory, patch.path);
  const [operations] = (await readYamlDocuments(file)) as PatchOperation[][];
  if (!Array.isArray(operations)) {
    throw new Error(`${file}: only JSON 6902 patches (a list of operations) are supported`);
  }
  const { kind, name } = patch.target;
  let matched = 0;
  const result = manifests.map((manifest) => {
    if (manifest.kind !== kind || manifest.metadata.name !== name) return manifest;
    matched += 1;
    try {
      return applyJsonPatch(manifest, operations);
    } catch (error) {
      throw new Error(`${file} on ${kind}/${name}: ${(error as Error).message}`);
    }
  });
  // Stricter than kustomize (which skips a target that matches nothing): a typo must not pass.
  if (matched === 0) throw new Error(`${file}: target ${kind}/${name} matches nothing`);
  return result;
}

function inNamespace(namespace: string): (manifest: Manifest) => Manifest {
  return (manifest) => {
    if (manifest.kind === "Namespace") {
      // kustomize versions differ on renaming a Namespace object: keep both readings equal.
      if (manifest.metadata.name !== namespace) {
        throw new Error(
          `Namespace ${manifest.metadata.name} differs from the kustomization's ${namespace}`,
        );
      }
      return manifest;
    }
    if (CLUSTER_SCOPED.has(manifest.kind)) return manifest;
    return { ...manifest, metadata: { ...manifest.metadata, namespace } };
  };
}

function withImage(override: ImageOverride): (manifest: Manifest) => Manifest {
  return (manifest) => {
    const pod = podSpecOf(manifest);
    if (!pod) return manifest;
    const copy = structuredClone(manifest);
    const copyPod = podSpecOf(copy) as PodSpecLike;
    for (const container of [...(copyPod.initContainers ?? []), ...copyPod.containers]) {
      const image = parseImage(container.image);
      if (image.name !== override.name) continue;
      const name = override.newName ?? image.name;
      const tag = override.newTag ?? image.tag;
      const digest = override.digest ?? (override.newTag ? undefined : image.digest);
      container.image = `${name}${tag ? `:${tag}` : ""}${digest ? `@${digest}` : ""}`;
    }
    return copy;
  };
}

interface PodSpecLike {
  containers: { image: string }[];
  initContainers?: { image: string }[];
}

function podSpecOf(manifest: Manifest): PodSpecLike | undefined {
  const spec = manifest.spec as { template?: { spec?: PodSpecLike } } | undefined;
  return spec?.template?.spec;
}

/** "registry:5000/a/b:tag@sha256:..." into its name, tag and digest. */
export function parseImage(image: string): { name: string; tag?: string; digest?: string } {
  const [withoutDigest, digest] = image.split("@");
  const lastSlash = withoutDigest.lastIndexOf("/");
  const colon = withoutDigest.indexOf(":", lastSlash + 1);
  return colon === -1
    ? { name: withoutDigest, digest }
    : { name: withoutDigest.slice(0, colon), tag: withoutDigest.slice(colon + 1), digest };
}

function assertUniqueIds(manifests: readonly Manifest[], file: string): void {
  const seen = new Set<string>();
  for (const manifest of manifests) {
    const group = manifest.apiVersion.includes("/") ? manifest.apiVersion.split("/")[0] : "";
    const id = `${group}/${manifest.kind}/${manifest.metadata.namespace ?? ""}/${manifest.metadata.name}`;
    if (seen.has(id)) throw new Error(`${file}: ${id} is defined twice`);
    seen.add(id);
  }
}

export const K8S_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../deploy/k8s");
