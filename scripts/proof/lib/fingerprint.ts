/** What a refused call must leave as it was: whole rows of some tables (an md5 over them), the row counts of others. */
import type pg from 'pg';

export async function tableFingerprint(sql: pg.Client, whole: string[], counted: string[]): Promise<string[]> {
  const parts: string[] = [];
  for (const table of whole) {
    const r = await sql.query<{ h: string | null; n: number }>(
      `select md5(string_agg(to_jsonb(t)::text, '|' order by to_jsonb(t)::text)) as h, count(*)::int as n from ${table} t`,
    );
    parts.push(`${table}:${r.rows[0]!.n}:${r.rows[0]!.h}`);
  }
  for (const table of counted)
    parts.push(`${table}:${(await sql.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n}`);
  return parts;
}
