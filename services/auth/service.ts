import { AuthService } from "@movement-detection/proto/auth/v1";
import type { ServiceDefinition } from "@movement-detection/shared/runtime";
import { createSettingsVerifier, keyRetentionSeconds } from "@movement-detection/shared/tokens";
import { Counter, type Registry } from "prom-client";
import type { AuthConfig } from "./config.js";
import { createAuthHandlers } from "./handlers.js";
import { createAccounts } from "./operations/accounts.js";
import { bootstrapDevelopment, launcherChannel } from "./operations/dev-bootstrap.js";
import { createFailureLimiter } from "./operations/failure-limiter.js";
import { createRecentCredentials } from "./operations/recent-credentials.js";
import { createRecentProjects } from "./operations/recent-projects.js";
import { createRuntimeTokens } from "./operations/runtime-tokens.js";
import { createSigningKeys } from "./operations/signing-keys.js";
import { createTokenExchange } from "./operations/token-exchange.js";
import { createDatabaseKeySource } from "./signing/database-key-source.js";
import { createDirectoryKeySource, SIGNING_KID_FILE } from "./signing/directory-key-source.js";
import type { KeyEncryptionKeys } from "./signing/key-encryption.js";
import { REFUSAL_REASONS, type RefusalReason } from "./signing/key-record.js";
import { createKeyRing } from "./signing/key-ring.js";
import { createTokenSigner } from "./signing/token-signer.js";
import { createCredentialsStore } from "./store/credentials-store.js";
import { createOrganizationsStore } from "./store/organizations-store.js";
import { createProjectsStore } from "./store/projects-store.js";
import { createSettingsStore } from "./store/settings-store.js";
import { createSigningKeysStore } from "./store/signing-keys-store.js";

export const authService: ServiceDefinition<AuthConfig> = {
  name: "auth",
  services: [AuthService],
  async start({ config, db, logger, metrics }) {
    const organizations = createOrganizationsStore(db);
    const projects = createProjectsStore(db);
    const credentials = createCredentialsStore(db);
    await projects.createIndexes();
    await credentials.createIndexes();

    const pepper = config.secretPepper;
    // Older versions kept a generated pepper in the database: never leave it there.
    if (await createSettingsStore(db).remove("secret_pepper")) {
      logger.warn(
        "removed the pepper an older version kept in the database; credentials created under it no longer verify unless AUTH_SECRET_PEPPER is that value",
      );
    }

    const source = config.signingKeysDir
      ? createDirectoryKeySource(config.signingKeysDir, {
          onUnnamedChoice: (kid, count) =>
            logger.warn(
              { kid, keys: count, dir: config.signingKeysDir },
              `${count} signing keys and no ${SIGNING_KID_FILE}: the greatest kid signs; name the signing key in ${SIGNING_KID_FILE} (docs/auth.md)`,
            ),
        })
      : createDatabaseKeySource({
          store: createSigningKeysStore(db),
          retentionSeconds: keyRetentionSeconds(config.tokens),
          keyEncryption: config.keyEncryption as KeyEncryptionKeys,
          logger,
          onRefused: refusedKeysCounter(metrics.registry),
        });
    const ring = createKeyRing({
      source,
      reloadMs: config.signingKeysReloadSeconds * 1000,
      logger,
    });
    await ring.load();
    const signer = createTokenSigner({ ring, issuer: config.tokens.issuer });
    const recentProjects = createRecentProjects({
      find: (id) => projects.find(id),
      ttlMs: config.projectCacheMs,
      clock: Date.now,
    });
    // The exchange (by the secret's hash) and session creation (is the caller's credential
    // revoked?) read a credential once a `credentialCacheMs`, like the project, not every time.
    const recentCredentials = createRecentCredentials({
      store: credentials,
      ttlMs: config.credentialCacheMs,
      clock: Date.now,
    });
    const accounts = createAccounts({
      organizations,
      projects,
      credentials,
      pepper,
      recentProjects,
      recentCredentials,
    });
    const exchange = createTokenExchange({
      credentials: recentCredentials,
      projects: recentProjects,
      pepper,
      signer,
      settings: config.tokens,
      limiter: createFailureLimiter({
        points: config.failureLimit,
        windowSeconds: config.failureWindowSeconds,
        blockSeconds: config.failureBlockSeconds,
      }),
    });
    if (config.devBootstrap) {
      const channel = launcherChannel(config.devBootstrap.credentialsFd);
      try {
        await bootstrapDevelopment({ accounts, organizations, logger, handOver: channel.send });
      } finally {
        channel.close();
      }
    }

    const handlers = createAuthHandlers({
      exchange,
      accounts,
      runtimeTokens: createRuntimeTokens({
        signer,
        settings: config.tokens,
        project: accounts.recentProject,
        credential: recentCredentials.find,
      }),
      signingKeys: createSigningKeys({
        ring,
        activationDelaySeconds: config.signingKeyActivationDelaySeconds,
      }),
      ring,
    });
    // Users forwarded to GetProject are verified against this service's own key set.
    const userTokens = createSettingsVerifier(config.tokens, async () =>
      JSON.parse(await ring.jwksJson()),
    );
    return { register: (router) => router.service(AuthService, handlers), userTokens };
  },
};

/**
 * auth_signing_keys_refused_total{reason}: signing key records the service refused (never
 * published, never used). Any increase means someone wrote to the store who should not have (or,
 * for unknown_kek, a key-encryption key is missing): alert on it. Every reason starts at 0 so
 * that the first refusal is an increase.
 */
function refusedKeysCounter(registry: Registry): (reason: RefusalReason) => void {
  const counter = new Counter({
    name: "auth_signing_keys_refused_total",
    help: "Signing key records refused as not sealed by this service's key-encryption key (never published nor used), by reason.",
    labelNames: ["reason"],
    registers: [registry],
  });
  for (const reason of REFUSAL_REASONS) counter.inc({ reason }, 0);
  return (reason) => counter.inc({ reason });
}
