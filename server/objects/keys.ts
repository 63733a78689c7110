import { createHash } from 'node:crypto';

const contentTypes = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' } as const;
export type ObjectExtension = keyof typeof contentTypes;

/**
 * Object keys are `<sha256 of the bytes>.<ext>`, nothing else: validation is one regular
 * expression, so `..`, slashes, encoded separators or NUL can never reach a path or an S3 key.
 */
const KEY = /^[0-9a-f]{64}\.(png|jpg|webp|gif)$/;

export function isObjectKey(key: string): boolean {
  return KEY.test(key);
}

export function objectKeyFor(bytes: Buffer, extension: ObjectExtension): string {
  return `${createHash('sha256').update(bytes).digest('hex')}.${extension}`;
}

/** The stored type follows from the key; it is never taken from a client. */
export function contentTypeOfKey(key: string): string {
  const extension = key.slice(key.lastIndexOf('.') + 1) as ObjectExtension;
  return contentTypes[extension];
}

/** Strong ETag: the content hash in the key. */
export function etagOfKey(key: string): string {
  return `"${key.slice(0, 64)}"`;
}
