/** Paging and search helpers shared by the list queries. */
export function pageWindow(page: number, rowsPerPage: number): { limit: number; offset: number } {
  return { limit: rowsPerPage, offset: (page - 1) * rowsPerPage };
}

/** A LIKE pattern matching `search` anywhere, with the wildcards in it escaped. */
export function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
