import { type DescMessage, type MessageShape, toJson } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import type { AuthService } from "@movement-detection/proto/auth/v1";
import {
  type AuthoringService,
  MoveSpecSchema,
  Visibility,
} from "@movement-detection/proto/authoring/v1";
import type { CatalogueService } from "@movement-detection/proto/catalogue/v1";
import { isUuid } from "@movement-detection/shared/ids";
import { UsageError } from "../cli/args.js";
import type { Command, CommandContext, CommandModule } from "../cli/command.js";

/**
 * `admin movespecs ...`: the internal MoveSpec operations that have no public route (contract:
 * "Archiving, delisting and later visibility changes are internal operations").
 */
interface MoveSpecClients {
  readonly auth: Client<typeof AuthService>;
  readonly authoring: Client<typeof AuthoringService>;
  readonly catalogue: Client<typeof CatalogueService>;
}

function clientsOf(context: CommandContext): MoveSpecClients {
  return context.clients;
}

function plain<D extends DescMessage>(schema: D, message: MessageShape<D> | undefined) {
  if (!message) throw new Error("the service answered without a result");
  const json = toJson(schema, message, { useProtoFieldName: true }) as Record<string, unknown>;
  if (typeof json.visibility === "string") {
    json.visibility = json.visibility.replace(/^VISIBILITY_/, "").toLowerCase();
  }
  return json;
}

/**
 * The organization a star is given for, once auth knows it: the catalogue holds no organizations
 * and would count a star for any id. Auth has no single-organization read; ListProjects of one
 * organization answers NOT_FOUND (ORGANIZATION_NOT_FOUND) for an unknown one, which the tool then
 * reports as every refusal (exit 1, the reason printed).
 */
async function knownOrganization(context: CommandContext): Promise<string> {
  const organizationId = context.args.required("org");
  await clientsOf(context).auth.listProjects({ organizationId });
  return organizationId;
}

/** A Map, not an object: `--visibility constructor` must not find Object.prototype's members. */
const VISIBILITIES: ReadonlyMap<string, Visibility> = new Map([
  ["private", Visibility.PRIVATE],
  ["public", Visibility.PUBLIC],
]);

const actor = (context: CommandContext) => context.args.optionalNonEmpty("actor") ?? "admin-cli";

const commands: Command[] = [
  {
    name: "set-visibility",
    usage: "<movespec_id> --visibility private|public [--actor <who>]",
    summary: "Make a MoveSpec private or public (also lifts a delisting).",
    async run(context) {
      const name = context.args.required("visibility");
      const visibility = VISIBILITIES.get(name);
      if (visibility === undefined) throw new UsageError("--visibility must be private or public");
      const { movespec } = await clientsOf(context).authoring.setVisibility({
        movespecId: context.args.positionalOr(0, "id"),
        visibility,
        actor: actor(context),
      });
      context.out.record(plain(MoveSpecSchema, movespec));
    },
  },
  {
    name: "delist",
    usage: "<movespec_id> --reason <text> [--actor <who>]",
    summary: "Moderation: hide a MoveSpec from everyone outside its project.",
    async run(context) {
      const { movespec } = await clientsOf(context).authoring.delistMoveSpec({
        movespecId: context.args.positionalOr(0, "id"),
        reason: context.args.required("reason"),
        actor: actor(context),
      });
      context.out.record(plain(MoveSpecSchema, movespec));
    },
  },
  {
    name: "archive",
    usage: "<movespec_id> [--actor <who>]",
    summary: "Make a MoveSpec read-only for good (it leaves the public catalogue).",
    async run(context) {
      const { movespec } = await clientsOf(context).authoring.archiveMoveSpec({
        movespecId: context.args.positionalOr(0, "id"),
        actor: actor(context),
      });
      context.out.record(plain(MoveSpecSchema, movespec));
    },
  },
  {
    name: "update",
    usage: "<movespec_id> [--name <name>] [--description <text>] [--actor <who>]",
    summary: "Rename or re-describe a MoveSpec (an empty description removes it).",
    async run(context) {
      const name = context.args.optional("name");
      const description = context.args.optional("description");
      if (name === undefined && description === undefined) {
        throw new UsageError("give --name and/or --description");
      }
      const { movespec } = await clientsOf(context).authoring.updateMoveSpec({
        movespecId: context.args.positionalOr(0, "id"),
        name,
        description,
        actor: actor(context),
      });
      context.out.record(plain(MoveSpecSchema, movespec));
    },
  },
  {
    name: "resync-catalogue",
    usage: "[--id <movespec_id>]",
    summary:
      "Push one or every MoveSpec to the catalogue again (e.g. after restoring its database).",
    async run(context) {
      const movespecId = context.args.optional("id");
      // Given but not an id (a typo, an unset shell variable) is no "resync nothing": refused
      // before any call, as every malformed argument is.
      if (movespecId !== undefined && !isUuid(movespecId)) {
        throw new UsageError("--id must be a MoveSpec id (a UUID); leave it out to resync all");
      }
      const { marked } = await clientsOf(context).authoring.resyncCatalogue({ movespecId });
      context.out.record({ marked });
    },
  },
  {
    name: "star",
    usage: "<movespec_id> --org <organization_id>",
    summary: "Star a public MoveSpec on behalf of an organization (idempotent).",
    async run(context) {
      const organizationId = await knownOrganization(context);
      const result = await clientsOf(context).catalogue.starMoveSpec({
        organizationId,
        movespecId: context.args.positionalOr(0, "id"),
      });
      context.out.record({ star_count: result.starCount, starred: result.starred });
    },
  },
  {
    name: "unstar",
    usage: "<movespec_id> --org <organization_id>",
    summary: "Remove an organization's star (idempotent).",
    async run(context) {
      const organizationId = await knownOrganization(context);
      const result = await clientsOf(context).catalogue.unstarMoveSpec({
        organizationId,
        movespecId: context.args.positionalOr(0, "id"),
      });
      context.out.record({ star_count: result.starCount, starred: result.starred });
    },
  },
];

export const movespecCommands: CommandModule = {
  area: "movespecs",
  summary: "Visibility, moderation, archive, renames, catalogue resync and stars of MoveSpecs.",
  commands,
};
