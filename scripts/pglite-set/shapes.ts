/**
 * Which API files the PGlite run needs so that every SQL statement shape the suite sends also runs on the embedded
 * engine (issue 22 item 7; docs/testing.md "The HTTP suite once on PostgreSQL, a PGlite set beside it").
 *
 * Input: PostgreSQL's statement log of one api-postgres run (`log_statement=all`, `log_line_prefix='@%d@%a@ '`) and the
 * harness's database-to-file map (TEST_DATABASE_LOG, apps/api/test/database-log.ts), both written by run.sh; Vitest's
 * JSON report of the same run for each file's duration. Output: the files that must stay on PGlite (those named on
 * the command line with --keep, then a greedy cover: the file that adds the most shapes not yet covered per second
 * of its run, until every shape is covered; then any file whose shapes the others all send is dropped, the longest
 * first) and the rest, which PostgreSQL covers alone.
 *
 * A statement's shape: the tables it names, its keywords and clauses, functions, operators and casts; column lists,
 * qualified column names, aliases and values folded. So `select "a", "b" from "users" where "users"."email" = $1`
 * and the same with other columns are one shape; a new join, function, `for update`, `on conflict` or cast is another.
 *
 * Usage: node --import tsx scripts/pglite-set/shapes.ts <statement log> <databases.tsv> <report.json> [--keep FILE]...
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { TEST_SIDE_APPLICATION } from '../../apps/api/test/test-side-application.ts';

const KEYWORDS = new Set(
  (
    'select insert update delete from join left right inner outer full cross lateral on where group order by having ' +
    'limit offset returning into values set conflict do nothing with recursive as union all intersect except ' +
    'distinct case when then else end and or not in exists is null true false between like ilike any some for ' +
    'share nowait skip locked default asc desc nulls first last over partition window filter within begin commit ' +
    'rollback savepoint release transaction isolation level read committed serializable repeatable only ' +
    'create drop alter table index if listen notify unlisten truncate lock mode row rows using interval at time zone ' +
    'array excluded constraint primary key references cascade restrict check unique'
  ).split(' '),
);
/** Words after which a name is a table (kept), not a column (folded). */
const TABLE_BEFORE = new Set(['from', 'join', 'into', 'update', 'table', 'exists']);

type Token = { kind: 'word' | 'ident' | 'op' | 'punct' | 'value'; text: string };

function tokens(sql: string): Token[] {
  const out: Token[] = [];
  const re =
    /\s+|--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'|\$([A-Za-z_]*)\$[\s\S]*?\$\1\$|"(?:[^"]|"")*"|\$\d+|\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_$]*|::|[(),.;[\]]|[-+*/<>=~!@#%^&|`?:]+/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < sql.length) {
    re.lastIndex = at;
    m = re.exec(sql);
    if (!m) {
      at++;
      continue;
    }
    at = re.lastIndex;
    const t = m[0];
    if (/^\s/.test(t) || t.startsWith('--') || t.startsWith('/*')) continue;
    if (t.startsWith("'") || t.startsWith('$') || /^\d/.test(t)) out.push({ kind: 'value', text: '?' });
    else if (t.startsWith('"')) out.push({ kind: 'ident', text: t.slice(1, -1).replace(/""/g, '"') });
    else if (/^[A-Za-z_]/.test(t)) out.push({ kind: 'word', text: t.toLowerCase() });
    else if (/^[(),.;[\]]$/.test(t) || t === '::') out.push({ kind: 'punct', text: t });
    else out.push({ kind: 'op', text: t });
  }
  return out;
}

/** The statement's shape as a string (see the file's comment). */
export function shapeOf(sql: string): string {
  const ts = tokens(sql);
  const kept: string[] = [];
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i]!;
    const prev = ts[i - 1];
    const next = ts[i + 1];
    let text: string;
    if (t.kind === 'value' || t.text === 'default')
      text = '_'; // drizzle writes `default` for a column not given
    else if (t.kind === 'op') text = t.text;
    else if (t.kind === 'punct') text = t.text === '.' ? '' : t.text;
    else if (prev?.text === '::')
      text = t.text; // a cast's type
    else if (t.kind === 'word' && KEYWORDS.has(t.text)) text = t.text;
    else if (prev && TABLE_BEFORE.has(prev.text) && next?.text !== '.')
      text = `"${t.text}"`; // a table
    else if (next?.text === '(' && t.kind === 'word')
      text = `${t.text}(`; // a function
    else text = '_'; // a column, a qualified name's part, an alias
    if (text === '') continue;
    if (text === '(' && kept.at(-1)?.endsWith('(')) continue; // f( already says it
    kept.push(text);
  }
  // Fold lists: runs of folded names, values and commas are one; so are repeated rows of a values list.
  let shape = kept.join(' ');
  for (let before = ''; before !== shape;) {
    before = shape;
    shape = shape.replace(/_ (?:, )?_/g, '_').replace(/(\( [^()]* \))(?: , \1)+/g, '$1');
  }
  return shape;
}

