import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { expect } from "chai";
import { parse as parseYaml } from "yaml";
import { nodeFlagsOf } from "../../deploy/local/node-flags.js";
import { loadGatewayConfig } from "../../gateway/config.js";
import { schemaProblems } from "./support/k8s-schema.js";
import { K8S_ROOT, type Manifest, parseImage, renderKustomization } from "./support/kustomize.js";
import {
  type ContainerView,
  environmentOf,
  named,
  ofKind,
  type ProbeView,
  quantity,
  selects,
  type Workload,
  workloadsOf,
} from "./support/workloads.js";
import { readYamlDocuments } from "./support/yaml-documents.js";

const REPO_ROOT = resolve(K8S_ROOT, "../..");
const APP_IMAGE = "movement-detection";
const KUSTOMIZATIONS = [
  "base",
  "mongodb",
  "monitoring",
  "otel-collector",
  "overlays/dev",
  "overlays/prod",
  "overlays/monitoring",
] as const;
const OVERLAYS = ["overlays/dev", "overlays/prod", "overlays/monitoring"] as const;
/** Secrets that operators create (never committed for prod); deploy/README.md must explain each. */
const OPERATOR_SECRETS = [
  "mongodb",
  "auth-secrets",
  "auth-signing-keys",
  "gateway-tls",
  "mongodb-bootstrap",
  "mongodb-keyfile",
  "mongodb-tls",
  "mongodb-ca",
  "otel-collector-export",
];
/** Read by Node itself or by the container image, not by a config.ts. */
const RUNTIME_VARIABLES = new Set(["NODE_OPTIONS", "HOME", "POD_NAMESPACE", "POD_IP"]);

const rendered = new Map<string, Manifest[]>();
const render = (name: string): Manifest[] => {
  const manifests = rendered.get(name);
  if (!manifests) throw new Error(`${name} not rendered`);
  return manifests;
};
const appWorkloads = (manifests: Manifest[]): Workload[] =>
  workloadsOf(manifests).filter((workload) =>
    workload.pod.containers.some((container) =>
      parseImage(container.image).name.endsWith(APP_IMAGE),
    ),
  );
const mainContainer = (workload: Workload): ContainerView => workload.pod.containers[0];

/**
 * What is wrong with who may reach `workload`'s admin port under the NetworkPolicies of
 * `manifests`: the port must be reachable by exactly one rule, whose every peer is Prometheus's
 * pods in the monitoring namespace (one peer with both selectors: as two peers, either would do).
 * A rule without ports, or a port without a number, opens every port, admin included.
 */
function adminPortProblems(manifests: readonly Manifest[], workload: Workload): string[] {
  interface Rule {
    from?: Record<string, unknown>[];
    ports?: { port?: string | number; endPort?: number }[];
  }
  const admin = mainContainer(workload).ports?.find((port) => port.name === "admin");
  if (!admin) return ["no admin port"];
  const opensAdmin = ({ port, endPort }: { port?: string | number; endPort?: number }) =>
    port === undefined ||
    port === "admin" ||
    port === admin.containerPort ||
    (typeof port === "number" &&
      endPort !== undefined &&
      port <= admin.containerPort &&
      admin.containerPort <= endPort);
  const rules = ofKind(manifests, "NetworkPolicy")
    .map(
      (policy) =>
        policy.spec as {
          podSelector: { matchLabels?: Record<string, string> };
          policyTypes: string[];
          ingress?: Rule[];
        },
    )
    .filter(
      (policy) =>
        policy.policyTypes.includes("Ingress") &&
        selects(policy.podSelector.matchLabels ?? {}, workload.podLabels),
    )
    .flatMap((policy) => policy.ingress ?? [])
    .filter((rule) => (rule.ports ?? [{}]).some(opensAdmin));
  const problems: string[] = [];
  if (rules.length !== 1) problems.push(`${rules.length} rules open the admin port`);
  for (const rule of rules) {
    if ((rule.from ?? []).length === 0) problems.push("the admin port is open to every source");
    for (const peer of rule.from ?? []) {
      try {
        expect(peer).to.deep.equal(PROMETHEUS_PEER);
      } catch {
        problems.push(`admin peer ${JSON.stringify(peer)}`);
      }
    }
  }
  return problems;
}

const PROMETHEUS_PEER = {
  namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } },
  podSelector: { matchLabels: { "app.kubernetes.io/name": "prometheus" } },
};

