import { Code, serviceError } from "@movement-detection/shared/errors";
import { MAX_ACTIVATION_DELAY_SECONDS } from "@movement-detection/shared/tokens";
import { AuthReason, Reason } from "../reasons.js";
import type { KeyRing } from "../signing/key-ring.js";

/** The admin RPCs on signing keys: rotate (database keys only) and list. */
export function createSigningKeys(deps: { ring: KeyRing; activationDelaySeconds: number }) {
  const { ring } = deps;
  return {
    sourceKind: ring.sourceKind,
    list: () => ring.states(),
    /** Makes a new key, published now and signing after the delay; returns its state. */
    async rotate(activateAfterSeconds: number | undefined) {
      if (
        activateAfterSeconds !== undefined &&
        activateAfterSeconds > MAX_ACTIVATION_DELAY_SECONDS
      ) {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldInvalid,
          `activate_after_seconds is at most ${MAX_ACTIVATION_DELAY_SECONDS} (a week)`,
          { field: "activate_after_seconds", max: MAX_ACTIVATION_DELAY_SECONDS },
        );
      }
      const kid = await ring.rotate(activateAfterSeconds ?? deps.activationDelaySeconds);
      if (kid === undefined) {
        throw serviceError(
          Code.FailedPrecondition,
          AuthReason.keysManagedExternally,
          "signing keys come from SIGNING_KEYS_DIR: rotate them there (see docs/auth.md)",
        );
      }
      const state = (await ring.states()).find((key) => key.kid === kid);
      if (!state) throw serviceError(Code.Internal, Reason.internal, "rotated key vanished");
      return state;
    },
  };
}

export type SigningKeys = ReturnType<typeof createSigningKeys>;
