import { create } from "@bufbuild/protobuf";
import {
  type ListMoveSpecsRequest,
  type ListMoveSpecsResponse,
  ListMoveSpecsResponseSchema,
  Sort,
  type SyncEntriesRequest,
  Visibility,
} from "@movement-detection/proto/catalogue/v1";
import { Code, type ErrorReason, Reason, serviceError } from "@movement-detection/shared/errors";
import { isUuid } from "@movement-detection/shared/ids";
import type { Logger } from "@movement-detection/shared/logging";
import { KEYWORD_LIMITS, keywordsOf } from "../domain/keywords.js";
import { listingQuery } from "../domain/listing-query.js";
import type { EntryDoc } from "../store/entry-document.js";
import type { EntryStore } from "../store/entry-store.js";
import type { StarStore } from "../store/star-store.js";
import { entryFromSnapshot, entryMessage } from "../to-proto.js";
import type { ListingCache } from "./listing-cache.js";
import type { TotalsCache } from "./totals-cache.js";

export interface CatalogueDeps {
  readonly entries: EntryStore;
  readonly stars: StarStore;
  readonly cache: ListingCache<ListMoveSpecsResponse>;
  /** Totals by search words: every page of one listing shares its count. */
  readonly totals: TotalsCache;
  readonly logger: Logger;
  readonly now: () => Date;
}

export const PAGE = { limitDefault: 20, limitMax: 200 } as const;

function invalid(
  field: string,
  message: string,
  reason: ErrorReason = Reason.fieldInvalid,
  extra = {},
) {
  return serviceError(Code.InvalidArgument, reason, message, { field, ...extra });
}

/** Listing, search, stars, and the authoring service's pushes. */
export function createCatalogueOperations(deps: CatalogueDeps) {
  /** The entry if it is public, else NOT_FOUND (a private one answers as a missing one). */
  async function publicEntry(movespecId: string): Promise<EntryDoc> {
    const entry = isUuid(movespecId) ? await deps.entries.find(movespecId) : null;
    if (!entry || entry.visibility !== Visibility.PUBLIC) {
      throw serviceError(Code.NotFound, Reason.movespecNotFound, "movespec not found", {
        movespec_id: movespecId,
      });
    }
    return entry;
  }

  function organizationOf(organizationId: string): string {
    if (organizationId === "") {
      throw invalid("organization_id", "stars belong to an organization", Reason.fieldRequired);
    }
    if (!isUuid(organizationId)) throw invalid("organization_id", "not a UUID");
    return organizationId;
  }

  return {
    async list(request: ListMoveSpecsRequest): Promise<ListMoveSpecsResponse> {
      const limit = request.limit === 0 ? PAGE.limitDefault : request.limit;
      if (limit > PAGE.limitMax) {
        throw invalid("limit", "limit must be 1 to 200", Reason.limitOutOfRange, {
          min: 1,
          max: PAGE.limitMax,
        });
      }
      if (request.offset > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw invalid("offset", "offset is too large", Reason.limitOutOfRange, {
          min: 0,
          max: Number.MAX_SAFE_INTEGER,
        });
      }
      if (!(request.sort in Sort)) throw invalid("sort", "unknown sort");
      if ([...request.q].length > KEYWORD_LIMITS.queryLength) {
        throw invalid(
          "q",
          `q must be at most ${KEYWORD_LIMITS.queryLength} characters`,
          Reason.fieldInvalid,
          {
            max_length: KEYWORD_LIMITS.queryLength,
          },
        );
      }
      const words = keywordsOf(request.q);
      if (words.length > KEYWORD_LIMITS.queryWords) {
        throw invalid(
          "q",
          `q may hold at most ${KEYWORD_LIMITS.queryWords} words`,
          Reason.fieldInvalid,
          {
            max_words: KEYWORD_LIMITS.queryWords,
          },
        );
      }
      const offset = Number(request.offset);
      const key = `${words.join(" ")}|${request.sort}|${limit}|${offset}`;
      const cached = deps.cache.get(key);
      if (cached) return cached;
      const generation = deps.cache.generation();
      const totalGeneration = deps.totals.generation();
      const query = listingQuery(words, request.sort);
      const knownTotal = deps.totals.get(words);
      const [total, items] = await Promise.all([
        knownTotal ?? deps.entries.count(query),
        deps.entries.list(query, limit, offset),
      ]);
      if (knownTotal === undefined) deps.totals.set(words, total, totalGeneration);
      const response = create(ListMoveSpecsResponseSchema, {
        items: items.map(entryMessage),
        total,
        hasMore: offset + items.length < total,
        limit,
        offset: BigInt(offset),
      });
      deps.cache.set(key, response, generation);
      return response;
    },

    async starCounts(ids: readonly string[]): Promise<Record<string, number>> {
      const wanted = [...new Set(ids.filter(isUuid))].slice(0, 1000);
      const counts = await deps.entries.starCounts(wanted);
      return Object.fromEntries(wanted.map((id) => [id, counts.get(id) ?? 0]));
    },

    /** The admin tool stars for an organization; only public MoveSpecs can be starred this way. */
    async star(request: { organizationId: string; movespecId: string }, starred: boolean) {
      const organizationId = organizationOf(request.organizationId);
      const entry = await publicEntry(request.movespecId);
      const changed = starred
        ? await deps.stars.add(organizationId, entry._id, deps.now())
        : await deps.stars.remove(organizationId, entry._id);
      let count = entry.star_count;
      if (changed) {
        const updated = await deps.entries.addStars(entry._id, starred ? 1 : -1);
        deps.cache.invalidate();
        count = updated?.star_count ?? count;
      }
      return { starCount: Math.max(0, count), starred };
    },

    async sync(request: SyncEntriesRequest): Promise<Record<string, number>> {
      const stored: Record<string, number> = {};
      let applied = 0;
      for (const snapshot of request.entries) {
        if (!isUuid(snapshot.movespecId)) throw invalid("entries.movespec_id", "not a UUID");
        const entry = entryFromSnapshot(snapshot);
        const outcome = await deps.entries.upsertIfNewer(entry);
        stored[snapshot.movespecId] = outcome.storedRevision;
        if (outcome.applied) {
          applied += 1;
          const before = outcome.previous?.listed ? outcome.previous.keywords : undefined;
          deps.totals.entryChanged(before, entry.listed ? entry.keywords : undefined);
        }
      }
      if (applied > 0) deps.cache.invalidate();
      deps.logger.debug({ pushed: request.entries.length, applied }, "entries synced");
      return stored;
    },
  };
}

export type CatalogueOperations = ReturnType<typeof createCatalogueOperations>;
