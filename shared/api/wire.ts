import type { z } from 'zod';

/** What the reader needs of a zod schema (zod 4's definition objects). */
interface WireDef {
  type: string;
  shape?: Record<string, { _zod: { def: WireDef } }>;
  innerType?: { _zod: { def: WireDef } };
  element?: { _zod: { def: WireDef } };
}

/**
 * An answer as its schema types it, from its JSON (the text REST serves): amounts, decimal text
 * on the wire, become bigints; everything else is JSON already. The server's tRPC reads use it on
 * the text PostgreSQL wrote (server/api/rest/json-sql.ts), so both transports serve one rendering.
 * @example const detail = fromWire(tokenDetail, JSON.parse(text));
 */
export function fromWire<Schema extends z.ZodType>(schema: Schema, json: unknown): z.output<Schema> {
  return read((schema as unknown as { _zod: { def: WireDef } })._zod.def, json) as z.output<Schema>;
}

function read(def: WireDef, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  switch (def.type) {
    case 'bigint':
      return BigInt(value as string);
    case 'nullable':
    case 'optional':
      return read((def.innerType as { _zod: { def: WireDef } })._zod.def, value);
    case 'array': {
      const element = (def.element as { _zod: { def: WireDef } })._zod.def;
      return (value as unknown[]).map((item) => read(element, item));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const field = def.shape?.[key];
        out[key] = field ? read(field._zod.def, item) : item;
      }
      return out;
    }
    default:
      return value;
  }
}
