import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { ObjectStoreConfig } from '../config';
import { AppError } from '../errors';
import { contentTypeOfKey, isObjectKey } from './keys';

export interface StoredObject {
  size: number;
  contentType: string;
  /** The bytes; absent for HEAD. */
  body?: Buffer;
}

/** Where uploaded images live: a directory by default, an S3-compatible bucket in production. */
export interface ObjectStore {
  /** Idempotent: the key is the content hash, so writing it twice writes the same bytes. */
  put(key: string, bytes: Buffer): Promise<void>;
  get(key: string, options?: { head?: boolean }): Promise<StoredObject | undefined>;
  /**
   * Idempotent: deleting a missing object succeeds. Only the draft purge calls it, under the
   * database lock that decides no draft uses the key (server/metadata/purge-drafts.ts).
   */
  delete(key: string): Promise<void>;
}

function assertKey(key: string) {
  if (!isObjectKey(key)) throw new Error(`invalid object key ${JSON.stringify(key)}`);
}

/**
 * Filesystem store. Writes go to a temp file in the same directory, are fsynced, then renamed
 * into place: a reader sees the whole object or none of it, even across a crash.
 */
export function createFilesystemStore(dir: string): ObjectStore {
  return {
    async put(key, bytes) {
      assertKey(key);
      await mkdir(dir, { recursive: true });
      const target = path.join(dir, key);
      const temp = path.join(dir, `.${key}.${randomBytes(6).toString('hex')}.tmp`);
      const handle = await open(temp, 'w', 0o644);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        await rename(temp, target);
      } catch (error) {
        await unlink(temp).catch(() => {});
        throw error;
      }
    },
    async get(key, options = {}) {
      if (!isObjectKey(key)) return undefined;
      const file = path.join(dir, key);
      try {
        const info = await stat(file);
        if (!info.isFile()) return undefined;
        if (options.head) return { size: info.size, contentType: contentTypeOfKey(key) };
        const handle = await open(file, 'r');
        try {
          const body = await handle.readFile();
          return { size: body.length, contentType: contentTypeOfKey(key), body };
        } finally {
          await handle.close();
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async delete(key) {
      assertKey(key);
      await unlink(path.join(dir, key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    },
  };
}

/** S3-compatible store (AWS, MinIO, R2 …) through @aws-sdk/client-s3. */
export async function createS3Store(
  config: Extract<ObjectStoreConfig, { kind: 's3' }>,
): Promise<ObjectStore> {
  const { S3Client, PutObjectCommand, GetObjectCommand, HeadObjectCommand, DeleteObjectCommand } =
    await import('@aws-sdk/client-s3');
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle,
    ...(config.accessKeyId && config.secretAccessKey
      ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
      : {}),
  });
  const missing = (error: unknown) => {
    const name = (error as { name?: string }).name;
    return name === 'NoSuchKey' || name === 'NotFound';
  };
  // A deadline of ours on every request and its answer: a bucket that hangs (open sockets, no
  // answer) costs an upload or an uncached image this long, not for ever. A bucket that fails or
  // does not answer is a 503 to the user, whose retry may find it back.
  const { timeoutMs } = config;
  const deadline = () => ({ abortSignal: AbortSignal.timeout(timeoutMs) });
  const failed = (error: unknown): never => {
    if (missing(error)) throw error;
    throw Object.assign(
      new AppError('unavailable', 'the object store did not answer; retry shortly', undefined, {
        'retry-after': '1',
      }),
      { cause: error },
    );
  };
  return {
    async put(key, bytes) {
      assertKey(key);
      const put = new PutObjectCommand({
        Bucket: config.bucket,
        Key: key,
        Body: bytes,
        ContentType: contentTypeOfKey(key),
        CacheControl: 'public, max-age=31536000, immutable',
      });
      await client.send(put, deadline()).catch(failed);
    },
    async get(key, options = {}) {
      if (!isObjectKey(key)) return undefined;
      try {
        if (options.head) {
          const head = await client
            .send(new HeadObjectCommand({ Bucket: config.bucket, Key: key }), deadline())
            .catch(failed);
          return { size: Number(head.ContentLength ?? 0), contentType: contentTypeOfKey(key) };
        }
        // The body is read within the request's deadline.
        const object = await client
          .send(new GetObjectCommand({ Bucket: config.bucket, Key: key }), deadline())
          .catch(failed);
        const bytes = await object.Body?.transformToByteArray().catch(failed);
        const body = Buffer.from(bytes ?? new Uint8Array());
        return { size: body.length, contentType: contentTypeOfKey(key), body };
      } catch (error) {
        if (missing(error)) return undefined;
        throw error;
      }
    },
    async delete(key) {
      assertKey(key);
      // S3 answers 204 for a missing key too.
      await client
        .send(new DeleteObjectCommand({ Bucket: config.bucket, Key: key }), deadline())
        .catch(failed);
    },
  };
}

/**
 * The store for the configured backend. A process opens it once at start (server/process) and
 * passes it down; a script opens its own.
 * @example const objects = await openObjectStore(config.objects);
 */
export function openObjectStore(config: ObjectStoreConfig): Promise<ObjectStore> {
  return config.kind === 'filesystem'
    ? Promise.resolve(createFilesystemStore(config.dir))
    : createS3Store(config);
}
