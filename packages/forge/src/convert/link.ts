/**
 * An absolute URL under the root URL, for a path whose segments are already safe (names the forge
 * validated, or encoded by the caller). Joined as text: a response carries a dozen of these, and
 * parsing each with `new URL` was a measurable part of rendering a repository.
 */
export function link(rootUrl: URL, path: string): string {
  const root = rootUrl.href;
  return root.endsWith("/") ? `${root}${path}` : `${root}/${path}`;
}
