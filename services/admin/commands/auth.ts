import { type DescMessage, type MessageShape, toJson } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import {
  CredentialSchema,
  CredentialType,
  OrganizationSchema,
  ProjectSchema,
  SigningKeySchema,
} from "@movement-detection/proto/auth/v1";
import { newId } from "@movement-detection/shared/ids";
import { MAX_ACTIVATION_DELAY_SECONDS } from "@movement-detection/shared/tokens";
import { exportJWK, generateKeyPair } from "jose";
import { UsageError } from "../cli/args.js";
import type { Command, CommandModule } from "../cli/command.js";

/** Proto messages as the JSON scripts get: snake_case field names, absent fields omitted. */
function plain<D extends DescMessage>(schema: D, message: MessageShape<D> | undefined) {
  if (!message) throw new Error("the service answered without a result");
  return toJson(schema, message, { useProtoFieldName: true }) as Record<string, unknown>;
}

const credential = (message: Parameters<typeof plain<typeof CredentialSchema>>[1]) => {
  const json = plain(CredentialSchema, message);
  json.type = message?.type === CredentialType.SERVICE_ACCOUNT ? "service_account" : "api_key";
  return json;
};

const PROJECT_COLUMNS = [
  "project_id",
  "organization_id",
  "slug",
  "name",
  "created_at",
  "archived_at",
];
const CREDENTIAL_COLUMNS = [
  "credential_id",
  "name",
  "secret_hint",
  "scopes",
  "created_at",
  "revoked_at",
];

