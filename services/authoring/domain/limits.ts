import { AuthoringReason, Code, Reason, serviceError } from "@movement-detection/shared/errors";
import { displayNameIssue, freeTextError, normalizeName } from "@movement-detection/shared/text";

/** The contract's size limits on MoveSpecs (shared/design/contract.md, "MoveSpecs"). */
export const MOVESPEC_LIMITS = {
  /** UTF-8 bytes of a draft's `yaml_source`. */
  yamlSourceBytes: 256 * 1024,
  /** Characters (code points) of a name, after trimming. */
  nameMin: 1,
  nameMax: 120,
  /** Characters (code points) of a description. */
  descriptionMax: 2000,
} as const;

const NAME_LENGTH = { minLength: MOVESPEC_LIMITS.nameMin, maxLength: MOVESPEC_LIMITS.nameMax };

/**
 * The name trimmed and in normal form KC, or INVALID_ARGUMENT FIELD_REQUIRED / FIELD_INVALID naming
 * `name` (too short or long, or a character that lets it pass for another name: display-name.ts).
 * The gateway checks the same (the API's schema), so that a request lists every invalid field.
 */
export function checkName(name: string | undefined): string {
  if (name === undefined) {
    throw serviceError(Code.InvalidArgument, Reason.fieldRequired, "name is required", {
      field: "name",
    });
  }
  const trimmed = normalizeName(name);
  const issue = displayNameIssue(trimmed, NAME_LENGTH);
  if (issue) {
    throw serviceError(
      Code.InvalidArgument,
      Reason.fieldInvalid,
      `name ${issue.message}`,
      issue.problem
        ? { field: "name", problem: issue.problem }
        : {
            field: "name",
            min_length: MOVESPEC_LIMITS.nameMin,
            max_length: MOVESPEC_LIMITS.nameMax,
          },
    );
  }
  return trimmed;
}

/** The description (undefined when absent or empty), or INVALID_ARGUMENT FIELD_INVALID. */
export function checkDescription(description: string | undefined): string | undefined {
  if (description === undefined || description === "") return undefined;
  if ([...description].length > MOVESPEC_LIMITS.descriptionMax) {
    throw serviceError(
      Code.InvalidArgument,
      Reason.fieldInvalid,
      `description must be at most ${MOVESPEC_LIMITS.descriptionMax} characters`,
      { field: "description", max_length: MOVESPEC_LIMITS.descriptionMax },
    );
  }
  const textError = freeTextError(description);
  if (textError) {
    throw serviceError(Code.InvalidArgument, Reason.fieldInvalid, `description ${textError}`, {
      field: "description",
    });
  }
  return description;
}

/** INVALID_ARGUMENT YAML_TOO_LARGE (413 at the gateway) past 256 KiB of UTF-8. */
export function checkYamlSize(yamlSource: string): void {
  const bytes = Buffer.byteLength(yamlSource, "utf8");
  if (bytes > MOVESPEC_LIMITS.yamlSourceBytes) {
    throw serviceError(
      Code.InvalidArgument,
      AuthoringReason.yamlTooLarge,
      `yaml_source is ${bytes} bytes; the limit is ${MOVESPEC_LIMITS.yamlSourceBytes}`,
      { field: "yaml_source", limit_bytes: MOVESPEC_LIMITS.yamlSourceBytes, size_bytes: bytes },
    );
  }
}

/** Page bounds shared by every listing: limit 1..200, offset >= 0 (never clamped). */
export const PAGE_LIMITS = { limitMin: 1, limitMax: 200, limitDefault: 20 } as const;

export function checkPage(limit: number, offset: bigint): { limit: number; offset: number } {
  const effective = limit === 0 ? PAGE_LIMITS.limitDefault : limit;
  if (effective < PAGE_LIMITS.limitMin || effective > PAGE_LIMITS.limitMax) {
    throw serviceError(Code.InvalidArgument, Reason.limitOutOfRange, "limit must be 1 to 200", {
      field: "limit",
      min: PAGE_LIMITS.limitMin,
      max: PAGE_LIMITS.limitMax,
    });
  }
  if (offset > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw serviceError(Code.InvalidArgument, Reason.limitOutOfRange, "offset is too large", {
      field: "offset",
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
    });
  }
  return { limit: effective, offset: Number(offset) };
}
