/**
 * The PostgreSQL `application_name` of a test's own statements (its fixtures and checks through `t.db`) while
 * TEST_DATABASE_LOG is set (apps/api/test/database-log.ts): the statement log then tells them from the portal's, and
 * the PGlite set has to cover only the portal's SQL (scripts/pglite-set/shapes.ts leaves them out). A module of its
 * own: shapes.ts runs outside Vitest.
 */
export const TEST_SIDE_APPLICATION = 'irontech-test-side';
