/** Reads the contract's zod schemas just enough to build a plausible input and name its fields. */
import type { z } from 'zod';

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  entries?: Record<string, string>;
  values?: unknown[];
  options?: z.ZodType[];
  format?: string;
  minimum?: number;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under optional/nullable/default/pipe wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const d = defOf(s);
    if (
      (d.type === 'optional' ||
        d.type === 'nullable' ||
        d.type === 'default' ||
        d.type === 'prefault' ||
        d.type === 'readonly' ||
        d.type === 'nonoptional') &&
      d.innerType
    )
      s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else return s;
  }
  return s;
}

/** The fields of an object schema (empty for anything else). */
export function fieldsOf(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  if (!schema) return {};
  const d = defOf(unwrap(schema));
  return d.type === 'object' && d.shape ? d.shape : {};
}

/** A value the schema is likely to accept, chosen by type and field name. */
export function sample(schema: z.ZodType, name = ''): unknown {
  const d = defOf(unwrap(schema));
  switch (d.type) {
    case 'object':
      return Object.fromEntries(Object.entries(d.shape ?? {}).map(([k, v]) => [k, sample(v, k)]));
    case 'array':
      return d.element ? [sample(d.element, name)] : [];
    case 'enum':
      return Object.values(d.entries ?? {})[0];
    case 'literal':
      return d.values?.[0];
    case 'union':
      return d.options?.[0] ? sample(d.options[0], name) : null;
    case 'boolean':
      return false;
    case 'number':
    case 'int':
      return /duration/i.test(name) ? 1 : 1;
    case 'record':
      return {};
    case 'string': {
      if (d.format === 'email' || /email/i.test(name)) return 'fuzz@example.com';
      if (d.format === 'url' || /url/i.test(name)) return 'https://example.com/logo.png';
      if (/password/i.test(name)) return 'Fuzz-Password-1!';
      if (/code/i.test(name)) return '123456';
      if (/key|token/i.test(name)) return 'abcdef0123456789';
      if (/image/i.test(name)) return 'Debian 12';
      if (/name/i.test(name)) return 'Fuzz';
      return 'fuzz';
    }
    default:
      return 'fuzz';
  }
}