/**
 * The portal's statements per database from the log: `@db@application@ LOG:  statement: …` / `execute <name>: …`,
 * continuation lines after. The test's own (its fixtures and checks: application TEST_SIDE_APPLICATION, the harness
 * gives them a pool of their own while measuring) are left out: the PGlite set has to cover the portal's SQL only.
 */
function statementsByDatabase(log: string): Map<string, string[]> {
  const byDb = new Map<string, string[]>();
  let current: { db: string; testSide: boolean; parts: string[] } | null = null;
  const flush = () => {
    if (current && !current.testSide) {
      const list = byDb.get(current.db) ?? [];
      list.push(current.parts.join('\n'));
      byDb.set(current.db, list);
    }
    current = null;
  };
  for (const line of log.split('\n')) {
    const m = /^@([^@]*)@([^@]*)@ LOG: {2}(?:statement|execute [^:]*): (.*)$/.exec(line);
    if (m) {
      flush();
      current = { db: m[1]!, testSide: m[2] === TEST_SIDE_APPLICATION, parts: [m[3]!] };
    } else if (current && line.startsWith('\t')) current.parts.push(line.slice(1));
    else flush();
  }
  flush();
  return byDb;
}

function main() {
  const args = process.argv.slice(2);
  const keep = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--keep') keep.add(args[++i]!);
    else positional.push(args[i]!);
  }
  const [logFile, mapFile, reportFile] = positional;
  if (!logFile || !mapFile || !reportFile) throw new Error('usage: shapes.ts <log> <databases.tsv> <report.json>');
  const fileOf = new Map(
    readFileSync(mapFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t') as [string, string]),
  );
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
    testResults: { name: string; startTime: number; endTime: number }[];
  };
  const seconds = new Map(
    report.testResults.map((r) => [relative(process.cwd(), r.name), (r.endTime - r.startTime) / 1000]),
  );
  const shapesOf = new Map<string, Set<string>>();
  for (const [db, statements] of statementsByDatabase(readFileSync(logFile, 'utf8'))) {
    const file = fileOf.get(db);
    if (!file) continue;
    const set = shapesOf.get(file) ?? new Set<string>();
    for (const s of statements) set.add(shapeOf(s));
    shapesOf.set(file, set);
  }
  const all = new Set([...shapesOf.values()].flatMap((s) => [...s]));
  const covered = new Set<string>();
  const chosen: string[] = [];
  const take = (file: string) => {
    chosen.push(file);
    for (const s of shapesOf.get(file) ?? []) covered.add(s);
  };
  for (const f of keep) take(f);
  const rest = new Set([...shapesOf.keys()].filter((f) => !keep.has(f)));
  while (covered.size < all.size) {
    let best: { file: string; score: number } | null = null;
    for (const f of rest) {
      const adds = [...shapesOf.get(f)!].filter((s) => !covered.has(s)).length;
      if (!adds) continue;
      const score = adds / Math.max(1, seconds.get(f) ?? 10);
      if (!best || score > best.score) best = { file: f, score };
    }
    if (!best) break;
    rest.delete(best.file);
    take(best.file);
  }
  // The greedy pass can take a file whose shapes later picks all send too: drop those, the longest first.
  const redundant = (file: string) =>
    [...shapesOf.get(file)!].every((s) => chosen.some((other) => other !== file && shapesOf.get(other)?.has(s)));
  const byLength = chosen.filter((f) => !keep.has(f)).sort((a, b) => (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0));
  for (const f of byLength) {
    if (!redundant(f)) continue;
    chosen.splice(chosen.indexOf(f), 1);
    rest.add(f);
  }
  const secs = (fs: Iterable<string>) => [...fs].reduce((a, f) => a + (seconds.get(f) ?? 0), 0).toFixed(0);
  console.log(`${shapesOf.size} files sent ${all.size} statement shapes.`);
  console.log(`\nPGlite needs ${chosen.length} files (${secs(chosen)} s on PostgreSQL):`);
  for (const f of chosen) console.log(`  ${keep.has(f) ? 'kept ' : 'cover'} ${f}`);
  console.log(`\nPostgreSQL covers ${rest.size} alone (${secs(rest)} s):`);
  for (const f of [...rest].sort()) console.log(`  '${f}',`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
