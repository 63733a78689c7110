import { Busboy } from '@fastify/busboy';
import { z } from 'zod';
import { decodeUtf8Field, MAX_IMAGE_BYTES } from '../../shared/metadata/draft-fields';
import { AppError, type ErrorDetail, isAppError } from '../errors';

/** Room for the text fields and multipart framing around the largest allowed image. */
export const MAX_UPLOAD_BYTES = MAX_IMAGE_BYTES + 64 * 1024;
const MAX_FIELD_BYTES = 4096;
const MAX_TEXT_FIELDS = 15;

/**
 * A parsed upload: the text fields as decoded strings and at most one image file. The REST adapter
 * hands this to the createDraft procedure, whose input it is.
 */
export const draftUploadSchema = z.object({
  fields: z.record(z.string(), z.string({ error: 'each form field must be text' })),
  file: z
    .object({
      bytes: z.instanceof(Uint8Array, { error: 'file.bytes must be a Uint8Array' }),
      filename: z.string(),
    })
    .optional(),
});
export type DraftUpload = z.output<typeof draftUploadSchema>;

const tooLarge = () =>
  new AppError(
    'payload_too_large',
    `upload exceeds ${MAX_UPLOAD_BYTES} bytes (image at most ${MAX_IMAGE_BYTES})`,
  );

/**
 * Reads a multipart/form-data body as a stream. Limits hold while reading, with or without a
 * Content-Length: the body is cut off at the cap and never buffered beyond it, so memory does
 * not grow with what a client sends. One file (field `image`), 16 parts, 15 text fields of at
 * most 4 KiB each. Text fields are decoded here from their raw bytes as strict UTF-8 (whatever
 * charset a part declares); a field that is not UTF-8 is a 400 naming it, never a silent U+FFFD.
 */
export async function readDraftUpload(request: Request): Promise<DraftUpload> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new AppError('unsupported_media_type', 'send multipart/form-data');
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > MAX_UPLOAD_BYTES) throw tooLarge();
  if (!request.body) throw new AppError('invalid_parameter', 'empty body');

  const reader = request.body.getReader();
  let parser: InstanceType<typeof Busboy>;
  try {
    parser = new Busboy({
      headers: { 'content-type': contentType },
      // Every part, text included, arrives as undecoded bytes: busboy itself would decode text in
      // a charset of the client's choosing and turn malformed UTF-8 into U+FFFD without a trace.
      isPartAFile: () => true,
      limits: { files: 16, parts: 16, fileSize: MAX_IMAGE_BYTES, headerPairs: 20 },
    });
  } catch {
    throw new AppError('invalid_parameter', 'malformed multipart/form-data header');
  }

  return new Promise<DraftUpload>((resolve, reject) => {
    const fields: Record<string, string> = {};
    const notUtf8: ErrorDetail[] = [];
    let file: DraftUpload['file'];
    const textNames = new Set<string>();
    let files = 0;
    let failed = false;
    const fail = (error: AppError) => {
      if (failed) return;
      failed = true;
      reader.cancel().catch(() => {});
      reject(error);
    };

    const readText = (name: string, stream: NodeJS.ReadableStream) => {
      if (textNames.size === MAX_TEXT_FIELDS)
        return fail(new AppError('invalid_parameter', 'too many form fields'));
      if (textNames.has(name))
        return fail(
          new AppError('invalid_parameter', `field ${name} given more than once`, [
            { field: name, message: 'given more than once' },
          ]),
        );
      textNames.add(name);
      const chunks: Buffer[] = [];
      let total = 0;
      stream.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > MAX_FIELD_BYTES)
          return fail(new AppError('payload_too_large', `field ${name} exceeds ${MAX_FIELD_BYTES} bytes`));
        chunks.push(chunk);
      });
      stream.on('end', () => {
        const text = decodeUtf8Field(Buffer.concat(chunks));
        if (text === undefined) notUtf8.push({ field: name, message: `${name} is not valid UTF-8` });
        else fields[name] = text;
      });
    };

    const readImage = (
      name: string,
      stream: NodeJS.ReadableStream & { truncated?: boolean },
      filename: string,
    ) => {
      if (++files > 1)
        return fail(
          new AppError('invalid_parameter', 'send exactly one image file', [
            { field: 'image', message: 'more than one file' },
          ]),
        );
      if (name !== 'image')
        return fail(
          new AppError('invalid_parameter', `unexpected file field ${name}; the image goes in "image"`, [
            { field: name, message: 'unexpected file' },
          ]),
        );
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () =>
        fail(new AppError('payload_too_large', `image exceeds ${MAX_IMAGE_BYTES} bytes`)),
      );
      stream.on('end', () => {
        if (!stream.truncated) file = { bytes: Buffer.concat(chunks), filename };
      });
    };

    parser.on(
      'file',
      (
        name: string,
        stream: NodeJS.ReadableStream & { truncated?: boolean },
        filename: string | undefined,
        _transferEncoding: string,
        mimeType: string,
      ) => {
        if (failed) return void stream.resume();
        // busboy's own rule for what a file is: a part with a filename, or declared binary.
        if (filename !== undefined || mimeType === 'application/octet-stream') {
          readImage(name, stream, filename ?? '');
        } else {
          readText(name, stream);
        }
        if (failed) stream.resume();
      },
    );
    parser.on('partsLimit', () => fail(new AppError('invalid_parameter', 'too many form parts')));
    parser.on('error', () => fail(new AppError('invalid_parameter', 'malformed multipart/form-data body')));
    parser.on('finish', () => {
      if (failed) return;
      if (notUtf8.length > 0)
        return fail(new AppError('invalid_parameter', 'text fields must be valid UTF-8', notUtf8));
      resolve({ fields, ...(file ? { file } : {}) });
    });

    (async () => {
      let total = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (failed) return;
        if (done) break;
        total += value.byteLength;
        if (total > MAX_UPLOAD_BYTES) return fail(tooLarge());
        if (!parser.write(Buffer.from(value.buffer, value.byteOffset, value.byteLength))) {
          await new Promise((resume) => parser.once('drain', resume));
        }
      }
      parser.end();
    })().catch((error: unknown) =>
      // A deadline of the HTTP front (408) keeps its code; anything else is a broken upload.
      fail(isAppError(error) ? error : new AppError('invalid_parameter', 'the upload was interrupted')),
    );
  });
}
