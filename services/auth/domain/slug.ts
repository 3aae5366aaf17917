/** A URL-safe, lowercase slug of a display name ("My Project!" -> "my-project"). */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/g, "");
  return slug === "" ? "project" : slug;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?$/;

export function isSlug(value: string): boolean {
  return SLUG.test(value);
}

/** `base`, then `base-2`, `base-3`, ... : candidates for a slug that must be unique. */
export function slugCandidate(base: string, attempt: number): string {
  return attempt === 0 ? base : `${base.slice(0, 55)}-${attempt + 1}`;
}
