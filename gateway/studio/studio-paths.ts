/** MoveSpec Studio's paths (anonymous files: the page signs in itself, with the public API). */
export const STUDIO_PATHS = /^\/studio(?:\/.*)?$/;
