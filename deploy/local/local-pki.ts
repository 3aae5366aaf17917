// tsyringe, which @peculiar/x509 uses, needs the Reflect metadata polyfill loaded first.
import "reflect-metadata";
import { X509Certificate as NodeX509, randomBytes, webcrypto } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  DEFAULT_TRUST_DOMAIN,
  spiffeId,
  WORKLOADS,
  type Workload,
} from "@movement-detection/shared/security";
import * as x509 from "@peculiar/x509";

/**
 * The local certificate authority of `npm start` and of the test harness: one CA and one
 * certificate per workload (its SPIFFE ID as the only URI SAN), written in the layout of a
 * cert-manager Secret so that the services read both the same way:
 *
 *   <dir>/ca/ca.crt, ca.key                 the CA (its key stays here, 0600)
 *   <dir>/<workload>/tls.crt, tls.key, ca.crt
 *
 * Directories are 0700 and keys 0600. Existing material is kept while it is valid for at least
 * `renewWithinDays` more days and matches the trust domain; anything else is issued again. On
 * Kubernetes, cert-manager does this job (deploy/k8s/base/pki).
 */
export interface LocalPki {
  readonly dir: string;
  readonly trustDomain: string;
  /** The directory of one workload's tls.crt, tls.key and ca.crt (INTERNAL_TLS_DIR). */
  tlsDirOf(workload: Workload): string;
  /** The workloads whose certificates were (re)issued by this call. */
  readonly issued: readonly Workload[];
}

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const CA_DAYS = 365;
const LEAF_DAYS = 30;
const DAY_MS = 86_400_000;

/** Workloads that only ever call (never serve internal gRPC). */
const CLIENT_ONLY: ReadonlySet<Workload> = new Set(["gateway", "operator"]);

export async function ensureLocalPki(options: {
  dir: string;
  trustDomain?: string;
  renewWithinDays?: number;
  now?: () => Date;
}): Promise<LocalPki> {
  const trustDomain = options.trustDomain ?? DEFAULT_TRUST_DOMAIN;
  const now = options.now ?? (() => new Date());
  const renewMs = (options.renewWithinDays ?? 7) * DAY_MS;
  x509.cryptoProvider.set(webcrypto as never);

  await privateDir(options.dir);
  const caDir = join(options.dir, "ca");
  await privateDir(caDir);
  let ca = await loadCa(caDir, now().getTime() + renewMs * 4);
  const issued: Workload[] = [];
  const newCa = ca === undefined;
  if (!ca) {
    ca = await issueCa(trustDomain, now());
    await writePrivate(join(caDir, "ca.key"), ca.keyPem);
    await writePublic(join(caDir, "ca.crt"), ca.certPem);
  }
  for (const workload of WORKLOADS) {
    const dir = join(options.dir, workload);
    await privateDir(dir);
    const current = newCa
      ? undefined
      : await readFile(join(dir, "tls.crt"), "utf8").catch(() => undefined);
    if (current && leafStillGood(current, ca.certPem, trustDomain, workload, now(), renewMs)) {
      continue;
    }
    const leaf = await issueLeaf(ca, trustDomain, workload, now());
    await writePrivate(join(dir, "tls.key"), leaf.keyPem);
    await writePublic(join(dir, "tls.crt"), leaf.certPem);
    await writePublic(join(dir, "ca.crt"), ca.certPem);
    issued.push(workload);
  }
  return {
    dir: options.dir,
    trustDomain,
    tlsDirOf: (workload) => join(options.dir, workload),
    issued,
  };
}

interface Authority {
  readonly certPem: string;
  readonly keyPem: string;
  readonly cert: x509.X509Certificate;
  readonly key: webcrypto.CryptoKey;
}

async function issueCa(trustDomain: string, now: Date): Promise<Authority> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=movement-detection local CA, O=${trustDomain}`,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + CA_DAYS * DAY_MS),
    keys: keys as webcrypto.CryptoKeyPair,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as webcrypto.CryptoKey),
    ],
  });
  return {
    cert,
    certPem: cert.toString("pem"),
    key: keys.privateKey as webcrypto.CryptoKey,
    keyPem: await pkcs8Pem(keys.privateKey as webcrypto.CryptoKey),
  };
}

async function issueLeaf(ca: Authority, trustDomain: string, workload: Workload, now: Date) {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const usages = CLIENT_ONLY.has(workload)
    ? [x509.ExtendedKeyUsage.clientAuth]
    : [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${workload}, O=${trustDomain}`,
    issuer: ca.cert.subject,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + LEAF_DAYS * DAY_MS),
    signingKey: ca.key,
    publicKey: keys.publicKey as webcrypto.CryptoKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension(usages, false),
      // The SPIFFE ID is the identity; the DNS and IP names let tools that check host names
      // (buf curl, grpcurl, @grpc/grpc-js) reach the local ports without turning that off.
      new x509.SubjectAlternativeNameExtension([
        { type: "url", value: spiffeId(trustDomain, workload) },
        { type: "dns", value: "localhost" },
        { type: "dns", value: workload },
        { type: "ip", value: "127.0.0.1" },
        { type: "ip", value: "::1" },
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
    ],
  });
  return {
    certPem: cert.toString("pem"),
    keyPem: await pkcs8Pem(keys.privateKey as webcrypto.CryptoKey),
  };
}

async function loadCa(dir: string, validUntil: number): Promise<Authority | undefined> {
  try {
    const certPem = await readFile(join(dir, "ca.crt"), "utf8");
    const keyPem = await readFile(join(dir, "ca.key"), "utf8");
    const cert = new x509.X509Certificate(certPem);
    if (cert.notAfter.getTime() < validUntil) return undefined;
    const key = await webcrypto.subtle.importKey(
      "pkcs8",
      x509.PemConverter.decodeFirst(keyPem),
      ALGORITHM,
      false,
      ["sign"],
    );
    return { cert, certPem, key, keyPem };
  } catch {
    return undefined;
  }
}

function leafStillGood(
  certPem: string,
  caPem: string,
  trustDomain: string,
  workload: Workload,
  now: Date,
  renewMs: number,
): boolean {
  try {
    const cert = new NodeX509(certPem);
    return (
      cert.checkIssued(new NodeX509(caPem)) &&
      cert.verify(new NodeX509(caPem).publicKey) &&
      new Date(cert.validTo).getTime() - now.getTime() > renewMs &&
      (cert.subjectAltName ?? "").split(", ").includes(`URI:${spiffeId(trustDomain, workload)}`)
    );
  } catch {
    return false;
  }
}

async function pkcs8Pem(key: webcrypto.CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey("pkcs8", key);
  return x509.PemConverter.encode(der, "PRIVATE KEY");
}

/** A positive 128-bit serial (RFC 5280: at most 20 octets, not negative). */
function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  bytes[0] |= 0x01;
  return bytes.toString("hex");
}

async function privateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  await chmod(path, 0o700);
}

/** Written to a temporary name first: a crash never leaves half a key behind. */
async function writePrivate(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

async function writePublic(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode: 0o644 });
  await rename(temporary, path);
}
