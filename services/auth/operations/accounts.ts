import { Code, Reason, serviceError } from "@movement-detection/shared/errors";
import { isUuid, newId } from "@movement-detection/shared/ids";
import {
  characterFinding,
  type NameFinding,
  normalizeName,
  scriptFinding,
} from "@movement-detection/shared/text";
import type { CredentialKind } from "@movement-detection/shared/tokens";
import { SCOPES, unknownScopes } from "@movement-detection/shared/tokens";
import {
  API_KEY_PREFIX,
  generateSecret,
  hashSecret,
  SERVICE_ACCOUNT_PREFIX,
  secretHint,
} from "../domain/secrets.js";
import { isSlug, slugCandidate, slugify } from "../domain/slug.js";
import { AuthReason } from "../reasons.js";
import type { CredentialRecord, CredentialsStore } from "../store/credentials-store.js";
import type { OrganizationRecord, OrganizationsStore } from "../store/organizations-store.js";
import type { ProjectRecord, ProjectsStore } from "../store/projects-store.js";
import type { RecentCredentials } from "./recent-credentials.js";
import type { RecentProjects } from "./recent-projects.js";

const NAME_MAX = 120;

/**
 * Organizations, projects and credentials: what the admin tool manages over gRPC. Secrets are
 * generated here, returned once, and only their keyed hash is stored.
 */