describe("deploy/k8s manifests", () => {
  before(async () => {
    for (const name of KUSTOMIZATIONS)
      rendered.set(name, await renderKustomization(join(K8S_ROOT, name)));
  });

  describe("schema", () => {
    for (const name of KUSTOMIZATIONS) {
      it(`${name}: every object passes the Kubernetes schema and has no unknown field`, () => {
        const manifests = render(name);
        expect(manifests).to.not.be.empty;
        expect(manifests.flatMap(schemaProblems)).to.deep.equal([]);
      });
    }

    it("refuses what kubectl would refuse: unknown fields, invalid values, unknown kinds", () => {
      const deployment = structuredClone(named(render("base"), "Deployment", "auth"));
      const container = (
        deployment.spec as { template: { spec: { containers: Record<string, unknown>[] } } }
      ).template.spec.containers[0];
      container.readinesProbe = container.readinessProbe;
      (container.resources as { limits: Record<string, unknown> }).limits.memory = "lots";
      const problems = schemaProblems(deployment);
      expect(problems.join("\n")).to.include(
        "unknown field .spec.template.spec.containers[0].readinesProbe",
      );
      expect(problems.join("\n")).to.include("resources/limits/memory");
      expect(
        schemaProblems({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } }),
      ).to.deep.equal(["Widget/w: unknown kind example.com/v1/Widget"]);
    });

    it("every YAML file reads the same as YAML 1.1 (kubectl) and as YAML 1.2", async () => {
      const files = await yamlFiles();
      expect(files.length).to.be.above(20);
      for (const file of files) await readYamlDocuments(file);
    });

    it("every manifest file is used by a kustomization: nothing is left out of `kubectl apply -k`", async () => {
      const used = new Set<string>();
      for (const name of KUSTOMIZATIONS) {
        const directory = join(K8S_ROOT, name);
        const file = join(directory, "kustomization.yaml");
        used.add(file);
        const [kustomization] = (await readYamlDocuments(file)) as {
          resources?: string[];
          patches?: { path: string }[];
        }[];
        for (const entry of kustomization.resources ?? []) used.add(resolve(directory, entry));
        for (const patch of kustomization.patches ?? []) used.add(resolve(directory, patch.path));
      }
      const unused = (await yamlFiles()).filter((file) => !used.has(file));
      expect(unused.map((file) => relative(K8S_ROOT, file))).to.deep.equal([]);
    });
  });

  describe("the renderer (kustomize's subset)", () => {
    let directory: string;
    beforeEach(async () => {
      directory = await mkdtemp(join(tmpdir(), "mds-kustomize-"));
      await writeFile(
        join(directory, "config.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  A: a\n",
      );
    });
    afterEach(() => rm(directory, { recursive: true, force: true }));
    const kustomization = (body: string) =>
      writeFile(
        join(directory, "kustomization.yaml"),
        `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - config.yaml\n${body}`,
      );

    it("applies JSON 6902 patches, then the namespace", async () => {
      await writeFile(
        join(directory, "patch.yaml"),
        "- op: replace\n  path: /data/A\n  value: b\n",
      );
      await kustomization(
        "namespace: ns\npatches:\n  - path: patch.yaml\n    target:\n      kind: ConfigMap\n      name: c\n",
      );
      const [config] = await renderKustomization(directory);
      expect(config.metadata.namespace).to.equal("ns");
      expect(config.data).to.deep.equal({ A: "b" });
    });

    it("refuses fields it does not render, patches that match nothing, and paths that do not exist", async () => {
      await kustomization("commonLabels:\n  a: b\n");
      await expectRejection(
        renderKustomization(directory),
        "unsupported kustomization field(s) commonLabels",
      );
      await writeFile(
        join(directory, "patch.yaml"),
        "- op: replace\n  path: /data/B\n  value: b\n",
      );
      await kustomization(
        "patches:\n  - path: patch.yaml\n    target:\n      kind: ConfigMap\n      name: typo\n",
      );
      await expectRejection(renderKustomization(directory), "matches nothing");
      await kustomization(
        "patches:\n  - path: patch.yaml\n    target:\n      kind: ConfigMap\n      name: c\n",
      );
      await expectRejection(renderKustomization(directory), '"B" does not exist');
    });
  });

  for (const overlay of OVERLAYS) {
    describe(overlay, () => {
      it("every Deployment and StatefulSet has probes, CPU and memory requests and limits, and a non-root, read-only security context", () => {
        const workloads = workloadsOf(render(overlay));
        expect(workloads.map((workload) => workload.name)).to.include.members([
          "gateway",
          "auth",
          "catalogue",
          "authoring",
          "detection",
        ]);
        for (const workload of workloads) {
          const pod = workload.pod;
          const where = `${workload.kind}/${workload.name}`;
          expect(pod.securityContext?.runAsNonRoot, `${where} runAsNonRoot`).to.equal(true);
          expect(pod.securityContext?.runAsUser, `${where} runAsUser`).to.be.above(0);
          expect(pod.securityContext?.seccompProfile?.type, `${where} seccomp`).to.equal(
            "RuntimeDefault",
          );
          expect(pod.automountServiceAccountToken, `${where} mounts no token`).to.equal(false);
          for (const container of pod.containers) {
            const at = `${where} container ${container.name}`;
            expect(container.startupProbe, `${at} startupProbe`).to.be.an("object");
            expect(container.readinessProbe, `${at} readinessProbe`).to.be.an("object");
            expect(container.livenessProbe, `${at} livenessProbe`).to.be.an("object");
          }
          for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
            const at = `${where} container ${container.name}`;
            const { requests = {}, limits = {} } = container.resources ?? {};
            for (const resource of ["cpu", "memory"]) {
              expect(requests[resource], `${at} requests.${resource}`).to.not.equal(undefined);
              expect(limits[resource], `${at} limits.${resource}`).to.not.equal(undefined);
              expect(
                quantity(requests[resource]),
                `${at} ${resource} request <= limit`,
              ).to.be.at.most(quantity(limits[resource]));
            }
            const security = container.securityContext ?? {};
            expect(security.allowPrivilegeEscalation, `${at} allowPrivilegeEscalation`).to.equal(
              false,
            );
            expect(security.readOnlyRootFilesystem, `${at} readOnlyRootFilesystem`).to.equal(true);
            expect(security.capabilities?.drop, `${at} capabilities.drop`).to.include("ALL");
            expect(security.capabilities?.add ?? [], `${at} capabilities.add`).to.deep.equal([]);
            expect(
              security.runAsUser ?? pod.securityContext?.runAsUser,
              `${at} runAsUser`,
            ).to.be.above(0);
          }
        }
      });

      it("services are ready and alive on their admin port (the gRPC port wants a client certificate); the gateway probes over HTTP", () => {
        for (const workload of appWorkloads(render(overlay))) {
          const container = mainContainer(workload);
          const port = (name: string) =>
            container.ports?.find((entry) => entry.name === name)?.containerPort;
          if (workload.name === "gateway") {
            expect(container.readinessProbe?.httpGet).to.deep.include({
              path: "/readyz",
              port: "admin",
            });
            expect(container.livenessProbe?.httpGet).to.deep.include({
              path: "/healthz",
              port: "http",
            });
          } else {
            expect(container.readinessProbe?.httpGet, workload.name).to.deep.include({
              path: "/readyz",
              port: "admin",
            });
            expect(container.livenessProbe?.httpGet, workload.name).to.deep.include({
              path: "/livez",
              port: "admin",
            });
            expect(port("admin"), workload.name).to.be.a("number");
          }
          const env = environmentOf(container, render(overlay));
          if (workload.name === "gateway") {
            expect(Number(env.PORT)).to.equal(port("http"));
          } else {
            expect(Number(env.GRPC_PORT), `${workload.name} GRPC_PORT`).to.equal(port("grpc"));
          }
          expect(Number(env.ADMIN_PORT), `${workload.name} ADMIN_PORT`).to.equal(port("admin"));
          if (workload.name === "detection") {
            expect(Number(env.STREAM_PORT), "detection STREAM_PORT").to.equal(port("stream"));
            expect(env.DETECTION_ADVERTISE_URL).to.equal(`https://$(POD_IP):${port("grpc")}`);
          }
        }
      });

      it("termination leaves time to drain: preStop sleep + SHUTDOWN_TIMEOUT_MS + 5 s <= the grace period", () => {
        for (const workload of appWorkloads(render(overlay))) {
          const container = mainContainer(workload);
          const command = container.lifecycle?.preStop?.exec?.command ?? [];
          expect(command[0], `${workload.name} preStop`).to.equal("sleep");
          const preStopSeconds = Number(command[1]);
          expect(preStopSeconds, `${workload.name} preStop seconds`).to.be.at.least(5);
          const shutdownSeconds =
            Number(environmentOf(container, render(overlay)).SHUTDOWN_TIMEOUT_MS) / 1000;
          expect(shutdownSeconds, `${workload.name} SHUTDOWN_TIMEOUT_MS`).to.be.above(0);
          expect(
            preStopSeconds + shutdownSeconds + 5,
            `${workload.name}: preStop ${preStopSeconds} s + shutdown ${shutdownSeconds} s + 5 s`,
          ).to.be.at.most(workload.pod.terminationGracePeriodSeconds ?? 30);
        }
      });

      it("only the gateway is exposed: every Service is internal and the Ingress leads to the gateway alone", () => {
        const manifests = render(overlay);
        for (const service of ofKind(manifests, "Service")) {
          const type = (service.spec as { type?: string }).type ?? "ClusterIP";
          expect(type, service.metadata.name).to.equal("ClusterIP");
        }
        const ingresses = ofKind(manifests, "Ingress");
        expect(ingresses.map((ingress) => ingress.metadata.name)).to.deep.equal(["gateway"]);
        const rules = (
          ingresses[0].spec as { rules: { http: { paths: { backend: unknown }[] } }[] }
        ).rules;
        for (const path of rules.flatMap((rule) => rule.http.paths)) {
          expect(path.backend).to.deep.equal({
            service: { name: "gateway", port: { name: "http" } },
          });
        }
      });

      it("Services, disruption budgets, autoscalers and network policies select pods that exist", () => {
        const manifests = render(overlay);
        const workloads = workloadsOf(manifests);
        const podsOf = (selector: Record<string, string>) =>
          workloads.filter((workload) => selects(selector, workload.podLabels));
        for (const workload of workloads) {
          expect(
            selects(workload.selector, workload.podLabels),
            `${workload.name} selector`,
          ).to.equal(true);
        }
        for (const service of ofKind(manifests, "Service")) {
          const spec = service.spec as {
            selector: Record<string, string>;
            ports: { targetPort: string }[];
          };
          const [target, ...others] = podsOf(spec.selector);
          expect(target, `Service/${service.metadata.name} selects a workload`).to.not.equal(
            undefined,
          );
          expect(others, `Service/${service.metadata.name} selects one workload`).to.deep.equal([]);
          const portNames = target.pod.containers
            .flatMap((container) => container.ports ?? [])
            .map((p) => p.name);
          for (const port of spec.ports)
            expect(portNames, `Service/${service.metadata.name}`).to.include(port.targetPort);
        }
        for (const budget of ofKind(manifests, "PodDisruptionBudget")) {
          const spec = budget.spec as { selector: { matchLabels: Record<string, string> } };
          expect(podsOf(spec.selector.matchLabels), `PDB/${budget.metadata.name}`).to.have.length(
            1,
          );
        }
        for (const policy of ofKind(manifests, "NetworkPolicy")) {
          const spec = policy.spec as { podSelector: { matchLabels?: Record<string, string> } };
          expect(
            podsOf(spec.podSelector.matchLabels ?? {}),
            `NetworkPolicy/${policy.metadata.name}`,
          ).to.not.be.empty;
        }
        const autoscaled = new Set<string>();
        for (const autoscaler of ofKind(manifests, "HorizontalPodAutoscaler")) {
          const spec = autoscaler.spec as {
            scaleTargetRef: { kind: string; name: string };
            minReplicas: number;
            maxReplicas: number;
          };
          named(manifests, spec.scaleTargetRef.kind, spec.scaleTargetRef.name);
          expect(spec.minReplicas).to.be.at.most(spec.maxReplicas);
          autoscaled.add(spec.scaleTargetRef.name);
        }
        expect([...autoscaled].sort()).to.deep.equal(["detection", "gateway"]);
        for (const workload of workloads) {
          if (autoscaled.has(workload.name)) {
            expect(workload.replicas, `${workload.name}: the autoscaler owns replicas`).to.equal(
              undefined,
            );
          }
          expect(
            ofKind(manifests, "PodDisruptionBudget").some((budget) =>
              selects(
                (budget.spec as { selector: { matchLabels: Record<string, string> } }).selector
                  .matchLabels,
                workload.podLabels,
              ),
            ),
            `${workload.name} has a PodDisruptionBudget`,
          ).to.equal(true);
        }
      });

      it("network policies deny by default and then allow each workload only its own traffic", () => {
        const manifests = render(overlay);
        const policies = ofKind(manifests, "NetworkPolicy").map(
          (policy) =>
            policy.spec as {
              podSelector: { matchLabels?: Record<string, string> };
              policyTypes: string[];
              ingress?: { from?: Record<string, { matchLabels?: Record<string, string> }>[] }[];
              egress?: unknown[];
            },
        );
        const denyAll = policies.find(
          (policy) =>
            Object.keys(policy.podSelector.matchLabels ?? {}).length === 0 &&
            policy.policyTypes.includes("Ingress") &&
            policy.policyTypes.includes("Egress") &&
            !policy.ingress &&
            !policy.egress,
        );
        expect(denyAll, "a default-deny policy for every pod").to.not.equal(undefined);
        for (const workload of workloadsOf(manifests)) {
          const own = policies.filter(
            (policy) =>
              Object.keys(policy.podSelector.matchLabels ?? {}).length > 0 &&
              selects(policy.podSelector.matchLabels, workload.podLabels),
          );
          expect(own, `${workload.name} has its own policy`).to.not.be.empty;
          for (const policy of own) {
            expect(
              policy.ingress ?? [],
              `${workload.name}: no ingress rule open to all`,
            ).to.satisfy((rules: { from?: unknown[] }[]) =>
              rules.every((rule) => (rule.from ?? []).length > 0),
            );
          }
        }
        // The services admit only the gateway and each other (plus monitoring on the admin port).
        const services = named(manifests, "NetworkPolicy", "services").spec as {
          ingress: {
            from: {
              podSelector?: { matchLabels: Record<string, string> };
              namespaceSelector?: unknown;
            }[];
            ports: { port: string }[];
          }[];
        };
        for (const rule of services.ingress) {
          const ports = rule.ports.map((port) => port.port);
          if (ports.includes("admin")) continue;
          for (const peer of rule.from) {
            expect(peer.namespaceSelector, "services: no other namespace").to.equal(undefined);
            expect(["gateway", "service"]).to.include(
              peer.podSelector?.matchLabels["app.kubernetes.io/component"],
            );
          }
        }
      });

      it("the admin port (/metrics, /readyz?verbose) admits Prometheus's pods in the monitoring namespace and nothing else", () => {
        const manifests = render(overlay);
        for (const workload of appWorkloads(manifests)) {
          expect(adminPortProblems(manifests, workload), workload.name).to.deep.equal([]);
        }
      });

      it("every ConfigMap and Secret referenced is defined here or is an operator's Secret that deploy/README.md explains", async () => {
        const manifests = render(overlay);
        const defined = new Set(
          manifests.map((manifest) => `${manifest.kind}/${manifest.metadata.name}`),
        );
        // cert-manager writes the Secret each Certificate names.
        for (const certificate of ofKind(manifests, "Certificate")) {
          defined.add(`Secret/${(certificate.spec as { secretName: string }).secretName}`);
        }
        const readme = await readFile(join(REPO_ROOT, "deploy/README.md"), "utf8");
        const references: string[] = [];
        for (const workload of workloadsOf(manifests)) {
          for (const container of [
            ...(workload.pod.initContainers ?? []),
            ...workload.pod.containers,
          ]) {
            for (const source of container.envFrom ?? []) {
              if (source.configMapRef) references.push(`ConfigMap/${source.configMapRef.name}`);
              if (source.secretRef) references.push(`Secret/${source.secretRef.name}`);
            }
            for (const variable of container.env ?? []) {
              const secret = variable.valueFrom?.secretKeyRef;
              if (secret) references.push(`Secret/${secret.name}`);
              const config = variable.valueFrom?.configMapKeyRef;
              if (config) references.push(`ConfigMap/${config.name}`);
            }
          }
          for (const volume of workload.pod.volumes ?? []) {
            if (volume.secret) references.push(`Secret/${volume.secret.secretName}`);
            if (volume.configMap) references.push(`ConfigMap/${volume.configMap.name}`);
          }
        }
        for (const ingress of ofKind(manifests, "Ingress")) {
          for (const tls of (ingress.spec as { tls?: { secretName: string }[] }).tls ?? []) {
            references.push(`Secret/${tls.secretName}`);
          }
        }
        for (const reference of new Set(references)) {
          if (defined.has(reference)) continue;
          const [kind, name] = reference.split("/");
          expect(kind, `${reference} is not defined in ${overlay}`).to.equal("Secret");
          expect(OPERATOR_SECRETS, `${reference}: an operator's Secret`).to.include(name);
          expect(readme, `deploy/README.md explains Secret ${name}`).to.include(`\`${name}\``);
        }
      });

      it("workload identity: each process mounts its own certificate (its SPIFFE ID, from the CA issuer) at INTERNAL_TLS_DIR, and calls https://", () => {
        const manifests = render(overlay);
        type CertificateSpec = {
          secretName: string;
          uris?: string[];
          usages?: string[];
          issuerRef: { name: string; kind: string };
          privateKey?: { algorithm?: string; rotationPolicy?: string };
          isCA?: boolean;
        };
        const certificates = new Map(
          ofKind(manifests, "Certificate").map((c) => [
            (c.spec as CertificateSpec).secretName,
            c.spec as CertificateSpec,
          ]),
        );
        const mounted = new Set<string>();
        for (const workload of appWorkloads(manifests)) {
          const container = mainContainer(workload) as ContainerView & {
            volumeMounts?: { name: string; mountPath: string }[];
          };
          const env = environmentOf(container, manifests);
          const secretName = `mds-${workload.name}-tls`;
          const volume = workload.pod.volumes?.find((v) => v.secret?.secretName === secretName);
          expect(volume, `${workload.name} mounts ${secretName}`).to.not.equal(undefined);
          const mount = container.volumeMounts?.find((m) => m.name === volume?.name);
          expect(mount?.mountPath, workload.name).to.equal(env.INTERNAL_TLS_DIR);
          mounted.add(secretName);
          const certificate = certificates.get(secretName);
          expect(certificate, `a Certificate writes ${secretName}`).to.not.equal(undefined);
          expect(certificate?.uris).to.deep.equal([
            `spiffe://${env.TRUST_DOMAIN}/${workload.name}`,
          ]);
          expect(certificate?.issuerRef).to.deep.include({ name: "mds-ca-issuer", kind: "Issuer" });
          expect(certificate?.privateKey).to.deep.include({ rotationPolicy: "Always" });
          expect(certificate?.usages).to.include("client auth");
          if (workload.name !== "gateway") expect(certificate?.usages).to.include("server auth");
          for (const name of [
            "AUTH_SERVICE_URL",
            "CATALOGUE_SERVICE_URL",
            "AUTHORING_SERVICE_URL",
          ]) {
            expect(env[name], `${workload.name} ${name}`).to.match(/^https:\/\//);
          }
          expect(env.INTERNAL_TRANSPORT ?? "mtls", workload.name).to.equal("mtls");
        }
        // The internal tools' credential exists, and no pod holds it.
        expect(certificates.get("mds-operator-tls")?.uris).to.deep.equal([
          "spiffe://movement-detection.local/operator",
        ]);
        expect(mounted.has("mds-operator-tls")).to.equal(false);
        // The CA the issuer signs with is cert-manager's own, made by the self-signed issuer.
        expect(certificates.get("mds-ca")).to.deep.include({ isCA: true });
        expect(named(manifests, "Issuer", "mds-ca-issuer").spec).to.deep.equal({
          ca: { secretName: "mds-ca" },
        });
      });

      it("auth reads its pepper and key-encryption keys from the mounted auth-secrets Secret, not the environment", () => {
        const manifests = render(overlay);
        const auth = appWorkloads(manifests).find((w) => w.name === "auth") as Workload;
        const container = mainContainer(auth) as ContainerView & {
          volumeMounts?: { name: string; mountPath: string }[];
        };
        const env = environmentOf(container, manifests);
        const volume = auth.pod.volumes?.find((v) => v.secret?.secretName === "auth-secrets");
        const mount = container.volumeMounts?.find((m) => m.name === volume?.name);
        expect(mount, "auth-secrets mounted").to.not.equal(undefined);
        for (const name of ["AUTH_SECRET_PEPPER_FILE", "KEY_ENCRYPTION_KEYS_FILE"]) {
          expect(env[name], name).to.match(new RegExp(`^${mount?.mountPath}/`));
        }
        expect(env).to.not.have.property("AUTH_SECRET_PEPPER");
        expect(env).to.not.have.property("KEY_ENCRYPTION_KEYS");
        expect(env).to.not.have.property("DEV_BOOTSTRAP");
      });

      it("every ConfigMap variable of the processes is one that a config.ts reads", async () => {
        const read = await variablesReadByConfig();
        const manifests = render(overlay);
        for (const workload of appWorkloads(manifests)) {
          const env = environmentOf(mainContainer(workload), manifests);
          for (const name of Object.keys(env)) {
            if (RUNTIME_VARIABLES.has(name)) continue;
            expect(read, `${workload.name}: ${name} is read by no config.ts`).to.include(name);
          }
        }
      });

      it("the gateway's configuration loads as its image runs it: no Studio (the image has no Studio sources)", () => {
        const manifests = render(overlay);
        const gateway = appWorkloads(manifests).find((workload) => workload.name === "gateway");
        expect(gateway, "a gateway Deployment").to.not.equal(undefined);
        const env = environmentOf(mainContainer(gateway as never), manifests);
        const config = loadGatewayConfig({ ...env, INTERNAL_TLS_DIR: "/var/run/mds/tls" });
        expect(config.studioEnabled, `${overlay}: ENVIRONMENT=${env.ENVIRONMENT}`).to.equal(false);
      });

      it("every process runs the one image, with a compiled entry point whose source exists (detection and the gateway after their V8 flags)", () => {
        const workloads = appWorkloads(render(overlay));
        const images = new Set(workloads.map((workload) => mainContainer(workload).image));
        expect(images.size, [...images].join(", ")).to.equal(1);
        for (const workload of workloads) {
          const args = mainContainer(workload).args ?? [];
          // The frames' path runs with npm start's V8 flags, the others with none.
          expect(args.slice(0, -1), `${workload.name} node flags`).to.deep.equal(
            nodeFlagsOf(workload.name),
          );
          const entry = args[args.length - 1];
          expect(entry).to.match(/^dist\/(gateway|services\/[a-z-]+)\/main\.js$/);
          const source = join(REPO_ROOT, entry.replace(/^dist\//, "").replace(/\.js$/, ".ts"));
          expect(existsSync(source), source).to.equal(true);
        }
      });

      it("every workload runs under a ServiceAccount of its own that mounts no token", () => {
        const manifests = render(overlay);
        const workloads = workloadsOf(manifests);
        const accounts = workloads.map((workload) => workload.pod.serviceAccountName);
        expect(new Set(accounts).size, "one account per workload").to.equal(workloads.length);
        for (const workload of workloads) {
          const name = workload.pod.serviceAccountName as string;
          expect(name, `${workload.name} serviceAccountName`).to.equal(workload.name);
          const account = named(manifests, "ServiceAccount", name) as Manifest & {
            automountServiceAccountToken?: boolean;
          };
          expect(account.automountServiceAccountToken, `ServiceAccount/${name}`).to.equal(false);
        }
      });

      it("startup probes ask what liveness asks, with room for a slow first start", () => {
        for (const workload of appWorkloads(render(overlay))) {
          const container = mainContainer(workload);
          const startup = container.startupProbe as ProbeView & {
            periodSeconds: number;
            failureThreshold: number;
          };
          const { periodSeconds, failureThreshold, ...check } = startup;
          const liveness = { ...(container.livenessProbe ?? {}) } as Record<string, unknown>;
          expect(check.grpc ?? check.httpGet, workload.name).to.deep.equal(
            liveness.grpc ?? liveness.httpGet,
          );
          expect(periodSeconds * failureThreshold, workload.name).to.be.at.least(30);
        }
      });

      it("a self-hosted MongoDB, if present, has as many members configured as it runs", () => {
        const manifests = render(overlay);
        const statefulSet = manifests.find(
          (m) => m.kind === "StatefulSet" && m.metadata.name === "mongodb",
        );
        if (!statefulSet) return;
        const config = named(manifests, "ConfigMap", "mongodb-config").data as Record<
          string,
          string
        >;
        expect(Number(config.MONGODB_MEMBERS)).to.equal(
          (statefulSet.spec as { replicas: number }).replicas,
        );
      });
    });
  }

  it("the admin-port check finds each way to open it wider: two peers, no ports, a number, a range, another rule", () => {
    const manifests = render("overlays/prod");
    const gateway = appWorkloads(manifests).find((workload) => workload.name === "gateway");
    if (!gateway) throw new Error("no gateway");
    const adminRule = (copy: Manifest[]) =>
      (
        named(copy, "NetworkPolicy", "gateway").spec as {
          ingress: { from: Record<string, unknown>[]; ports?: Record<string, unknown>[] }[];
        }
      ).ingress;
    const variant = (change: (ingress: ReturnType<typeof adminRule>) => void) => {
      const copy = structuredClone(manifests);
      change(adminRule(copy));
      return adminPortProblems(copy, gateway);
    };
    expect(adminPortProblems(manifests, gateway)).to.deep.equal([]);
    // Namespace and pod selectors as two peers: any pod of monitoring, or Prometheus anywhere.
    expect(
      variant((ingress) => {
        ingress[1].from = [
          { namespaceSelector: PROMETHEUS_PEER.namespaceSelector },
          { podSelector: PROMETHEUS_PEER.podSelector },
        ];
      }),
    ).to.have.length(2);
    // The public rule without ports: the ingress controller reaches the admin port too.
    expect(variant((ingress) => delete ingress[0].ports)).to.deep.include(
      "2 rules open the admin port",
    );
    expect(
      variant((ingress) => {
        ingress[0].ports = [{ protocol: "TCP", port: 9100 }];
      }),
    ).to.deep.include("2 rules open the admin port");
    expect(
      variant((ingress) => {
        ingress[0].ports = [{ protocol: "TCP", port: 8000, endPort: 9100 }];
      }),
    ).to.deep.include("2 rules open the admin port");
    // One port short of it, the range is the public port's alone.
    expect(
      variant((ingress) => {
        ingress[0].ports = [{ protocol: "TCP", port: 8000, endPort: 9099 }];
      }),
    ).to.deep.equal([]);
    expect(variant((ingress) => delete (ingress[1] as { from?: unknown }).from)).to.deep.include(
      "the admin port is open to every source",
    );
    expect(variant((ingress) => ingress.pop())).to.deep.equal(["0 rules open the admin port"]);
  });

  it("monitoring: the PodMonitor scrapes every process's admin port, and traces go to the collector", () => {
    const manifests = render("overlays/monitoring");
    const monitor = named(manifests, "PodMonitor", "movement-detection").spec as {
      selector: {
        matchLabels: Record<string, string>;
        matchExpressions: { key: string; operator: string; values: string[] }[];
      };
      podMetricsEndpoints: { port: string; path: string }[];
    };
    const scraped = appWorkloads(manifests).filter(
      (workload) =>
        selects(monitor.selector.matchLabels, workload.podLabels) &&
        monitor.selector.matchExpressions.every(
          (rule) =>
            rule.operator === "In" && rule.values.includes(workload.podLabels[rule.key] ?? ""),
        ),
    );
    expect(scraped.map((workload) => workload.name).sort()).to.deep.equal([
      "auth",
      "authoring",
      "catalogue",
      "detection",
      "gateway",
    ]);
    expect(monitor.podMetricsEndpoints).to.deep.include({
      port: "admin",
      path: "/metrics",
      interval: "15s",
      scrapeTimeout: "10s",
    });
    for (const workload of scraped) {
      const ports = mainContainer(workload).ports?.map((port) => port.name);
      expect(ports, workload.name).to.include("admin");
    }
    // Every process exports to the collector's OTLP/HTTP port, which its Service exposes.
    const common = named(manifests, "ConfigMap", "mds-common").data as Record<string, string>;
    const endpoint = new URL(common.OTEL_EXPORTER_OTLP_ENDPOINT);
    const service = named(manifests, "Service", endpoint.hostname).spec as {
      ports: { port: number; targetPort: string }[];
    };
    const port = service.ports.find((entry) => entry.port === Number(endpoint.port));
    expect(port?.targetPort).to.equal("otlp-http");
    const collector = named(manifests, "ConfigMap", "otel-collector-config").data as {
      "config.yaml": string;
    };
    const config = parseYaml(collector["config.yaml"]) as {
      receivers: { otlp: { protocols: { http: { endpoint: string } } } };
      exporters: Record<string, { endpoint: string }>;
      service: { pipelines: { traces: { receivers: string[]; exporters: string[] } } };
    };
    expect(config.receivers.otlp.protocols.http.endpoint).to.equal("0.0.0.0:4318");
    expect(config.service.pipelines.traces.receivers).to.deep.equal(["otlp"]);
    for (const exporter of config.service.pipelines.traces.exporters) {
      expect(config.exporters[exporter], exporter).to.be.an("object");
    }
    // The exporter's endpoint comes from a variable the collector's ConfigMap sets.
    const exportConfig = named(manifests, "ConfigMap", "otel-collector-export").data as Record<
      string,
      string
    >;
    expect(config.exporters.otlphttp.endpoint).to.match(/^\$\{env:TRACES_EXPORT_ENDPOINT\}$/);
    expect(exportConfig.TRACES_EXPORT_ENDPOINT).to.match(/^https?:\/\//);
  });

  it("prod: a pinned image, HTTPS with TLS on the Ingress host, and the public URL on that host", () => {
    const manifests = render("overlays/prod");
    for (const workload of appWorkloads(manifests)) {
      const image = parseImage(mainContainer(workload).image);
      expect(image.tag ?? image.digest, workload.name).to.not.equal(undefined);
      expect(image.tag).to.not.equal("latest");
    }
    const ingress = named(manifests, "Ingress", "gateway").spec as {
      rules: { host: string }[];
      tls: { hosts: string[]; secretName: string }[];
    };
    const host = ingress.rules[0].host;
    expect(ingress.tls.flatMap((entry) => entry.hosts)).to.include(host);
    const config = named(manifests, "ConfigMap", "gateway-config").data as Record<string, string>;
    expect(config.PUBLIC_BASE_URL).to.equal(`https://${host}`);
    const common = named(manifests, "ConfigMap", "mds-common").data as Record<string, string>;
    expect(common.ENVIRONMENT).to.equal("production");
    const auth = named(manifests, "ConfigMap", "auth-config").data as Record<string, string>;
    expect(auth.SIGNING_KEYS_DIR, "production auth requires its signing keys").to.be.a("string");
  });
});

describe("the image's default command (deploy/Dockerfile)", () => {
  it("runs the gateway after its V8 flags, as its Deployment does", async () => {
    const dockerfile = await readFile(join(REPO_ROOT, "deploy/Dockerfile"), "utf8");
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
    const command = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(entrypoint ?? "null")).to.deep.equal(["node"]);
    expect(JSON.parse(command ?? "null")).to.deep.equal([
      ...nodeFlagsOf("gateway"),
      "dist/gateway/main.js",
    ]);
  });
});

async function yamlFiles(): Promise<string[]> {
  const entries = await readdir(K8S_ROOT, { recursive: true });
  return entries
    .filter((entry) => entry.endsWith(".yaml") || entry.endsWith(".yml"))
    .map((entry) => join(K8S_ROOT, entry))
    .sort();
}

/** Every UPPER_SNAKE string literal in the config readers of the services and the gateway. */
async function variablesReadByConfig(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const root of ["services", "gateway"]) {
    const entries = await readdir(join(REPO_ROOT, root), { recursive: true });
    for (const entry of entries.filter((e) => /(^|[/-])config\.ts$/.test(e))) {
      const text = await readFile(join(REPO_ROOT, root, entry), "utf8");
      for (const match of text.matchAll(/"([A-Z][A-Z0-9_]+)"/g)) names.add(match[1]);
      // A secret read with envSecret may come from NAME or from the file NAME_FILE names.
      for (const match of text.matchAll(/envSecret\(env, "([A-Z][A-Z0-9_]+)"\)/g)) {
        names.add(`${match[1]}_FILE`);
      }
    }
  }
  return names;
}

async function expectRejection(promise: Promise<unknown>, message: string): Promise<void> {
  try {
    await promise;
  } catch (error) {
    expect((error as Error).message).to.include(message);
    return;
  }
  expect.fail(`expected a rejection with "${message}"`);
}