const commands: Command[] = [
  {
    name: "create-org",
    usage: "--name <name>",
    summary: "Create an organization.",
    async run({ args, clients, out }) {
      const { organization } = await clients.auth.createOrganization({
        name: args.required("name"),
      });
      out.record(plain(OrganizationSchema, organization));
    },
  },
  {
    name: "list-orgs",
    usage: "",
    summary: "List organizations.",
    async run({ clients, out }) {
      const { organizations } = await clients.auth.listOrganizations({});
      out.table(
        organizations.map((o) => plain(OrganizationSchema, o)),
        ["organization_id", "name", "created_at"],
      );
    },
  },
  {
    name: "create-project",
    usage: "--org <organization_id> --name <name> [--slug <slug>]",
    summary: "Create a project (the slug is derived from the name unless given; it never changes).",
    async run({ args, clients, out }) {
      const { project } = await clients.auth.createProject({
        organizationId: args.required("org"),
        name: args.required("name"),
        slug: args.optional("slug") ?? "",
      });
      out.record(plain(ProjectSchema, project));
    },
  },
  {
    name: "list-projects",
    usage: "[--org <organization_id>]",
    summary: "List projects (of one organization, or all).",
    async run({ args, clients, out }) {
      const { projects } = await clients.auth.listProjects({
        organizationId: args.optionalNonEmpty("org") ?? "",
      });
      out.table(
        projects.map((p) => plain(ProjectSchema, p)),
        PROJECT_COLUMNS,
      );
    },
  },
  {
    name: "archive-project",
    usage: "<project_id>",
    summary:
      "Archive a project: its credentials can no longer mint tokens, its MoveSpecs are archived.",
    async run({ args, clients, out }) {
      const { project } = await clients.auth.archiveProject({
        projectId: args.positionalOr(0, "project_id"),
      });
      const record = plain(ProjectSchema, project);
      // Its MoveSpecs can no longer be written: they carry archived_at too (authoring's own
      // data). Both steps keep the first time, so running the command again finishes the job.
      const archivedAt = project?.archivedAt ? new Date(project.archivedAt) : new Date();
      let archived: number;
      try {
        ({ archived } = await clients.authoring.archiveProjectMoveSpecs({
          projectId: project?.projectId ?? "",
          archivedAt: timestampFromDate(archivedAt),
          actor: "admin-cli",
        }));
      } catch (error) {
        const cause = ConnectError.from(error);
        throw new ConnectError(
          `the project is archived, but its MoveSpecs are not yet (${cause.rawMessage}): run archive-project again`,
          cause.code,
          cause.metadata,
          // Received details (reason, metadata) as they came: findDetails reads either form.
          cause.details as ConstructorParameters<typeof ConnectError>[3],
        );
      }
      out.record({ ...record, movespecs_archived: archived });
    },
  },
  {
    name: "create-key",
    usage: "--project <project_id> --name <name> [--scope <scope>]...",
    summary: "Create an API key (every scope unless --scope is given). The secret is shown once.",
    async run({ args, clients, out }) {
      const created = await clients.auth.createApiKey({
        projectId: args.required("project"),
        name: args.required("name"),
        scopes: args.list("scope"),
      });
      out.record({ ...credential(created.apiKey), secret: created.secret });
      out.note("\nStore the secret now: it is not shown again. Mint a token with:");
      out.note(
        `  curl -s -X POST <gateway>/api/auth/access-tokens -H 'content-type: application/json' -d '{"api_key":"${created.secret}"}'`,
      );
    },
  },
  {
    name: "list-keys",
    usage: "--project <project_id>",
    summary: "List a project's API keys (never their secrets).",
    async run({ args, clients, out }) {
      const { apiKeys } = await clients.auth.listApiKeys({ projectId: args.required("project") });
      out.table(apiKeys.map(credential), CREDENTIAL_COLUMNS);
    },
  },
  {
    name: "create-service-account",
    usage: "--project <project_id> --name <name> [--scope <scope>]...",
    summary: "Create a service account (every scope unless --scope). The secret is shown once.",
    async run({ args, clients, out }) {
      const created = await clients.auth.createServiceAccount({
        projectId: args.required("project"),
        name: args.required("name"),
        scopes: args.list("scope"),
      });
      out.record({ ...credential(created.serviceAccount), secret: created.secret });
      out.note("\nStore the secret now: it is not shown again.");
    },
  },
  {
    name: "list-service-accounts",
    usage: "--project <project_id>",
    summary: "List a project's service accounts (never their secrets).",
    async run({ args, clients, out }) {
      const { serviceAccounts } = await clients.auth.listServiceAccounts({
        projectId: args.required("project"),
      });
      out.table(serviceAccounts.map(credential), CREDENTIAL_COLUMNS);
    },
  },
  {
    name: "revoke",
    usage: "<credential_id>",
    summary: "Revoke an API key or a service account: it can no longer mint tokens.",
    async run({ args, clients, out }) {
      const { credential: revoked } = await clients.auth.revokeCredential({
        credentialId: args.positionalOr(0, "credential_id"),
      });
      out.record(credential(revoked));
    },
  },
  {
    name: "rotate-signing-key",
    usage: "[--activate-after <seconds>]",
    summary:
      "Publish a new signing key that signs after the delay; the old one verifies until its tokens expired.",
    async run({ args, clients, out }) {
      const after = args.optionalNonEmpty("activate-after");
      // A week is far longer than any rotation waits for caches (the default is a minute).
      if (
        after !== undefined &&
        !(/^\d+$/.test(after) && Number(after) <= MAX_ACTIVATION_DELAY_SECONDS)
      ) {
        throw new UsageError(
          `--activate-after must be a whole number of seconds, 0 to ${MAX_ACTIVATION_DELAY_SECONDS}`,
        );
      }
      const { signingKey } = await clients.auth.rotateSigningKey({
        activateAfterSeconds: after === undefined ? undefined : Number(after),
      });
      out.record(plain(SigningKeySchema, signingKey));
    },
  },
  {
    name: "list-signing-keys",
    usage: "",
    summary: "List the signing keys and their state (published, signing, retired).",
    async run({ clients, out }) {
      const { signingKeys } = await clients.auth.listSigningKeys({});
      out.table(
        // `signing: false` said, not left out (protobuf JSON omits a false boolean).
        signingKeys.map((key) => ({ ...plain(SigningKeySchema, key), signing: key.signing })),
        ["kid", "alg", "signing", "activates_at", "retired_at", "verify_until", "source"],
      );
    },
  },
  {
    name: "generate-signing-key",
    usage: "",
    summary:
      "Print a new private Ed25519 JWK, as JSON, for a file in SIGNING_KEYS_DIR (production): `> new-key.json`. Offline, no service call.",
    async run({ out }) {
      const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
      out.document({ ...(await exportJWK(privateKey)), kid: newId(), alg: "EdDSA" });
    },
  },
];

export const authCommands: CommandModule = {
  area: "auth",
  summary: "organizations, projects, API keys, service accounts and signing keys",
  commands,
};

/** The longest --activate-after: a week. */
