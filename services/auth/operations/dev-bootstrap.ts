import { closeSync, writeSync } from "node:fs";
import type { Logger } from "@movement-detection/shared/logging";
import type { OrganizationsStore } from "../store/organizations-store.js";
import type { Accounts } from "./accounts.js";

/** The log line of a bootstrap: ids only, never the key itself. */
export const DEV_CREDENTIALS_MESSAGE = "development credentials created";

/** What the launcher receives on its private channel (and prints once on its banner). */
export interface DevCredentials {
  readonly organization_id: string;
  readonly project_id: string;
  readonly api_key_id: string;
  readonly api_key: string;
  readonly scopes: readonly string[];
}

/**
 * First run of `npm start` (DEV_BOOTSTRAP=1, never in production: config.ts refuses): on an empty
 * database, a development organization, project and API key with every scope. The key goes to
 * `handOver` (the launcher's private pipe), never to a log: log shippers collect logs. Later
 * starts find the organization and do nothing.
 */
export async function bootstrapDevelopment(deps: {
  accounts: Accounts;
  organizations: OrganizationsStore;
  logger: Logger;
  handOver: (credentials: DevCredentials) => void;
}): Promise<void> {
  if (!(await deps.organizations.isEmpty())) return;
  const organization = await deps.accounts.createOrganization("Development");
  const project = await deps.accounts.createProject({
    organizationId: organization._id,
    name: "Development",
    slug: "development",
  });
  const { record, secret } = await deps.accounts.createApiKey({
    projectId: project._id,
    name: "development key",
    scopes: [],
  });
  deps.handOver({
    organization_id: organization._id,
    project_id: project._id,
    api_key_id: record._id,
    api_key: secret,
    scopes: record.scopes,
  });
  deps.logger.info(
    { organization_id: organization._id, project_id: project._id, api_key_id: record._id },
    DEV_CREDENTIALS_MESSAGE,
  );
}

/**
 * The launcher's private channel: a file descriptor it opened for this process. `send` writes the
 * credentials as one JSON line; `close` ends the channel (the launcher then knows there is no key
 * to show, when the database was not empty).
 */
export function launcherChannel(fd: number) {
  let open = true;
  return {
    send(credentials: DevCredentials): void {
      if (open) writeSync(fd, `${JSON.stringify(credentials)}\n`);
    },
    close(): void {
      if (open) closeSync(fd);
      open = false;
    },
  };
}
