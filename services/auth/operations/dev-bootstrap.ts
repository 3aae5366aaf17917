import type { Logger } from "../../shared/logging/logger.js";
import type { OrganizationsStore } from "../store/organizations-store.js";
import type { Accounts } from "./accounts.js";

/** The log message the local launcher looks for to print the development key prominently. */
export const DEV_CREDENTIALS_MESSAGE = "development credentials created";

/**
 * First run of `npm start` (DEV_BOOTSTRAP=1, never in production: config.ts refuses): on an empty
 * database, a development organization, project and API key with every scope. The secret is
 * logged once, here; later starts find the organization and print nothing.
 */
export async function bootstrapDevelopment(deps: {
  accounts: Accounts;
  organizations: OrganizationsStore;
  logger: Logger;
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
  deps.logger.info(
    {
      organization_id: organization._id,
      project_id: project._id,
      api_key_id: record._id,
      api_key: secret,
      scopes: record.scopes,
    },
    DEV_CREDENTIALS_MESSAGE,
  );
}