export function createAccounts(deps: {
  organizations: OrganizationsStore;
  projects: ProjectsStore;
  credentials: CredentialsStore;
  pepper: string;
  now?: () => number;
  /** The token paths' reads of projects; told when this replica archives one. */
  recentProjects?: RecentProjects;
  /** The token paths' reads of credentials: a revocation here is seen there at once. */
  recentCredentials?: Pick<RecentCredentials, "forget">;
}) {
  const now = () => new Date((deps.now ?? Date.now)());

  const organization = async (id: string): Promise<OrganizationRecord> => {
    const found = isUuid(id) ? await deps.organizations.find(id) : null;
    if (!found) {
      throw serviceError(Code.NotFound, AuthReason.organizationNotFound, "organization not found", {
        organization_id: id,
      });
    }
    return found;
  };

  const projectFrom = async (
    projects: Pick<ProjectsStore, "find">,
    id: string,
  ): Promise<ProjectRecord> => {
    const found = isUuid(id) ? await projects.find(id) : null;
    if (!found) {
      throw serviceError(Code.NotFound, AuthReason.projectNotFound, "project not found", {
        project_id: id,
      });
    }
    return found;
  };
  const project = (id: string) => projectFrom(deps.projects, id);

  const createCredential = async (
    kind: CredentialKind,
    input: { projectId: string; name: string; scopes: readonly string[] },
  ): Promise<{ record: CredentialRecord; secret: string }> => {
    const owner = await project(input.projectId);
    if (owner.archived_at) {
      throw serviceError(
        Code.FailedPrecondition,
        AuthReason.projectArchived,
        "project is archived",
        {
          project_id: owner._id,
        },
      );
    }
    const unknown = unknownScopes(input.scopes);
    if (unknown.length > 0) {
      throw serviceError(Code.InvalidArgument, Reason.fieldInvalid, "unknown scope names", {
        field: "scopes",
        unknown_scopes: unknown,
      });
    }
    const scopes =
      input.scopes.length === 0 ? [...SCOPES] : SCOPES.filter((s) => input.scopes.includes(s));
    const secret = generateSecret(kind === "api_key" ? API_KEY_PREFIX : SERVICE_ACCOUNT_PREFIX);
    const record: CredentialRecord = {
      _id: newId(),
      type: kind,
      organization_id: owner.organization_id,
      project_id: owner._id,
      name: requireName(input.name),
      scopes,
      secret_hash: hashSecret(deps.pepper, secret),
      secret_hint: secretHint(secret),
      created_at: now(),
    };
    await deps.credentials.insert(record);
    return { record, secret };
  };

  return {
    async createOrganization(name: string): Promise<OrganizationRecord> {
      const record = { _id: newId(), name: requireName(name), created_at: now() };
      await deps.organizations.insert(record);
      return record;
    },
    listOrganizations: () => deps.organizations.list(),
    organization,
    project,
    /** As `project`, for the token paths: possibly as read a moment ago (recent-projects.ts). */
    recentProject: (id: string) => projectFrom(deps.recentProjects ?? deps.projects, id),

    async createProject(input: {
      organizationId: string;
      name: string;
      slug?: string;
    }): Promise<ProjectRecord> {
      const owner = await organization(input.organizationId);
      const name = requireName(input.name);
      const explicit = input.slug !== undefined && input.slug !== "";
      if (explicit && !isSlug(input.slug as string)) {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldInvalid,
          "slug must be lowercase letters, digits and dashes (1-60)",
          { field: "slug" },
        );
      }
      const base = explicit ? (input.slug as string) : slugify(name);
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const slug = slugCandidate(base, attempt);
        const record: ProjectRecord = {
          _id: newId(),
          organization_id: owner._id,
          name,
          slug,
          created_at: now(),
        };
        const taken =
          (await deps.projects.slugTaken(owner._id, slug)) ||
          (await deps.projects.insert(record)) === "duplicate";
        if (!taken) return record;
        if (explicit) {
          throw serviceError(Code.AlreadyExists, AuthReason.slugTaken, "slug already in use", {
            field: "slug",
            slug,
          });
        }
      }
      throw serviceError(Code.AlreadyExists, AuthReason.slugTaken, "no free slug for this name", {
        field: "slug",
      });
    },
    async listProjects(organizationId: string): Promise<ProjectRecord[]> {
      if (organizationId !== "") await organization(organizationId);
      return deps.projects.list(organizationId || undefined);
    },
    async archiveProject(id: string): Promise<ProjectRecord> {
      await project(id);
      const archived = (await deps.projects.archive(id, now())) as ProjectRecord;
      deps.recentProjects?.forget(id);
      return archived;
    },

    createApiKey: (input: { projectId: string; name: string; scopes: readonly string[] }) =>
      createCredential("api_key", input),
    createServiceAccount: (input: { projectId: string; name: string; scopes: readonly string[] }) =>
      createCredential("service_account", input),
    async listCredentials(projectId: string, kind: CredentialKind): Promise<CredentialRecord[]> {
      await project(projectId);
      return deps.credentials.list(projectId, kind);
    },
    async revokeCredential(id: string): Promise<CredentialRecord> {
      const found = isUuid(id) ? await deps.credentials.revoke(id, now()) : null;
      deps.recentCredentials?.forget(id, found);
      if (!found) {
        throw serviceError(Code.NotFound, AuthReason.credentialNotFound, "credential not found", {
          credential_id: id,
        });
      }
      return found;
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;

/**
 * Trimmed, normal form KC, and nothing that lets it pass for another name (display-name.ts); the
 * scripts are looked at once the length is known to be bounded.
 */
function requireName(name: string): string {
  const trimmed = normalizeName(name);
  refuseFinding(characterFinding(trimmed));
  if (trimmed === "") {
    throw serviceError(Code.InvalidArgument, Reason.fieldRequired, "name is required", {
      field: "name",
    });
  }
  if (trimmed.length > NAME_MAX) {
    throw serviceError(
      Code.InvalidArgument,
      Reason.fieldInvalid,
      `name is longer than ${NAME_MAX}`,
      {
        field: "name",
      },
    );
  }
  refuseFinding(scriptFinding(trimmed));
  return trimmed;
}

function refuseFinding(finding: NameFinding | undefined): void {
  if (finding) {
    throw serviceError(Code.InvalidArgument, Reason.fieldInvalid, `name ${finding.message}`, {
      field: "name",
      problem: finding.problem,
    });
  }
}
